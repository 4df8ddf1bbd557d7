// The BLAS the CPU engine calls: NumPy's own OpenBLAS when the process has it, else Debian's.
#pragma once

#include <cstdint>
#include <string>

#include "core/registry.h"

namespace hassium::cpu {

// [cpu] blas. AUTO: an ILP64 OpenBLAS already loaded in the process (NumPy's wheels bring
// scipy-openblas64: `scipy_cblas_dgemm64_` & co.), so that a Python program has one BLAS, one
// BLAS thread pool and NumPy's own results; otherwise Debian's LP64 OpenBLAS, which hassium opens
// (dlopen) at the first product that needs it. LINKED: always Debian's.
enum class BlasChoice : uint8_t { AUTO, LINKED };

// The registry of BLAS choices (id "cpu.blas"): auto, linked.
const Registry<BlasChoice>& blas_registry();

// The CBLAS entry points, row-major, with 64-bit sizes (Debian's LP64 library is reached
// through adapters that check each size fits its 32-bit int).
struct Blas {
  using Sgemm = void (*)(int, int, int, int64_t, int64_t, int64_t, float, const float*, int64_t,
                         const float*, int64_t, float, float*, int64_t);
  using Dgemm = void (*)(int, int, int, int64_t, int64_t, int64_t, double, const double*, int64_t,
                         const double*, int64_t, double, double*, int64_t);
  using Zgemm = void (*)(int, int, int, int64_t, int64_t, int64_t, const void*, const void*,
                         int64_t, const void*, int64_t, const void*, void*, int64_t);
  using Sgemv = void (*)(int, int, int64_t, int64_t, float, const float*, int64_t, const float*,
                         int64_t, float, float*, int64_t);
  using Dgemv = void (*)(int, int, int64_t, int64_t, double, const double*, int64_t, const double*,
                         int64_t, double, double*, int64_t);
  using Zgemv = void (*)(int, int, int64_t, int64_t, const void*, const void*, int64_t, const void*,
                         int64_t, const void*, void*, int64_t);
  using Ssyrk = void (*)(int, int, int, int64_t, int64_t, float, const float*, int64_t, float,
                         float*, int64_t);
  using Dsyrk = void (*)(int, int, int, int64_t, int64_t, double, const double*, int64_t, double,
                         double*, int64_t);
  using Zsyrk = void (*)(int, int, int, int64_t, int64_t, const void*, const void*, int64_t,
                         const void*, void*, int64_t);
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  Zgemm cgemm = nullptr, zgemm = nullptr;
  Sgemv sgemv = nullptr;
  Dgemv dgemv = nullptr;
  Zgemv cgemv = nullptr, zgemv = nullptr;
  // A matrix times its own transpose, as NumPy computes it (optional: gemm where absent).
  Ssyrk ssyrk = nullptr;
  Dsyrk dsyrk = nullptr;
  Zsyrk csyrk = nullptr, zsyrk = nullptr;
  // The dot of two vectors (positive increments), only from the process's own ILP64 OpenBLAS
  // (NumPy's): the Python frontend computes a small ready `x @ y` with it as NumPy's DOUBLE_dot
  // does, without NumPy's dispatch (null with Debian's library: its results may differ).
  using Ddot = double (*)(int64_t, const double*, int64_t, const double*, int64_t);
  Ddot ddot = nullptr;
  bool linked = true;      // Debian's OpenBLAS, opened by hassium (else one found in the process)
  std::string description; // which library, for `hassium info` and the tests
};

// OpenBLAS's idle threads, under [cpu] wait_policy = passive: OPENBLAS_THREAD_TIMEOUT, unless set,
// becomes 20 (an idle thread spins 2**20 cycles, ~0.3 ms, then sleeps; OpenBLAS's default 2**28,
// ~0.1 s after start-up and after every product, takes the cores the fused kernels need, and
// 2**4 makes every product of a loop wake its threads). OpenBLAS reads it when it loads: the
// Python module calls this before NumPy loads, and the engine before it opens Debian's.
void blas_threads_spin_briefly();

// The BLAS for `choice`, resolved on the first call for that choice (AUTO looks through the
// libraries loaded at that moment: under Python, NumPy is loaded before the first flush).
const Blas& blas(BlasChoice choice);

// C = op(A) op(B) (m x n, k inner; leading dimensions as row-major CBLAS has them), for T in
// float, double, std::complex<float>, std::complex<double>.
template <typename T>
void blas_gemm(const Blas& blas, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
               const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc);

// The upper triangle of C = op(A) op(A)^T (n x n, k inner; A row-major as stored, op(A) = A^T
// when trans), as NumPy's dot and matmul compute a matrix times its transpose. False (nothing
// written) when the library has no syrk for T.
template <typename T>
bool blas_syrk(const Blas& blas, bool trans, int64_t n, int64_t k, const T* a, int64_t lda, T* c,
               int64_t ldc);
// y = op(A) x, A row-major (rows x cols, leading dimension ld); T as blas_gemm.
template <typename T>
void blas_gemv(const Blas& blas, bool trans, int64_t rows, int64_t cols, const T* a, int64_t ld,
               const T* x, int64_t incx, T* y, int64_t incy);

} // namespace hassium::cpu
