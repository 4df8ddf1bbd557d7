// InterpretedKernel: a block's plan as step kernels over tiles (see interpreter.h); which blocks
// qualify; the step kernels' plans, made by planning a one-instruction program.
#include "ve/cpu/interpreter.h"

#include <algorithm>
#include <cstddef>

#include "core/error.h"
#include "core/program.h"

namespace hassium::cpu {

const Registry<InterpreterMode>& interpreter_registry() {
  static const Registry<InterpreterMode> registry(
      "cpu.interpreter", "interpreter mode",
      {{"none", InterpreterMode::NONE, "a new block waits for its fast-tier kernel"},
       {"first", InterpreterMode::FIRST,
        "a new block runs on step kernels until its own kernel is compiled"},
       {"always", InterpreterMode::ALWAYS,
        "every block the interpreter can run, always (to check it against the kernels)"}});
  return registry;
}

namespace {
// Element-wise opcodes whose every step is exact IEEE or integer arithmetic (or a libm
// function with one correct result): the same bits in a vector loop's body and in its tail.
bool exact_op(Opcode op, DType in) {
  switch (op) {
  case Opcode::ADD:
  case Opcode::SUBTRACT:
  case Opcode::MULTIPLY:
  case Opcode::DIVIDE:
  case Opcode::FLOOR_DIVIDE:
  case Opcode::MOD:
  case Opcode::FMOD:
  case Opcode::MAXIMUM:
  case Opcode::MINIMUM:
  case Opcode::FMAX:
  case Opcode::FMIN:
  case Opcode::COPYSIGN:
  case Opcode::HEAVISIDE:
  case Opcode::GCD:
  case Opcode::LCM:
  case Opcode::LEFT_SHIFT:
  case Opcode::RIGHT_SHIFT:
  case Opcode::BITWISE_AND:
  case Opcode::BITWISE_OR:
  case Opcode::BITWISE_XOR:
  case Opcode::LOGICAL_AND:
  case Opcode::LOGICAL_OR:
  case Opcode::LOGICAL_XOR:
  case Opcode::EQUAL:
  case Opcode::NOT_EQUAL:
  case Opcode::GREATER:
  case Opcode::GREATER_EQUAL:
  case Opcode::LESS:
  case Opcode::LESS_EQUAL:
  case Opcode::IDENTITY:
  case Opcode::NEGATIVE:
  case Opcode::SIGN:
  case Opcode::LOGICAL_NOT:
  case Opcode::INVERT:
  case Opcode::FLOOR:
  case Opcode::CEIL:
  case Opcode::TRUNC:
  case Opcode::RINT:
  case Opcode::ISNAN:
  case Opcode::ISINF:
  case Opcode::ISFINITE:
  case Opcode::SIGNBIT:
  case Opcode::REAL:
  case Opcode::IMAG:
  case Opcode::CONJ:
  case Opcode::WHERE:
    return true;
  case Opcode::POWER: // integers: repeated products; floats: pow (vector math)
    return is_integer(in) || in == DType::BOOL;
  case Opcode::ABSOLUTE: // complex: a hypot
  case Opcode::SQRT:     // complex: a helper's series of steps, exact but not checked here
    return !is_complex(in);
  default:
    return false;
  }
}

// A constant operand of a step kernel: a value of the dtype that differs from the step's other
// constants of that dtype (so that the plan keeps them apart: k = 1, 2, ...).
Scalar step_constant(DType t, int k) {
  if (t == DType::BOOL) return Scalar::of_bool(k % 2 == 1);
  if (is_signed_int(t)) return Scalar::of_int(k, t);
  if (is_unsigned_int(t)) return Scalar::of_uint(uint64_t(k), t);
  if (is_float(t)) return Scalar::of_float(double(k), t);
  return Scalar::of_complex({double(k), 0.0}, t);
}

struct StepArg {
  bool constant = false;
  DType dtype = DType::BOOL;
  bool contiguous = true;
};

// The plan of a step kernel: `op` over 1-D arrays (contiguous, or of any stride) and constants.
KernelPlan step_plan(Opcode op, const std::vector<StepArg>& args) {
  Program p;
  std::vector<Operand> ops;
  int constants = 0;
  for (const StepArg& a : args) {
    if (a.constant) {
      ops.emplace_back(step_constant(a.dtype, ++constants));
      continue;
    }
    View v;
    v.base = make_base("s" + std::to_string(ops.size()), a.dtype, 8);
    v.shape = {4};
    v.stride = {a.contiguous ? 1 : 2};
    ops.emplace_back(std::move(v));
  }
  p.instrs.emplace_back(op, std::move(ops));
  KernelPlan plan;
  plan_block(KernelBlock{&p, {0}, {}}, plan, /*bind_data=*/false);
  HS_INTERNAL_ASSERT(plan.ndim == 1 && plan.instrs.size() == 1 &&
                     plan.constants.size() == size_t(constants) && plan.constant_uses.empty())
      << "step kernel of " << op_name(op) << " planned as " << plan.spec;
  for (PlanArray& a : plan.arrays) a.view = nullptr; // the program dies here
  return plan;
}
} // namespace

std::vector<KernelPlan> prebuilt_step_plans() {
  auto common = [](DType t) {
    return t == DType::BOOL || t == DType::INT32 || t == DType::INT64 || t == DType::FLOAT32 ||
           t == DType::FLOAT64;
  };
  std::vector<KernelPlan> plans;
  for (const OpInfo& info : all_opcodes()) {
    if (info.family != Family::ELEMENTWISE) continue;
    for (const std::vector<DType>& sig : all_signatures(info.op)) {
      // The signature's free type is its last input's dtype (WHERE: after the condition).
      if (!std::all_of(sig.begin(), sig.end(), common) || !exact_op(info.op, sig.back())) continue;
      const size_t inputs = sig.size() - 1;
      size_t patterns = 1;
      for (size_t k = 0; k < inputs; ++k) patterns *= 3;
      for (bool out_contiguous : {true, false})
        for (size_t pattern = 0; pattern < patterns; ++pattern) {
          std::vector<StepArg> args{{false, sig[0], out_contiguous}};
          int bool_constants = 0;
          for (size_t k = 0, p = pattern; k < inputs; ++k, p /= 3) {
            const int kind = int(p % 3); // 0 contiguous, 1 any stride, 2 constant
            args.push_back({kind == 2, sig[k + 1], kind == 0});
            bool_constants += kind == 2 && sig[k + 1] == DType::BOOL;
          }
          // (Only constants: a fill. More than two bool constants: not interpretable.)
          if (bool_constants <= 2) plans.push_back(step_plan(info.op, args));
        }
    }
  }
  return plans;
}

bool interpretable(const KernelPlan& plan) {
  if (plan.has_reduction || plan.has_scan || plan.writes_flat || plan.position_param >= 0 ||
      plan.chunks > 1 || plan.instrs.empty())
    return false;
  for (const PlanArray& a : plan.arrays)
    if (a.role != ArrayRole::LOOP) return false;
  for (const PlanInstr& in : plan.instrs) {
    if (!exact_op(in.op, in.in) || op_info(in.op).family != Family::ELEMENTWISE) return false;
    int bool_constants = 0;
    for (const PlanOperand& o : in.operands)
      bool_constants += !o.is_array && plan.constants[size_t(o.index)].dtype == DType::BOOL;
    if (bool_constants > 2) return false; // a step kernel keeps two bool constants apart
  }
  return true;
}

InterpretedKernel::InterpretedKernel(const KernelPlan& plan)
    : ndim_(plan.ndim), split_(plan.split) {
  HS_INTERNAL_ASSERT(interpretable(plan)) << "interpreting a block the interpreter cannot run";
  const size_t narrays = plan.arrays.size();
  array_ptr_.assign(narrays, -1);
  array_param_.assign(narrays, -1);
  array_size_.assign(narrays, 0);
  // Each contracted array's tile buffer, from its first to its last step (then free again).
  std::vector<int> buffer(narrays, -1);
  std::vector<size_t> last(narrays, 0);
  for (size_t i = 0; i < plan.instrs.size(); ++i)
    for (const PlanOperand& o : plan.instrs[i].operands)
      if (o.is_array) last[size_t(o.index)] = i;
  std::vector<int> free_buffers;
  for (size_t j = 0; j < narrays; ++j) {
    const PlanArray& a = plan.arrays[j];
    array_size_[j] = dtype_size(a.dtype);
    if (a.contracted) continue;
    array_ptr_[j] = a.ptr;
    array_param_[j] = a.param;
  }
  std::vector<std::string> specs; // of step_plans_, to find a repeated step
  for (size_t i = 0; i < plan.instrs.size(); ++i) {
    const PlanInstr& in = plan.instrs[i];
    std::vector<StepArg> args;
    for (const PlanOperand& o : in.operands) {
      StepArg a;
      if (!o.is_array) {
        a.constant = true;
        a.dtype = plan.constants[size_t(o.index)].dtype;
      } else {
        const PlanArray& arr = plan.arrays[size_t(o.index)];
        a.dtype = arr.dtype;
        a.contiguous = arr.contracted || arr.inner == StrideClass::ONE;
        if (arr.contracted && buffer[size_t(o.index)] < 0) {
          if (free_buffers.empty()) {
            buffer[size_t(o.index)] = buffers_++;
          } else {
            buffer[size_t(o.index)] = free_buffers.back();
            free_buffers.pop_back();
          }
        }
      }
      args.push_back(a);
    }
    KernelPlan sp = step_plan(in.op, args);
    Step step;
    auto at = std::find(specs.begin(), specs.end(), sp.spec);
    step.kernel = int(at - specs.begin());
    step.ptrs_at = ptr_slots_;
    step.params_at = param_slots_;
    ptr_slots_ += sp.ptrs.size();
    param_slots_ += sp.params.size();
    const PlanInstr& s = sp.instrs[0];
    for (size_t k = 0; k < in.operands.size(); ++k) {
      const PlanOperand& o = in.operands[k];
      Operand op;
      if (!o.is_array) {
        op.kind = Operand::CONSTANT;
        op.index = plan.constants[size_t(o.index)].param;
        op.value = sp.constants[size_t(s.operands[k].index)].param;
      } else {
        const PlanArray& arr = plan.arrays[size_t(o.index)];
        const PlanArray& sa = sp.arrays[size_t(s.operands[k].index)];
        op.kind = arr.contracted ? Operand::TILE : Operand::MEMORY;
        op.index = arr.contracted ? buffer[size_t(o.index)] : int(o.index);
        op.ptr = sa.ptr;
        op.stride = sa.param;
        op.size = dtype_size(arr.dtype);
      }
      step.operands.push_back(op);
    }
    steps_.push_back(std::move(step));
    if (at == specs.end()) {
      specs.push_back(sp.spec);
      step_plans_.push_back(std::move(sp));
    }
    for (const PlanOperand& o : in.operands)
      if (o.is_array && plan.arrays[size_t(o.index)].contracted && last[size_t(o.index)] == i &&
          buffer[size_t(o.index)] >= 0) {
        free_buffers.push_back(buffer[size_t(o.index)]);
        buffer[size_t(o.index)] = -1 - buffer[size_t(o.index)]; // freed (never taken again)
      }
  }
}

int32_t InterpretedKernel::run(int64_t begin, int64_t end, void* const* ptrs, const int64_t* params,
                               KernelError* err) const {
  HS_INTERNAL_ASSERT(kernels_.size() == step_plans_.size()) << "an interpreted kernel not linked";
  const int nd = ndim_;
  const int inner = nd - 1;
  int64_t lo[16], hi[16], idx[16];
  HS_INTERNAL_ASSERT(nd <= 16) << nd << " loop levels";
  for (int l = 0; l < nd; ++l) {
    lo[l] = l == split_ ? begin : 0;
    hi[l] = l == split_ ? end : params[l];
    if (hi[l] <= lo[l]) return KERNEL_OK;
    idx[l] = lo[l];
  }
  // Per thread: the tile buffers, each step's pointer and parameter slots, the arrays' row starts.
  constexpr size_t kBufferBytes = size_t(kTile) * 16;
  thread_local std::vector<std::byte> memory;
  thread_local std::vector<void*> step_ptrs;
  thread_local std::vector<int64_t> step_params;
  thread_local std::vector<char*> rows;
  memory.resize(size_t(buffers_) * kBufferBytes + 64);
  auto* tiles =
      reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(memory.data()) + 63) / 64 * 64);
  step_ptrs.assign(ptr_slots_, nullptr);
  step_params.assign(param_slots_, 0);
  rows.assign(array_ptr_.size(), nullptr);
  // What stays for the whole call: strides, constants, tile buffer pointers.
  for (const Step& s : steps_) {
    int64_t* sp = &step_params[s.params_at];
    for (const Operand& o : s.operands) {
      switch (o.kind) {
      case Operand::MEMORY:
        sp[o.stride] = params[array_param_[size_t(o.index)] + inner];
        break;
      case Operand::TILE:
        sp[o.stride] = 1;
        step_ptrs[s.ptrs_at + size_t(o.ptr)] = tiles + size_t(o.index) * kBufferBytes;
        break;
      case Operand::CONSTANT:
        sp[o.value] = params[o.index];
        sp[o.value + 1] = params[o.index + 1];
        break;
      }
    }
  }
  for (;;) {
    // The arrays' addresses at this outer position, innermost index lo[inner].
    for (size_t j = 0; j < array_ptr_.size(); ++j) {
      if (array_ptr_[j] < 0) continue;
      int64_t off = 0;
      for (int l = 0; l < nd; ++l)
        off += (l == inner ? lo[l] : idx[l]) * params[array_param_[j] + l];
      rows[j] = static_cast<char*>(ptrs[array_ptr_[j]]) + off * array_size_[j];
    }
    for (int64_t t = lo[inner]; t < hi[inner]; t += kTile) {
      const int64_t n = std::min(kTile, hi[inner] - t);
      const int64_t from = t - lo[inner];
      for (const Step& s : steps_) {
        void** sptr = &step_ptrs[s.ptrs_at];
        int64_t* sp = &step_params[s.params_at];
        sp[0] = n;
        for (const Operand& o : s.operands)
          if (o.kind == Operand::MEMORY)
            sptr[o.ptr] = rows[size_t(o.index)] + from * sp[o.stride] * o.size;
        const int32_t r = kernels_[size_t(s.kernel)]->kernel(0, n, sptr, sp, 0, err);
        if (r != KERNEL_OK) return r;
      }
    }
    // The next outer position (odometer over the levels above the innermost).
    int l = inner - 1;
    for (; l >= 0; --l) {
      if (++idx[l] < hi[l]) break;
      idx[l] = lo[l];
    }
    if (l < 0) return KERNEL_OK;
  }
}

} // namespace hassium::cpu
