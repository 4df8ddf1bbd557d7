// Profiling counters of the whole stack (HASSIUM_PROFILE=1 prints them at exit).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/duration_histogram.h"

namespace hassium {

// X(field, type, label): one list drives the struct, the sum and the printout.
#define HS_PROFILE_COUNTERS(X)                                                                     \
  X(flushes, int64_t, "flushes")                                                                   \
  X(instructions, int64_t, "instructions")                                                         \
  X(blocks, int64_t, "blocks")                                                                     \
  X(partition_cost, int64_t, "partition cost (model units)")                                       \
  X(singleton_cost, int64_t, "singleton cost (model units)")                                       \
  X(bytes_moved, int64_t, "bytes moved")                                                           \
  X(merge_cache_hits, int64_t, "merge-cache hits")                                                 \
  X(merge_cache_misses, int64_t, "merge-cache misses")                                             \
  X(plans_reused, int64_t, "flush plans reused (exact repeats, moved views)")                      \
  X(plans_reshaped, int64_t, "  of them with other extents (blocks planned again)")                \
  X(plan_checks, int64_t, "  of them checked against the moved views' overlaps")                   \
  X(small_flushes, int64_t, "flushes partitioned by linear (too few bytes to search)")             \
  X(kernels_compiled, int64_t, "kernels compiled")                                                 \
  X(kernel_memory_hits, int64_t, "kernel cache hits (memory)")                                     \
  X(kernel_disk_hits, int64_t, "kernel cache hits (disk)")                                         \
  X(kernels_optimized, int64_t, "kernels optimized in the background (tiered)")                    \
  X(blocks_interpreted, int64_t, "blocks run by the interpreter (before their kernel compiled)")   \
  X(matvecs_paired, int64_t, "matrix-vector products run in another's pass over their matrix")     \
  X(cache_files_rejected, int64_t, "disk cache files rejected (damaged, foreign)")                 \
  X(cache_write_errors, int64_t, "disk cache writes failed")                                       \
  X(pool_reuses, int64_t, "memory pool reuses")                                                    \
  X(pool_os_allocations, int64_t, "memory pool OS allocations")                                    \
  X(pool_cuts, int64_t, "memory pool blocks cut to a smaller request")                             \
  X(peak_bytes, int64_t, "peak bytes allocated")                                                   \
  X(device_copies_in, int64_t, "copies host -> device")                                            \
  X(device_bytes_in, int64_t, "bytes host -> device")                                              \
  X(device_copies_out, int64_t, "copies device -> host")                                           \
  X(device_bytes_out, int64_t, "bytes device -> host")                                             \
  X(device_launches, int64_t, "device kernel launches")                                            \
  X(device_syncs, int64_t, "device synchronizations")                                              \
  X(device_fallback_blocks, int64_t, "blocks the GPU engine ran on the CPU engine")                \
  X(device_peak_bytes, int64_t, "device peak bytes")                                               \
  X(cluster_ranks, int64_t, "cluster ranks")                                                       \
  X(cluster_bytes_sent, int64_t, "cluster bytes sent (all ranks)")                                 \
  X(cluster_bytes_received, int64_t, "cluster bytes received (all ranks)")                         \
  X(cluster_messages_sent, int64_t, "cluster messages sent (all ranks)")                           \
  X(cluster_messages_received, int64_t, "cluster messages received (all ranks)")                   \
  X(cluster_program_bytes, int64_t, "cluster program broadcast bytes (all ranks)")                 \
  X(cluster_collectives, int64_t, "cluster collectives (all ranks)")                               \
  X(cluster_fallbacks, int64_t, "cluster instructions run on rank 0 (not distributed)")            \
  X(cluster_wait_seconds, double, "cluster time waiting for messages, all ranks (s)")              \
  X(cluster_overlap_elements, int64_t, "cluster elements computed while messages travel")          \
  X(cluster_boundary_elements, int64_t, "cluster elements computed after the wait")                \
  X(cluster_ready_exchanges, int64_t, "cluster exchanges complete when the overlap ended")         \
  X(cluster_local_elements, int64_t, "cluster elements computed by the ranks' local programs")     \
  X(fuse_seconds, double, "fusion time (s)")                                                       \
  X(compile_seconds, double, "compile time (s)")                                                   \
  X(background_compile_seconds, double, "background compile time (s)")                             \
  X(execute_seconds, double, "execution time (s)")                                                 \
  X(flush_seconds, double, "flush time, total (s)")

// One distinct kernel (a fused block's bytecode, bases renamed a0, a1, ... by first use) and the
// time the engine spent running it, compilation excluded.
struct KernelTime {
  std::string bytecode; // a .hsb program: `.base` lines, then the block's instructions
  int64_t runs = 0;
  double seconds = 0; // total over the runs
  int64_t bytes = 0;  // moved per run: the bytes of the views it reads and writes in memory
};

// The figures of HASSIUM_PROFILE, hassium.profile() (a dict with these names) and
// hassium::profile(). singleton_cost, bytes_moved and slowest_kernels are gathered only while
// profiling is on ([profile] enabled / HASSIUM_PROFILE=1); they stay 0 and empty otherwise.
//   partition_cost   the cost model's figure for the partitions the fuser chose, summed
//   singleton_cost   the same model's figure for one block per instruction, summed
//   bytes_moved      bytes the kernels read and wrote in memory (contracted bases excluded)
struct ProfileCounters {
#define HS_X(field, type, label) type field = 0;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  // The slowest kernels, slowest first, at most kMaxSlowestKernels.
  std::vector<KernelTime> slowest_kernels;
  // Compile time per kernel, by tier (ve/cpu/jit_compiler.h: a fast-tier batch's time shared
  // by its kernels; the optimized tier's on the background thread, or in the foreground
  // without tiered compilation). Loads from the disk cache are not compiles.
  DurationHistogram fast_compiles, optimized_compiles;
  static constexpr size_t kMaxSlowestKernels = 10;

  // Sums the counters (peak_bytes: the larger) and merges the kernel lists.
  ProfileCounters& operator+=(const ProfileCounters& o);
  // Hits over lookups (0 when there were none).
  double merge_cache_hit_rate() const;
  // Kernels found in the memory or disk cache over kernels needed (0 when none were).
  double kernel_cache_hit_rate() const;
  // partition_cost / singleton_cost (0 when the singleton cost was not gathered).
  double fused_to_singleton() const;
};

// Sorts by seconds (slowest first) and keeps the first `n`.
void keep_slowest(std::vector<KernelTime>& kernels, size_t n);

// The report HASSIUM_PROFILE prints at exit: one "label: value" line per counter under a
// "hassium profile" heading, then the rates, then the slowest kernels with their bytecode.
void print_profile(std::ostream& os, const ProfileCounters& c);

} // namespace hassium
