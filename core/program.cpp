// Program helpers: base lookup and collection.
#include "core/program.h"

#include <unordered_set>

namespace hassium {

BasePtr Program::find_base(std::string_view name) const {
  for (const auto& b : bases)
    if (b->name == name) return b;
  return nullptr;
}

void Program::collect_bases() {
  std::unordered_set<const Base*> seen;
  for (const auto& b : bases) seen.insert(b.get());
  for (const auto& ins : instrs)
    for (const auto& opnd : ins.operands)
      if (auto* v = std::get_if<View>(&opnd))
        if (seen.insert(v->base.get()).second) bases.push_back(v->base);
}

} // namespace hassium
