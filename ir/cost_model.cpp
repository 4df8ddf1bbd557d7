// Cost model registry and the sums every model shares (block cost, merge savings).
#include "ir/cost_model.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"

namespace hassium {

std::span<const CostModelEntry> cost_model_registry() {
  static const CostModelEntry list[] = {
      {"bohrium", make_bohrium_cost, "bytes of external reads and writes (Def. 13)"},
      {"max_contract", make_max_contract_cost, "number of bases not contracted (Def. 19)"},
      {"max_locality", make_max_locality_cost,
       "bytes of identical-view access pairs split across blocks (Def. 20)"},
      {"robinson", make_robinson_cost,
       "max_locality, then max_contract, then number of blocks (Def. 21)"},
  };
  return list;
}

std::vector<std::string> cost_model_names() {
  std::vector<std::string> names;
  for (const auto& e : cost_model_registry()) names.emplace_back(e.name);
  return names;
}

const CostModelEntry& find_cost_model(std::string_view name) {
  for (const auto& e : cost_model_registry())
    if (e.name == name) return e;
  std::ostringstream valid;
  for (const auto& e : cost_model_registry()) valid << (valid.tellp() ? ", " : "") << e.name;
  throw UserError("unknown cost model '" + std::string(name) + "' (valid: " + valid.str() + ")");
}

std::unique_ptr<CostModel> make_cost_model(std::string_view name, const AccessTable& t) {
  return find_cost_model(name).make(t);
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

int64_t merge_savings(const CostModel& m, const BlockSummary& a, const BlockSummary& b) {
  thread_local std::vector<ViewStat> tls_merged;
  std::vector<ViewStat>& merged = tls_merged;
  int64_t saved = m.block_cost();
  const BlockSummary& small = a.bases.size() <= b.bases.size() ? a : b;
  const BlockSummary& large = &small == &a ? b : a;
  for (const BaseStat& x : small.bases) {
    const BaseStat* y = large.find_base(x.base);
    if (!y) continue;
    merged.clear();
    merge_views(small.views_of(x), large.views_of(*y), merged);
    saved += m.base_cost(x.base, x.flags, small.views_of(x)) +
             m.base_cost(y->base, y->flags, large.views_of(*y)) -
             m.base_cost(x.base, uint8_t(x.flags | y->flags), merged);
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
