// Comparison and logical element-wise ops as IR: results are bool (i1). Floats compare as IEEE
// (NaN is unequal to everything); complex values are equal when both parts are.
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
using llvm::CmpInst;

// One ordered comparison for every real dtype; bools compare as unsigned integers.
llvm::Value* compare(Emitter& e, DType t, llvm::Value* x, llvm::Value* y, CmpInst::Predicate fp,
                     CmpInst::Predicate sp, CmpInst::Predicate up) {
  if (is_float(t) || is_complex(t)) return e.b.CreateFCmp(fp, x, y);
  return e.b.CreateICmp(is_signed_int(t) ? sp : up, x, y);
}
} // namespace

Val emit_equal(Emitter& e, OpTypes t, std::span<const Val> a) {
  llvm::Value* r =
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_OEQ, CmpInst::ICMP_EQ, CmpInst::ICMP_EQ);
  if (is_complex(t.in)) r = e.b.CreateAnd(r, e.b.CreateFCmpOEQ(a[0].im, a[1].im));
  return {r};
}

Val emit_not_equal(Emitter& e, OpTypes t, std::span<const Val> a) {
  llvm::Value* r =
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_UNE, CmpInst::ICMP_NE, CmpInst::ICMP_NE);
  if (is_complex(t.in)) r = e.b.CreateOr(r, e.b.CreateFCmpUNE(a[0].im, a[1].im));
  return {r};
}

Val emit_greater(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_OGT, CmpInst::ICMP_SGT, CmpInst::ICMP_UGT)};
}

Val emit_greater_equal(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_OGE, CmpInst::ICMP_SGE, CmpInst::ICMP_UGE)};
}

Val emit_less(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_OLT, CmpInst::ICMP_SLT, CmpInst::ICMP_ULT)};
}

Val emit_less_equal(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {
      compare(e, t.in, a[0].re, a[1].re, CmpInst::FCMP_OLE, CmpInst::ICMP_SLE, CmpInst::ICMP_ULE)};
}

Val emit_logical_and(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.b.CreateAnd(e.truthy(t.in, a[0]), e.truthy(t.in, a[1]))};
}

Val emit_logical_or(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.b.CreateOr(e.truthy(t.in, a[0]), e.truthy(t.in, a[1]))};
}

Val emit_logical_xor(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.b.CreateXor(e.truthy(t.in, a[0]), e.truthy(t.in, a[1]))};
}

Val emit_logical_not(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.b.CreateNot(e.truthy(t.in, a[0]))};
}

namespace {
llvm::Value* is_inf(Emitter& e, DType t, llvm::Value* x) {
  return e.b.CreateFCmpOEQ(e.intrinsic(llvm::Intrinsic::fabs, {x}),
                           e.constant(t, std::numeric_limits<double>::infinity()));
}
llvm::Value* is_finite(Emitter& e, DType t, llvm::Value* x) {
  return e.b.CreateFCmpOLT(e.intrinsic(llvm::Intrinsic::fabs, {x}),
                           e.constant(t, std::numeric_limits<double>::infinity()));
}
} // namespace

Val emit_isnan(Emitter& e, OpTypes t, std::span<const Val> a) {
  llvm::Value* r = e.b.CreateFCmpUNO(a[0].re, a[0].re);
  if (is_complex(t.in)) r = e.b.CreateOr(r, e.b.CreateFCmpUNO(a[0].im, a[0].im));
  return {r};
}

Val emit_isinf(Emitter& e, OpTypes t, std::span<const Val> a) {
  llvm::Value* r = is_inf(e, t.in, a[0].re);
  if (is_complex(t.in)) r = e.b.CreateOr(r, is_inf(e, t.in, a[0].im));
  return {r};
}

Val emit_isfinite(Emitter& e, OpTypes t, std::span<const Val> a) {
  llvm::Value* r = is_finite(e, t.in, a[0].re);
  if (is_complex(t.in)) r = e.b.CreateAnd(r, is_finite(e, t.in, a[0].im));
  return {r};
}

Val emit_signbit(Emitter& e, OpTypes t, std::span<const Val> a) {
  // The sign bit itself (set for -0.0 and negative NaNs, as NumPy's signbit).
  llvm::Type* bits = e.b.getIntNTy(unsigned(dtype_size(t.in) * 8));
  return {e.b.CreateICmpSLT(e.b.CreateBitCast(a[0].re, bits), llvm::ConstantInt::get(bits, 0))};
}

} // namespace hassium::cpu
