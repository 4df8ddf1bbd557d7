// Runtime helpers called from kernels: complex exp/log/sqrt through the C library (as NumPy
// does), and complex power with NumPy's exact cases for small integer exponents; each in the
// precision of its dtype.
#include "ve/cpu/runtime_helpers.h"

#include <cmath>
#include <complex>
#include <limits>

namespace {
using hassium::cpu::ComplexPair;

template <typename R> ComplexPair pack(std::complex<R> z) {
  return {double(z.real()), double(z.imag())};
}

template <typename R> std::complex<R> multiply(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// The division the kernels emit (ops_complex.cpp), so 1/z here rounds the same way.
template <typename R> std::complex<R> divide(std::complex<R> a, std::complex<R> b) {
  R abs_re = std::fabs(b.real()), abs_im = std::fabs(b.imag());
  if (abs_re >= abs_im) {
    if (abs_re == 0 && abs_im == 0) return {a.real() / abs_re, a.imag() / abs_re};
    R rat = b.imag() / b.real(), scl = R(1) / (b.real() + b.imag() * rat);
    return {(a.real() + a.imag() * rat) * scl, (a.imag() - a.real() * rat) * scl};
  }
  R rat = b.real() / b.imag(), scl = R(1) / (b.imag() + b.real() * rat);
  return {(a.real() * rat + a.imag()) * scl, (a.imag() * rat - a.real()) * scl};
}

// a ** b: 1 for b == 0; for a == 0, 0 when b's real part is positive (NumPy 2), else NaN; exact
// products for integer exponents below 100 in magnitude; the C library's cpow otherwise. In R's
// precision throughout, as NumPy's loop for the dtype (complex64 overflows where float does).
template <typename R> ComplexPair cpow(R are, R aim, R bre, R bim) {
  using C = std::complex<R>;
  const C a(are, aim), b(bre, bim);
  if (bre == 0 && bim == 0) return {1, 0};
  if (are == 0 && aim == 0) {
    if (bre > 0) return {0, 0};
    double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  if (bim == 0 && std::fabs(bre) < 100 && bre == std::trunc(bre)) {
    long n = long(bre);
    if (n == 1) return pack(a);
    if (n == 2) return pack(multiply(a, a));
    if (n == 3) return pack(multiply(a, multiply(a, a)));
    long m = n < 0 ? -n : n;
    C result(1, 0), power = a;
    for (long mask = 1;; mask <<= 1) {
      if (m & mask) result = multiply(result, power);
      if (m < (mask << 1)) break;
      power = multiply(power, power);
    }
    if (n < 0) result = divide(C(1, 0), result);
    return pack(result);
  }
  return pack(std::pow(a, b));
}
} // namespace

// The helpers of complex64 (suffix f) take and return doubles that hold floats exactly, and
// compute in float as NumPy's complex64 loops do.
extern "C" {

ComplexPair hs_cexp(double re, double im) {
  return pack(std::exp(std::complex<double>(re, im)));
}
ComplexPair hs_clog(double re, double im) {
  return pack(std::log(std::complex<double>(re, im)));
}
ComplexPair hs_csqrt(double re, double im) {
  return pack(std::sqrt(std::complex<double>(re, im)));
}
ComplexPair hs_cpow(double are, double aim, double bre, double bim) {
  return cpow<double>(are, aim, bre, bim);
}
ComplexPair hs_cexpf(double re, double im) {
  return pack(std::exp(std::complex<float>(float(re), float(im))));
}
ComplexPair hs_clogf(double re, double im) {
  return pack(std::log(std::complex<float>(float(re), float(im))));
}
ComplexPair hs_csqrtf(double re, double im) {
  return pack(std::sqrt(std::complex<float>(float(re), float(im))));
}
ComplexPair hs_cpowf(double are, double aim, double bre, double bim) {
  return cpow<float>(float(are), float(aim), float(bre), float(bim));
}

// Euclid's algorithm on magnitudes (NumPy's npy_gcdu*); lcm = a / gcd * b, wrapping.
uint64_t hs_gcd_u64(uint64_t a, uint64_t b) {
  while (a != 0) {
    uint64_t c = a;
    a = b % a;
    b = c;
  }
  return b;
}
uint64_t hs_lcm_u64(uint64_t a, uint64_t b) {
  uint64_t g = hs_gcd_u64(a, b);
  return g == 0 ? 0 : a / g * b;
}
}

namespace hassium::cpu {

std::span<const HelperSymbol> runtime_helpers() {
  static const HelperSymbol helpers[] = {
      {"hs_cexp", reinterpret_cast<void*>(&hs_cexp)},
      {"hs_clog", reinterpret_cast<void*>(&hs_clog)},
      {"hs_csqrt", reinterpret_cast<void*>(&hs_csqrt)},
      {"hs_cpow", reinterpret_cast<void*>(&hs_cpow)},
      {"hs_cexpf", reinterpret_cast<void*>(&hs_cexpf)},
      {"hs_clogf", reinterpret_cast<void*>(&hs_clogf)},
      {"hs_csqrtf", reinterpret_cast<void*>(&hs_csqrtf)},
      {"hs_cpowf", reinterpret_cast<void*>(&hs_cpowf)},
      {"hs_gcd_u64", reinterpret_cast<void*>(&hs_gcd_u64)},
      {"hs_lcm_u64", reinterpret_cast<void*>(&hs_lcm_u64)},
  };
  return helpers;
}

} // namespace hassium::cpu
