// The BLAS table: an ILP64 OpenBLAS found among the loaded libraries, or Debian's, opened on
// demand.
#include "ve/cpu/blas.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <complex>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <vector>

#include <cblas.h>

#include "core/error.h"
#include "ve/cpu/openmp.h"

namespace hassium::cpu {

void blas_threads_spin_briefly() {
  setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0);
}

const Registry<BlasChoice>& blas_registry() {
  static const Registry<BlasChoice> registry(
      "cpu.blas", "BLAS choice",
      {{"auto", BlasChoice::AUTO, "NumPy's OpenBLAS when the process has it, else the linked one"},
       {"linked", BlasChoice::LINKED, "Debian's OpenBLAS, opened at the first product"}});
  return registry;
}

namespace {
constexpr int kRowMajor = CblasRowMajor, kNoTrans = CblasNoTrans, kTrans = CblasTrans,
              kUpper = CblasUpper;

// A size for the linked LP64 library's int.
int lp64(int64_t v) {
  HS_USER_ASSERT(v <= INT_MAX && v >= INT_MIN)
      << "BLAS: " << v << " does not fit the 32-bit sizes of Debian's OpenBLAS ([cpu] blas)";
  return int(v);
}

auto order(int o) {
  return CBLAS_ORDER(o);
}
auto trans(int t) {
  return CBLAS_TRANSPOSE(t);
}

// Debian's LP64 OpenBLAS, opened on first use (not linked: its thread pool starts only for a
// program that runs a product through it, and under Python, where NumPy's BLAS serves, never).
// Its threads follow the engine's OpenMP wait policy (blas_threads_spin_briefly).
struct Lp64 {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_cgemm) cgemm = nullptr;
  decltype(&cblas_zgemm) zgemm = nullptr;
  decltype(&cblas_sgemv) sgemv = nullptr;
  decltype(&cblas_dgemv) dgemv = nullptr;
  decltype(&cblas_cgemv) cgemv = nullptr;
  decltype(&cblas_zgemv) zgemv = nullptr;
  decltype(&cblas_ssyrk) ssyrk = nullptr;
  decltype(&cblas_dsyrk) dsyrk = nullptr;
  decltype(&cblas_csyrk) csyrk = nullptr;
  decltype(&cblas_zsyrk) zsyrk = nullptr;
};
Lp64 g_lp64; // set once, by linked_blas() under blas()'s call_once

void open_lp64() {
  if (load_openmp().wait_policy == "PASSIVE") blas_threads_spin_briefly();
  void* h = nullptr;
  std::string tried;
  for (const char* name : {"libopenblas.so.0", HASSIUM_OPENBLAS_PATH}) {
    if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    tried += std::string(tried.empty() ? "" : "; ") + dlerror();
  }
  HS_USER_ASSERT(h) << "BLAS: no OpenBLAS to open for matrix products (" << tried
                    << "); install Debian's libopenblas0";
  auto sym = [&](const char* name) {
    void* f = dlsym(h, name);
    HS_USER_ASSERT(f) << "BLAS: the OpenBLAS opened lacks " << name;
    return f;
  };
  g_lp64.sgemm = reinterpret_cast<decltype(g_lp64.sgemm)>(sym("cblas_sgemm"));
  g_lp64.dgemm = reinterpret_cast<decltype(g_lp64.dgemm)>(sym("cblas_dgemm"));
  g_lp64.cgemm = reinterpret_cast<decltype(g_lp64.cgemm)>(sym("cblas_cgemm"));
  g_lp64.zgemm = reinterpret_cast<decltype(g_lp64.zgemm)>(sym("cblas_zgemm"));
  g_lp64.sgemv = reinterpret_cast<decltype(g_lp64.sgemv)>(sym("cblas_sgemv"));
  g_lp64.dgemv = reinterpret_cast<decltype(g_lp64.dgemv)>(sym("cblas_dgemv"));
  g_lp64.cgemv = reinterpret_cast<decltype(g_lp64.cgemv)>(sym("cblas_cgemv"));
  g_lp64.zgemv = reinterpret_cast<decltype(g_lp64.zgemv)>(sym("cblas_zgemv"));
  g_lp64.ssyrk = reinterpret_cast<decltype(g_lp64.ssyrk)>(sym("cblas_ssyrk"));
  g_lp64.dsyrk = reinterpret_cast<decltype(g_lp64.dsyrk)>(sym("cblas_dsyrk"));
  g_lp64.csyrk = reinterpret_cast<decltype(g_lp64.csyrk)>(sym("cblas_csyrk"));
  g_lp64.zsyrk = reinterpret_cast<decltype(g_lp64.zsyrk)>(sym("cblas_zsyrk"));
}

