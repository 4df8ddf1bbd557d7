// where(cond, a, b), exact for every value (inf, nan, -0.0 included) with existing opcodes:
// out = b, then COND_SCATTER out, a, index, cond with index = RANGE (each element's own
// row-major position), so out takes a exactly where cond holds. No arithmetic blend (such as
// cond * a + (1 - cond) * b) is exact: 0 * inf is nan, and -0.0 + 0.0 is +0.0.
// The engine runs scatters on one thread; a WHERE opcode would let it fuse and parallelize.
#include "bridge/cxx/session.h"
#include "core/error.h"
#include "hassium/types.h"

namespace hassium::detail {

namespace {
const shape_type* shape_of(const operand& o) {
  auto* n = std::get_if<const node*>(&o.value);
  return n ? &(*n)->shape : nullptr;
}
} // namespace

node where(const operand& cond, const operand& a, const operand& b, DType compute) {
  shape_type shape;
  for (const operand* o : {&cond, &a, &b})
    if (const shape_type* s = shape_of(*o)) shape = broadcast_shapes(shape, *s);
  node out = make(compute, shape);
  if (out.size() == 0) return out;
  assign(out, b);
  // The mask: cond as bool (nonzero is true), broadcast.
  node mask;
  if (auto* c = std::get_if<const node*>(&cond.value)) {
    mask = **c;
    if (mask.dtype != DType::BOOL) {
      operand ops[] = {operand(mask), operand(Scalar::of_int(0).cast(mask.dtype))};
      mask = elementwise(Opcode::NOT_EQUAL, mask.dtype, ops);
    }
    mask = broadcast_to(mask, shape);
  } else {
    if (std::get<Scalar>(cond.value).as_bool()) assign(out, a);
    return out;
  }
  // The source: a as the compute dtype, materialized when it is a constant.
  node source;
  if (auto* x = std::get_if<const node*>(&a.value)) {
    source = (*x)->dtype == compute ? **x : cast(**x, compute);
    source = broadcast_to(source, shape);
  } else {
    source = make(compute, shape);
    assign(source, a);
  }
  node positions = make(DType::INT64, shape);
  record(std::move(instr(Opcode::RANGE).out(positions)));
  record(std::move(instr(Opcode::COND_SCATTER).out(out).in(source).in(positions).in(mask)));
  return out;
}

} // namespace hassium::detail
