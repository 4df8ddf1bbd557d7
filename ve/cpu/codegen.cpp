// generate_module: the loop nest of a block. Each array is loaded at most once and stored once per
// element; contracted arrays are SSA values only; reductions accumulate in registers when their
// axis is the innermost loop, else in the output (or the chunk's partial) row by row.
#include "ve/cpu/codegen.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Verifier.h>

#include "core/error.h"
#include "ve/cpu/codegen_state.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
// Loops of more operations than this are vectorized without interleaving (one vector
// iteration at a time): a long body has register pressure enough of its own, and
// interleaving multiplies the code the code generators must compile (a fused Black-Scholes
// step: 39 -> 15 ms in the fast code generator, no slower to run). Shorter loops (a sum, an
// axpy) keep LLVM's choice: interleaved partial sums hide the adds' latency.
constexpr size_t kInterleaveMaxOps = 8;
// Lane accumulators (Codegen::lanes_of) live in vector registers, their lane loop unrolled, for
// at most this many sets of lanes (64 bytes each; a float sum: one; complex: two) in a loop of at
// most this many operations: a set is 2 AVX2 registers, and more sets spill the body's own values,
// while a longer body unrolled costs compile time (an N-body step's optimized compile: 1.0 ->
// 2.1 s with 16 float64 lanes). Else the lanes stay in memory and the lane loop rolled: its
// work hides the L1 round trip. (With 16 float64 lanes, 4 registers a set, an N-body step's
// three row sums in memory ran 20-30% slower than one reassociated accumulator; 8 lanes in
// registers run as fast.)
constexpr size_t kLaneSetsInRegisters = 4;
constexpr size_t kLanesInRegistersMaxOps = 24;
} // namespace

