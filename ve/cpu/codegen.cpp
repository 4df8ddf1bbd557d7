// generate_module: the loop nest of a block. Each array is loaded at most once and stored once per
// element; contracted arrays are SSA values only; reductions accumulate in registers when their
// axis is the innermost loop, else in the output (or the chunk's partial) row by row.
#include "ve/cpu/codegen.h"

#include <functional>
#include <optional>

#include <llvm/IR/Verifier.h>

#include "core/error.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
using llvm::Value;

// The current position in the nest: one element offset per array (null where the array is
// not addressed by the loop) and the row-major position.
struct Offsets {
  std::vector<Value*> array;
  Value* position = nullptr;
};

class Codegen {
public:
  Codegen(const KernelPlan& plan, llvm::Module& m)
      : plan_(plan), m_(m), b_(m.getContext()), e_(m, b_) {}

  void kernel();
  void combine();

private:
  const KernelPlan& plan_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  Emitter e_;

  // Values of the body function, loaded once at its entry.
  Value* begin_ = nullptr;
  Value* end_ = nullptr;
  std::vector<Value*> base_;                       // per array: pointer to element 0 of its view
  std::vector<Value*> extent_;                     // per level
  std::vector<std::vector<Value*>> stride_;        // per array, per level (LOOP, REDUCED)
  std::vector<Value*> position_stride_;            // per level
  std::vector<Val> constant_;                      // per constant
  std::vector<std::vector<Value*>> flat_;          // FLAT: extents then strides
  std::vector<Value*> flat_size_;                  // FLAT: number of elements
  std::vector<llvm::AllocaInst*> acc_re_, acc_im_; // per instruction: register accumulators
  Value* axis_index_ = nullptr;                    // the axis loop's counter where inside it
  Value* axis_lo_ = nullptr;

  bool register_mode() const { return plan_.axis == plan_.ndim - 1; }
  llvm::Type* i64() { return b_.getInt64Ty(); }
  Value* param(Value* params, int slot) {
    return b_.CreateLoad(i64(), b_.CreateConstInBoundsGEP1_64(i64(), params, uint64_t(slot)));
  }
  Value* range_lo(int level) { return level == plan_.split ? begin_ : e_.i64(0); }
  Value* range_hi(int level) { return level == plan_.split ? end_ : extent_[size_t(level)]; }
  bool loop_addressed(const PlanArray& a) const {
    return !a.contracted && a.role != ArrayRole::FLAT;
  }

  void loop(Value* lo, Value* hi, const std::function<void(Value*)>& body);
  void load_params(Value* params);
  Val load_constant(Value* params, const PlanConstant& c);
  Value* advance(Value* off, Value* i, Value* stride, bool innermost, StrideClass cls);
  Offsets advance(const Offsets& off, int level, Value* i);
  void level(int lv, const Offsets& off);
  void fill(int lv, const Offsets& off);
  void element(const Offsets& off);
  Value* flat_offset(int a, Value* flat);
  Val accumulator(size_t j, DType t);
  void set_accumulator(size_t j, Val v);
  Val reduce_step(const PlanInstr& in, Val acc, Val x, bool reassociate);
};

void Codegen::loop(Value* lo, Value* hi, const std::function<void(Value*)>& body) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(m_.getContext(), "loop", fn);
  auto* inside = llvm::BasicBlock::Create(m_.getContext(), "body", fn);
  auto* exit = llvm::BasicBlock::Create(m_.getContext(), "exit", fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(i64(), 2, "i");
  i->addIncoming(lo, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, hi), inside, exit);
  b_.SetInsertPoint(inside);
  body(i);
  Value* next = b_.CreateAdd(i, e_.i64(1), "", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
}

Val Codegen::load_constant(Value* params, const PlanConstant& c) {
  Value* lo = param(params, c.param);
  Value* hi = param(params, c.param + 1);
  DType t = c.dtype;
  auto as_float = [&](Value* bits) {
    return b_.CreateBitCast(b_.CreateTrunc(bits, b_.getInt32Ty()), b_.getFloatTy());
  };
  auto as_double = [&](Value* bits) { return b_.CreateBitCast(bits, b_.getDoubleTy()); };
  switch (t) {
  case DType::BOOL:
    return {b_.CreateICmpNE(lo, e_.i64(0))};
  case DType::FLOAT32:
    return {as_float(lo)};
  case DType::FLOAT64:
    return {as_double(lo)};
  case DType::COMPLEX64:
    return {as_float(lo), as_float(hi)};
  case DType::COMPLEX128:
    return {as_double(lo), as_double(hi)};
  default:
    return {b_.CreateTrunc(lo, e_.type(t))};
  }
}

