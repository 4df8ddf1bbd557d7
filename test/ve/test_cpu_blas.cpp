// Tests of ve/cpu/blas.cpp: [cpu] blas parsing, Debian's library (opened on demand) behind the
// 64-bit table (its products and its size check), and auto's fallback where no ILP64 OpenBLAS is
// loaded.
#include <dlfcn.h>

#include <climits>
#include <complex>
#include <vector>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "ve/cpu/blas.h"

using namespace hassium;
using namespace hassium::cpu;

namespace {
// C = A B (or A^T B) through the table against the plain triple loop, A m x k, B k x n.
template <typename T> void check_gemm(const Blas& b, bool trans_a) {
  const int64_t m = 3, k = 4, n = 5;
  std::vector<T> a(size_t(m * k)), x(size_t(k * n)), c(size_t(m * n), T(-1));
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(int(i % 5) - 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(int(i % 3) + 1);
  // Stored transposed: a holds A^T (k x m), leading dimension m.
  blas_gemm<T>(b, trans_a, false, m, n, k, a.data(), trans_a ? m : k, x.data(), n, c.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T want(0);
      for (int64_t q = 0; q < k; ++q)
        want += a[size_t(trans_a ? q * m + i : i * k + q)] * x[size_t(q * n + j)];
      REQUIRE(c[size_t(i * n + j)] == want);
    }
}

template <typename T> void check_gemv(const Blas& b) {
  const int64_t rows = 4, cols = 3;
  std::vector<T> a(static_cast<size_t>(rows * cols)), x(static_cast<size_t>(rows));
  std::vector<T> y(static_cast<size_t>(2 * rows), T(7));
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(int(i) - 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = T(int(i) + 1);
  blas_gemv<T>(b, false, rows, cols, a.data(), cols, x.data(), 1, y.data(), 2); // y = A x[:3]
  for (int64_t i = 0; i < rows; ++i) {
    T want(0);
    for (int64_t j = 0; j < cols; ++j) want += a[size_t(i * cols + j)] * x[size_t(j)];
    REQUIRE(y[size_t(2 * i)] == want);
    REQUIRE(y[size_t(2 * i + 1)] == T(7)); // the stride is kept
  }
  blas_gemv<T>(b, true, rows, cols, a.data(), cols, x.data(), 1, y.data(), 1); // y = A^T x
  for (int64_t j = 0; j < cols; ++j) {
    T want(0);
    for (int64_t i = 0; i < rows; ++i) want += a[size_t(i * cols + j)] * x[size_t(i)];
    REQUIRE(y[size_t(j)] == want);
  }
}
// The upper triangle of C = op(A) op(A)^T through syrk against the plain loop (the lower one
// untouched), A stored n x k (op = identity) or k x n (op = transpose).
template <typename T> void check_syrk(const Blas& b, bool trans) {
  const int64_t n = 4, k = 3;
  std::vector<T> a(static_cast<size_t>(n * k)), c(static_cast<size_t>(n * n), T(-7));
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(int(i % 7) - 3);
  auto elem = [&](int64_t i, int64_t q) { // op(A)(i, q)
    return a[size_t(trans ? q * n + i : i * k + q)];
  };
  REQUIRE(blas_syrk<T>(b, trans, n, k, a.data(), trans ? n : k, c.data(), n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T want(0);
      for (int64_t q = 0; q < k; ++q) want += elem(i, q) * elem(j, q);
      REQUIRE(c[size_t(i * n + j)] == (j >= i ? want : T(-7)));
    }
}
} // namespace

TEST_CASE("[cpu] blas: auto or linked, anything else named", "[ve][cpu][blas]") {
  CHECK(blas_registry().find("auto").value == BlasChoice::AUTO);
  CHECK(blas_registry().find("linked").value == BlasChoice::LINKED);
  REQUIRE_THROWS_WITH(blas_registry().find("mkl"),
                      Catch::Contains("'mkl'") && Catch::Contains("auto, linked"));
}

TEST_CASE("linked BLAS: gemm, gemv and syrk for every dtype through the 64-bit table",
          "[ve][cpu][blas]") {
  const Blas& b = blas(BlasChoice::LINKED);
  REQUIRE(b.linked);
  CHECK_THAT(b.description, Catch::Contains("Debian's OpenBLAS"));
  for (bool trans_a : {false, true}) {
    check_gemm<float>(b, trans_a);
    check_gemm<double>(b, trans_a);
    check_gemm<std::complex<float>>(b, trans_a);
    check_gemm<std::complex<double>>(b, trans_a);
  }
  check_gemv<float>(b);
  check_gemv<double>(b);
  check_gemv<std::complex<float>>(b);
  check_gemv<std::complex<double>>(b);
  for (bool trans : {false, true}) {
    check_syrk<float>(b, trans);
    check_syrk<double>(b, trans);
    check_syrk<std::complex<float>>(b, trans);
    check_syrk<std::complex<double>>(b, trans);
  }
}

TEST_CASE("linked BLAS: a size past 32 bits is an error naming it, before any call",
          "[ve][cpu][blas]") {
  const Blas& b = blas(BlasChoice::LINKED);
  const int64_t big = int64_t(INT_MAX) + 1;
  // No memory is touched: the size check comes first.
  REQUIRE_THROWS_AS(
      blas_gemm<double>(b, false, false, big, 1, 1, nullptr, 1, nullptr, 1, nullptr, 1), UserError);
  REQUIRE_THROWS_WITH(blas_gemv<float>(b, false, 1, 1, nullptr, big, nullptr, 1, nullptr, 1),
                      Catch::Contains(std::to_string(big)) && Catch::Contains("32-bit") &&
                          Catch::Contains("[cpu] blas"));
}

TEST_CASE("auto BLAS: the linked one where no ILP64 OpenBLAS is loaded", "[ve][cpu][blas]") {
  // This test program loads no NumPy: nothing exports the ILP64 names.
  REQUIRE(dlsym(RTLD_DEFAULT, "scipy_cblas_dgemm64_") == nullptr);
  REQUIRE(dlsym(RTLD_DEFAULT, "cblas_dgemm64_") == nullptr);
  const Blas& b = blas(BlasChoice::AUTO);
  CHECK(b.linked);
  check_gemm<double>(b, false);
}
