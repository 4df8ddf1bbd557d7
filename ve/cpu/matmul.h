// MATMUL, the BLAS extension: out (m,n) = a (m,k) x b (k,n) on 2-D views of any strides.
#pragma once

#include "core/instruction.h"
#include "ve/cpu/blas.h"

namespace hassium::cpu {

// BLAS gemm (gemv for one row or column) for float32/64 and complex64/128 (views it cannot
// address are copied to contiguous ones first); a wrapping integer loop for the integer dtypes.
void run_matmul(const Instruction& in, const Blas& blas);

} // namespace hassium::cpu
