// Emitter helpers: dtype -> LLVM types, element loads and stores, constants, calls, checks.
#include "ve/cpu/emitter.h"

#include <string>

#include <llvm/IR/Intrinsics.h>

#include "core/error.h"

namespace hassium::cpu {

llvm::Type* Emitter::type(DType t) {
  switch (t) {
  case DType::BOOL:
    return b.getInt1Ty();
  case DType::INT8:
  case DType::UINT8:
    return b.getInt8Ty();
  case DType::INT16:
  case DType::UINT16:
    return b.getInt16Ty();
  case DType::INT32:
  case DType::UINT32:
    return b.getInt32Ty();
  case DType::INT64:
  case DType::UINT64:
    return b.getInt64Ty();
  case DType::FLOAT32:
  case DType::COMPLEX64:
    return b.getFloatTy();
  case DType::FLOAT64:
  case DType::COMPLEX128:
    return b.getDoubleTy();
  }
  HS_INTERNAL_ASSERT(false) << "unknown dtype";
  return nullptr;
}

llvm::Type* Emitter::storage(DType t) {
  return t == DType::BOOL ? b.getInt8Ty() : type(t);
}

Val Emitter::load(DType t, llvm::Value* ptr, llvm::Value* index) {
  llvm::Type* st = storage(t);
  if (is_complex(t)) {
    llvm::Value* i2 = b.CreateShl(index, 1);
    llvm::Value* re = b.CreateLoad(st, b.CreateInBoundsGEP(st, ptr, i2));
    llvm::Value* im = b.CreateLoad(st, b.CreateInBoundsGEP(st, ptr, b.CreateOr(i2, 1)));
    return {re, im};
  }
  llvm::Value* v = b.CreateLoad(st, b.CreateInBoundsGEP(st, ptr, index));
  if (t == DType::BOOL) v = b.CreateICmpNE(v, b.getInt8(0));
  return {v, nullptr};
}

void Emitter::store(DType t, llvm::Value* ptr, llvm::Value* index, Val v) {
  llvm::Type* st = storage(t);
  if (is_complex(t)) {
    llvm::Value* i2 = b.CreateShl(index, 1);
    b.CreateStore(v.re, b.CreateInBoundsGEP(st, ptr, i2));
    b.CreateStore(v.im, b.CreateInBoundsGEP(st, ptr, b.CreateOr(i2, 1)));
    return;
  }
  llvm::Value* x = t == DType::BOOL ? b.CreateZExt(v.re, st) : v.re;
  b.CreateStore(x, b.CreateInBoundsGEP(st, ptr, index));
}

llvm::Value* Emitter::constant(DType t, double v) {
  if (is_float(t) || is_complex(t)) return llvm::ConstantFP::get(type(t), v);
  if (t == DType::BOOL) return b.getInt1(v != 0);
  return int_constant(t, int64_t(v));
}

llvm::Value* Emitter::int_constant(DType t, int64_t v) {
  return llvm::ConstantInt::get(type(t), uint64_t(v), is_signed_int(t));
}

Val Emitter::constant_val(DType t, double re, double im) {
  if (is_complex(t)) return {constant(t, re), constant(t, im)};
  return {constant(t, re), nullptr};
}

llvm::Value* Emitter::intrinsic(llvm::Intrinsic::ID id, std::initializer_list<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&m, id, {(*args.begin())->getType()});
  return b.CreateCall(f, llvm::ArrayRef<llvm::Value*>(args.begin(), args.end()));
}

namespace {
// A pure function declaration: no memory effects, so loops around its calls can vectorize
// (the math library's errno is not part of hassium's semantics).
llvm::Function* declare_pure(llvm::Module& m, const std::string& name, llvm::FunctionType* ft) {
  llvm::Function* f = m.getFunction(name);
  if (f) return f;
  f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, name, m);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  return f;
}
} // namespace

llvm::Value* Emitter::libm(std::string_view name, DType t,
                           std::initializer_list<llvm::Value*> args) {
  llvm::Type* ft = type(t);
  std::string n(name);
  if (ft->isFloatTy()) n += "f";
  std::vector<llvm::Type*> params(args.size(), ft);
  llvm::Function* f = declare_pure(m, n, llvm::FunctionType::get(ft, params, false));
  return b.CreateCall(f, llvm::ArrayRef<llvm::Value*>(args.begin(), args.end()));
}

llvm::Value* Emitter::helper(std::string_view name, llvm::Type* ret,
                             std::initializer_list<llvm::Value*> args) {
  std::vector<llvm::Type*> params;
  for (llvm::Value* a : args) params.push_back(a->getType());
  llvm::Function* f =
      declare_pure(m, std::string(name), llvm::FunctionType::get(ret, params, false));
  return b.CreateCall(f, llvm::ArrayRef<llvm::Value*>(args.begin(), args.end()));
}

Val Emitter::complex_helper(std::string_view name, DType t,
                            std::initializer_list<llvm::Value*> args) {
  // The helpers pass doubles; complex64's (name + "f") compute in float on floats widened
  // exactly, and their results narrow back exactly.
  llvm::Type* d = b.getDoubleTy();
  std::vector<llvm::Value*> wide;
  for (llvm::Value* a : args) wide.push_back(a->getType() == d ? a : b.CreateFPExt(a, d));
  llvm::StructType* pair = llvm::StructType::get(ctx, {d, d});
  std::vector<llvm::Type*> params(wide.size(), d);
  const std::string symbol = std::string(name) + (t == DType::COMPLEX64 ? "f" : "");
  llvm::Function* f = declare_pure(m, symbol, llvm::FunctionType::get(pair, params, false));
  llvm::Value* r = b.CreateCall(f, wide);
  llvm::Value* re = b.CreateExtractValue(r, 0);
  llvm::Value* im = b.CreateExtractValue(r, 1);
  if (t == DType::COMPLEX64) {
    re = b.CreateFPTrunc(re, b.getFloatTy());
    im = b.CreateFPTrunc(im, b.getFloatTy());
  }
  return {re, im};
}

llvm::Value* Emitter::truthy(DType t, Val v) {
  if (t == DType::BOOL) return v.re;
  if (is_integer(t)) return b.CreateICmpNE(v.re, int_constant(t, 0));
  llvm::Value* z = llvm::ConstantFP::get(type(t), 0.0);
  llvm::Value* r = b.CreateFCmpUNE(v.re, z);
  if (is_complex(t)) r = b.CreateOr(r, b.CreateFCmpUNE(v.im, z));
  return r;
}

void Emitter::check(llvm::Value* bad, KernelErrorCode code, llvm::Value* value,
                    llvm::Value* bound) {
  HS_INTERNAL_ASSERT(error_record) << "a check outside a kernel body";
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* fail = llvm::BasicBlock::Create(ctx, "bad_data", fn);
  auto* ok = llvm::BasicBlock::Create(ctx, "ok", fn);
  b.CreateCondBr(bad, fail, ok);
  b.SetInsertPoint(fail);
  llvm::Type* i64t = b.getInt64Ty();
  b.CreateStore(i64(code), b.CreateConstGEP1_64(i64t, error_record, 0));
  b.CreateStore(b.CreateSExtOrTrunc(value, i64t), b.CreateConstGEP1_64(i64t, error_record, 1));
  b.CreateStore(b.CreateSExtOrTrunc(bound, i64t), b.CreateConstGEP1_64(i64t, error_record, 2));
  b.CreateRet(i32(code));
  b.SetInsertPoint(ok);
}

} // namespace hassium::cpu
