// run_matmul: MATMUL through BLAS gemm/gemv (float, complex) or a plain loop (integers).
#include "ve/cpu/matmul.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/error.h"

namespace hassium::cpu {

namespace {
// A 2-D view as BLAS sees it: a pointer, whether it is stored transposed, the leading dimension.
struct Matrix {
  const void* data = nullptr;
  bool transposed = false;
  int64_t ld = 1;
};

// Element (i, j) of a 2-D view.
template <typename T> T& at(const View& v, int64_t i, int64_t j) {
  return static_cast<T*>(v.base->data)[v.offset + i * v.stride[0] + j * v.stride[1]];
}

// The view as a BLAS operand, or (when its strides do not allow it) a contiguous copy.
template <typename T> Matrix as_blas(const View& v, std::vector<T>& copy) {
  int64_t rows = v.shape[0], cols = v.shape[1];
  int64_t s0 = rows == 1 ? std::max<int64_t>(cols, 1) : v.stride[0];
  int64_t s1 = cols == 1 ? 1 : v.stride[1];
  T* origin = static_cast<T*>(v.base->data) + v.offset;
  if (s1 == 1 && s0 >= std::max<int64_t>(cols, 1)) return {origin, false, s0};
  int64_t t0 = rows == 1 ? 1 : v.stride[0];
  int64_t t1 = cols == 1 ? std::max<int64_t>(rows, 1) : v.stride[1];
  if (t0 == 1 && t1 >= std::max<int64_t>(rows, 1)) return {origin, true, t1};
  copy.resize(size_t(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) copy[size_t(i * cols + j)] = at<T>(v, i, j);
  return {copy.data(), false, std::max<int64_t>(cols, 1)};
}

// A product with one row (m = 1: x^T B) or one column (n = 1: A x) as a matrix-vector product:
// BLAS's gemm of one row or column packs the matrix for a product it then runs at vector speed
// (several times slower than gemv, and NumPy calls gemv there). `result` as gemm() has it, its
// elements `inc` apart. False when the vector's stride does not suit BLAS (not positive).
template <typename T>
bool matrix_vector(const Blas& blas, const View& a, const View& b, int64_t m, int64_t n, T* result,
                   int64_t inc) {
  std::vector<T> copy;
  if (n == 1) { // y = A x, x the column b
    const int64_t incx = b.shape[0] == 1 ? 1 : b.stride[0];
    if (incx <= 0) return false;
    Matrix A = as_blas<T>(a, copy);
    const T* x = static_cast<const T*>(b.base->data) + b.offset;
    const T* data = static_cast<const T*>(A.data);
    if (A.transposed) // stored as the (k x m) transpose
      blas_gemv<T>(blas, true, a.shape[1], m, data, A.ld, x, incx, result, inc);
    else
      blas_gemv<T>(blas, false, m, a.shape[1], data, A.ld, x, incx, result, inc);
    return true;
  }
  // m == 1: y^T = x^T B, x the row a: y = B^T x
  const int64_t incx = a.shape[1] == 1 ? 1 : a.stride[1];
  if (incx <= 0) return false;
  Matrix B = as_blas<T>(b, copy);
  const T* x = static_cast<const T*>(a.base->data) + a.offset;
  const T* data = static_cast<const T*>(B.data);
  if (B.transposed) // stored as the (n x k) transpose: y = S x
    blas_gemv<T>(blas, false, n, b.shape[0], data, B.ld, x, incx, result, inc);
  else
    blas_gemv<T>(blas, true, b.shape[0], n, data, B.ld, x, incx, result, inc);
  return true;
}

// The product as BLAS gemm computes it into `result` (leading dimension ldc); an empty inner
// dimension gives zeros there when `result` is the output itself.
template <typename T>
void matrix_matrix(const Blas& blas, const View& a, const View& b, int64_t m, int64_t n, T* result,
                   int64_t ldc, bool direct) {
  const int64_t k = a.shape[1];
  std::vector<T> ca, cb;
  Matrix A = as_blas<T>(a, ca), B = as_blas<T>(b, cb);
  if (k == 0) {
    if (direct)
      for (int64_t i = 0; i < m; ++i) std::fill(result + i * ldc, result + i * ldc + n, T(0));
    return;
  }
  // A matrix times its own transpose (X @ X.T, X.T @ X: one memory, the strides swapped), as
  // NumPy's dot and matmul compute it: syrk's upper triangle, mirrored (half the work of gemm,
  // and NumPy's bits).
  if (ca.empty() && cb.empty() && A.transposed != B.transposed && A.data == B.data &&
      A.ld == B.ld && m == n &&
      blas_syrk<T>(blas, A.transposed, n, k, static_cast<const T*>(A.data), A.ld, result, ldc)) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) result[j * ldc + i] = result[i * ldc + j];
    return;
  }
  blas_gemm<T>(blas, A.transposed, B.transposed, m, n, k, static_cast<const T*>(A.data), A.ld,
               static_cast<const T*>(B.data), B.ld, result, ldc);
}

template <typename T> void gemm(const Blas& blas, const View& out, const View& a, const View& b) {
  const int64_t m = out.shape[0], n = out.shape[1], k = a.shape[1];
  // BLAS writes straight into the output when it is row-major with unit column stride and
  // shares no element with an input; otherwise through a temporary of m x n elements.
  const bool direct = (n == 1 || out.stride[1] == 1) &&
                      (m == 1 || out.stride[0] >= std::max<int64_t>(n, 1)) && !overlaps(out, a) &&
                      !overlaps(out, b);
  std::vector<T> temp(direct ? 0 : size_t(m * n));
  T* result = direct ? static_cast<T*>(out.base->data) + out.offset : temp.data();
  // One row or one column: a matrix-vector product, the result's elements `inc` apart (along
  // the one column, n = 1, or the one row).
  const int64_t inc = !direct ? 1 : n == 1 ? (m == 1 ? 1 : out.stride[0]) : out.stride[1];
  const bool vector =
      k > 0 && (m == 1 || n == 1) && inc > 0 && matrix_vector<T>(blas, a, b, m, n, result, inc);
  if (!vector)
    matrix_matrix<T>(blas, a, b, m, n, result,
                     direct && m > 1 ? out.stride[0] : std::max<int64_t>(n, 1), direct);
  if (direct) return;
  // Through the temporary: the output may have any strides and may overlap an input.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) at<T>(out, i, j) = result[size_t(i * n + j)];
}

// Integers: products and sums wrap around, as in NumPy.
// (In uint64_t: modulo 2^64, then truncated to T, is the same as modulo 2^bits of T.)
template <typename T> void int_matmul(const View& out, const View& a, const View& b) {
  const int64_t m = out.shape[0], n = out.shape[1], k = a.shape[1];
  std::vector<uint64_t> result(size_t(m * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      uint64_t x = uint64_t(int64_t(at<T>(a, i, p)));
      for (int64_t j = 0; j < n; ++j)
        result[size_t(i * n + j)] += x * uint64_t(int64_t(at<T>(b, p, j)));
    }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) at<T>(out, i, j) = T(result[size_t(i * n + j)]);
}
} // namespace