// Debian's library behind the 64-bit signatures.
Blas linked_blas() {
  open_lp64();
  Blas b;
  b.sgemm = [](int o, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* x, int64_t ldb, float beta, float* c, int64_t ldc) {
    g_lp64.sgemm(order(o), trans(ta), trans(tb), lp64(m), lp64(n), lp64(k), alpha, a, lp64(lda), x,
                 lp64(ldb), beta, c, lp64(ldc));
  };
  b.dgemm = [](int o, int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha,
               const double* a, int64_t lda, const double* x, int64_t ldb, double beta, double* c,
               int64_t ldc) {
    g_lp64.dgemm(order(o), trans(ta), trans(tb), lp64(m), lp64(n), lp64(k), alpha, a, lp64(lda), x,
                 lp64(ldb), beta, c, lp64(ldc));
  };
  b.cgemm = [](int o, int ta, int tb, int64_t m, int64_t n, int64_t k, const void* alpha,
               const void* a, int64_t lda, const void* x, int64_t ldb, const void* beta, void* c,
               int64_t ldc) {
    g_lp64.cgemm(order(o), trans(ta), trans(tb), lp64(m), lp64(n), lp64(k), alpha, a, lp64(lda), x,
                 lp64(ldb), beta, c, lp64(ldc));
  };
  b.zgemm = [](int o, int ta, int tb, int64_t m, int64_t n, int64_t k, const void* alpha,
               const void* a, int64_t lda, const void* x, int64_t ldb, const void* beta, void* c,
               int64_t ldc) {
    g_lp64.zgemm(order(o), trans(ta), trans(tb), lp64(m), lp64(n), lp64(k), alpha, a, lp64(lda), x,
                 lp64(ldb), beta, c, lp64(ldc));
  };
  b.sgemv = [](int o, int t, int64_t m, int64_t n, float alpha, const float* a, int64_t lda,
               const float* x, int64_t incx, float beta, float* y, int64_t incy) {
    g_lp64.sgemv(order(o), trans(t), lp64(m), lp64(n), alpha, a, lp64(lda), x, lp64(incx), beta, y,
                 lp64(incy));
  };
  b.dgemv = [](int o, int t, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
               const double* x, int64_t incx, double beta, double* y, int64_t incy) {
    g_lp64.dgemv(order(o), trans(t), lp64(m), lp64(n), alpha, a, lp64(lda), x, lp64(incx), beta, y,
                 lp64(incy));
  };
  b.cgemv = [](int o, int t, int64_t m, int64_t n, const void* alpha, const void* a, int64_t lda,
               const void* x, int64_t incx, const void* beta, void* y, int64_t incy) {
    g_lp64.cgemv(order(o), trans(t), lp64(m), lp64(n), alpha, a, lp64(lda), x, lp64(incx), beta, y,
                 lp64(incy));
  };
  b.zgemv = [](int o, int t, int64_t m, int64_t n, const void* alpha, const void* a, int64_t lda,
               const void* x, int64_t incx, const void* beta, void* y, int64_t incy) {
    g_lp64.zgemv(order(o), trans(t), lp64(m), lp64(n), alpha, a, lp64(lda), x, lp64(incx), beta, y,
                 lp64(incy));
  };
  b.ssyrk = [](int o, int u, int t, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               float beta, float* c, int64_t ldc) {
    g_lp64.ssyrk(order(o), CBLAS_UPLO(u), trans(t), lp64(n), lp64(k), alpha, a, lp64(lda), beta, c,
                 lp64(ldc));
  };
  b.dsyrk = [](int o, int u, int t, int64_t n, int64_t k, double alpha, const double* a,
               int64_t lda, double beta, double* c, int64_t ldc) {
    g_lp64.dsyrk(order(o), CBLAS_UPLO(u), trans(t), lp64(n), lp64(k), alpha, a, lp64(lda), beta, c,
                 lp64(ldc));
  };
  b.csyrk = [](int o, int u, int t, int64_t n, int64_t k, const void* alpha, const void* a,
               int64_t lda, const void* beta, void* c, int64_t ldc) {
    g_lp64.csyrk(order(o), CBLAS_UPLO(u), trans(t), lp64(n), lp64(k), alpha, a, lp64(lda), beta, c,
                 lp64(ldc));
  };
  b.zsyrk = [](int o, int u, int t, int64_t n, int64_t k, const void* alpha, const void* a,
               int64_t lda, const void* beta, void* c, int64_t ldc) {
    g_lp64.zsyrk(order(o), CBLAS_UPLO(u), trans(t), lp64(n), lp64(k), alpha, a, lp64(lda), beta, c,
                 lp64(ldc));
  };
  b.linked = true;
  b.description = "Debian's OpenBLAS (libopenblas.so.0, opened by hassium; 32-bit sizes)";
  return b;
}

