// Codegen::element: one element of the nest. Each array is loaded at most once (its value then
// flows as SSA), every written array stored once at the end; reductions and scans accumulate;
// GATHER/SCATTER address their indexed view by row-major position after a bounds check.
#include "core/error.h"
#include "ve/cpu/codegen_state.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

Val Codegen::get(ElementValues& ev, const PlanOperand& o) {
  if (!o.is_array) return constant_[size_t(o.index)];
  size_t a = size_t(o.index);
  if (ev.value[a]) return *ev.value[a];
  const PlanArray& arr = plan_.arrays[a];
  // A contracted array read before the block writes it holds no defined value.
  Val v = arr.contracted ? e_.constant_val(arr.dtype, 0.0)
                         : e_.load(arr.dtype, base_[a], ev.off.array[a]);
  ev.value[a] = v;
  return v;
}

void Codegen::set(ElementValues& ev, const PlanOperand& o, Val v) {
  ev.value[size_t(o.index)] = v;
  ev.dirty[size_t(o.index)] = true;
}

Value* Codegen::flat_offset(int a, Value* flat) {
  const auto& f = flat_[size_t(a)];
  int nd = plan_.arrays[size_t(a)].flat_ndim;
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

void Codegen::element_reduction(ElementValues& ev, size_t j) {
  const PlanInstr& in = plan_.instrs[j];
  Val x = get(ev, in.operands[1]);
  size_t a = size_t(in.operands[0].index);
  if (plan_.arrays[a].contracted) return; // nobody reads it
  if (register_mode() && in_window_ && acc_lanes_[j]) {
    for (auto [slots, v] : {std::pair{window_re_[j], x.re}, {window_im_[j], x.im}})
      if (slots)
        b_.CreateStore(v,
                       b_.CreateInBoundsGEP(slots->getAllocatedType(), slots, {e_.i64(0), lane_}));
  } else if (register_mode() && captured_ && acc_lanes_[j]) {
    (*captured_)[j] = x;
  } else if (register_mode()) {
    set_accumulator(j, reduce_step(in, accumulator(j, in.in, lane_), x, !acc_lanes_[j]), lane_);
  } else {
    Val cur = e_.load(in.in, base_[a], ev.off.array[a]);
    e_.store(in.in, base_[a], ev.off.array[a], reduce_step(in, cur, x, false));
  }
}

// out[axis = 0] = x; out[k] = out[k - 1] op x.
void Codegen::element_scan(ElementValues& ev, size_t j) {
  const PlanInstr& in = plan_.instrs[j];
  Val x = get(ev, in.operands[1]);
  size_t a = size_t(in.operands[0].index);
  if (plan_.arrays[a].contracted) return;
  Value* first = b_.CreateICmpEQ(axis_index_, axis_lo_);
  if (register_mode()) {
    Val r = reduce_step(in, accumulator(j, in.in), x, false);
    r.re = b_.CreateSelect(first, x.re, r.re);
    if (r.im) r.im = b_.CreateSelect(first, x.im, r.im);
    set_accumulator(j, r);
    set(ev, in.operands[0], r);
    return;
  }
  // In memory: the previous row is read only past the first one.
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* entry = b_.GetInsertBlock();
  auto* later = llvm::BasicBlock::Create(m_.getContext(), "scan_next", fn);
  auto* join = llvm::BasicBlock::Create(m_.getContext(), "scan_join", fn);
  b_.CreateCondBr(first, join, later);
  b_.SetInsertPoint(later);
  Value* prev_off = b_.CreateSub(ev.off.array[a], stride_[a][size_t(plan_.axis)]);
  Val r = reduce_step(in, e_.load(in.in, base_[a], prev_off), x, false);
  auto* later_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  auto merge = [&](Value* on_first, Value* on_later) {
    llvm::PHINode* phi = b_.CreatePHI(on_first->getType(), 2);
    phi->addIncoming(on_first, entry);
    phi->addIncoming(on_later, later_end);
    return phi;
  };
  Val merged{merge(x.re, r.re), x.im ? merge(x.im, r.im) : nullptr};
  set(ev, in.operands[0], merged);
}

void Codegen::element_gather(ElementValues& ev, size_t j) {
  const PlanInstr& in = plan_.instrs[j];
  Value* idx = get(ev, in.operands[2]).re;
  const PlanOperand& src = in.operands[1];
  if (!src.is_array) { // a constant is a one-element source
    e_.check(b_.CreateICmpUGE(idx, e_.i64(1)), KERNEL_INDEX_OUT_OF_RANGE, idx, e_.i64(1));
    set(ev, in.operands[0], get(ev, src));
    return;
  }
  size_t a = size_t(src.index);
  e_.check(b_.CreateICmpUGE(idx, flat_size_[a]), KERNEL_INDEX_OUT_OF_RANGE, idx, flat_size_[a]);
  set(ev, in.operands[0], e_.load(plan_.arrays[a].dtype, base_[a], flat_offset(int(a), idx)));
}

// SCATTER / COND_SCATTER: out.flat[index] = in (where mask); *_AT: out.flat[index] op= in.
void Codegen::element_scatter(ElementValues& ev, size_t j) {
  const PlanInstr& in = plan_.instrs[j];
  size_t a = size_t(in.operands[0].index);
  Val v = get(ev, in.operands[1]);
  Value* idx = get(ev, in.operands[2]).re;
  llvm::BasicBlock* skip = nullptr;
  if (in.op == Opcode::COND_SCATTER) {
    Value* mask = get(ev, in.operands[3]).re;
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    auto* write = llvm::BasicBlock::Create(m_.getContext(), "masked", fn);
    skip = llvm::BasicBlock::Create(m_.getContext(), "unmasked", fn);
    b_.CreateCondBr(mask, write, skip);
    b_.SetInsertPoint(write);
  }
  e_.check(b_.CreateICmpUGE(idx, flat_size_[a]), KERNEL_INDEX_OUT_OF_RANGE, idx, flat_size_[a]);
  if (!plan_.arrays[a].contracted) {
    Value* at = flat_offset(int(a), idx);
    if (at_combiner(in.op)) { // *_AT: combine with what is there
      std::vector<Val> args{e_.load(in.in, base_[a], at), v};
      v = at_emitter(in.op)(e_, {in.in, in.out}, args);
    }
    e_.store(in.in, base_[a], at, v);
  }
  if (skip) {
    b_.CreateBr(skip);
    b_.SetInsertPoint(skip);
  }
}

void Codegen::element(const Offsets& off) {
  const size_t na = plan_.arrays.size();
  ElementValues ev{off, std::vector<std::optional<Val>>(na), std::vector<bool>(na, false)};
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    switch (op_info(in.op).family) {
    case Family::ELEMENTWISE: {
      std::vector<Val> args;
      for (size_t k = 1; k < in.operands.size(); ++k) args.push_back(get(ev, in.operands[k]));
      set(ev, in.operands[0], elementwise_emitter(in.op)(e_, {in.in, in.out}, args));
      break;
    }
    case Family::GENERATOR:
      if (in.op == Opcode::RANGE)
        set(ev, in.operands[0], emit_range(e_, in.out, off.position));
      else
        set(ev, in.operands[0],
            emit_random(e_, off.position, get(ev, in.operands[1]), get(ev, in.operands[2])));
      break;
    case Family::REDUCTION:
      element_reduction(ev, j);
      break;
    case Family::SCAN:
      element_scan(ev, j);
      break;
    case Family::INDEXING:
      if (in.op == Opcode::GATHER)
        element_gather(ev, j);
      else
        element_scatter(ev, j);
      break;
    default:
      HS_INTERNAL_ASSERT(false) << op_name(in.op) << " cannot be in a CPU kernel";
    }
  }
  for (size_t a = 0; a < na; ++a) {
    const PlanArray& arr = plan_.arrays[a];
    if (ev.dirty[a] && !arr.contracted && arr.role == ArrayRole::LOOP)
      e_.store(arr.dtype, base_[a], off.array[a], *ev.value[a]);
  }
}

} // namespace hassium::cpu