void Codegen::loop(Value* lo, Value* hi, const std::function<void(Value*)>& body, LoopHint hint) {
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
  llvm::BranchInst* back = b_.CreateBr(header);
  llvm::LLVMContext& ctx = m_.getContext();
  std::vector<llvm::Metadata*> self = {nullptr};
  auto property = [&](const char* name, llvm::Constant* value) {
    std::vector<llvm::Metadata*> kv = {llvm::MDString::get(ctx, name)};
    if (value) kv.push_back(llvm::ConstantAsMetadata::get(value));
    self.push_back(llvm::MDNode::get(ctx, kv));
  };
  if (plan_.instrs.size() > kInterleaveMaxOps)
    property("llvm.loop.interleave.count", b_.getInt32(1));
  if (hint != LoopHint::USUAL) property("llvm.loop.unroll.disable", nullptr);
  if (hint == LoopHint::SCALAR) property("llvm.loop.vectorize.enable", b_.getFalse());
  if (self.size() > 1) {
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, self);
    id->replaceOperandWith(0, id);
    back->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
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

// A register accumulator: the scalar slot, or the lane of a reduction's slots that element
// `lane` of a group goes to.
Value* Codegen::accumulator_slot(size_t j, llvm::AllocaInst* a, Value* lane) {
  if (!acc_lanes_[j]) return a;
  HS_INTERNAL_ASSERT(lane) << "a lane accumulator outside the lane loop";
  if (acc_lanes_[j] < group_) lane = b_.CreateAnd(lane, e_.i64(acc_lanes_[j] - 1));
  return b_.CreateInBoundsGEP(a->getAllocatedType(), a, {e_.i64(0), lane});
}

Val Codegen::accumulator(size_t j, DType t, Value* lane) {
  Val v{b_.CreateLoad(e_.type(t), accumulator_slot(j, acc_re_[j], lane))};
  if (acc_im_[j]) v.im = b_.CreateLoad(e_.type(t), accumulator_slot(j, acc_im_[j], lane));
  return v;
}

void Codegen::set_accumulator(size_t j, Val v, Value* lane) {
  b_.CreateStore(v.re, accumulator_slot(j, acc_re_[j], lane));
  if (acc_im_[j]) b_.CreateStore(v.im, accumulator_slot(j, acc_im_[j], lane));
}

// One combining step. Only a single register accumulator (an exact or order-indifferent
// reduction) may be reassociated so that its loop vectorizes; float sums and products go
// through lanes in a fixed order (see lanes_of).
Val Codegen::reduce_step(const PlanInstr& in, Val acc, Val x, bool reassociate) {
  llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
  if (reassociate) {
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    b_.setFastMathFlags(fmf);
  }
  return reduce_op(in.op).combine(e_, in.in, acc, x);
}

// A lane reduction's lanes as one vector (each part), at the stack slot's own alignment (a
// vector's is larger).
Val Codegen::load_lanes(size_t j) {
  auto* t = llvm::FixedVectorType::get(e_.type(plan_.instrs[j].in), unsigned(acc_lanes_[j]));
  Val v{b_.CreateAlignedLoad(t, acc_re_[j], acc_re_[j]->getAlign())};
  if (acc_im_[j]) v.im = b_.CreateAlignedLoad(t, acc_im_[j], acc_im_[j]->getAlign());
  return v;
}

void Codegen::store_lanes(size_t j, Val v) {
  b_.CreateAlignedStore(v.re, acc_re_[j], acc_re_[j]->getAlign());
  if (acc_im_[j]) b_.CreateAlignedStore(v.im, acc_im_[j], acc_im_[j]->getAlign());
}

// The axis loop of a register-mode reduction (lane accumulators: see lanes_of): the identity into
// every lane, whole groups of group_ elements (the lane loop, vectorizable: its iterations touch
// other lanes, or the same lane group_ / lanes apart), the rest of the range into the first
// lanes, then the lanes folded pairwise (whole-vector steps). Other reductions (exact, or
// indifferent to order) keep one accumulator, which LLVM may reassociate.
void Codegen::reduce_in_lanes(int lv, const Offsets& off) {
  const size_t n = plan_.instrs.size();
  std::vector<Val> identity(n);
  for (size_t j = 0; j < n; ++j) {
    if (!acc_re_[j]) continue;
    const PlanInstr& in = plan_.instrs[j];
    identity[j] = reduce_op(in.op).identity(e_, in.in);
    if (!acc_lanes_[j]) {
      set_accumulator(j, identity[j]);
      continue;
    }
    const unsigned lanes = unsigned(acc_lanes_[j]);
    store_lanes(j, {b_.CreateVectorSplat(lanes, identity[j].re),
                    identity[j].im ? b_.CreateVectorSplat(lanes, identity[j].im) : nullptr});
  }
  Value* lo = range_lo(lv);
  Value* hi = range_hi(lv);
  Value* whole = b_.CreateAnd(b_.CreateSub(hi, lo), e_.i64(-int64_t(group_)));
  whole = b_.CreateSelect(b_.CreateICmpSGT(hi, lo), whole, e_.i64(0));
  Value* groups = b_.CreateLShr(whole, e_.i64(llvm::Log2_64(uint64_t(group_))));
  Value* rest = b_.CreateAdd(lo, whole);
  // With rest_first_, the rest's inputs are computed before the whole groups: no lane is
  // touched, so the bits are the same, and their latency (a division, a square root) overlaps
  // the groups' work instead of ending the range. With a window (window_) and a whole group, they
  // are computed as the group of elements that ends the range, vectorized (see window_inputs).
  RestInputs early;
  if (window_) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    auto* window_bb = llvm::BasicBlock::Create(m_.getContext(), "rest_window", fn);
    auto* chain_bb = llvm::BasicBlock::Create(m_.getContext(), "rest_chain", fn);
    auto* join_bb = llvm::BasicBlock::Create(m_.getContext(), "rest_ready", fn);
    // (No rest: the chain leaves at once.)
    b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpNE(groups, e_.i64(0)), b_.CreateICmpSLT(rest, hi)),
                    window_bb, chain_bb);
    b_.SetInsertPoint(window_bb);
    RestInputs w = window_inputs(lv, off, lo, rest, hi);
    llvm::BasicBlock* window_end = b_.GetInsertBlock();
    b_.CreateBr(join_bb);
    b_.SetInsertPoint(chain_bb);
    RestInputs c = rest_inputs(lv, off, lo, rest, hi, identity);
    llvm::BasicBlock* chain_end = b_.GetInsertBlock();
    b_.CreateBr(join_bb);
    b_.SetInsertPoint(join_bb);
    auto merge = [&](Value* a, Value* b) -> Value* {
      if (!a) return nullptr;
      llvm::PHINode* phi = b_.CreatePHI(a->getType(), 2);
      phi->addIncoming(a, window_end);
      phi->addIncoming(b, chain_end);
      return phi;
    };
    early.count = merge(w.count, c.count);
    early.rounds.resize(n);
    for (size_t j = 0; j < n; ++j)
      for (size_t r = 0; r < w.rounds[j].size(); ++r)
        early.rounds[j].push_back({merge(w.rounds[j][r].re, c.rounds[j][r].re),
                                   merge(w.rounds[j][r].im, c.rounds[j][r].im)});
  } else if (rest_first_) {
    early = rest_inputs(lv, off, lo, rest, hi, identity);
  }
  loop(e_.i64(0), groups, [&](Value* g) {
    Value* first = b_.CreateAdd(lo, b_.CreateMul(g, e_.i64(group_)));
    lane_loop(lv, off, lo, first, e_.i64(group_),
              lanes_in_memory_ ? LoopHint::NO_UNROLL : LoopHint::USUAL);
  });
  if (lanes_in_memory_)
    lane_loop(lv, off, lo, rest, b_.CreateSub(hi, rest), LoopHint::SCALAR);
  else
    add_rest(rest_first_ ? early : rest_inputs(lv, off, lo, rest, hi, identity));

  for (size_t j = 0; j < n; ++j) {
    if (!acc_re_[j]) continue;
    const PlanInstr& in = plan_.instrs[j];
    Val result;
    if (acc_lanes_[j]) {
      result = load_lanes(j);
      for (int s = acc_lanes_[j] / 2; s >= 1; s /= 2) {
        std::vector<int> low(static_cast<size_t>(s)), high(static_cast<size_t>(s));
        for (int l = 0; l < s; ++l) {
          low[size_t(l)] = l;
          high[size_t(l)] = l + s;
        }
        auto half = [&](Value* x, const std::vector<int>& which) {
          return x ? b_.CreateShuffleVector(x, which) : nullptr;
        };
        result = reduce_step(in, {half(result.re, low), half(result.im, low)},
                             {half(result.re, high), half(result.im, high)}, false);
      }
      result = {b_.CreateExtractElement(result.re, uint64_t(0)),
                result.im ? b_.CreateExtractElement(result.im, uint64_t(0)) : nullptr};
    } else {
      result = accumulator(j, in.in);
    }
    const int a = in.operands[0].index;
    e_.store(in.in, base_[size_t(a)], off.array[size_t(a)], result);
  }
}

