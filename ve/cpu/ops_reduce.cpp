// Reductions and scans as IR: each REDUCTION opcode's identity and combining step; the scans
// (ADD_/MULTIPLY_ACCUMULATE) reuse those of ADD_/MULTIPLY_REDUCE.
#include <limits>

#include "core/error.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
int bits_of(DType t) {
  return dtype_size(t) * 8;
}

Val zero(Emitter& e, DType t) {
  return e.constant_val(t, 0.0);
}
Val one(Emitter& e, DType t) {
  return e.constant_val(t, 1.0);
}
Val all_ones(Emitter& e, DType t) {
  return {t == DType::BOOL ? e.b.getTrue() : e.int_constant(t, -1)};
}

// The largest (or smallest) value of a real dtype: what minimum (maximum) starts from.
Val extreme(Emitter& e, DType t, bool largest) {
  if (t == DType::BOOL) return {e.b.getInt1(largest)};
  if (is_float(t))
    return {e.constant(t, largest ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity())};
  if (is_unsigned_int(t)) return {e.int_constant(t, largest ? -1 : 0)};
  int64_t max = int64_t((uint64_t(1) << (bits_of(t) - 1)) - 1);
  return {e.int_constant(t, largest ? max : -max - 1)};
}

Val combine_with(ElementwiseFn f, Emitter& e, DType t, Val acc, Val x) {
  Val args[2] = {acc, x};
  return f(e, {t, t}, std::span<const Val>(args, 2));
}

const ReduceOp kAdd = {
    zero, [](Emitter& e, DType t, Val a, Val x) { return combine_with(emit_add, e, t, a, x); },
    false};
const ReduceOp kMultiply = {
    one, [](Emitter& e, DType t, Val a, Val x) { return combine_with(emit_multiply, e, t, a, x); },
    false};
const ReduceOp kMinimum = {
    [](Emitter& e, DType t) { return extreme(e, t, true); },
    [](Emitter& e, DType t, Val a, Val x) { return combine_with(emit_minimum, e, t, a, x); }, true};
const ReduceOp kMaximum = {
    [](Emitter& e, DType t) { return extreme(e, t, false); },
    [](Emitter& e, DType t, Val a, Val x) { return combine_with(emit_maximum, e, t, a, x); }, true};
const ReduceOp kLogicalAnd = {
    all_ones, [](Emitter& e, DType, Val a, Val x) { return Val{e.b.CreateAnd(a.re, x.re)}; },
    false};
const ReduceOp kLogicalOr = {
    zero, [](Emitter& e, DType, Val a, Val x) { return Val{e.b.CreateOr(a.re, x.re)}; }, false};
const ReduceOp kXor = {
    zero, [](Emitter& e, DType, Val a, Val x) { return Val{e.b.CreateXor(a.re, x.re)}; }, false};
} // namespace

const ReduceOp& reduce_op(Opcode op) {
  switch (op) {
  case Opcode::ADD_REDUCE:
  case Opcode::ADD_ACCUMULATE:
    return kAdd;
  case Opcode::MULTIPLY_REDUCE:
  case Opcode::MULTIPLY_ACCUMULATE:
    return kMultiply;
  case Opcode::MINIMUM_REDUCE:
    return kMinimum;
  case Opcode::MAXIMUM_REDUCE:
    return kMaximum;
  case Opcode::LOGICAL_AND_REDUCE:
  case Opcode::BITWISE_AND_REDUCE:
    return kLogicalAnd; // and over i1 or iN, from all ones
  case Opcode::LOGICAL_OR_REDUCE:
  case Opcode::BITWISE_OR_REDUCE:
    return kLogicalOr;
  case Opcode::LOGICAL_XOR_REDUCE:
  case Opcode::BITWISE_XOR_REDUCE:
    return kXor;
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << op_name(op) << " is not a reduction or scan";
  return kAdd;
}

} // namespace hassium::cpu
