// Element-wise operations: inputs cast to the compute dtype and broadcast, overlap copies (the
// bytecode's data-parallel rule), results cast into the target, assignment and casts.

#include "bridge/common/overlap.h"
#include "bridge/common/recording.h"
#include "bridge/cxx/session.h"
#include "core/error.h"
#include "hassium/types.h"

namespace hassium::detail {

Scalar constant_as(const Scalar& s, DType t) {
  const bool weak_integer = s.dtype == DType::INT64 || s.dtype == DType::UINT64;
  if (weak_integer && is_integer(t) && !frontend::int_constant_fits(s, t))
    HS_USER_ERROR() << "the integer constant " << s.value_text() << " is out of bounds for "
                    << dtype_name(t);
  return s.cast(t);
}

namespace {
void check_writable(const node& out) {
  for (size_t k = 0; k < out.shape.size(); ++k)
    if (out.stride[k] == 0 && out.shape[k] > 1)
      HS_USER_ERROR() << "cannot write into a broadcast view (shape " << shape_text(out.shape)
                      << ", strides " << shape_text(out.stride) << ")";
}

// A view input made ready to be read by an instruction writing `out`: cast to `t`, broadcast to
// out's shape, and copied when it overlaps `out` without being identical to it.
node prepare(const node& in, DType t, const node& out) {
  node v = in.dtype == t ? in : cast(in, t);
  if (v.shape != out.shape) {
    try {
      v = broadcast_to(v, out.shape);
    } catch (const UserError&) {
      HS_USER_ERROR() << "could not broadcast input from shape " << shape_text(in.shape)
                      << " into shape " << shape_text(out.shape);
    }
  }
  if (v.base == out.base && frontend::must_copy_input(to_view(v), to_view(out)))
    v = broadcast_to(copy(in), out.shape);
  return v;
}
} // namespace

node elementwise(Opcode op, DType compute, std::span<const operand> inputs) {
  shape_type shape;
  for (const operand& in : inputs)
    if (auto* n = std::get_if<const node*>(&in.value)) shape = broadcast_shapes(shape, (*n)->shape);
  node out = make(result_dtype(op, compute), shape);
  elementwise_into(out, op, compute, inputs);
  return out;
}

void elementwise_into(const node& out, Opcode op, DType compute, std::span<const operand> inputs) {
  if (!dtype_in(compute, op_types(op)))
    HS_USER_ERROR() << op_name(op) << " is not defined for " << dtype_name(compute);
  check_writable(out);
  if (out.size() == 0) return;
  std::vector<node> keep; // prepared inputs live until recorded
  keep.reserve(inputs.size());
  instr ins(op);
  DType result = result_dtype(op, compute);
  node target = result == out.dtype ? out : make(result, out.shape);
  ins.out(target);
  for (const operand& in : inputs) {
    if (auto* n = std::get_if<const node*>(&in.value)) {
      keep.push_back(prepare(**n, compute, target));
      ins.in(keep.back());
    } else {
      ins.in(constant_as(std::get<Scalar>(in.value), compute));
    }
  }
  record(std::move(ins));
  if (result != out.dtype) record(std::move(instr(Opcode::IDENTITY).out(out).in(target)));
}

void assign(const node& out, const operand& value) {
  check_writable(out);
  if (out.size() == 0) return;
  if (auto* n = std::get_if<const node*>(&value.value)) {
    node src = prepare(**n, (*n)->dtype, out);
    record(std::move(instr(Opcode::IDENTITY).out(out).in(src)));
  } else {
    record(std::move(instr(Opcode::IDENTITY)
                         .out(out)
                         .in(constant_as(std::get<Scalar>(value.value), out.dtype))));
  }
}

node cast(const node& in, DType t) {
  node out = make(t, in.shape);
  if (out.size() > 0) record(std::move(instr(Opcode::IDENTITY).out(out).in(in)));
  return out;
}

node copy(const node& in) {
  return cast(in, in.dtype);
}

node full(DType t, const shape_type& shape, const Scalar& value) {
  node out = make(t, shape);
  if (out.size() > 0) record(std::move(instr(Opcode::IDENTITY).out(out).in(value.cast(t))));
  return out;
}

node from_memory(DType t, const shape_type& shape, const void* data, int64_t count) {
  node out = make(t, shape);
  if (count != out.size())
    HS_USER_ERROR() << "cannot make an array of shape " << shape_text(shape) << " (" << out.size()
                    << " elements) from " << count << " values";
  frontend::allocate_external(*out.base->base, data);
  return out;
}

} // namespace hassium::detail
