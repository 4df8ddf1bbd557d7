// Instruction: an opcode and its operands (output first); operands are views or constants.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "core/opcode.h"
#include "core/scalar.h"
#include "core/view.h"

namespace hassium {

using Operand = std::variant<View, Scalar>;

// The views among a run of operands, iterated in place (no list is built):
// `for (const View* in : ins.inputs())`.
class InputViews {
public:
  class iterator {
  public:
    using value_type = const View*;
    using difference_type = std::ptrdiff_t;
    iterator(const Operand* at, const Operand* end) : at_(at), end_(end) { skip(); }
    const View* operator*() const { return std::get_if<View>(at_); }
    iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

  private:
    void skip() {
      while (at_ != end_ && !std::holds_alternative<View>(*at_)) ++at_;
    }
    const Operand* at_;
    const Operand* end_;
  };
  InputViews(const Operand* begin, const Operand* end) : begin_(begin), end_(end) {}
  iterator begin() const { return {begin_, end_}; }
  iterator end() const { return {end_, end_}; }

private:
  const Operand* begin_;
  const Operand* end_;
};

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
  // The input views, in operand order (constants skipped; none for a system instruction). For
  // REDUCE-rule opcodes the axis constant is not an input.
  InputViews inputs() const;
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
