// Bitwise element-wise ops as IR: and/or/xor/invert, and shifts with NumPy's rule that a shift
// by the width or more gives 0 (right shift of a negative signed value: -1).
#include "ve/cpu/ops.h"

namespace hassium::cpu {

Val emit_bitwise_and(Emitter& e, OpTypes, std::span<const Val> a) {
  return {e.b.CreateAnd(a[0].re, a[1].re)};
}

Val emit_bitwise_or(Emitter& e, OpTypes, std::span<const Val> a) {
  return {e.b.CreateOr(a[0].re, a[1].re)};
}

Val emit_bitwise_xor(Emitter& e, OpTypes, std::span<const Val> a) {
  return {e.b.CreateXor(a[0].re, a[1].re)};
}

Val emit_invert(Emitter& e, OpTypes, std::span<const Val> a) {
  return {e.b.CreateNot(a[0].re)};
}

namespace {
// The shift count taken as unsigned: in range when below the bit width (a negative signed
// count is huge as unsigned, so it is out of range too, as in NumPy).
struct ShiftCount {
  llvm::Value* in_range;
  llvm::Value* masked; // always a legal LLVM shift amount
};

ShiftCount shift_count(Emitter& e, DType t, llvm::Value* n) {
  unsigned width = n->getType()->getIntegerBitWidth();
  return {e.b.CreateICmpULT(n, e.int_constant(t, width)),
          e.b.CreateAnd(n, e.int_constant(t, width - 1))};
}
} // namespace

Val emit_left_shift(Emitter& e, OpTypes t, std::span<const Val> a) {
  ShiftCount c = shift_count(e, t.in, a[1].re);
  return {e.b.CreateSelect(c.in_range, e.b.CreateShl(a[0].re, c.masked), e.int_constant(t.in, 0))};
}

Val emit_right_shift(Emitter& e, OpTypes t, std::span<const Val> a) {
  ShiftCount c = shift_count(e, t.in, a[1].re);
  llvm::Value* x = a[0].re;
  if (is_signed_int(t.in)) {
    unsigned width = x->getType()->getIntegerBitWidth();
    llvm::Value* fill = e.b.CreateAShr(x, e.int_constant(t.in, width - 1));
    return {e.b.CreateSelect(c.in_range, e.b.CreateAShr(x, c.masked), fill)};
  }
  return {e.b.CreateSelect(c.in_range, e.b.CreateLShr(x, c.masked), e.int_constant(t.in, 0))};
}

} // namespace hassium::cpu
