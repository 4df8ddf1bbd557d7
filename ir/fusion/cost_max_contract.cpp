// Cost model `max_contract` (the paper's Def. 19): the number of bases not contracted.
//
// Counts every base some instruction accesses through a view, minus those contracted in
// their block (created and FREEd there, never SYNCed). Merging only adds contractions.
#include "ir/fusion/cost_model.h"

namespace hassium {

namespace {

class MaxContractCost final : public CostModel {
public:
  explicit MaxContractCost(const AccessTable& t) : CostModel(t) {
    for (const BaseEntry& b : t.bases) bases_ += b.viewed;
  }
  std::string_view name() const override { return "max_contract"; }
  std::string_view unit() const override { return "bases"; }
  int64_t base_cost(uint32_t, uint8_t flags, std::span<const ViewStat>) const override {
    return is_contracted(flags) ? -1 : 0;
  }
  int64_t base_bound(uint32_t base, std::span<const BasePart> placed,
                     const BasePart& rest) const override {
    return may_contract(placed, rest) ? -1 : placed_cost(*this, base, placed);
  }
  int64_t program_cost() const override { return bases_; }

private:
  int64_t bases_ = 0;
};

} // namespace

std::unique_ptr<CostModel> make_max_contract_cost(const AccessTable& t) {
  return std::make_unique<MaxContractCost>(t);
}

} // namespace hassium
