// Cost model `max_locality` (the paper's Def. 20): bytes of access pairs split across blocks.
//
// Every pair of accesses (operands) to identical views that sit in different blocks costs the
// view's bytes; four accesses fused together save 6 pairs, not 3. Written as the total over
// all pairs minus the pairs inside each block, so each block pays a non-positive per-base
// term, and merging only adds pairs inside blocks: monotonic.
#include "ir/fusion/cost_model.h"

#include <algorithm>

namespace hassium {

namespace {

int64_t pairs(int64_t n) {
  return n * (n - 1) / 2;
}

class MaxLocalityCost final : public CostModel {
public:
  explicit MaxLocalityCost(const AccessTable& t) : CostModel(t) {
    std::vector<int64_t> count(t.views.size(), 0);
    for (const Access& a : t.accesses)
      if (a.view != kNoView) ++count[a.view];
    for (size_t v = 0; v < count.size(); ++v) total_ += pairs(count[v]) * t.views[v].bytes;
  }
  std::string_view name() const override { return "max_locality"; }
  std::string_view unit() const override { return "bytes"; }
  int64_t base_cost(uint32_t, uint8_t, std::span<const ViewStat> views) const override {
    int64_t c = 0;
    for (const ViewStat& v : views) c -= pairs(v.count) * table_.views[v.view].bytes;
    return c;
  }
  // Bound: the pairs inside the placed blocks, plus for each view the pairs the rest's
  // accesses would make if all joined the placed block with the most accesses of it (the
  // number of pairs is convex in the accesses, so concentrating them is the best case).
  int64_t base_bound(uint32_t base, std::span<const BasePart> placed,
                     const BasePart& rest) const override {
    int64_t c = placed_cost(*this, base, placed);
    for (const ViewStat& v : rest.views) {
      int64_t most = 0;
      for (const BasePart& p : placed)
        if (const ViewStat* w = find_view(p, v.view)) most = std::max<int64_t>(most, w->count);
      c -= (pairs(most + v.count) - pairs(most)) * table_.views[v.view].bytes;
    }
    return c;
  }
  int64_t program_cost() const override { return total_; }

private:
  int64_t total_ = 0;
};

} // namespace

std::unique_ptr<CostModel> make_max_locality_cost(const AccessTable& t) {
  return std::make_unique<MaxLocalityCost>(t);
}

} // namespace hassium