void Codegen::load_params(Value* params) {
  const int nd = plan_.ndim;
  for (int k = 0; k < nd; ++k) extent_.push_back(param(params, k));
  size_t na = plan_.arrays.size();
  stride_.assign(na, {});
  flat_.assign(na, {});
  flat_size_.assign(na, nullptr);
  for (size_t i = 0; i < na; ++i) {
    const PlanArray& a = plan_.arrays[i];
    if (a.contracted) continue;
    if (a.role == ArrayRole::FLAT) {
      for (int k = 0; k < 2 * a.flat_ndim; ++k) flat_[i].push_back(param(params, a.param + k));
      flat_size_[i] = param(params, a.param + 2 * a.flat_ndim);
      continue;
    }
    for (int k = 0; k < nd; ++k) stride_[i].push_back(param(params, a.param + k));
  }
  if (plan_.position_param >= 0)
    for (int k = 0; k < nd; ++k)
      position_stride_.push_back(param(params, plan_.position_param + k));
  for (const PlanConstant& c : plan_.constants) constant_.push_back(load_constant(params, c));
}

Value* Codegen::advance(Value* off, Value* i, Value* stride, bool innermost, StrideClass cls) {
  if (innermost && cls == StrideClass::ZERO) return off;
  if (innermost && cls == StrideClass::ONE) return b_.CreateAdd(off, i);
  return b_.CreateAdd(off, b_.CreateMul(i, stride));
}

Offsets Codegen::advance(const Offsets& off, int level, Value* i) {
  Offsets r = off;
  bool innermost = level == plan_.ndim - 1;
  for (size_t a = 0; a < plan_.arrays.size(); ++a)
    if (off.array[a])
      r.array[a] =
          advance(off.array[a], i, stride_[a][size_t(level)], innermost, plan_.arrays[a].inner);
  if (off.position)
    r.position =
        advance(off.position, i, position_stride_[size_t(level)], innermost, plan_.position_inner);
  return r;
}

Val Codegen::accumulator(size_t j, DType t) {
  Val v{b_.CreateLoad(e_.type(t), acc_re_[j])};
  if (acc_im_[j]) v.im = b_.CreateLoad(e_.type(t), acc_im_[j]);
  return v;
}

void Codegen::set_accumulator(size_t j, Val v) {
  b_.CreateStore(v.re, acc_re_[j]);
  if (acc_im_[j]) b_.CreateStore(v.im, acc_im_[j]);
}

// One combining step; in registers the float sum may be reassociated so the loop vectorizes
// (partial sums per vector lane, added up at the end of the loop: deterministic for a build).
Val Codegen::reduce_step(const PlanInstr& in, Val acc, Val x, bool reassociate) {
  llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
  if (reassociate) {
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    b_.setFastMathFlags(fmf);
  }
  return reduce_op(in.op).combine(e_, in.in, acc, x);
}

void Codegen::level(int lv, const Offsets& off) {
  if (lv == plan_.ndim) {
    element(off);
    return;
  }
  const bool at_axis = lv == plan_.axis;
  if (at_axis && plan_.has_reduction) {
    if (register_mode()) {
      for (size_t j = 0; j < plan_.instrs.size(); ++j)
        if (acc_re_[j])
          set_accumulator(j, reduce_op(plan_.instrs[j].op).identity(e_, plan_.instrs[j].in));
    } else {
      fill(lv + 1, off);
    }
  }
  if (at_axis && plan_.has_scan && register_mode())
    for (size_t j = 0; j < plan_.instrs.size(); ++j)
      if (acc_re_[j])
        set_accumulator(j, reduce_op(plan_.instrs[j].op).identity(e_, plan_.instrs[j].in));
  Value* lo = range_lo(lv);
  loop(lo, range_hi(lv), [&](Value* i) {
    if (at_axis) {
      axis_index_ = i;
      axis_lo_ = lo;
    }
    level(lv + 1, advance(off, lv, i));
  });
  if (at_axis && plan_.has_reduction && register_mode()) {
    for (size_t j = 0; j < plan_.instrs.size(); ++j) {
      if (!acc_re_[j]) continue;
      int a = plan_.instrs[j].operands[0].index;
      e_.store(plan_.instrs[j].in, base_[size_t(a)], off.array[size_t(a)],
               accumulator(j, plan_.instrs[j].in));
    }
  }
}

