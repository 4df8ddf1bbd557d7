// Cost model registry and the sums every model shares (block cost, merge savings).
#include "ir/fusion/cost_model.h"

#include <algorithm>

#include "core/error.h"
#include "core/thread_scratch.h"

namespace hassium {

const Registry<CostModelFactory>& cost_model_registry() {
  static const Registry<CostModelFactory> registry(
      "fuser.cost_model", "cost model",
      {
          {"bohrium", make_bohrium_cost, "bytes of external reads and writes (Def. 13)"},
          {"max_contract", make_max_contract_cost, "number of bases not contracted (Def. 19)"},
          {"max_locality", make_max_locality_cost,
           "bytes of identical-view access pairs split across blocks (Def. 20)"},
          {"robinson", make_robinson_cost,
           "max_locality, then max_contract, then number of blocks (Def. 21)"},
      });
  return registry;
}

std::unique_ptr<CostModel> make_cost_model(std::string_view name, const AccessTable& t) {
  return cost_model_registry().find(name).value(t);
}

std::string_view cost_model_unit(std::string_view name) {
  static const AccessTable empty;
  return make_cost_model(name, empty)->unit(); // units are literals
}

bool may_contract(std::span<const BasePart> placed, const BasePart& rest) {
  uint8_t all = rest.flags;
  for (const BasePart& p : placed) all |= p.flags;
  return (rest.flags & kFreed) && (all & kCreated);
}

int64_t placed_cost(const CostModel& m, uint32_t base, std::span<const BasePart> placed) {
  int64_t c = 0;
  for (const BasePart& p : placed) c += m.base_cost(base, p.flags, p.views);
  return c;
}

const ViewStat* find_view(const BasePart& part, uint32_t view) {
  auto it = std::lower_bound(part.views.begin(), part.views.end(), view,
                             [](const ViewStat& v, uint32_t x) { return v.view < x; });
  return it != part.views.end() && it->view == view ? &*it : nullptr;
}

int64_t block_cost(const CostModel& m, const BlockSummary& s) {
  int64_t c = m.block_cost();
  for (const BaseStat& b : s.bases) c += m.base_cost(b.base, b.flags, s.views_of(b));
  return c;
}

namespace {

// The views of one base that both sorted lists hold, each list's statistics of them. Walks the
// shorter list and binary-searches the longer one (a block that grew along the flush holds
// thousands of views of a base, the block it is weighed against a few).
void shared_views(std::span<const ViewStat> a, std::span<const ViewStat> b,
                  std::vector<ViewStat>& in_a, std::vector<ViewStat>& in_b) {
  const bool a_short = a.size() <= b.size();
  std::span<const ViewStat> s = a_short ? a : b, l = a_short ? b : a;
  std::vector<ViewStat>& in_s = a_short ? in_a : in_b;
  std::vector<ViewStat>& in_l = a_short ? in_b : in_a;
  auto from = l.begin();
  for (const ViewStat& v : s) {
    from = std::lower_bound(from, l.end(), v.view,
                            [](const ViewStat& w, uint32_t x) { return w.view < x; });
    if (from == l.end()) break;
    if (from->view != v.view) continue;
    in_s.push_back(v);
    in_l.push_back(*from);
  }
}

} // namespace

int64_t merge_savings(const CostModel& m, const BlockSummary& a, const BlockSummary& b) {
  thread_local std::vector<ViewStat> tls_merged, tls_small, tls_large;
  std::vector<ViewStat>& merged = pinned(tls_merged);
  int64_t saved = m.block_cost();
  const BlockSummary& small = a.bases.size() <= b.bases.size() ? a : b;
  const BlockSummary& large = &small == &a ? b : a;
  for (const BaseStat& x : small.bases) {
    const BaseStat* y = large.find_base(x.base);
    if (!y) continue;
    const uint8_t flags = uint8_t(x.flags | y->flags);
    std::span<const ViewStat> xs = small.views_of(x), ys = large.views_of(*y);
    merged.clear();
    if (is_contracted(flags)) { // the merge contracts the base: both sides' whole terms go
      merge_views(xs, ys, merged);
      saved += m.base_cost(x.base, x.flags, xs) + m.base_cost(y->base, y->flags, ys) -
               m.base_cost(x.base, flags, merged);
      continue;
    }
    // Neither side nor the union contracts the base, so by the models' shape (cost_model.h)
    // only the terms of the views both sides access change.
    tls_small.clear();
    tls_large.clear();
    shared_views(xs, ys, tls_small, tls_large);
    merge_views(tls_small, tls_large, merged);
    saved += m.base_cost(x.base, x.flags, tls_small) + m.base_cost(y->base, y->flags, tls_large) -
             m.base_cost(x.base, flags, merged);
  }
  return saved;
}

int64_t partition_cost(const CostModel& m, const std::vector<std::vector<size_t>>& blocks) {
  int64_t c = m.program_cost();
  std::vector<uint32_t> ids;
  for (const auto& blk : blocks) {
    ids.assign(blk.begin(), blk.end());
    c += block_cost(m, summarize_block(m.table(), ids));
  }
  return c;
}

} // namespace hassium