// The range's last elements rest .. hi - 1 (fewer than group_) with the lanes in registers: a
// chain of steps, step l computing element rest + l's inputs (the identity where the range ended
// before it) and touching no lane, so that the steps overlap (lanes updated one by one made each
// step wait for the last: rows of 3 ran 1.6x slower) and the lanes stay promotable; then each
// reduction's inputs as whole vectors of its lanes, one per round of them (add_rest adds them).
// Other accumulators take their elements in the steps, as in the loop.
Codegen::RestInputs Codegen::rest_inputs(int lv, const Offsets& off, Value* lo, Value* rest,
                                         Value* hi, const std::vector<Val>& identity) {
  const size_t n = plan_.instrs.size();
  const int steps = group_ - 1;
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* done = llvm::BasicBlock::Create(m_.getContext(), "rest_done", fn);
  std::vector<std::vector<Val>> x(static_cast<size_t>(steps), std::vector<Val>(n));
  std::vector<llvm::BasicBlock*> exits; // exits[k]: left before step k (k == steps: after all)
  for (int l = 0; l < steps; ++l) {
    auto* step = llvm::BasicBlock::Create(m_.getContext(), "rest_step", fn);
    Value* i = b_.CreateAdd(rest, e_.i64(l));
    b_.CreateCondBr(b_.CreateICmpSLT(i, hi), step, done);
    exits.push_back(b_.GetInsertBlock());
    b_.SetInsertPoint(step);
    lane_ = e_.i64(l);
    captured_ = &x[size_t(l)];
    axis_index_ = i;
    axis_lo_ = lo;
    level(lv + 1, advance(off, lv, i));
    captured_ = nullptr;
    lane_ = nullptr;
  }
  b_.CreateBr(done);
  exits.push_back(b_.GetInsertBlock());
  b_.SetInsertPoint(done);
  // Phis first: they lead the block. Step l's inputs where the chain left after it, else the
  // identity (which leaves its lane as it is: see add_rest).
  for (size_t j = 0; j < n; ++j) {
    if (!acc_lanes_[j]) continue;
    for (int l = 0; l < steps; ++l) {
      auto phi = [&](Value* computed, Value* none) -> Value* {
        if (!none) return nullptr;
        llvm::PHINode* p = b_.CreatePHI(none->getType(), unsigned(exits.size()));
        for (size_t k = 0; k < exits.size(); ++k)
          p->addIncoming(int(k) > l ? computed : none, exits[k]);
        return p;
      };
      Val& v = x[size_t(l)][j];
      v = {phi(v.re, identity[j].re), phi(v.im, identity[j].im)};
    }
  }
  RestInputs r;
  r.count = b_.CreateSub(hi, rest); // elements in the chain, 0 .. steps
  r.rounds.resize(n);
  for (size_t j = 0; j < n; ++j) {
    if (!acc_lanes_[j]) continue;
    const int lanes = acc_lanes_[j];
    auto* t = llvm::FixedVectorType::get(e_.type(plan_.instrs[j].in), unsigned(lanes));
    for (int first = 0; first < steps; first += lanes) {
      Val in_lanes{llvm::PoisonValue::get(t), identity[j].im ? llvm::PoisonValue::get(t) : nullptr};
      for (int l = 0; l < lanes; ++l) {
        const Val& v = first + l < steps ? x[size_t(first + l)][j] : identity[j];
        in_lanes.re = b_.CreateInsertElement(in_lanes.re, v.re, uint64_t(l));
        if (v.im) in_lanes.im = b_.CreateInsertElement(in_lanes.im, v.im, uint64_t(l));
      }
      r.rounds[j].push_back(in_lanes);
    }
  }
  return r;
}

