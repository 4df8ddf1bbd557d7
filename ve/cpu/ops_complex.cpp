// Complex arithmetic as IR: multiplication, NumPy's (Smith's) division, absolute value, and the
// real/imag/conj ops. Complex sqrt/exp/log/power call the runtime helpers (runtime_helpers.h).
#include "ve/cpu/ops.h"

#include <algorithm>
#include <string>

#include "ve/cpu/host_info.h"

namespace hassium::cpu {

namespace {
// Whether the host CPU fuses multiply-add (x86 FMA3). NumPy's complex multiply and square loops
// use it when the CPU has it, on every layout (contiguous, strided, scalar operands, tails).
bool host_has_fma() {
  static const bool fma = [] {
    const std::vector<std::string> features = cpu_host_info().features; // (sorted)
    return std::binary_search(features.begin(), features.end(), std::string("fma"));
  }();
  return fma;
}
} // namespace

// NumPy's product, bit for bit: with FMA (x.re*y.re - x.im*y.im and x.re*y.im + x.im*y.re, each
// with one rounding of its first product skipped), else the plain four products.
Val complex_multiply(Emitter& e, DType, Val x, Val y) {
  auto& B = e.b;
  if (host_has_fma()) {
    llvm::Value* im_im = B.CreateFMul(x.im, y.im);
    llvm::Value* im_re = B.CreateFMul(x.im, y.re);
    return {e.intrinsic(llvm::Intrinsic::fma, {x.re, y.re, B.CreateFNeg(im_im)}),
            e.intrinsic(llvm::Intrinsic::fma, {x.re, y.im, im_re})};
  }
  return complex_multiply_plain(e, DType::COMPLEX128, x, y);
}

Val complex_multiply_plain(Emitter& e, DType, Val x, Val y) {
  auto& B = e.b;
  return {B.CreateFSub(B.CreateFMul(x.re, y.re), B.CreateFMul(x.im, y.im)),
          B.CreateFAdd(B.CreateFMul(x.re, y.im), B.CreateFMul(x.im, y.re))};
}

// NumPy's division: scale by the larger part of the divisor; 0/0 gives the IEEE inf/nan parts.
Val complex_divide(Emitter& e, DType t, Val x, Val y) {
  auto& B = e.b;
  llvm::Value* one = e.constant(t, 1.0);
  llvm::Value* zero = e.constant(t, 0.0);
  llvm::Value* abs_re = e.intrinsic(llvm::Intrinsic::fabs, {y.re});
  llvm::Value* abs_im = e.intrinsic(llvm::Intrinsic::fabs, {y.im});
  llvm::Value* re_larger = B.CreateFCmpOGE(abs_re, abs_im);
  llvm::Value* both_zero =
      B.CreateAnd(B.CreateFCmpOEQ(abs_re, zero), B.CreateFCmpOEQ(abs_im, zero));
  // |y.re| >= |y.im|
  llvm::Value* rat1 = B.CreateFDiv(y.im, y.re);
  llvm::Value* scl1 = B.CreateFDiv(one, B.CreateFAdd(y.re, B.CreateFMul(y.im, rat1)));
  llvm::Value* re1 = B.CreateFMul(B.CreateFAdd(x.re, B.CreateFMul(x.im, rat1)), scl1);
  llvm::Value* im1 = B.CreateFMul(B.CreateFSub(x.im, B.CreateFMul(x.re, rat1)), scl1);
  // divisor zero
  llvm::Value* re0 = B.CreateFDiv(x.re, abs_re);
  llvm::Value* im0 = B.CreateFDiv(x.im, abs_re);
  // |y.re| < |y.im|
  llvm::Value* rat2 = B.CreateFDiv(y.re, y.im);
  llvm::Value* scl2 = B.CreateFDiv(one, B.CreateFAdd(y.im, B.CreateFMul(y.re, rat2)));
  llvm::Value* re2 = B.CreateFMul(B.CreateFAdd(B.CreateFMul(x.re, rat2), x.im), scl2);
  llvm::Value* im2 = B.CreateFMul(B.CreateFSub(B.CreateFMul(x.im, rat2), x.re), scl2);
  llvm::Value* re = B.CreateSelect(re_larger, B.CreateSelect(both_zero, re0, re1), re2);
  llvm::Value* im = B.CreateSelect(re_larger, B.CreateSelect(both_zero, im0, im1), im2);
  return {re, im};
}

Val complex_abs(Emitter& e, DType t, Val x) {
  return {e.libm("hypot", real_part_type(t), {x.re, x.im})};
}

Val emit_real(Emitter&, OpTypes, std::span<const Val> a) {
  return {a[0].re};
}
Val emit_imag(Emitter&, OpTypes, std::span<const Val> a) {
  return {a[0].im};
}
Val emit_conj(Emitter& e, OpTypes, std::span<const Val> a) {
  return {a[0].re, e.b.CreateFNeg(a[0].im)};
}

} // namespace hassium::cpu
