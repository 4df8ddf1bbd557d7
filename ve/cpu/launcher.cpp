// launch: chunking of the split level and OpenMP, partial buffers of split reductions.
#include "ve/cpu/launcher.h"

#include <algorithm>

#include "core/interrupt.h"
#include "ve/cpu/openmp.h"

namespace hassium::cpu {

namespace {
constexpr int64_t kChunksPerThread = 4;

// Chunk c of n over [0, extent): equal parts, the first ones one longer.
std::pair<int64_t, int64_t> chunk_range(int64_t extent, int64_t n, int64_t c) {
  return {extent * c / n, extent * (c + 1) / n};
}

KernelError run_chunks(const KernelPlan& plan, KernelFn kernel, int64_t n, int threads) {
  const int64_t extent = plan.extent(plan.split);
  if (n <= 1) {
    KernelError err;
    kernel(0, extent, plan.ptrs.data(), plan.params.data(), 0, &err);
    return err;
  }
  std::vector<KernelError> errs(static_cast<size_t>(n));
  struct Chunks {
    const KernelPlan& plan;
    KernelFn kernel;
    int64_t extent, n;
    KernelError* errs;
  } chunks{plan, kernel, extent, n, errs.data()};
  openmp_parallel_for(
      n, threads,
      [](void* ctx, int64_t c) {
        const Chunks& k = *static_cast<const Chunks*>(ctx);
        if (interrupt_requested()) return; // the VEM throws Interrupted after the launch
        auto [lo, hi] = chunk_range(k.extent, k.n, c);
        k.kernel(lo, hi, k.plan.ptrs.data(), k.plan.params.data(), c, &k.errs[c]);
      },
      &chunks);
  for (const KernelError& e : errs)
    if (e.code != KERNEL_OK) return e;
  return {};
}
} // namespace

KernelError launch(KernelPlan& plan, const CompiledKernel& fns, int threads,
                   std::vector<double>& scratch) {
  if (plan.chunks > 1) {
    // Partial results: one buffer region per reduction output, chunks laid out one after another.
    size_t total = 0;
    for (const PlanArray& a : plan.arrays)
      if (a.role == ArrayRole::REDUCED && !a.contracted)
        total += size_t(plan.chunks * plan.partial_elems * dtype_size(a.dtype) + 7) / 8;
    if (scratch.size() < total) scratch.resize(total);
    size_t at = 0;
    for (const PlanArray& a : plan.arrays) {
      if (a.role != ArrayRole::REDUCED || a.contracted) continue;
      plan.ptrs[size_t(a.ptr)] = scratch.data() + at;
      at += size_t(plan.chunks * plan.partial_elems * dtype_size(a.dtype) + 7) / 8;
    }
    KernelError err = run_chunks(plan, fns.kernel, plan.chunks, threads);
    if (err.code == KERNEL_OK) fns.combine(plan.chunks, plan.ptrs.data(), plan.params.data());
    return err;
  }
  // Free to cut: a few chunks per thread, taken dynamically (a preempted thread on a busy
  // machine then delays one small chunk, not half the kernel).
  int64_t n = plan.chunks;
  if (n == 0)
    n = plan.total() < kParallelMin || threads <= 1
            ? 1
            : std::min<int64_t>(int64_t(threads) * kChunksPerThread, plan.extent(plan.split));
  return run_chunks(plan, fns.kernel, n, threads);
}

} // namespace hassium::cpu