// The rest's inputs when the range has a whole group: the group of elements that ends the range
// is computed again (a lane loop that vectorizes), element hi - group_ + l's inputs into window
// slot l; slots group_ .. 2 group_ - 1 hold the identity (set at the kernel's entry), so the
// group_ slots from group_ - count on are the rest's inputs followed by identities: the same
// rounds rest_inputs gives. Only for a block whose other outputs are all contracted (window_):
// the window's elements are computed twice, and nothing but the window slots is written.
Codegen::RestInputs Codegen::window_inputs(int lv, const Offsets& off, Value* lo, Value* rest,
                                           Value* hi) {
  in_window_ = true;
  lane_loop(lv, off, lo, b_.CreateSub(hi, e_.i64(group_)), e_.i64(group_), LoopHint::USUAL);
  in_window_ = false;
  RestInputs r;
  r.count = b_.CreateSub(hi, rest);
  r.rounds.resize(plan_.instrs.size());
  Value* from = b_.CreateSub(e_.i64(group_), r.count);
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    if (!acc_lanes_[j]) continue;
    llvm::Type* elem = e_.type(plan_.instrs[j].in);
    auto* all = llvm::FixedVectorType::get(elem, unsigned(group_));
    auto load = [&](llvm::AllocaInst* slots) -> Value* {
      if (!slots) return nullptr;
      Value* at = b_.CreateInBoundsGEP(slots->getAllocatedType(), slots, {e_.i64(0), from});
      return b_.CreateAlignedLoad(
          all, at, llvm::Align(uint64_t(dtype_size(real_part_type(plan_.instrs[j].in)))));
    };
    Val y{load(window_re_[j]), load(window_im_[j])};
    const int lanes = acc_lanes_[j];
    for (int first = 0; first < group_; first += lanes) {
      std::vector<int> which(static_cast<size_t>(lanes));
      for (int l = 0; l < lanes; ++l) which[size_t(l)] = first + l;
      r.rounds[j].push_back({b_.CreateShuffleVector(y.re, which),
                             y.im ? b_.CreateShuffleVector(y.im, which) : nullptr});
    }
  }
  return r;
}

