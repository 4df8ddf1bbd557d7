// Dialect: the thin layer in which CUDA C and OpenCL C differ (qualifiers, index builtins,
// barriers, type names, bit casts, atomics); the kernel generator (ve/gpu/kernel_source.h) writes
// everything else once, in terms of the HS_* macros and hs_* types the dialect's prelude defines.
#pragma once

#include <string>

namespace hassium::gpu {

enum class Language { CUDA, OPENCL };

struct Dialect {
  Language language = Language::OPENCL;
  // Text before every kernel: the macros HS_KERNEL (before a kernel's `void`), HS_GLOBAL
  // (pointer to device memory), HS_LOCAL (group memory), HS_FN (a helper function),
  // HS_BARRIER(), HS_GROUP_ID, HS_LOCAL_ID, HS_LOCAL_SIZE, HS_NUM_GROUPS (dimension 0),
  // HS_CAS32(p, cmp, val) (atomic compare-and-swap of an int in device memory), the bit casts
  // hs_f64_of(hs_i64) / hs_f32_of(hs_i32), and the types hs_bool, hs_i8 ... hs_u64, hs_f32,
  // hs_f64. The generator's shared helpers (ve/gpu/prelude.cpp) follow it.
  std::string prelude;

  static Dialect cuda();
  static Dialect opencl();
};

} // namespace hassium::gpu
