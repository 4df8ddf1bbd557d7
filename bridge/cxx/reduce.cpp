// Reductions (sum, prod, min, max, any, all, mean) over one axis or all, and scans (cumsum).
#include "bridge/cxx/session.h"
#include "core/error.h"
#include "hassium/types.h"

namespace hassium::detail {

namespace {
shape_type without(const shape_type& s, int axis) {
  shape_type r;
  for (int k = 0; k < int(s.size()); ++k)
    if (k != axis) r.push_back(s[size_t(k)]);
  return r;
}

node reduce_axis(Opcode op, const node& in, int axis) {
  node out = make(in.dtype, without(in.shape, axis));
  if (out.size() > 0) record(std::move(instr(op).out(out).in(in).in(Scalar::of_int(axis))));
  return out;
}

// The reduction's name as NumPy's error messages spell it.
const char* numpy_name(Opcode op) {
  return op == Opcode::MINIMUM_REDUCE ? "minimum" : "maximum";
}
} // namespace

node reduce(Opcode op, const node& in, std::optional<int> axis, DType compute) {
  if (!dtype_in(compute, op_types(op)))
    HS_USER_ERROR() << op_name(op) << " is not defined for " << dtype_name(compute);
  if (axis) axis = normalize_axis(*axis, in.ndim()); // before anything is recorded
  if (op == Opcode::MINIMUM_REDUCE || op == Opcode::MAXIMUM_REDUCE) {
    bool empty = axis ? in.shape[size_t(*axis)] == 0 : in.size() == 0;
    if (empty)
      HS_USER_ERROR() << "zero-size array to reduction operation " << numpy_name(op)
                      << " which has no identity (shape " << shape_text(in.shape) << ")";
  }
  node src = in.dtype == compute ? in : cast(in, compute);
  if (axis) return reduce_axis(op, src, *axis);
  if (src.ndim() == 0) return copy(src);
  // Axis by axis, the last first: the first reduction has the input's shape as its loop shape,
  // so it fuses with the element-wise instructions that produce the input, and accumulates
  // along the innermost axis; the later ones are small.
  while (src.ndim() > 0) src = reduce_axis(op, src, src.ndim() - 1);
  return src;
}

node any_all(bool all, const node& in, std::optional<int> axis) {
  if (axis) axis = normalize_axis(*axis, in.ndim());
  node truth = in;
  if (in.dtype != DType::BOOL) {
    operand ops[] = {operand(in), operand(Scalar::of_int(0).cast(in.dtype))};
    truth = elementwise(Opcode::NOT_EQUAL, in.dtype, ops);
  }
  return reduce(all ? Opcode::LOGICAL_AND_REDUCE : Opcode::LOGICAL_OR_REDUCE, truth, axis,
                DType::BOOL);
}

node mean(const node& in, std::optional<int> axis, DType compute) {
  if (axis) axis = normalize_axis(*axis, in.ndim());
  node sum = reduce(Opcode::ADD_REDUCE, in, axis, compute);
  int64_t count = axis ? in.shape[size_t(normalize_axis(*axis, in.ndim()))] : in.size();
  operand ops[] = {operand(sum), operand(Scalar::of_float(double(count)).cast(compute))};
  return elementwise(Opcode::DIVIDE, compute, ops);
}

node accumulate(Opcode op, const node& in, std::optional<int> axis, DType compute) {
  if (!dtype_in(compute, op_types(op)))
    HS_USER_ERROR() << op_name(op) << " is not defined for " << dtype_name(compute);
  int ax = axis ? normalize_axis(*axis, in.ndim()) : 0;
  node src = in.dtype == compute ? in : cast(in, compute);
  if (!axis) src = reshape(src, {src.size()});
  node out = make(compute, src.shape);
  if (out.size() > 0) record(std::move(instr(op).out(out).in(src).in(Scalar::of_int(ax))));
  return out;
}

} // namespace hassium::detail