// Each lane reduction's lanes take the rest's inputs, round by round.
void Codegen::add_rest(const RestInputs& r) {
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    if (!acc_lanes_[j]) continue;
    const PlanInstr& in = plan_.instrs[j];
    const int lanes = acc_lanes_[j];
    Val acc = load_lanes(j);
    for (size_t round = 0; round < r.rounds[j].size(); ++round) {
      Val sum = reduce_step(in, acc, r.rounds[j][round], false);
      // A lane past the range's end takes the identity, which leaves a real lane's bits as they
      // are (a lane that starts at +0.0 is never -0.0); a complex product's is not exact (an
      // infinite part times 0): there those lanes are selected unchanged.
      if (is_complex(in.in) && in.op == Opcode::MULTIPLY_REDUCE) {
        std::vector<llvm::Constant*> index(static_cast<size_t>(lanes));
        for (int l = 0; l < lanes; ++l)
          index[size_t(l)] = llvm::ConstantInt::get(i64(), round * size_t(lanes) + size_t(l));
        Value* taken = b_.CreateICmpSLT(llvm::ConstantVector::get(index),
                                        b_.CreateVectorSplat(unsigned(lanes), r.count));
        sum.re = b_.CreateSelect(taken, sum.re, acc.re);
        sum.im = b_.CreateSelect(taken, sum.im, acc.im);
      }
      acc = sum;
    }
    store_lanes(j, acc);
  }
}

// Elements first .. first + count - 1 of the axis, element first + l into lane l.
void Codegen::lane_loop(int lv, const Offsets& off, Value* lo, Value* first, Value* count,
                        LoopHint hint) {
  loop(
      e_.i64(0), count,
      [&](Value* l) {
        Value* i = b_.CreateAdd(first, l);
        lane_ = l;
        axis_index_ = i;
        axis_lo_ = lo;
        level(lv + 1, advance(off, lv, i));
        lane_ = nullptr;
      },
      hint);
}