// Before the axis loop (output rows accumulate in memory): identity into every reduction
// output element the levels from `lv` on address.
void Codegen::fill(int lv, const Offsets& off) {
  if (lv == plan_.ndim) {
    for (const PlanInstr& in : plan_.instrs) {
      if (op_info(in.op).family != Family::REDUCTION) continue;
      int a = in.operands[0].index;
      if (plan_.arrays[size_t(a)].contracted) continue;
      e_.store(in.in, base_[size_t(a)], off.array[size_t(a)], reduce_op(in.op).identity(e_, in.in));
    }
    return;
  }
  loop(range_lo(lv), range_hi(lv), [&](Value* i) { fill(lv + 1, advance(off, lv, i)); });
}

Value* Codegen::flat_offset(int a, Value* flat) {
  const auto& f = flat_[size_t(a)];
  int nd = plan_.arrays[size_t(a)].flat_ndim;
  if (nd == 0) return e_.i64(0);
  Value* off = e_.i64(0);
  for (int k = nd - 1; k >= 0; --k) {
    Value* ext = f[size_t(k)];
    Value* st = f[size_t(nd + k)];
    if (k == 0) {
      off = b_.CreateAdd(off, b_.CreateMul(flat, st));
    } else {
      off = b_.CreateAdd(off, b_.CreateMul(b_.CreateURem(flat, ext), st));
      flat = b_.CreateUDiv(flat, ext);
    }
  }
  return off;
}

