// Arithmetic element-wise ops as IR: + - * /, NumPy's // and % sign rules, fmod, power,
// maximum/minimum with NaN propagation, negative, absolute, sign.
#include <limits>

#include "core/error.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
using llvm::Value;

// The divisor made safe for sdiv/udiv/srem/urem: 1 where it is 0 (or -1 for signed types,
// where INT_MIN / -1 would trap); callers select the NumPy result for those lanes.
struct SafeDivisor {
  Value* zero;   // b == 0
  Value* minus1; // b == -1 (signed only; false otherwise)
  Value* safe;
};

SafeDivisor safe_divisor(Emitter& e, DType t, Value* b) {
  SafeDivisor d;
  d.zero = e.b.CreateICmpEQ(b, e.int_constant(t, 0));
  d.minus1 = is_signed_int(t) ? e.b.CreateICmpEQ(b, e.int_constant(t, -1)) : e.b.getFalse();
  d.safe = e.b.CreateSelect(e.b.CreateOr(d.zero, d.minus1), e.int_constant(t, 1), b);
  return d;
}

Value* copysign(Emitter& e, Value* mag, Value* sgn) {
  return e.intrinsic(llvm::Intrinsic::copysign, {mag, sgn});
}

// NumPy's npy_divmod for floats: the floor quotient and the remainder with the divisor's sign.
std::pair<Value*, Value*> float_divmod(Emitter& e, DType t, Value* a, Value* b) {
  auto& B = e.b;
  Value* zero = e.constant(t, 0.0);
  Value* one = e.constant(t, 1.0);
  Value* mod = B.CreateFRem(a, b);
  Value* div = B.CreateFDiv(B.CreateFSub(a, mod), b);
  Value* mod_nonzero = B.CreateFCmpUNE(mod, zero);
  Value* sign_differs = B.CreateXor(B.CreateFCmpOLT(b, zero), B.CreateFCmpOLT(mod, zero));
  Value* adjust = B.CreateAnd(mod_nonzero, sign_differs);
  Value* mod2 = B.CreateSelect(adjust, B.CreateFAdd(mod, b),
                               B.CreateSelect(mod_nonzero, mod, copysign(e, zero, b)));
  Value* div2 = B.CreateSelect(adjust, B.CreateFSub(div, one), div);
  Value* fl = e.intrinsic(llvm::Intrinsic::floor, {div2});
  Value* snapped = B.CreateSelect(B.CreateFCmpOGT(B.CreateFSub(div2, fl), e.constant(t, 0.5)),
                                  B.CreateFAdd(fl, one), fl);
  Value* floordiv =
      B.CreateSelect(B.CreateFCmpUNE(div2, zero), snapped, copysign(e, zero, B.CreateFDiv(a, b)));
  return {floordiv, mod2};
}
} // namespace

Val emit_add(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (t.in == DType::BOOL) return {e.b.CreateOr(a[0].re, a[1].re)};
  if (is_integer(t.in)) return {e.b.CreateAdd(a[0].re, a[1].re)};
  if (is_float(t.in)) return {e.b.CreateFAdd(a[0].re, a[1].re)};
  return {e.b.CreateFAdd(a[0].re, a[1].re), e.b.CreateFAdd(a[0].im, a[1].im)};
}

Val emit_subtract(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_integer(t.in)) return {e.b.CreateSub(a[0].re, a[1].re)};
  if (is_float(t.in)) return {e.b.CreateFSub(a[0].re, a[1].re)};
  return {e.b.CreateFSub(a[0].re, a[1].re), e.b.CreateFSub(a[0].im, a[1].im)};
}

Val emit_multiply(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (t.in == DType::BOOL) return {e.b.CreateAnd(a[0].re, a[1].re)};
  if (is_integer(t.in)) return {e.b.CreateMul(a[0].re, a[1].re)};
  if (is_float(t.in)) return {e.b.CreateFMul(a[0].re, a[1].re)};
  return complex_multiply(e, t.in, a[0], a[1]);
}

Val emit_divide(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_float(t.in)) return {e.b.CreateFDiv(a[0].re, a[1].re)};
  return complex_divide(e, t.in, a[0], a[1]);
}

