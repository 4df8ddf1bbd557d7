// The kernel ABI: the C signatures of generated functions and the error record they fill.
#pragma once

#include <cstdint>

namespace hassium::cpu {

// Codes a kernel returns when data is bad (0 = ok); the host turns them into UserErrors.
enum KernelErrorCode : int32_t {
  KERNEL_OK = 0,
  KERNEL_INDEX_OUT_OF_RANGE = 1, // value = the index, bound = the size it must stay below
  KERNEL_NEGATIVE_INT_POWER = 2, // value = the exponent
};

// What a kernel writes to its error record (the host reads it after a nonzero return).
struct KernelError {
  int64_t code = 0;
  int64_t value = 0;
  int64_t bound = 0;
};

// The kernel: runs levels [begin, end) of the plan's split level (the other levels in full);
// `chunk` selects the partial results a split reduction writes. Returns a KernelErrorCode
// (and fills *err) on bad data.
using KernelFn = int32_t (*)(int64_t begin, int64_t end, void* const* ptrs, const int64_t* params,
                             int64_t chunk, KernelError* err);
// Combines `nchunks` partial results of every reduction into its real output, in chunk order.
using CombineFn = void (*)(int64_t nchunks, void* const* ptrs, const int64_t* params);

// Names the generated functions carry before the compiler gives them unique ones.
inline constexpr const char* kKernelName = "hs_kernel";
inline constexpr const char* kCombineName = "hs_combine";

} // namespace hassium::cpu
