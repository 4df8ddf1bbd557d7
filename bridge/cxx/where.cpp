// where(cond, a, b) as one WHERE instruction (a select per element, exact for every value: inf,
// nan and -0.0 pass through unchanged), so it fuses with its inputs and users and runs in
// parallel. cond is read as bool (nonzero is true); a and b as the compute dtype.
#include "bridge/cxx/session.h"
#include "core/error.h"
#include "hassium/types.h"

namespace hassium::detail {

namespace {
const shape_type* shape_of(const operand& o) {
  auto* n = std::get_if<const node*>(&o.value);
  return n ? &(*n)->shape : nullptr;
}

// A view operand cast to t and broadcast to shape (kept alive in `keep`), or a constant as t.
void add_input(instr& ins, const operand& o, DType t, const shape_type& shape,
               std::vector<node>& keep) {
  if (auto* n = std::get_if<const node*>(&o.value)) {
    keep.push_back(broadcast_to((*n)->dtype == t ? **n : cast(**n, t), shape));
    ins.in(keep.back());
  } else {
    ins.in(constant_as(std::get<Scalar>(o.value), t));
  }
}
} // namespace

node where(const operand& cond, const operand& a, const operand& b, DType compute) {
  shape_type shape;
  for (const operand* o : {&cond, &a, &b})
    if (const shape_type* s = shape_of(*o)) shape = broadcast_shapes(shape, *s);
  node out = make(compute, shape);
  if (out.size() == 0) return out;
  // A constant condition picks one side.
  if (auto* c = std::get_if<Scalar>(&cond.value)) {
    assign(out, c->as_bool() ? a : b);
    return out;
  }
  // The mask: cond as bool (nonzero is true).
  node mask = *std::get<const node*>(cond.value);
  if (mask.dtype != DType::BOOL) {
    operand ops[] = {operand(mask), operand(Scalar::of_int(0).cast(mask.dtype))};
    mask = elementwise(Opcode::NOT_EQUAL, mask.dtype, ops);
  }
  std::vector<node> keep;
  keep.reserve(3);
  instr ins(Opcode::WHERE);
  ins.out(out);
  add_input(ins, operand(mask), DType::BOOL, shape, keep);
  add_input(ins, a, compute, shape, keep);
  add_input(ins, b, compute, shape, keep);
  record(std::move(ins));
  return out;
}

} // namespace hassium::detail