Val emit_floor_divide(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value *x = a[0].re, *y = a[1].re;
  if (is_float(t.in)) {
    Value* q = float_divmod(e, t.in, x, y).first;
    return {B.CreateSelect(B.CreateFCmpOEQ(y, e.constant(t.in, 0.0)), B.CreateFDiv(x, y), q)};
  }
  SafeDivisor d = safe_divisor(e, t.in, y);
  Value* zero = e.int_constant(t.in, 0);
  if (is_unsigned_int(t.in)) return {B.CreateSelect(d.zero, zero, B.CreateUDiv(x, d.safe))};
  Value* q = B.CreateSDiv(x, d.safe);
  Value* r = B.CreateSRem(x, d.safe);
  Value* adjust = B.CreateAnd(B.CreateICmpNE(r, zero),
                              B.CreateXor(B.CreateICmpSLT(r, zero), B.CreateICmpSLT(y, zero)));
  q = B.CreateSelect(adjust, B.CreateSub(q, e.int_constant(t.in, 1)), q);
  // x // -1 is -x (INT_MIN // -1 wraps to INT_MIN, as NumPy gives); x // 0 is 0.
  return {B.CreateSelect(d.zero, zero, B.CreateSelect(d.minus1, B.CreateNeg(x), q))};
}

Val emit_mod(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value *x = a[0].re, *y = a[1].re;
  if (is_float(t.in)) {
    Value* m = float_divmod(e, t.in, x, y).second;
    return {B.CreateSelect(B.CreateFCmpOEQ(y, e.constant(t.in, 0.0)), B.CreateFRem(x, y), m)};
  }
  SafeDivisor d = safe_divisor(e, t.in, y);
  Value* zero = e.int_constant(t.in, 0);
  if (is_unsigned_int(t.in)) return {B.CreateSelect(d.zero, zero, B.CreateURem(x, d.safe))};
  Value* r = B.CreateSRem(x, d.safe);
  Value* adjust = B.CreateAnd(B.CreateICmpNE(r, zero),
                              B.CreateXor(B.CreateICmpSLT(r, zero), B.CreateICmpSLT(y, zero)));
  r = B.CreateSelect(adjust, B.CreateAdd(r, y), r);
  return {B.CreateSelect(B.CreateOr(d.zero, d.minus1), zero, r)};
}

Val emit_fmod(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value *x = a[0].re, *y = a[1].re;
  if (is_float(t.in)) return {B.CreateFRem(x, y)};
  SafeDivisor d = safe_divisor(e, t.in, y);
  Value* zero = e.int_constant(t.in, 0);
  Value* r = is_signed_int(t.in) ? B.CreateSRem(x, d.safe) : B.CreateURem(x, d.safe);
  return {B.CreateSelect(B.CreateOr(d.zero, d.minus1), zero, r)};
}

Val emit_power(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  if (is_float(t.in)) return {e.intrinsic(llvm::Intrinsic::pow, {a[0].re, a[1].re})};
  if (is_complex(t.in))
    return e.complex_helper("hs_cpow", t.in, {a[0].re, a[0].im, a[1].re, a[1].im});
  // Integers: NumPy refuses negative exponents; otherwise square-and-multiply over every bit
  // of the exponent, branch-free so the loop around it still vectorizes.
  Value* base = a[0].re;
  Value* n = a[1].re;
  Value* zero = e.int_constant(t.in, 0);
  if (is_signed_int(t.in))
    e.check(B.CreateICmpSLT(n, zero), KERNEL_NEGATIVE_INT_POWER, n, e.i64(0));
  unsigned bits = n->getType()->getIntegerBitWidth() - (is_signed_int(t.in) ? 1 : 0);
  Value* r = e.int_constant(t.in, 1);
  for (unsigned k = 0; k < bits; ++k) {
    Value* bit = B.CreateICmpNE(B.CreateAnd(n, e.int_constant(t.in, int64_t(1) << k)), zero);
    r = B.CreateSelect(bit, B.CreateMul(r, base), r);
    if (k + 1 < bits) base = B.CreateMul(base, base);
  }
  return {r};
}

namespace {
// NumPy's maximum/minimum: integers as usual; floats propagate a NaN from either side.
Val min_max(Emitter& e, DType t, Val x, Val y, bool is_max) {
  auto& B = e.b;
  if (t == DType::BOOL) return {is_max ? B.CreateOr(x.re, y.re) : B.CreateAnd(x.re, y.re)};
  if (is_signed_int(t))
    return {e.intrinsic(is_max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin, {x.re, y.re})};
  if (is_unsigned_int(t))
    return {e.intrinsic(is_max ? llvm::Intrinsic::umax : llvm::Intrinsic::umin, {x.re, y.re})};
  Value* keep_x = is_max ? B.CreateFCmpOGE(x.re, y.re) : B.CreateFCmpOLE(x.re, y.re);
  keep_x = B.CreateOr(keep_x, B.CreateFCmpUNO(x.re, x.re));
  return {B.CreateSelect(keep_x, x.re, y.re)};
}
} // namespace

Val emit_maximum(Emitter& e, OpTypes t, std::span<const Val> a) {
  return min_max(e, t.in, a[0], a[1], true);
}