int collect_name(dl_phdr_info* info, size_t, void* names) {
  if (info->dlpi_name && *info->dlpi_name)
    static_cast<std::vector<std::string>*>(names)->push_back(info->dlpi_name);
  return 0;
}

// The ILP64 CBLAS of `lib` (already loaded), its symbols named prefix + "cblas_?gem?" + "64_";
// false (and nothing kept open) when one of them is missing.
bool resolve_ilp64(const std::string& lib, const std::string& prefix, Blas& b) {
  void* h = dlopen(lib.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return false;
  auto sym = [&](const char* name) { return dlsym(h, (prefix + name + "64_").c_str()); };
  b.sgemm = reinterpret_cast<Blas::Sgemm>(sym("cblas_sgemm"));
  b.dgemm = reinterpret_cast<Blas::Dgemm>(sym("cblas_dgemm"));
  b.cgemm = reinterpret_cast<Blas::Zgemm>(sym("cblas_cgemm"));
  b.zgemm = reinterpret_cast<Blas::Zgemm>(sym("cblas_zgemm"));
  b.sgemv = reinterpret_cast<Blas::Sgemv>(sym("cblas_sgemv"));
  b.dgemv = reinterpret_cast<Blas::Dgemv>(sym("cblas_dgemv"));
  b.cgemv = reinterpret_cast<Blas::Zgemv>(sym("cblas_cgemv"));
  b.zgemv = reinterpret_cast<Blas::Zgemv>(sym("cblas_zgemv"));
  b.ssyrk = reinterpret_cast<Blas::Ssyrk>(sym("cblas_ssyrk")); // (optional)
  b.dsyrk = reinterpret_cast<Blas::Dsyrk>(sym("cblas_dsyrk"));
  b.csyrk = reinterpret_cast<Blas::Zsyrk>(sym("cblas_csyrk"));
  b.zsyrk = reinterpret_cast<Blas::Zsyrk>(sym("cblas_zsyrk"));
  b.ddot = reinterpret_cast<Blas::Ddot>(sym("cblas_ddot")); // (optional)
  if (b.sgemm && b.dgemm && b.cgemm && b.zgemm && b.sgemv && b.dgemv && b.cgemv && b.zgemv) {
    b.linked = false;
    Dl_info where{}; // the library that defines them (`lib` may only depend on it)
    const bool named = dladdr(reinterpret_cast<void*>(b.dgemm), &where) && where.dli_fname;
    b.description = "ILP64 OpenBLAS of the process (" + prefix + "cblas_*64_ in " +
                    (named ? std::string(where.dli_fname) : lib) + ")";
    return true; // the handle stays open: the table outlives any unloading
  }
  dlclose(h);
  return false;
}

// An ILP64 OpenBLAS among the libraries loaded now: NumPy's scipy-openblas64 (scipy_ prefix)
// first, then a plain OpenBLAS built with the 64_ suffix.
bool find_loaded_ilp64(Blas& b) {
  std::vector<std::string> names;
  dl_iterate_phdr(collect_name, &names);
  for (const char* prefix : {"scipy_", ""})
    for (const std::string& lib : names)
      if (resolve_ilp64(lib, prefix, b)) return true;
  return false;
}

Blas resolve(BlasChoice choice) {
  Blas b;
  if (choice == BlasChoice::AUTO && find_loaded_ilp64(b)) return b;
  return linked_blas();
}
} // namespace

