// remove_dead: removes instructions whose results nobody reads before their base is FREEd.
//
// Contract: walking the program backwards, a base is dead from its FREE back to the nearest
// instruction that reads any element of it (any view: partial and overlapping views count as
// reads of the whole base) or SYNCs it. A non-system instruction whose output base is dead at
// that point is removed; its inputs then do not count as reads, so chains of dead temporaries
// go in one pass. Bases not FREEd in the program are live throughout (the frontend or a later
// flush may read them); writes never make a base dead (a partial write leaves the rest live).
// FREE and SYNC stay. The removed instructions include ones that could have failed at run
// time (a GATHER with an index out of range): their error is not raised, as with any result
// nobody observes.
// Complexity: O(operands), one backward pass.
#include <unordered_set>

#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

Program remove_dead(Program p) {
  std::unordered_set<const Base*> dead;
  std::vector<bool> drop(p.instrs.size(), false);
  for (size_t i = p.instrs.size(); i-- > 0;) {
    const Instruction& ins = p.instrs[i];
    const Base* out = ins.out().base.get();
    if (ins.op == Opcode::FREE) {
      dead.insert(out);
      continue;
    }
    if (ins.op == Opcode::SYNC) {
      dead.erase(out);
      continue;
    }
    if (ins.is_system()) continue;
    if (dead.count(out)) {
      drop[i] = true;
      continue;
    }
    for (const View* v : ins.inputs()) dead.erase(v->base.get());
  }
  filters::erase_marked(p, drop);
  return p;
}

} // namespace hassium