void run_matmul(const Instruction& in, const Blas& blas) {
  HS_USER_ASSERT(in.is_view(1) && in.is_view(2)) << "MATMUL: both inputs must be arrays";
  const View &out = in.view(0), &a = in.view(1), &b = in.view(2);
  HS_USER_ASSERT(out.ndim() == 2 && a.ndim() == 2 && b.ndim() == 2)
      << "MATMUL: operands must be 2-D, got " << dims_text(out.shape) << ", " << dims_text(a.shape)
      << ", " << dims_text(b.shape);
  HS_USER_ASSERT(a.shape[1] == b.shape[0] && out.shape[0] == a.shape[0] &&
                 out.shape[1] == b.shape[1])
      << "MATMUL: shapes " << dims_text(a.shape) << " x " << dims_text(b.shape) << " -> "
      << dims_text(out.shape) << " do not match";
  if (out.size() == 0) return;
  switch (out.dtype()) {
  case DType::FLOAT32:
    return gemm<float>(blas, out, a, b);
  case DType::FLOAT64:
    return gemm<double>(blas, out, a, b);
  case DType::COMPLEX64:
    return gemm<std::complex<float>>(blas, out, a, b);
  case DType::COMPLEX128:
    return gemm<std::complex<double>>(blas, out, a, b);
  case DType::INT8:
    return int_matmul<int8_t>(out, a, b);
  case DType::INT16:
    return int_matmul<int16_t>(out, a, b);
  case DType::INT32:
    return int_matmul<int32_t>(out, a, b);
  case DType::INT64:
    return int_matmul<int64_t>(out, a, b);
  case DType::UINT8:
    return int_matmul<uint8_t>(out, a, b);
  case DType::UINT16:
    return int_matmul<uint16_t>(out, a, b);
  case DType::UINT32:
    return int_matmul<uint32_t>(out, a, b);
  case DType::UINT64:
    return int_matmul<uint64_t>(out, a, b);
  default:
    HS_USER_ERROR() << "MATMUL: " << dtype_name(out.dtype()) << " is not supported";
  }
}

} // namespace hassium::cpu
