// WHERE as IR: a select per part, so the loop stays branch-free and vectorizes.
#include "ve/cpu/ops.h"

namespace hassium::cpu {

// a = {cond (i1), x, y}, x and y of dtype t.in (complex: both parts chosen together).
Val emit_where(Emitter& e, OpTypes, std::span<const Val> a) {
  llvm::Value* cond = a[0].re;
  Val r{e.b.CreateSelect(cond, a[1].re, a[2].re), nullptr};
  if (a[1].im) r.im = e.b.CreateSelect(cond, a[1].im, a[2].im);
  return r;
}

} // namespace hassium::cpu
