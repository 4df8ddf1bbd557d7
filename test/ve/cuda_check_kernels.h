// Hand-written CUDA C kernels in the GPU dialect (ve/gpu/dialect.h prelude, params block last):
// compiled by NVRTC and checked by ptxas in test_cuda_nvrtc.cpp, run on a GPU by
// cuda_device_check.cpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hassium::cuda_check {

// name -> source (without the dialect's prelude). Every kernel takes its buffers, then
// `const hs_i64* params`; grid-stride loops over params[0] elements.
inline const std::vector<std::pair<std::string, std::string>>& kernels() {
  static const std::vector<std::pair<std::string, std::string>> list = {
      {"hs_triad", R"(
// a = b + s * c, s the float64 whose bits are params[1] (STREAM's triad: 24 bytes an element).
HS_KERNEL void hs_triad(HS_GLOBAL hs_f64* a, HS_GLOBAL const hs_f64* b,
                        HS_GLOBAL const hs_f64* c, HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  const hs_f64 s = hs_f64_of(params[1]);
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE)
    a[i] = b[i] + s * c[i];
}
)"},
      {"hs_copy", R"(
// a = b (16 bytes an element).
HS_KERNEL void hs_copy(HS_GLOBAL hs_f64* a, HS_GLOBAL const hs_f64* b,
                       HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE)
    a[i] = b[i];
}
)"},
      {"hs_muladd", R"(
// out = a * b + c, rounded twice (NVRTC runs with --fmad=false, as the CPU engine).
HS_KERNEL void hs_muladd(HS_GLOBAL hs_f64* out, HS_GLOBAL const hs_f64* a,
                         HS_GLOBAL const hs_f64* b, HS_GLOBAL const hs_f64* c,
                         HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE)
    out[i] = a[i] * b[i] + c[i];
}
)"},
      {"hs_sum", R"(
// partial[group] = sum of a grid-stride share of x: a tree in dynamic shared memory with
// barriers (the launch gives local_size * 8 bytes). Run again on the partials for the total.
extern __shared__ hs_f64 hs_sum_scratch[];
HS_KERNEL void hs_sum(HS_GLOBAL hs_f64* partial, HS_GLOBAL const hs_f64* x,
                      HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  hs_f64 acc = 0;
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE)
    acc += x[i];
  hs_sum_scratch[HS_LOCAL_ID] = acc;
  HS_BARRIER();
  for (hs_i64 half = HS_LOCAL_SIZE / 2; half > 0; half /= 2) {
    if (HS_LOCAL_ID < half) hs_sum_scratch[HS_LOCAL_ID] += hs_sum_scratch[HS_LOCAL_ID + half];
    HS_BARRIER();
  }
  if (HS_LOCAL_ID == 0) partial[HS_GROUP_ID] = hs_sum_scratch[0];
}
)"},
      {"hs_floordiv", R"(
// q = a // b and r = a % b with NumPy's rules for int64 (floor, sign of the divisor; 0 for b == 0).
HS_KERNEL void hs_floordiv(HS_GLOBAL hs_i64* q, HS_GLOBAL hs_i64* r, HS_GLOBAL const hs_i64* a,
                           HS_GLOBAL const hs_i64* b, HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE) {
    const hs_i64 x = a[i], y = b[i];
    if (y == 0) { q[i] = 0; r[i] = 0; continue; }
    hs_i64 d = x / y, m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) { d -= 1; m += y; }
    q[i] = d;
    r[i] = m;
  }
}
)"},
      {"hs_transpose", R"(
// out[y][x] = in[x][y] for an h x w `in` (params[0] = h, params[1] = w), on a 2-D grid.
HS_KERNEL void hs_transpose(HS_GLOBAL hs_f32* out, HS_GLOBAL const hs_f32* in,
                            HS_GLOBAL const hs_i64* params) {
  const hs_i64 h = params[0], w = params[1];
  const hs_i64 x = (hs_i64)blockIdx.x * blockDim.x + threadIdx.x;
  const hs_i64 y = (hs_i64)blockIdx.y * blockDim.y + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = in[x * w + y];
}
)"},
      {"hs_math", R"(
// out = exp(x) * sin(x) + sqrt(|x|) / (1 + log1p(|x|)): libdevice's double functions.
HS_KERNEL void hs_math(HS_GLOBAL hs_f64* out, HS_GLOBAL const hs_f64* x,
                       HS_GLOBAL const hs_i64* params) {
  const hs_i64 n = params[0];
  for (hs_i64 i = HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID; i < n;
       i += HS_NUM_GROUPS * HS_LOCAL_SIZE) {
    const hs_f64 v = x[i];
    out[i] = exp(v) * sin(v) + sqrt(fabs(v)) / (1.0 + log1p(fabs(v)));
  }
}
)"},
  };
  return list;
}

} // namespace hassium::cuda_check
