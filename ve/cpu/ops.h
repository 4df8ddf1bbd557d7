// Scalar semantics of every opcode as IR: the emitters per op family and the table naming them.
#pragma once

#include <span>

#include "core/opcode.h"
#include "ve/cpu/emitter.h"

namespace hassium::cpu {

// The dtypes an element-wise op works in: `in` is the signature's free type T (the inputs'
// dtype), `out` the output's dtype (bool for predicates, the real type for TO_REAL, any for CAST).
struct OpTypes {
  DType in;
  DType out;
};

using ElementwiseFn = Val (*)(Emitter&, OpTypes, std::span<const Val>);

// How a reduction (and the scan built on it) combines values.
struct ReduceOp {
  Val (*identity)(Emitter&, DType); // the value an empty reduction gives
  Val (*combine)(Emitter&, DType, Val acc, Val x);
  bool needs_elements; // no identity in NumPy (minimum, maximum): an empty axis is an error
};

// The emitter of an ELEMENTWISE opcode (op_table.cpp holds the one list).
ElementwiseFn elementwise_emitter(Opcode op);
// How a *_AT accumulation combines an element with its value: its element-wise opcode as
// NumPy's indexed loops compute it (a complex product without fused multiply-adds).
ElementwiseFn at_emitter(Opcode at_op);
// The combining rule of a REDUCTION opcode; for a SCAN, that of the reduction it accumulates.
const ReduceOp& reduce_op(Opcode op);

// --- the families (one file each) ---------------------------------------------------------
// ops_arithmetic.cpp
Val emit_add(Emitter&, OpTypes, std::span<const Val>);
Val emit_subtract(Emitter&, OpTypes, std::span<const Val>);
Val emit_multiply(Emitter&, OpTypes, std::span<const Val>);
Val emit_divide(Emitter&, OpTypes, std::span<const Val>);
Val emit_floor_divide(Emitter&, OpTypes, std::span<const Val>);
Val emit_mod(Emitter&, OpTypes, std::span<const Val>);
Val emit_fmod(Emitter&, OpTypes, std::span<const Val>);
Val emit_power(Emitter&, OpTypes, std::span<const Val>);
Val emit_maximum(Emitter&, OpTypes, std::span<const Val>);
Val emit_minimum(Emitter&, OpTypes, std::span<const Val>);
Val emit_negative(Emitter&, OpTypes, std::span<const Val>);
Val emit_absolute(Emitter&, OpTypes, std::span<const Val>);
Val emit_sign(Emitter&, OpTypes, std::span<const Val>);
Val emit_copysign(Emitter&, OpTypes, std::span<const Val>);
Val emit_fmax(Emitter&, OpTypes, std::span<const Val>);
Val emit_fmin(Emitter&, OpTypes, std::span<const Val>);
Val emit_heaviside(Emitter&, OpTypes, std::span<const Val>);
Val emit_gcd(Emitter&, OpTypes, std::span<const Val>);
Val emit_lcm(Emitter&, OpTypes, std::span<const Val>);
// ops_bitwise.cpp
Val emit_bitwise_and(Emitter&, OpTypes, std::span<const Val>);
Val emit_bitwise_or(Emitter&, OpTypes, std::span<const Val>);
Val emit_bitwise_xor(Emitter&, OpTypes, std::span<const Val>);
Val emit_invert(Emitter&, OpTypes, std::span<const Val>);
Val emit_left_shift(Emitter&, OpTypes, std::span<const Val>);
Val emit_right_shift(Emitter&, OpTypes, std::span<const Val>);
// ops_compare.cpp
Val emit_equal(Emitter&, OpTypes, std::span<const Val>);
Val emit_not_equal(Emitter&, OpTypes, std::span<const Val>);
Val emit_greater(Emitter&, OpTypes, std::span<const Val>);
Val emit_greater_equal(Emitter&, OpTypes, std::span<const Val>);
Val emit_less(Emitter&, OpTypes, std::span<const Val>);
Val emit_less_equal(Emitter&, OpTypes, std::span<const Val>);
Val emit_logical_and(Emitter&, OpTypes, std::span<const Val>);
Val emit_logical_or(Emitter&, OpTypes, std::span<const Val>);
Val emit_logical_xor(Emitter&, OpTypes, std::span<const Val>);
Val emit_logical_not(Emitter&, OpTypes, std::span<const Val>);
Val emit_isnan(Emitter&, OpTypes, std::span<const Val>);
Val emit_isinf(Emitter&, OpTypes, std::span<const Val>);
Val emit_isfinite(Emitter&, OpTypes, std::span<const Val>);
Val emit_signbit(Emitter&, OpTypes, std::span<const Val>);
// ops_math.cpp (real floating point; complex cases forward to ops_complex.cpp)
Val emit_sqrt(Emitter&, OpTypes, std::span<const Val>);
Val emit_exp(Emitter&, OpTypes, std::span<const Val>);
Val emit_exp2(Emitter&, OpTypes, std::span<const Val>);
Val emit_expm1(Emitter&, OpTypes, std::span<const Val>);
Val emit_log(Emitter&, OpTypes, std::span<const Val>);
Val emit_log2(Emitter&, OpTypes, std::span<const Val>);
Val emit_log10(Emitter&, OpTypes, std::span<const Val>);
Val emit_log1p(Emitter&, OpTypes, std::span<const Val>);
Val emit_sin(Emitter&, OpTypes, std::span<const Val>);
Val emit_cos(Emitter&, OpTypes, std::span<const Val>);
Val emit_tan(Emitter&, OpTypes, std::span<const Val>);
Val emit_arcsin(Emitter&, OpTypes, std::span<const Val>);
Val emit_arccos(Emitter&, OpTypes, std::span<const Val>);
Val emit_arctan(Emitter&, OpTypes, std::span<const Val>);
Val emit_sinh(Emitter&, OpTypes, std::span<const Val>);
Val emit_cosh(Emitter&, OpTypes, std::span<const Val>);
Val emit_tanh(Emitter&, OpTypes, std::span<const Val>);
Val emit_arcsinh(Emitter&, OpTypes, std::span<const Val>);
Val emit_arccosh(Emitter&, OpTypes, std::span<const Val>);
Val emit_arctanh(Emitter&, OpTypes, std::span<const Val>);
Val emit_floor(Emitter&, OpTypes, std::span<const Val>);
Val emit_ceil(Emitter&, OpTypes, std::span<const Val>);
Val emit_trunc(Emitter&, OpTypes, std::span<const Val>);
Val emit_rint(Emitter&, OpTypes, std::span<const Val>);
Val emit_arctan2(Emitter&, OpTypes, std::span<const Val>);
Val emit_hypot(Emitter&, OpTypes, std::span<const Val>);
Val emit_cbrt(Emitter&, OpTypes, std::span<const Val>);
Val emit_logaddexp(Emitter&, OpTypes, std::span<const Val>);
Val emit_logaddexp2(Emitter&, OpTypes, std::span<const Val>);
Val emit_nextafter(Emitter&, OpTypes, std::span<const Val>);
Val emit_spacing(Emitter&, OpTypes, std::span<const Val>);
// ops_complex.cpp
Val complex_multiply(Emitter&, DType, Val a, Val b);
// The four products, each rounded (NumPy's multiply.at, whose indexed loop never fuses them).
Val complex_multiply_plain(Emitter&, DType, Val a, Val b);
Val complex_divide(Emitter&, DType, Val a, Val b);
Val complex_abs(Emitter&, DType, Val a);
Val emit_real(Emitter&, OpTypes, std::span<const Val>);
Val emit_imag(Emitter&, OpTypes, std::span<const Val>);
Val emit_conj(Emitter&, OpTypes, std::span<const Val>);
// ops_select.cpp: WHERE (np.where: out = cond ? a : b).
Val emit_where(Emitter&, OpTypes, std::span<const Val>);
// ops_cast.cpp: IDENTITY, and the conversion every other place uses.
Val convert(Emitter&, Val v, DType from, DType to);
Val emit_identity(Emitter&, OpTypes, std::span<const Val>);
// ops_generate.cpp: RANGE and RANDOM at row-major position `pos` (i64).
Val emit_range(Emitter&, DType out, llvm::Value* pos);
Val emit_random(Emitter&, llvm::Value* pos, Val seed, Val counter);

} // namespace hassium::cpu
