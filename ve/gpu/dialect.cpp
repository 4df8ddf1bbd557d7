// The two dialects' preludes: CUDA C++ (NVRTC) and OpenCL C 1.2 spelled as the same macros.
#include "ve/gpu/dialect.h"

namespace hassium::gpu {

Dialect Dialect::cuda() {
  Dialect d;
  d.language = Language::CUDA;
  d.prelude = R"(// dialect: CUDA C++
#define HS_KERNEL extern "C" __global__
#define HS_GLOBAL
#define HS_LOCAL __shared__
#define HS_FN static __device__ __forceinline__
#define HS_BARRIER() __syncthreads()
#define HS_GROUP_ID ((long long)blockIdx.x)
#define HS_LOCAL_ID ((long long)threadIdx.x)
#define HS_LOCAL_SIZE ((long long)blockDim.x)
#define HS_NUM_GROUPS ((long long)gridDim.x)
#define HS_CAS32(p, cmp, val) atomicCAS((int*)(p), (cmp), (val))
typedef unsigned char hs_bool;
typedef signed char hs_i8;
typedef short hs_i16;
typedef int hs_i32;
typedef long long hs_i64;
typedef unsigned char hs_u8;
typedef unsigned short hs_u16;
typedef unsigned int hs_u32;
typedef unsigned long long hs_u64;
typedef float hs_f32;
typedef double hs_f64;
HS_FN hs_f64 hs_f64_of(hs_i64 bits) { return __longlong_as_double(bits); }
HS_FN hs_f32 hs_f32_of(hs_i32 bits) { return __int_as_float(bits); }
HS_FN hs_i64 hs_bits_f64(hs_f64 x) { return __double_as_longlong(x); }
HS_FN hs_i32 hs_bits_f32(hs_f32 x) { return __float_as_int(x); }
)";
  return d;
}

Dialect Dialect::opencl() {
  Dialect d;
  d.language = Language::OPENCL;
  d.prelude = R"(// dialect: OpenCL C 1.2
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define HS_KERNEL __kernel
#define HS_GLOBAL __global
#define HS_LOCAL __local
#define HS_FN static inline
#define HS_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define HS_GROUP_ID ((long)get_group_id(0))
#define HS_LOCAL_ID ((long)get_local_id(0))
#define HS_LOCAL_SIZE ((long)get_local_size(0))
#define HS_NUM_GROUPS ((long)get_num_groups(0))
#define HS_CAS32(p, cmp, val) atomic_cmpxchg((volatile __global int*)(p), (cmp), (val))
typedef uchar hs_bool;
typedef char hs_i8;
typedef short hs_i16;
typedef int hs_i32;
typedef long hs_i64;
typedef uchar hs_u8;
typedef ushort hs_u16;
typedef uint hs_u32;
typedef ulong hs_u64;
typedef float hs_f32;
typedef double hs_f64;
HS_FN hs_f64 hs_f64_of(hs_i64 bits) { return as_double(bits); }
HS_FN hs_f32 hs_f32_of(hs_i32 bits) { return as_float(bits); }
HS_FN hs_i64 hs_bits_f64(hs_f64 x) { return as_long(x); }
HS_FN hs_i32 hs_bits_f32(hs_f32 x) { return as_int(x); }
)";
  return d;
}

} // namespace hassium::gpu