void Codegen::element(const Offsets& off) {
  const size_t na = plan_.arrays.size();
  std::vector<std::optional<Val>> value(na);
  std::vector<bool> dirty(na, false);
  auto get = [&](const PlanOperand& o) -> Val {
    if (!o.is_array) return constant_[size_t(o.index)];
    size_t a = size_t(o.index);
    if (value[a]) return *value[a];
    const PlanArray& arr = plan_.arrays[a];
    // A contracted array read before the block writes it holds no defined value.
    Val v = arr.contracted ? e_.constant_val(arr.dtype, 0.0)
                           : e_.load(arr.dtype, base_[a], off.array[a]);
    value[a] = v;
    return v;
  };
  auto set = [&](const PlanOperand& o, Val v) {
    value[size_t(o.index)] = v;
    dirty[size_t(o.index)] = true;
  };
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    const OpInfo& info = op_info(in.op);
    const PlanArray& out = plan_.arrays[size_t(in.operands[0].index)];
    switch (info.family) {
    case Family::ELEMENTWISE: {
      std::vector<Val> args;
      for (size_t k = 1; k < in.operands.size(); ++k) args.push_back(get(in.operands[k]));
      set(in.operands[0], elementwise_emitter(in.op)(e_, {in.in, in.out}, args));
      break;
    }
    case Family::GENERATOR:
      if (in.op == Opcode::RANGE)
        set(in.operands[0], emit_range(e_, in.out, off.position));
      else
        set(in.operands[0],
            emit_random(e_, off.position, get(in.operands[1]), get(in.operands[2])));
      break;
    case Family::REDUCTION: {
      Val x = get(in.operands[1]);
      if (out.contracted) break;
      size_t a = size_t(in.operands[0].index);
      if (register_mode()) {
        set_accumulator(j, reduce_step(in, accumulator(j, in.in), x, true));
      } else {
        Val cur = e_.load(in.in, base_[a], off.array[a]);
        e_.store(in.in, base_[a], off.array[a], reduce_step(in, cur, x, false));
      }
      break;
    }
    case Family::SCAN: {
      Val x = get(in.operands[1]);
      if (out.contracted) break;
      size_t a = size_t(in.operands[0].index);
      Value* first = b_.CreateICmpEQ(axis_index_, axis_lo_);
      if (register_mode()) {
        Val r = reduce_step(in, accumulator(j, in.in), x, false);
        r.re = b_.CreateSelect(first, x.re, r.re);
        if (r.im) r.im = b_.CreateSelect(first, x.im, r.im);
        set_accumulator(j, r);
        set(in.operands[0], r);
      } else {
        // out[axis = 0] = x; out[k] = out[k - 1] op x: the previous row is read only past the
        // first.
        llvm::Function* fn = b_.GetInsertBlock()->getParent();
        auto* entry = b_.GetInsertBlock();
        auto* later = llvm::BasicBlock::Create(m_.getContext(), "scan_next", fn);
        auto* join = llvm::BasicBlock::Create(m_.getContext(), "scan_join", fn);
        b_.CreateCondBr(first, join, later);
        b_.SetInsertPoint(later);
        Value* prev_off = b_.CreateSub(off.array[a], stride_[a][size_t(plan_.axis)]);
        Val r = reduce_step(in, e_.load(in.in, base_[a], prev_off), x, false);
        auto* later_end = b_.GetInsertBlock();
        b_.CreateBr(join);
        b_.SetInsertPoint(join);
        Val merged;
        llvm::PHINode* re = b_.CreatePHI(x.re->getType(), 2);
        re->addIncoming(x.re, entry);
        re->addIncoming(r.re, later_end);
        merged.re = re;
        if (x.im) {
          llvm::PHINode* im = b_.CreatePHI(x.im->getType(), 2);
          im->addIncoming(x.im, entry);
          im->addIncoming(r.im, later_end);
          merged.im = im;
        }
        set(in.operands[0], merged);
      }
      break;
    }
    case Family::INDEXING: {
      if (in.op == Opcode::GATHER) {
        Value* idx = get(in.operands[2]).re;
        const PlanOperand& src = in.operands[1];
        if (!src.is_array) {
          e_.check(b_.CreateICmpUGE(idx, e_.i64(1)), KERNEL_INDEX_OUT_OF_RANGE, idx, e_.i64(1));
          set(in.operands[0], get(src));
          break;
        }
        size_t a = size_t(src.index);
        e_.check(b_.CreateICmpUGE(idx, flat_size_[a]), KERNEL_INDEX_OUT_OF_RANGE, idx,
                 flat_size_[a]);
        set(in.operands[0], e_.load(plan_.arrays[a].dtype, base_[a], flat_offset(int(a), idx)));
        break;
      }
      // SCATTER / COND_SCATTER: out.flat[index] = in (where mask).
      size_t a = size_t(in.operands[0].index);
      Val v = get(in.operands[1]);
      Value* idx = get(in.operands[2]).re;
      llvm::BasicBlock* skip = nullptr;
      if (in.op == Opcode::COND_SCATTER) {
        Value* mask = get(in.operands[3]).re;
        llvm::Function* fn = b_.GetInsertBlock()->getParent();
        auto* write = llvm::BasicBlock::Create(m_.getContext(), "masked", fn);
        skip = llvm::BasicBlock::Create(m_.getContext(), "unmasked", fn);
        b_.CreateCondBr(mask, write, skip);
        b_.SetInsertPoint(write);
      }
      e_.check(b_.CreateICmpUGE(idx, flat_size_[a]), KERNEL_INDEX_OUT_OF_RANGE, idx, flat_size_[a]);
      if (!plan_.arrays[a].contracted) e_.store(in.in, base_[a], flat_offset(int(a), idx), v);
      if (skip) {
        b_.CreateBr(skip);
        b_.SetInsertPoint(skip);
      }
      break;
    }
    default:
      HS_INTERNAL_ASSERT(false) << op_name(in.op) << " cannot be in a CPU kernel";
    }
  }
  for (size_t a = 0; a < na; ++a) {
    const PlanArray& arr = plan_.arrays[a];
    if (dirty[a] && !arr.contracted && arr.role == ArrayRole::LOOP)
      e_.store(arr.dtype, base_[a], off.array[a], *value[a]);
  }
}

