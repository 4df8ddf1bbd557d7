// The OpenMP runtime of the launcher, loaded on first use: libgomp reads OMP_WAIT_POLICY only
// when it initializes, so the engine puts its wait policy into the environment first.
#pragma once

#include <cstdint>
#include <string>

#include "core/registry.h"

namespace hassium {

// How idle OpenMP threads wait for the next parallel region: PASSIVE sleeps at once (what a
// shared machine wants: short kernels do not fight spinning threads for the cores), ACTIVE
// spins (libgomp's own default: lowest latency on an otherwise idle machine).
enum class WaitPolicy : uint8_t { PASSIVE, ACTIVE };

// The registry of wait policies (id "cpu.wait_policy"): passive, active.
const Registry<WaitPolicy>& wait_policy_registry();

// What loading the runtime found and did.
struct OpenMpState {
  bool available = false;  // parallel regions run on libgomp's threads (else: serially)
  bool preloaded = false;  // libgomp was in the process already: its policy was fixed before
  std::string wait_policy; // OMP_WAIT_POLICY when libgomp initialized ("" = unset)
  std::string spin_count;  // GOMP_SPINCOUNT when libgomp initialized ("" = unset)
  std::string source;      // who chose: "hassium", "environment" or "preloaded"
  std::string error;       // why not available
};

// Loads libgomp once per process. The first call's policy is applied (setenv) unless the user
// set OMP_WAIT_POLICY or GOMP_SPINCOUNT; later calls return the first call's state.
const OpenMpState& load_openmp(WaitPolicy policy = WaitPolicy::PASSIVE);

// omp_get_max_threads() (loads the runtime with the default policy if nothing did yet); 1
// without the runtime.
int openmp_max_threads();

// Runs body(ctx, c) for every c in [0, n) on up to `threads` threads, each taking the next c
// until none is left (OpenMP's schedule(dynamic)); returns when all are done. Serial when
// n <= 1, threads <= 1 or without the runtime. `body` must not throw.
void openmp_parallel_for(int64_t n, int threads, void (*body)(void* ctx, int64_t c), void* ctx);

} // namespace hassium
