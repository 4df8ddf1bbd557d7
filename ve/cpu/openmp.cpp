// libgomp loaded with dlopen on first use, after the wait policy is put into the environment.
// Nothing links libgomp, so it is not initialized at program start (it reads OMP_WAIT_POLICY
// and GOMP_SPINCOUNT only then). Parallel regions enter it through GOMP_parallel, the call
// `#pragma omp parallel` compiles to (libgomp's documented ABI, also exported by LLVM's libomp).
#include "ve/cpu/openmp.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include <dlfcn.h>

#include "core/error.h"

namespace hassium {

const Registry<WaitPolicy>& wait_policy_registry() {
  static const Registry<WaitPolicy> registry(
      "cpu.wait_policy", "OpenMP wait policy",
      {{"passive", WaitPolicy::PASSIVE, "idle threads sleep at once"},
       {"active", WaitPolicy::ACTIVE, "idle threads spin (libgomp's default)"}});
  return registry;
}

namespace {
constexpr const char* kLibgomp = "libgomp.so.1";

struct GompApi {
  void (*parallel)(void (*)(void*), void*, unsigned, unsigned) = nullptr;
  int (*thread_num)() = nullptr;
  int (*num_threads)() = nullptr;
  int (*max_threads)() = nullptr;
};

GompApi g_api;
OpenMpState g_state;
std::once_flag g_once;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

template <typename F> bool resolve(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) g_state.error = std::string(kLibgomp) + " has no " + name;
  return fn != nullptr;
}

void load(WaitPolicy policy) {
  g_state.preloaded = dlopen(kLibgomp, RTLD_NOW | RTLD_NOLOAD) != nullptr;
  if (g_state.preloaded) {
    g_state.source = "preloaded"; // initialized already: the policy is what it read then
  } else if (!env("OMP_WAIT_POLICY").empty() || !env("GOMP_SPINCOUNT").empty()) {
    g_state.source = "environment";
  } else {
    // Process-wide and inherited by child processes, like any OMP_* variable the user sets.
    setenv("OMP_WAIT_POLICY", policy == WaitPolicy::PASSIVE ? "PASSIVE" : "ACTIVE", 0);
    g_state.source = "hassium";
  }
  g_state.wait_policy = env("OMP_WAIT_POLICY");
  g_state.spin_count = env("GOMP_SPINCOUNT");
  void* lib = dlopen(kLibgomp, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    g_state.error = e ? e : std::string("cannot load ") + kLibgomp;
    return;
  }
  g_state.available = resolve(lib, "GOMP_parallel", g_api.parallel) &&
                      resolve(lib, "omp_get_thread_num", g_api.thread_num) &&
                      resolve(lib, "omp_get_num_threads", g_api.num_threads) &&
                      resolve(lib, "omp_get_max_threads", g_api.max_threads);
}

// libgomp is not built with ThreadSanitizer, so the ordering its team start and end barrier give
// (the caller's writes before the region, the workers' before GOMP_parallel returns) is invisible
// to it. Under TSan the region says so itself: released before the start and by each worker at
// its end, acquired by each worker at its start and by the caller after the end.
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
void tsan_acquire(void* addr) {
  __tsan_acquire(addr);
}
void tsan_release(void* addr) {
  __tsan_release(addr);
}
#else
void tsan_acquire(void*) {}
void tsan_release(void*) {}
#endif

struct Region {
  int64_t n;
  void (*body)(void*, int64_t);
  void* ctx;
  std::atomic<int64_t> next{0};
};

// Run by every thread of the team: takes the next chunk until none is left (OpenMP's
// schedule(dynamic)), so a thread the OS preempts on a busy machine holds up one chunk, not
// its whole share.
void region_body(void* data) {
  Region& r = *static_cast<Region*>(data);
  tsan_acquire(&r);
  for (int64_t c = r.next++; c < r.n; c = r.next++) r.body(r.ctx, c);
  tsan_release(&r);
}
} // namespace

const OpenMpState& load_openmp(WaitPolicy policy) {
  std::call_once(g_once, load, policy);
  return g_state;
}

int openmp_max_threads() {
  return load_openmp().available ? g_api.max_threads() : 1;
}

void openmp_parallel_for(int64_t n, int threads, void (*body)(void*, int64_t), void* ctx) {
  if (n > 1 && threads > 1 && load_openmp().available) {
    Region r{n, body, ctx, {}};
    tsan_release(&r);
    g_api.parallel(region_body, &r, unsigned(std::min<int64_t>(threads, n)), 0);
    tsan_acquire(&r);
    return;
  }
  for (int64_t c = 0; c < n; ++c) body(ctx, c);
}

} // namespace hassium
