// Casts as IR (IDENTITY and every implicit conversion): C conversion rules as NumPy applies them
// on x86-64. Float -> int truncates toward zero; out-of-range values give what the hardware
// conversion gives (no poison: the result is frozen). Anything -> bool is `!= 0`; complex ->
// real keeps the real part.
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
// float -> integer the way a C cast compiles on x86-64: through a 32-bit conversion for
// types narrower than 32 bits and for int32, a 64-bit one for int64 and uint32, and the
// two-range sequence for uint64.
llvm::Value* float_to_int(Emitter& e, llvm::Value* x, DType from, DType to) {
  auto& B = e.b;
  llvm::Type* target = e.type(to);
  auto fptosi = [&](llvm::Value* v, llvm::Type* ty) {
    return B.CreateFreeze(B.CreateFPToSI(v, ty));
  };
  switch (to) {
  case DType::INT64:
    return fptosi(x, B.getInt64Ty());
  case DType::UINT32:
    return B.CreateTrunc(fptosi(x, B.getInt64Ty()), target);
  case DType::UINT64: {
    llvm::Value* two63 = e.constant(from, 9223372036854775808.0);
    llvm::Value* low = fptosi(x, B.getInt64Ty());
    llvm::Value* high =
        B.CreateXor(fptosi(B.CreateFSub(x, two63), B.getInt64Ty()), B.getInt64(uint64_t(1) << 63));
    return B.CreateSelect(B.CreateFCmpOGE(x, two63), high, low);
  }
  default:
    return B.CreateTrunc(fptosi(x, B.getInt32Ty()), target);
  }
}
} // namespace

Val convert(Emitter& e, Val v, DType from, DType to) {
  auto& B = e.b;
  if (from == to) return v;
  if (to == DType::BOOL) return {e.truthy(from, v)};
  llvm::Type* target = e.type(to);
  if (is_complex(from)) {
    if (is_complex(to)) return {B.CreateFPCast(v.re, target), B.CreateFPCast(v.im, target)};
    return convert(e, {v.re, nullptr}, real_part_type(from), to);
  }
  if (is_complex(to)) {
    Val re = convert(e, v, from, real_part_type(to));
    return {re.re, e.constant(to, 0.0)};
  }
  llvm::Value* x = v.re;
  if (from == DType::BOOL || is_unsigned_int(from)) {
    if (is_float(to)) return {B.CreateUIToFP(x, target)};
    return {B.CreateZExtOrTrunc(x, target)};
  }
  if (is_signed_int(from)) {
    if (is_float(to)) return {B.CreateSIToFP(x, target)};
    return {B.CreateSExtOrTrunc(x, target)};
  }
  // from float
  if (is_float(to)) return {B.CreateFPCast(x, target)};
  return {float_to_int(e, x, from, to)};
}

Val emit_identity(Emitter& e, OpTypes t, std::span<const Val> a) {
  return convert(e, a[0], t.in, t.out);
}

} // namespace hassium::cpu
