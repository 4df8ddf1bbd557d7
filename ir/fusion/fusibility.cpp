// Fusibility rules (see ir/fusion/fusibility.h): loop classes, pairwise and block-level view tests.
#include "ir/fusion/fusibility.h"

#include <algorithm>

namespace hassium {

LoopClass LoopClass::of(const AccessTable& t, uint32_t instr) {
  const InstrEntry& e = t.instrs[instr];
  LoopClass c;
  if (e.kind == InstrKind::SYSTEM) return c;
  c.compute = true;
  c.solo = e.kind == InstrKind::SOLO;
  c.shape = e.shape;
  c.axis = e.axis;
  return c;
}

bool LoopClass::compatible(const LoopClass& o) const {
  if (!compute || !o.compute) return true;         // rule 1
  if (solo || o.solo) return false;                // rule 2
  if (shape != o.shape) return false;              // rule 3
  return axis < 0 || o.axis < 0 || axis == o.axis; // rule 4
}

LoopClass LoopClass::merged(const LoopClass& o) const {
  if (!compute) return o;
  if (!o.compute) return *this;
  LoopClass c = *this;
  c.solo = solo || o.solo;
  if (c.axis < 0) c.axis = o.axis;
  return c;
}

bool fusible(const AccessTable& t, uint32_t f, uint32_t g) {
  if (f == g) return true;
  if (!LoopClass::of(t, f).compatible(LoopClass::of(t, g))) return false;
  auto af = t.accesses_of(f), ag = t.accesses_of(g);
  for (const Access& x : af)
    for (const Access& y : ag) {
      if (x.view == kNoView || y.view == kNoView || x.view == y.view) continue;
      if (x.mode != AccessMode::WRITE && y.mode != AccessMode::WRITE) continue;
      if (t.overlapping(x.view, y.view)) return false;
    }
  return true;
}

bool views_fusible(const AccessTable& t, const BlockSummary& a, const BlockSummary& b) {
  const BlockSummary& small = a.views.size() <= b.views.size() ? a : b;
  const BlockSummary& large = &small == &a ? b : a;
  const BaseStat* base = nullptr; // large's part of the current view's base
  std::span<const ViewStat> theirs;
  for (const ViewStat& v : small.views) {
    const uint32_t vb = t.views[v.view].base;
    if (!base || base->base != vb) {
      base = large.find_base(vb);
      theirs = base ? large.views_of(*base) : std::span<const ViewStat>();
    }
    const std::vector<uint32_t>& over = t.views[v.view].overlaps;
    if (theirs.empty() || over.empty()) continue;
    // Both lists are sorted by view id: walk the shorter, binary-search the longer.
    if (over.size() <= theirs.size()) {
      auto from = theirs.begin();
      for (uint32_t u : over) {
        from = std::lower_bound(from, theirs.end(), u,
                                [](const ViewStat& w, uint32_t x) { return w.view < x; });
        if (from == theirs.end()) break;
        if (from->view == u && (v.written() || from->written())) return false;
      }
    } else {
      auto from = over.begin();
      for (const ViewStat& w : theirs) {
        from = std::lower_bound(from, over.end(), w.view);
        if (from == over.end()) break;
        if (*from == w.view && (v.written() || w.written())) return false;
      }
    }
  }
  return true;
}

} // namespace hassium
