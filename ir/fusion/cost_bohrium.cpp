// Cost model `bohrium` (the paper's Def. 13): bytes of external reads plus external writes.
//
// For a block B in program order: an external read is a distinct view read by an instruction
// of B and not written by an earlier instruction of B; an external write is a distinct view
// written by B. A base contracted in B (created and FREEd there; never SYNCed by the
// program, as a SYNCed base must reach memory) costs nothing.
// Merging never adds an external read or write, and only adds contractions: monotonic.
#include "ir/fusion/cost_model.h"

namespace hassium {

namespace {

class BohriumCost final : public CostModel {
public:
  using CostModel::CostModel;
  std::string_view name() const override { return "bohrium"; }
  std::string_view unit() const override { return "bytes"; }
  int64_t base_cost(uint32_t, uint8_t flags, std::span<const ViewStat> views) const override {
    if (is_contracted(flags)) return 0;
    int64_t c = 0;
    for (const ViewStat& v : views)
      c += table_.views[v.view].bytes * (int64_t(v.external_read()) + int64_t(v.written()));
    return c;
  }
  // Bound: a block that cannot receive the base's creator any more keeps its external reads
  // and writes (a later instruction never writes a view before an earlier one reads it, or
  // there would be a dependency the other way). While the base may still be contracted, only
  // the blocks without the placed creator count. Otherwise the rest adds one write of every
  // view no placed block writes, and one read of every view the rest reads before writing
  // that no placed block writes or reads from memory.
  int64_t base_bound(uint32_t base, std::span<const BasePart> placed,
                     const BasePart& rest) const override {
    if (rest.flags == 0 && rest.views.empty()) return placed_cost(*this, base, placed);
    if (may_contract(placed, rest)) {
      int64_t c = 0;
      bool creator_placed = false;
      for (const BasePart& p : placed) {
        if (p.flags & kCreated)
          creator_placed = true;
        else
          c += base_cost(base, p.flags, p.views);
      }
      return creator_placed ? c : 0;
    }
    int64_t c = 0;
    for (const BasePart& p : placed) {
      if (is_contracted(p.flags)) return placed_cost(*this, base, placed);
      c += base_cost(base, p.flags, p.views);
    }
    for (const ViewStat& v : rest.views) {
      bool written = false, read = false;
      for (const BasePart& p : placed)
        if (const ViewStat* w = find_view(p, v.view)) {
          written |= w->written();
          read |= w->external_read();
        }
      if (v.written() && !written) c += table_.views[v.view].bytes;
      if (v.external_read() && !written && !read) c += table_.views[v.view].bytes;
    }
    return c;
  }
};

} // namespace

std::unique_ptr<CostModel> make_bohrium_cost(const AccessTable& t) {
  return std::make_unique<BohriumCost>(t);
}

} // namespace hassium