Val emit_minimum(Emitter& e, OpTypes t, std::span<const Val> a) {
  return min_max(e, t.in, a[0], a[1], false);
}

Val emit_negative(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_integer(t.in)) return {e.b.CreateNeg(a[0].re)};
  if (is_float(t.in)) return {e.b.CreateFNeg(a[0].re)};
  return {e.b.CreateFNeg(a[0].re), e.b.CreateFNeg(a[0].im)};
}

Val emit_absolute(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (t.in == DType::BOOL || is_unsigned_int(t.in)) return a[0];
  if (is_signed_int(t.in)) return {e.intrinsic(llvm::Intrinsic::abs, {a[0].re, e.b.getFalse()})};
  if (is_float(t.in)) return {e.intrinsic(llvm::Intrinsic::fabs, {a[0].re})};
  return complex_abs(e, t.in, a[0]);
}

Val emit_sign(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value* x = a[0].re;
  if (is_unsigned_int(t.in))
    return {B.CreateZExt(B.CreateICmpNE(x, e.int_constant(t.in, 0)), x->getType())};
  if (is_signed_int(t.in)) {
    Value* zero = e.int_constant(t.in, 0);
    Value* pos = B.CreateZExt(B.CreateICmpSGT(x, zero), x->getType());
    Value* neg = B.CreateZExt(B.CreateICmpSLT(x, zero), x->getType());
    return {B.CreateSub(pos, neg)};
  }
  // Floats: 1, -1, 0 (also for -0.0), NaN stays NaN.
  Value* zero = e.constant(t.in, 0.0);
  Value* r = B.CreateSelect(B.CreateFCmpOEQ(x, zero), zero, x);
  r = B.CreateSelect(B.CreateFCmpOLT(x, zero), e.constant(t.in, -1.0), r);
  return {B.CreateSelect(B.CreateFCmpOGT(x, zero), e.constant(t.in, 1.0), r)};
}

Val emit_copysign(Emitter& e, OpTypes, std::span<const Val> a) {
  return {copysign(e, a[0].re, a[1].re)};
}

// NumPy's fmax/fmin: C's fmax/fmin for floats (a NaN only when both are; the other operand
// otherwise); maximum/minimum for integers and bools.
Val emit_fmax(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (!is_float(t.in)) return min_max(e, t.in, a[0], a[1], true);
  return {e.intrinsic(llvm::Intrinsic::maxnum, {a[0].re, a[1].re})};
}

Val emit_fmin(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (!is_float(t.in)) return min_max(e, t.in, a[0], a[1], false);
  return {e.intrinsic(llvm::Intrinsic::minnum, {a[0].re, a[1].re})};
}

// NumPy's heaviside(x, h0): 0 for x < 0, h0 for x == 0, 1 for x > 0, NaN (positive) for NaN.
Val emit_heaviside(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value *x = a[0].re, *h0 = a[1].re;
  Value* zero = e.constant(t.in, 0.0);
  Value* r = B.CreateSelect(B.CreateFCmpOLT(x, zero), zero, e.constant(t.in, 1.0));
  r = B.CreateSelect(B.CreateFCmpOEQ(x, zero), h0, r);
  Value* nan = e.constant(t.in, std::numeric_limits<double>::quiet_NaN());
  return {B.CreateSelect(B.CreateFCmpUNO(x, x), nan, r)};
}

namespace {
// gcd and lcm as NumPy computes them (npy_gcd*/npy_lcm*): on the magnitudes as unsigned
// integers (a signed minimum's magnitude wraps to itself, as NumPy's), by a runtime helper in
// uint64, the result truncated to the dtype (NumPy's wrapping lcm included).
Val gcd_lcm(Emitter& e, DType t, std::span<const Val> a, const char* helper) {
  auto& B = e.b;
  llvm::Type* u64 = B.getInt64Ty();
  auto magnitude = [&](Value* v) -> Value* {
    if (!is_signed_int(t)) return B.CreateZExt(v, u64);
    Value* neg = B.CreateICmpSLT(v, e.int_constant(t, 0));
    Value* m = B.CreateSelect(neg, B.CreateNeg(v), v); // (wraps for the minimum, as NumPy)
    return B.CreateZExt(m, u64);
  };
  Value* r = e.helper(helper, u64, {magnitude(a[0].re), magnitude(a[1].re)});
  return {B.CreateTrunc(r, e.type(t))};
}
} // namespace

Val emit_gcd(Emitter& e, OpTypes t, std::span<const Val> a) {
  return gcd_lcm(e, t.in, a, "hs_gcd_u64");
}

Val emit_lcm(Emitter& e, OpTypes t, std::span<const Val> a) {
  return gcd_lcm(e, t.in, a, "hs_lcm_u64");
}

} // namespace hassium::cpu
