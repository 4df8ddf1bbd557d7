// Program helpers: base lookup and collection.
#include "core/program.h"

#include "core/pointer_index.h"
#include "core/thread_scratch.h"

namespace hassium {

BasePtr Program::find_base(std::string_view name) const {
  for (const auto& b : bases)
    if (b->name == name) return b;
  return nullptr;
}

void Program::collect_bases() {
  thread_local PointerIndex tls_seen; // reused: a flush calls this once per filter
  PointerIndex& seen = pinned(tls_seen);
  seen.reset(bases.size() + instrs.size());
  for (const auto& b : bases) seen.insert(b.get());
  bool fresh;
  for (const auto& ins : instrs)
    for (const auto& opnd : ins.operands)
      if (auto* v = std::get_if<View>(&opnd)) {
        seen.insert(v->base.get(), fresh);
        if (fresh) bases.push_back(v->base);
      }
}

} // namespace hassium
