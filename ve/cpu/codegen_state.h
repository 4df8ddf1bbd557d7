// Codegen: the state of one module's generation, shared by codegen.cpp (the loop nest and the
// kernel entry), codegen_element.cpp (one element's instructions) and codegen_combine.cpp.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "ve/cpu/emitter.h"
#include "ve/cpu/plan.h"

namespace hassium::cpu {

using llvm::Value;

// The current position in the nest: one element offset per array (null where the array is
// not addressed by the loop) and the row-major position.
struct Offsets {
  std::vector<Value*> array;
  Value* position = nullptr;
};

// One element's values: what each array holds so far (loaded or computed) and which were written.
struct ElementValues {
  const Offsets& off;
  std::vector<std::optional<Val>> value;
  std::vector<bool> dirty;
};

// Builds one module. It reads only the plan's structure, never its per-call values.
class Codegen {
public:
  // A register-mode float sum or product accumulates in this many lanes: of the axis range
  // [lo, hi) of n elements, element i < lo + 16 * (n / 16) goes to lane (i - lo) mod kLanes, each
  // lane in axis order; the last n mod 16 elements go, in order, to one more accumulator. The
  // result is (the lanes folded pairwise: lane l op lane l + s, s = kLanes/2, ..., 1) op (that
  // accumulator); every accumulator starts at the identity. The order is part of the generated
  // code's meaning, not the optimizer's choice: the same bits fused or not, vectorized or not, at
  // either tier, on any vector width.
  static constexpr int kLanes = 16;

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
  std::vector<Value*> base_;                         // per array: pointer to element 0 of its view
  std::vector<Value*> extent_;                       // per level
  std::vector<std::vector<Value*>> stride_;          // per array, per level (LOOP, REDUCED)
  std::vector<Value*> position_stride_;              // per level
  std::vector<Val> constant_;                        // per constant
  std::vector<std::vector<Value*>> flat_;            // FLAT: extents then strides
  std::vector<Value*> flat_size_;                    // FLAT: number of elements
  std::vector<llvm::AllocaInst*> acc_re_, acc_im_;   // per instruction: register accumulators
  std::vector<bool> acc_lanes_;                      // per instruction: kLanes accumulators
  std::vector<llvm::AllocaInst*> tail_re_, tail_im_; // theirs for the range's last elements
  Value* lane_ = nullptr;                            // the lane loop's counter where inside it
  bool in_tail_ = false; // accumulating the range's last elements (past the whole groups)
  // The lanes stay in memory, the lane loop rolled (see kLaneSetsInRegisters in codegen.cpp).
  // Else they are promoted to vector registers after the lane loop is vectorized and unrolled.
  bool lanes_in_memory_ = false;
  Value* axis_index_ = nullptr; // the axis loop's counter where inside it
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

  // What a loop asks of LLVM: the usual (vectorized; not interleaved in a long block), to stay
  // scalar, or vectorized but never unrolled.
  enum class LoopHint { USUAL, SCALAR, NO_UNROLL };
  void loop(Value* lo, Value* hi, const std::function<void(Value*)>& body,
            LoopHint hint = LoopHint::USUAL);
  void reduce_in_lanes(int lv, const Offsets& off);
  void lane_loop(int lv, const Offsets& off, Value* lo, Value* first, Value* count, LoopHint hint);
  Value* accumulator_slot(size_t j, llvm::AllocaInst* a, Value* lane);
  void load_params(Value* params);
  Val load_constant(Value* params, const PlanConstant& c);
  Value* advance(Value* off, Value* i, Value* stride, bool innermost, StrideClass cls);
  Offsets advance(const Offsets& off, int level, Value* i);
  void level(int lv, const Offsets& off);
  void fill(int lv, const Offsets& off);
  void element(const Offsets& off);
  Val get(ElementValues& ev, const PlanOperand& o);
  void set(ElementValues& ev, const PlanOperand& o, Val v);
  void element_reduction(ElementValues& ev, size_t j);
  void element_scan(ElementValues& ev, size_t j);
  void element_gather(ElementValues& ev, size_t j);
  void element_scatter(ElementValues& ev, size_t j);
  Value* flat_offset(int a, Value* flat);
  Val accumulator(size_t j, DType t, Value* lane = nullptr);
  void set_accumulator(size_t j, Val v, Value* lane = nullptr);
  Val reduce_step(const PlanInstr& in, Val acc, Val x, bool reassociate);
};

} // namespace hassium::cpu
