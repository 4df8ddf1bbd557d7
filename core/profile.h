// Profiling counters of the whole stack (HASSIUM_PROFILE=1 prints them at exit).
#pragma once

#include <cstdint>
#include <iosfwd>

namespace hassium {

// X(field, type, label): one list drives the struct, the sum and the printout.
#define HS_PROFILE_COUNTERS(X)                                                                     \
  X(flushes, int64_t, "flushes")                                                                   \
  X(instructions, int64_t, "instructions")                                                         \
  X(blocks, int64_t, "blocks")                                                                     \
  X(merge_cache_hits, int64_t, "merge-cache hits")                                                 \
  X(merge_cache_misses, int64_t, "merge-cache misses")                                             \
  X(kernels_compiled, int64_t, "kernels compiled")                                                 \
  X(kernel_memory_hits, int64_t, "kernel cache hits (memory)")                                     \
  X(kernel_disk_hits, int64_t, "kernel cache hits (disk)")                                         \
  X(pool_reuses, int64_t, "memory pool reuses")                                                    \
  X(pool_os_allocations, int64_t, "memory pool OS allocations")                                    \
  X(peak_bytes, int64_t, "peak bytes allocated")                                                   \
  X(fuse_seconds, double, "fusion time (s)")                                                       \
  X(compile_seconds, double, "compile time (s)")                                                   \
  X(execute_seconds, double, "execution time (s)")                                                 \
  X(flush_seconds, double, "flush time, total (s)")

struct ProfileCounters {
#define HS_X(field, type, label) type field = 0;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X

  ProfileCounters& operator+=(const ProfileCounters& o);
};

// One "label: value" line per counter, under a "hassium profile" heading.
void print_profile(std::ostream& os, const ProfileCounters& c);

} // namespace hassium
