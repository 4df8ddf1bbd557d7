// Instruction: an opcode and its operands (output first); operands are views or constants.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/opcode.h"
#include "core/scalar.h"
#include "core/view.h"

namespace hassium {

using Operand = std::variant<View, Scalar>;

struct Instruction {
  Opcode op;
  std::vector<Operand> operands;

  Instruction() = default;
  Instruction(Opcode op, std::vector<Operand> operands) : op(op), operands(std::move(operands)) {}

  const OpInfo& info() const { return op_info(op); }
  bool is_view(size_t i) const { return std::holds_alternative<View>(operands[i]); }
  bool is_constant(size_t i) const { return std::holds_alternative<Scalar>(operands[i]); }
  const View& view(size_t i) const { return std::get<View>(operands[i]); }
  View& view(size_t i) { return std::get<View>(operands[i]); }
  const Scalar& constant(size_t i) const { return std::get<Scalar>(operands[i]); }
  DType dtype(size_t i) const;

  bool is_system() const { return info().family == Family::SYSTEM; }
  // The output view (every non-system instruction has one at position 0).
  const View& out() const { return view(0); }
  // The input views, in operand order (constants skipped). For REDUCE-rule opcodes the axis
  // constant is not an input.
  std::vector<const View*> inputs() const;
  // The shape the instruction loops over: the output's, except for reductions (the input's)
  // and scatters (the index array's; the values' when the index is a constant; none, a single
  // iteration, when both are). The one definition the fuser's loop classes and the engines'
  // loop nests use.
  const Dims& loop_shape() const;
  // The bytes of its array operands (View::bytes, summed).
  double operand_bytes() const;
  // The axis of a reduction or scan.
  int axis() const { return int(constant(2).as_int()); }
};

} // namespace hassium
