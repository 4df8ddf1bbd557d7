// Partition algorithm `linear` (Sec. V-E): walk the instruction list, adding each instruction
// to the current block unless that makes the block non-fusible; then it opens a new block.
//
// No cycle can appear: every earlier block holds only earlier instructions, so edges between
// blocks all point forward. No graph is built: fusibility is tested against the views of the
// current block, marked in arrays indexed by view id. O(accesses * overlapping views).
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fusibility.h"

namespace hassium {

Partition linear_partition(FusionContext& ctx) {
  const AccessTable& t = ctx.table();
  std::vector<uint32_t> seen_in(t.views.size(), UINT32_MAX); // block that accesses the view
  std::vector<uint8_t> written(t.views.size(), 0);           // ... and writes it
  std::vector<std::vector<size_t>> blocks;
  LoopClass cls;
  for (uint32_t i = 0; i < t.size(); ++i) {
    LoopClass c = LoopClass::of(t, i);
    const uint32_t cur = uint32_t(blocks.size()) - 1;
    bool fits = !blocks.empty() && cls.compatible(c);
    for (const Access& a : t.accesses_of(i)) {
      if (!fits) break;
      if (a.view == kNoView) continue;
      for (uint32_t u : t.views[a.view].overlaps)
        if (seen_in[u] == cur && (a.mode == AccessMode::WRITE || written[u])) {
          fits = false;
          break;
        }
    }
    if (!fits) {
      blocks.emplace_back();
      cls = LoopClass();
    }
    const uint32_t b = uint32_t(blocks.size()) - 1;
    blocks.back().push_back(i);
    cls = cls.merged(c);
    for (const Access& a : t.accesses_of(i)) {
      if (a.view == kNoView) continue;
      if (seen_in[a.view] != b) {
        seen_in[a.view] = b;
        written[a.view] = 0;
      }
      if (a.mode == AccessMode::WRITE) written[a.view] = 1;
    }
  }
  return ctx.finish(std::move(blocks), "linear");
}

} // namespace hassium
