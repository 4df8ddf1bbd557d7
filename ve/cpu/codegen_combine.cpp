// Codegen::combine: the function that folds the per-chunk partial results of every reduction
// into its real output, in chunk order (so sums do not depend on the thread count).
#include "core/error.h"
#include "ve/cpu/codegen_state.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

void Codegen::combine() {
  llvm::LLVMContext& ctx = m_.getContext();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_ty = llvm::FunctionType::get(b_.getVoidTy(), {i64(), ptr, ptr}, false);
  auto* fn = llvm::Function::Create(fn_ty, llvm::Function::ExternalLinkage, kCombineName, m_);
  fn->setDoesNotThrow();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  Value* nchunks = fn->getArg(0);
  Value* ptrs = fn->getArg(1);
  Value* params = fn->getArg(2);
  const int nd = plan_.ndim;
  std::vector<Value*> ext;
  for (int k = 0; k < nd; ++k) ext.push_back(param(params, k));
  for (const PlanInstr& in : plan_.instrs) {
    if (op_info(in.op).family != Family::REDUCTION) continue;
    const PlanArray& a = plan_.arrays[size_t(in.operands[0].index)];
    if (a.contracted) continue;
    Value* part = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, ptrs, uint64_t(a.ptr)));
    Value* out =
        b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, ptrs, uint64_t(a.final_ptr)));
    Value* chunk_stride = param(params, a.param + nd);
    std::vector<Value*> ps, fs;
    for (int k = 0; k < nd; ++k) {
      ps.push_back(param(params, a.param + k));
      fs.push_back(param(params, a.param + nd + 1 + k));
    }
    // Accumulators in the entry block, where mem2reg promotes them.
    llvm::IRBuilder<> at_entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* acc_re = at_entry.CreateAlloca(e_.type(in.in));
    llvm::AllocaInst* acc_im = is_complex(in.in) ? at_entry.CreateAlloca(e_.type(in.in)) : nullptr;
    std::function<void(int, Value*, Value*)> nest = [&](int lv, Value* po, Value* fo) {
      if (lv == plan_.axis) return nest(lv + 1, po, fo);
      if (lv == nd) {
        Val first = e_.load(in.in, part, po);
        b_.CreateStore(first.re, acc_re);
        if (acc_im) b_.CreateStore(first.im, acc_im);
        loop(e_.i64(1), nchunks, [&](Value* c) {
          Val x = e_.load(in.in, part, b_.CreateAdd(po, b_.CreateMul(c, chunk_stride)));
          Val acc{b_.CreateLoad(e_.type(in.in), acc_re)};
          if (acc_im) acc.im = b_.CreateLoad(e_.type(in.in), acc_im);
          Val r = reduce_op(in.op).combine(e_, in.in, acc, x);
          b_.CreateStore(r.re, acc_re);
          if (acc_im) b_.CreateStore(r.im, acc_im);
        });
        Val acc{b_.CreateLoad(e_.type(in.in), acc_re)};
        if (acc_im) acc.im = b_.CreateLoad(e_.type(in.in), acc_im);
        e_.store(in.in, out, fo, acc);
        return;
      }
      loop(e_.i64(0), ext[size_t(lv)], [&](Value* i) {
        nest(lv + 1, b_.CreateAdd(po, b_.CreateMul(i, ps[size_t(lv)])),
             b_.CreateAdd(fo, b_.CreateMul(i, fs[size_t(lv)])));
      });
    };
    nest(0, e_.i64(0), e_.i64(0));
  }
  b_.CreateRetVoid();
}

} // namespace hassium::cpu
