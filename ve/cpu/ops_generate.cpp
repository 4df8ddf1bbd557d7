// Generators as IR: RANGE (out = the row-major position) and RANDOM (Philox2x32-10).
//
// RANDOM word order (ve/cpu/README.md): at row-major position i the 64-bit counter
// c = counter + i (wrapping) is the Philox2x32 counter {lo32(c), hi32(c)}, the key is
// {lo32(seed)}, and the output words {r0, r1} give out = r0 | r1 << 32. On a little-endian
// machine that is: the bytes of out are the bytes of Random123's philox2x32(ctr, key) result.
#include "ve/cpu/ops.h"

namespace hassium::cpu {

Val emit_range(Emitter& e, DType out, llvm::Value* pos) {
  return convert(e, {pos, nullptr}, DType::INT64, out);
}

Val emit_random(Emitter& e, llvm::Value* pos, Val seed, Val counter) {
  auto& B = e.b;
  constexpr uint32_t kMultiplier = 0xD256D193u; // PHILOX_M2x32_0
  constexpr uint32_t kWeyl = 0x9E3779B9u;       // PHILOX_W32_0
  llvm::Type* i32 = B.getInt32Ty();
  llvm::Type* i64 = B.getInt64Ty();
  llvm::Value* c = B.CreateAdd(counter.re, pos);
  llvm::Value* x0 = B.CreateTrunc(c, i32);
  llvm::Value* x1 = B.CreateTrunc(B.CreateLShr(c, 32), i32);
  llvm::Value* key = B.CreateTrunc(seed.re, i32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key = B.CreateAdd(key, B.getInt32(kWeyl));
    llvm::Value* product = B.CreateMul(B.CreateZExt(x0, i64), B.getInt64(kMultiplier));
    llvm::Value* hi = B.CreateTrunc(B.CreateLShr(product, 32), i32);
    llvm::Value* lo = B.CreateTrunc(product, i32);
    x0 = B.CreateXor(B.CreateXor(hi, key), x1);
    x1 = lo;
  }
  return {B.CreateOr(B.CreateZExt(x0, i64), B.CreateShl(B.CreateZExt(x1, i64), 32))};
}

} // namespace hassium::cpu
