// Floating-point math element-wise ops as IR. LLVM intrinsics where they exist (sqrt, exp, log,
// sin, cos, ...: the vectorizer maps them to libmvec), the C math library otherwise; the
// complex forms of sqrt, exp and log call the runtime helpers.
#include "ve/cpu/ops.h"

namespace hassium::cpu {

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

} // namespace hassium::cpu