const Blas& blas(BlasChoice choice) {
  static std::once_flag once[2];
  static Blas table[2];
  const int i = choice == BlasChoice::AUTO ? 0 : 1;
  std::call_once(once[i], [&] { table[i] = resolve(choice); });
  return table[i];
}

template <typename T>
void blas_gemm(const Blas& blas, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
               const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  const int ta = trans_a ? kTrans : kNoTrans, tb = trans_b ? kTrans : kNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    blas.sgemm(kRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    blas.dgemm(kRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  } else {
    const T one(1), zero(0);
    auto f = std::is_same_v<T, std::complex<float>> ? blas.cgemm : blas.zgemm;
    f(kRowMajor, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  }
}

template <typename T>
bool blas_syrk(const Blas& blas, bool trans, int64_t n, int64_t k, const T* a, int64_t lda, T* c,
               int64_t ldc) {
  const int t = trans ? kTrans : kNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    if (!blas.ssyrk) return false;
    blas.ssyrk(kRowMajor, kUpper, t, n, k, 1.0f, a, lda, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    if (!blas.dsyrk) return false;
    blas.dsyrk(kRowMajor, kUpper, t, n, k, 1.0, a, lda, 0.0, c, ldc);
  } else {
    auto f = std::is_same_v<T, std::complex<float>> ? blas.csyrk : blas.zsyrk;
    if (!f) return false;
    const T one(1), zero(0);
    f(kRowMajor, kUpper, t, n, k, &one, a, lda, &zero, c, ldc);
  }
  return true;
}

template <typename T>
void blas_gemv(const Blas& blas, bool trans, int64_t rows, int64_t cols, const T* a, int64_t ld,
               const T* x, int64_t incx, T* y, int64_t incy) {
  const int t = trans ? kTrans : kNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    blas.sgemv(kRowMajor, t, rows, cols, 1.0f, a, ld, x, incx, 0.0f, y, incy);
  } else if constexpr (std::is_same_v<T, double>) {
    blas.dgemv(kRowMajor, t, rows, cols, 1.0, a, ld, x, incx, 0.0, y, incy);
  } else {
    const T one(1), zero(0);
    auto f = std::is_same_v<T, std::complex<float>> ? blas.cgemv : blas.zgemv;
    f(kRowMajor, t, rows, cols, &one, a, ld, x, incx, &zero, y, incy);
  }
}

#define HS_BLAS_INSTANTIATE(T)                                                                     \
  template void blas_gemm<T>(const Blas&, bool, bool, int64_t, int64_t, int64_t, const T*,         \
                             int64_t, const T*, int64_t, T*, int64_t);                             \
  template void blas_gemv<T>(const Blas&, bool, int64_t, int64_t, const T*, int64_t, const T*,     \
                             int64_t, T*, int64_t);                                                \
  template bool blas_syrk<T>(const Blas&, bool, int64_t, int64_t, const T*, int64_t, T*, int64_t);
HS_BLAS_INSTANTIATE(float)
HS_BLAS_INSTANTIATE(double)
HS_BLAS_INSTANTIATE(std::complex<float>)
HS_BLAS_INSTANTIATE(std::complex<double>)
#undef HS_BLAS_INSTANTIATE

} // namespace hassium::cpu
