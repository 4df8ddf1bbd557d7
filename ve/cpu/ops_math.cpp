// Floating-point math element-wise ops as IR. LLVM intrinsics where they exist (sqrt, exp, log,
// sin, cos, ...: the vectorizer maps them to libmvec), the C math library otherwise; the
// complex forms of sqrt, exp and log call the runtime helpers.
#include <limits>

#include "ve/cpu/ops.h"

namespace hassium::cpu {

using llvm::Value;

namespace {
Val unary_intrinsic(Emitter& e, llvm::Intrinsic::ID id, std::span<const Val> a) {
  return {e.intrinsic(id, {a[0].re})};
}
Val unary_libm(Emitter& e, const char* name, OpTypes t, std::span<const Val> a) {
  return {e.libm(name, t.in, {a[0].re})};
}
} // namespace

Val emit_sqrt(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_complex(t.in)) return e.complex_helper("hs_csqrt", t.in, {a[0].re, a[0].im});
  return unary_intrinsic(e, llvm::Intrinsic::sqrt, a);
}

Val emit_exp(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_complex(t.in)) return e.complex_helper("hs_cexp", t.in, {a[0].re, a[0].im});
  return unary_intrinsic(e, llvm::Intrinsic::exp, a);
}

Val emit_log(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_complex(t.in)) return e.complex_helper("hs_clog", t.in, {a[0].re, a[0].im});
  return unary_intrinsic(e, llvm::Intrinsic::log, a);
}

Val emit_exp2(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::exp2, a);
}
Val emit_log2(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::log2, a);
}
Val emit_log10(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::log10, a);
}
Val emit_sin(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::sin, a);
}
Val emit_cos(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::cos, a);
}
Val emit_floor(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::floor, a);
}
Val emit_ceil(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::ceil, a);
}
Val emit_trunc(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::trunc, a);
}
// Round half to even, independent of the current rounding mode.
Val emit_rint(Emitter& e, OpTypes, std::span<const Val> a) {
  return unary_intrinsic(e, llvm::Intrinsic::roundeven, a);
}

Val emit_expm1(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "expm1", t, a);
}
Val emit_log1p(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "log1p", t, a);
}
Val emit_tan(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "tan", t, a);
}
Val emit_arcsin(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "asin", t, a);
}
Val emit_arccos(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "acos", t, a);
}
Val emit_arctan(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "atan", t, a);
}
Val emit_sinh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "sinh", t, a);
}
Val emit_cosh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "cosh", t, a);
}
Val emit_tanh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "tanh", t, a);
}
Val emit_arcsinh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "asinh", t, a);
}
Val emit_arccosh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "acosh", t, a);
}
Val emit_arctanh(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "atanh", t, a);
}

Val emit_arctan2(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.libm("atan2", t.in, {a[0].re, a[1].re})};
}

Val emit_hypot(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.libm("hypot", t.in, {a[0].re, a[1].re})};
}

Val emit_cbrt(Emitter& e, OpTypes t, std::span<const Val> a) {
  return unary_libm(e, "cbrt", t, a);
}

namespace {
// NumPy's npy_logaddexp / npy_logaddexp2: equal operands give x + log(2) (also two infinities
// of one sign), else the larger plus log1p of exp of the difference; a NaN gives the NaN
// difference. base2: 2**d and log2(1 + y) = log1p(y) / ln 2, as NumPy's npy_log2_1p.
Val logaddexp(Emitter& e, DType t, std::span<const Val> a, bool base2) {
  auto& B = e.b;
  Value *x = a[0].re, *y = a[1].re;
  Value* d = B.CreateFSub(x, y);
  Value* pos = B.CreateFCmpOGT(d, e.constant(t, 0.0));
  Value* minus_abs = B.CreateSelect(pos, B.CreateFNeg(d), d); // -|d| (not NaN here)
  Value* ex = base2 ? e.intrinsic(llvm::Intrinsic::exp2, {minus_abs})
                    : e.intrinsic(llvm::Intrinsic::exp, {minus_abs});
  Value* l = e.libm("log1p", t, {ex});
  if (base2) l = B.CreateFMul(l, e.constant(t, 1.4426950408889634)); // NPY_LOG2E
  Value* r = B.CreateFAdd(B.CreateSelect(pos, x, y), l);
  Value* le = B.CreateFCmpOLE(d, e.constant(t, 0.0));
  r = B.CreateSelect(B.CreateOr(pos, le), r, d);                 // a NaN difference: itself
  Value* same = e.constant(t, base2 ? 1.0 : 0.6931471805599453); // 1, NPY_LOGE2
  return {B.CreateSelect(B.CreateFCmpOEQ(x, y), B.CreateFAdd(x, same), r)};
}
} // namespace

Val emit_logaddexp(Emitter& e, OpTypes t, std::span<const Val> a) {
  return logaddexp(e, t.in, a, false);
}

Val emit_logaddexp2(Emitter& e, OpTypes t, std::span<const Val> a) {
  return logaddexp(e, t.in, a, true);
}

Val emit_nextafter(Emitter& e, OpTypes t, std::span<const Val> a) {
  return {e.libm("nextafter", t.in, {a[0].re, a[1].re})};
}

// NumPy's npy_spacing: the distance to the next float away from zero (the smallest positive
// one for either zero), NaN for infinities.
Val emit_spacing(Emitter& e, OpTypes t, std::span<const Val> a) {
  auto& B = e.b;
  Value* x = a[0].re;
  Value* inf = e.constant(t.in, std::numeric_limits<double>::infinity());
  Value* away = B.CreateSelect(B.CreateFCmpOLT(x, e.constant(t.in, 0.0)), B.CreateFNeg(inf), inf);
  Value* r = B.CreateFSub(e.libm("nextafter", t.in, {x, away}), x);
  Value* is_inf = B.CreateFCmpOEQ(e.intrinsic(llvm::Intrinsic::fabs, {x}), inf);
  return {B.CreateSelect(is_inf, e.constant(t.in, std::numeric_limits<double>::quiet_NaN()), r)};
}

} // namespace hassium::cpu