void Codegen::kernel() {
  llvm::LLVMContext& ctx = m_.getContext();
  llvm::Type* ptr = b_.getPtrTy();
  const size_t na = plan_.arrays.size();
  int nptr = 0;
  for (const PlanArray& a : plan_.arrays)
    if (!a.contracted) nptr = std::max(nptr, std::max(a.ptr, a.final_ptr) + 1);

  // The body takes each array's pointer as a noalias argument: arrays of one block are
  // pairwise identical (one argument) or disjoint, or only read.
  std::vector<llvm::Type*> body_args = {i64(), i64(), ptr, i64(), ptr};
  for (int p = 0; p < nptr; ++p) body_args.push_back(ptr);
  auto* body_ty = llvm::FunctionType::get(b_.getInt32Ty(), body_args, false);
  auto* body = llvm::Function::Create(body_ty, llvm::Function::InternalLinkage, "hs_body", m_);
  body->addParamAttr(2, llvm::Attribute::NoAlias);
  body->addParamAttr(2, llvm::Attribute::ReadOnly);
  body->addParamAttr(4, llvm::Attribute::NoAlias);
  for (int p = 0; p < nptr; ++p) body->addParamAttr(unsigned(5 + p), llvm::Attribute::NoAlias);
  body->setDoesNotThrow();

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", body);
  b_.SetInsertPoint(entry);
  begin_ = body->getArg(0);
  end_ = body->getArg(1);
  Value* params = body->getArg(2);
  Value* chunk = body->getArg(3);
  e_.error_record = body->getArg(4);
  load_params(params);
  base_.assign(na, nullptr);
  Offsets start;
  start.array.assign(na, nullptr);
  for (size_t i = 0; i < na; ++i) {
    const PlanArray& a = plan_.arrays[i];
    if (a.contracted) continue;
    base_[i] = body->getArg(unsigned(5 + a.ptr));
    if (a.role == ArrayRole::FLAT) continue;
    // A split reduction's chunk writes its own partial result.
    start.array[i] = a.role == ArrayRole::REDUCED
                         ? b_.CreateMul(chunk, param(params, a.param + plan_.ndim))
                         : e_.i64(0);
  }
  if (plan_.position_param >= 0) start.position = e_.i64(0);
  acc_re_.assign(plan_.instrs.size(), nullptr);
  acc_im_.assign(plan_.instrs.size(), nullptr);
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    Family f = op_info(in.op).family;
    bool reg = (f == Family::REDUCTION || f == Family::SCAN) && register_mode() &&
               !plan_.arrays[size_t(in.operands[0].index)].contracted;
    if (!reg) continue;
    acc_re_[j] = b_.CreateAlloca(e_.type(in.in));
    if (is_complex(in.in)) acc_im_[j] = b_.CreateAlloca(e_.type(in.in));
  }
  level(0, start);
  b_.CreateRet(e_.i32(0));

  // The exported entry: loads the pointer array and calls the body.
  auto* fn_ty =
      llvm::FunctionType::get(b_.getInt32Ty(), {i64(), i64(), ptr, ptr, i64(), ptr}, false);
  auto* fn = llvm::Function::Create(fn_ty, llvm::Function::ExternalLinkage, kKernelName, m_);
  fn->setDoesNotThrow();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<Value*> call_args = {fn->getArg(0), fn->getArg(1), fn->getArg(3), fn->getArg(4),
                                   fn->getArg(5)};
  for (int p = 0; p < nptr; ++p)
    call_args.push_back(
        b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, fn->getArg(2), uint64_t(p))));
  b_.CreateRet(b_.CreateCall(body, call_args));
}

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
} // namespace

std::unique_ptr<llvm::Module> generate_module(const KernelPlan& plan, llvm::LLVMContext& ctx) {
  auto m = std::make_unique<llvm::Module>("hassium_kernel", ctx);
  Codegen cg(plan, *m);
  cg.kernel();
  if (plan.has_reduction) cg.combine();
  std::string err;
  llvm::raw_string_ostream os(err);
  HS_INTERNAL_ASSERT(!llvm::verifyModule(*m, &os)) << "generated IR does not verify: " << os.str();
  return m;
}

} // namespace hassium::cpu
