// Instruction helpers: operand dtypes, input views and loop shapes.
#include "core/instruction.h"

#include "core/error.h"

namespace hassium {

DType Instruction::dtype(size_t i) const {
  return is_view(i) ? view(i).dtype() : constant(i).dtype;
}

InputViews Instruction::inputs() const {
  const Operand* end = operands.data() + operands.size();
  if (is_system() || operands.empty()) return {end, end};
  return {operands.data() + 1, end};
}

double Instruction::operand_bytes() const {
  double bytes = 0;
  for (const Operand& o : operands)
    if (const View* v = std::get_if<View>(&o)) bytes += v->bytes();
  return bytes;
}

const Dims& Instruction::loop_shape() const {
  static const Dims scalar_shape;
  switch (info().family) {
  case Family::REDUCTION:
    return view(1).shape;
  case Family::INDEXING:
    if (op == Opcode::GATHER) return view(0).shape;
    // One iteration per index (or per value, when the index is a constant).
    if (is_view(2)) return view(2).shape;
    if (is_view(1)) return view(1).shape;
    return scalar_shape;
  default:
    return view(0).shape;
  }
}

} // namespace hassium
