// MATMUL, the BLAS extension: out (m,n) = a (m,k) x b (k,n) on 2-D views of any strides.
#pragma once

#include "core/instruction.h"

namespace hassium::cpu {

// OpenBLAS gemm for float32/64 and complex64/128 (views it cannot address are copied to
// contiguous ones first); a wrapping integer loop for the integer dtypes.
void run_matmul(const Instruction& in);

} // namespace hassium::cpu