void Codegen::level(int lv, const Offsets& off) {
  if (lv == plan_.ndim) {
    element(off);
    return;
  }
  const bool at_axis = lv == plan_.axis;
  if (at_axis && plan_.has_reduction && register_mode()) return reduce_in_lanes(lv, off);
  if (at_axis && plan_.has_reduction) fill(lv + 1, off);
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
  // Never inlined into the entry (which calls it once): inlining turns every noalias argument
  // into an alias scope on every access, and with a few hundred arrays (a column sweep fused
  // into one block) scoped alias analysis alone took seconds per kernel.
  body->addFnAttr(llvm::Attribute::NoInline);

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
  acc_lanes_.assign(plan_.instrs.size(), 0);
  group_ = 1;
  llvm::InlineAsm* escape = llvm::InlineAsm::get(
      llvm::FunctionType::get(b_.getVoidTy(), {ptr}, false), "", "r,~{memory}", true);
  // A reduction or scan that accumulates in registers (its output not contracted).
  auto accumulates = [&](const PlanInstr& in) {
    Family f = op_info(in.op).family;
    return (f == Family::REDUCTION || f == Family::SCAN) && register_mode() &&
           !plan_.arrays[size_t(in.operands[0].index)].contracted;
  };
  size_t lane_sets = 0;
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    const bool in_lanes = accumulates(in) && op_info(in.op).family == Family::REDUCTION &&
                          (in.op == Opcode::ADD_REDUCE || in.op == Opcode::MULTIPLY_REDUCE) &&
                          (is_float(in.in) || is_complex(in.in));
    if (!in_lanes) continue;
    acc_lanes_[j] = lanes_of(in.in);
    group_ = std::max(group_, acc_lanes_[j]);
    lane_sets += is_complex(in.in) ? 2 : 1;
  }
  lanes_in_memory_ =
      lane_sets > kLaneSetsInRegisters || plan_.instrs.size() > kLanesInRegistersMaxOps;
  // In registers, where every accumulator is a lane one (no scan, no order-sensitive arg
  // reduction, nothing else taking the rest's elements), the rest's inputs may be computed
  // before the whole groups; where every other output is contracted too, as a window.
  bool only_lane_accumulators = true, only_lane_outputs = true;
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    if (acc_lanes_[j]) continue;
    only_lane_accumulators = only_lane_accumulators && !accumulates(in);
    const PlanOperand& out = in.operands[0];
    only_lane_outputs =
        only_lane_outputs && out.is_array && plan_.arrays[size_t(out.index)].contracted;
  }
  rest_first_ = register_mode() && lane_sets > 0 && !lanes_in_memory_ && !plan_.has_scan &&
                only_lane_accumulators;
  window_ = rest_first_ && only_lane_outputs;
  window_re_.assign(plan_.instrs.size(), nullptr);
  window_im_.assign(plan_.instrs.size(), nullptr);
  for (size_t j = 0; j < plan_.instrs.size(); ++j) {
    const PlanInstr& in = plan_.instrs[j];
    if (!accumulates(in)) continue;
    llvm::Type* slot = acc_lanes_[j] ? static_cast<llvm::Type*>(llvm::ArrayType::get(
                                           e_.type(in.in), uint64_t(acc_lanes_[j])))
                                     : e_.type(in.in);
    acc_re_[j] = b_.CreateAlloca(slot);
    if (is_complex(in.in)) acc_im_[j] = b_.CreateAlloca(slot);
    if (!acc_lanes_[j]) continue;
    // Lanes on a cache line of their own: a vector of them never straddles two.
    for (llvm::AllocaInst* lanes : {acc_re_[j], acc_im_[j]})
      if (lanes) lanes->setAlignment(llvm::Align(64));
    if (lanes_in_memory_) // the lanes' address escapes (an empty asm): SROA leaves them in memory
      for (llvm::AllocaInst* lanes : {acc_re_[j], acc_im_[j]})
        if (lanes) b_.CreateCall(escape, {lanes});
    if (!window_) continue;
    // The window's slots, their second half the identity for good (window_inputs).
    llvm::Type* elem = e_.type(in.in);
    auto* slots = llvm::ArrayType::get(elem, uint64_t(2 * group_));
    Val identity = reduce_op(in.op).identity(e_, in.in);
    auto window = [&](Value* id) {
      llvm::AllocaInst* w = b_.CreateAlloca(slots);
      w->setAlignment(llvm::Align(64));
      Value* second = b_.CreateInBoundsGEP(slots, w, {e_.i64(0), e_.i64(group_)});
      b_.CreateAlignedStore(b_.CreateVectorSplat(unsigned(group_), id), second, llvm::Align(64));
      return w;
    };
    window_re_[j] = window(identity.re);
    if (identity.im) window_im_[j] = window(identity.im);
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
