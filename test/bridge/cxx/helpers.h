// Shared helpers of the C++ API tests: reproducible sample data and comparisons with loops.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "hassium/hassium.h"

namespace hstest {

// n values of T in a small range (no overflow in the tests' arithmetic); nonzero: no zeros.
template <typename T> std::vector<T> sample(int64_t n, uint64_t seed, bool nonzero = false) {
  std::mt19937_64 rng(seed);
  std::vector<T> v;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v.push_back(rng() % 2 == 1);
    } else if constexpr (std::is_integral_v<T>) {
      int64_t x = std::is_signed_v<T> ? int64_t(rng() % 41) - 20 : int64_t(rng() % 41);
      if (nonzero && x == 0) x = 3;
      v.push_back(T(x));
    } else if constexpr (std::is_floating_point_v<T>) {
      double x = std::uniform_real_distribution<double>(-10, 10)(rng);
      if (nonzero && x == 0) x = 0.5;
      v.push_back(T(x));
    } else {
      using R = typename T::value_type;
      std::uniform_real_distribution<double> d(-3, 3);
      double re = d(rng), im = d(rng);
      v.push_back(T(R(re), R(im)));
    }
  }
  return v;
}

template <typename T>
hassium::array<T> make(const hassium::shape_type& shape, uint64_t seed, bool nonzero = false) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return hassium::array<T>(shape, sample<T>(n, seed, nonzero));
}

// Equal within a relative tolerance (exact for tol 0); NaNs equal NaNs.
template <typename T> bool close(T a, T b, double tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::abs(double(a) - double(b)) <= tol * std::max(1.0, std::abs(double(b)));
  } else if constexpr (hassium::is_std_complex<T>::value) {
    return close(a.real(), b.real(), tol) && close(a.imag(), b.imag(), tol);
  } else {
    return a == b;
  }
}

template <typename T> std::string text(T v) {
  if constexpr (hassium::is_std_complex<T>::value)
    return "(" + std::to_string(v.real()) + "," + std::to_string(v.imag()) + ")";
  else if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else
    return std::to_string(v);
}

// The array equals the expected values (row-major) element by element.
template <typename T>
void check_values(const hassium::array<T>& a, const std::vector<T>& expected, double tol = 0) {
  std::vector<T> got = a.to_vector();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    T g = got[i], e = expected[i];
    INFO("element " << i << ": got " << text(g) << ", expected " << text(e));
    CHECK(close(g, e, tol));
  }
}

// The message of the hassium::error that f throws ("" when it throws none).
template <typename F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const hassium::error& e) {
    return e.what();
  }
  return "";
}

} // namespace hstest
