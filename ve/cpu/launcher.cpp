// launch: chunking of the split level and OpenMP, partial buffers of split reductions.
#include "ve/cpu/launcher.h"

#include <algorithm>

#include "core/error.h"
#include "core/interrupt.h"
#include "ve/cpu/openmp.h"

namespace hassium::cpu {

namespace {
constexpr int64_t kChunksPerThread = 4;

// Chunk c of n over [0, extent): equal parts, the first ones one longer.
std::pair<int64_t, int64_t> chunk_range(int64_t extent, int64_t n, int64_t c) {
  return {extent * c / n, extent * (c + 1) / n};
}

// Runs `run(begin, end, chunk, err)` over n chunks of the split level.
template <typename Run>
KernelError run_chunks(const KernelPlan& plan, const Run& run, int64_t n, int threads) {
  const int64_t extent = plan.extent(plan.split);
  if (n <= 1) {
    KernelError err;
    run(0, extent, 0, &err);
    return err;
  }
  std::vector<KernelError> errs(static_cast<size_t>(n));
  struct Chunks {
    const Run& run;
    int64_t extent, n;
    KernelError* errs;
  } chunks{run, extent, n, errs.data()};
  openmp_parallel_for(
      n, threads,
      [](void* ctx, int64_t c) {
        const Chunks& k = *static_cast<const Chunks*>(ctx);
        if (interrupt_requested()) return; // the VEM throws Interrupted after the launch
        auto [lo, hi] = chunk_range(k.extent, k.n, c);
        k.run(lo, hi, c, &k.errs[c]);
      },
      &chunks);
  for (const KernelError& e : errs)
    if (e.code != KERNEL_OK) return e;
  return {};
}

// Chunks of a block free to cut: a few per thread, taken dynamically (a preempted thread on a
// busy machine then delays one small chunk, not half the kernel).
int64_t free_chunks(const KernelPlan& plan, int threads) {
  return plan.total() < kParallelMin || threads <= 1
             ? 1
             : std::min<int64_t>(int64_t(threads) * kChunksPerThread, plan.extent(plan.split));
}
} // namespace

KernelError launch(KernelPlan& plan, const CompiledKernel& fns, int threads,
                   std::vector<double>& scratch) {
  auto run = [&](int64_t lo, int64_t hi, int64_t c, KernelError* err) {
    fns.kernel(lo, hi, plan.ptrs.data(), plan.params.data(), c, err);
  };
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
    KernelError err = run_chunks(plan, run, plan.chunks, threads);
    if (err.code == KERNEL_OK) fns.combine(plan.chunks, plan.ptrs.data(), plan.params.data());
    return err;
  }
  return run_chunks(plan, run, plan.chunks == 0 ? free_chunks(plan, threads) : plan.chunks,
                    threads);
}

KernelError launch(KernelPlan& plan, const InterpretedKernel& k, int threads) {
  HS_INTERNAL_ASSERT(plan.chunks <= 1) << "an interpreted block with partial results";
  auto run = [&](int64_t lo, int64_t hi, int64_t, KernelError* err) {
    k.run(lo, hi, plan.ptrs.data(), plan.params.data(), err);
  };
  return run_chunks(plan, run, plan.chunks == 0 ? free_chunks(plan, threads) : plan.chunks,
                    threads);
}

} // namespace hassium::cpu
