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
  // A register-mode float sum or product accumulates in lanes: one 64-byte line of them, 8 for
  // float64 (and each part of a complex128), 16 for float32 (complex64). Of the axis range
  // [lo, hi), element i goes to lane (i - lo) mod lanes, each lane in axis order and starting at
  // the identity; the result is the lanes folded pairwise (lane l op lane l + s, s = lanes/2,
  // ..., 1). The order is part of the generated code's meaning, not the optimizer's choice: the
  // same bits fused or not, vectorized or not, at either tier, on any vector width.
  static constexpr int kLaneBytes = 64;
  static int lanes_of(DType t) { return kLaneBytes / dtype_size(real_part_type(t)); }

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
  std::vector<int> acc_lanes_;                     // per instruction: its lanes (lanes_of), or 0
  int group_ = 0; // elements per lane loop: the most lanes of the block's lane accumulators
  // Where set (a range's last elements in registers), the lane reductions' inputs go here, per
  // instruction, instead of into their lanes.
  std::vector<Val>* captured_ = nullptr;
  bool rest_first_ = false; // the rest's inputs before the whole groups (see kernel())
  bool window_ = false;     // ... and as a window of the range's last group (window_inputs)
  bool in_window_ = false;  // computing the window: lane reductions' inputs into its slots
  std::vector<llvm::AllocaInst*> window_re_, window_im_; // per lane reduction: 2 group_ slots
  Value* lane_ = nullptr;                                // the lane loop's counter where inside it
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

  // What a loop asks of LLVM: the usual (vectorized; not interleaved in a long block),
  // vectorized but never unrolled, or neither (a loop of fewer iterations than a vector: its
  // vector and epilogue copies would only multiply the code to compile).
  enum class LoopHint { USUAL, NO_UNROLL, SCALAR };
  void loop(Value* lo, Value* hi, const std::function<void(Value*)>& body,
            LoopHint hint = LoopHint::USUAL);
  void reduce_in_lanes(int lv, const Offsets& off);
  Val load_lanes(size_t j);
  void store_lanes(size_t j, Val v);
  // The inputs of a range's last elements to the lane reductions (see rest_inputs).
  struct RestInputs {
    Value* count = nullptr;               // how many elements there were
    std::vector<std::vector<Val>> rounds; // per instruction: a vector of its lanes per round
  };
  RestInputs rest_inputs(int lv, const Offsets& off, Value* lo, Value* rest, Value* hi,
                         const std::vector<Val>& identity);
  RestInputs window_inputs(int lv, const Offsets& off, Value* lo, Value* rest, Value* hi);
  void add_rest(const RestInputs& r);
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
