// Cost model `robinson` (the paper's Def. 21): max_locality, then max_contract, then the
// number of blocks, lexicographically.
//
// cost = W_loc * max_locality + W_con * max_contract + blocks, with W_con = n + 1 (n
// instructions, so more blocks never outweigh one contraction) and W_loc = (bases + 1) * W_con
// (so all contractions and blocks together never outweigh one byte of locality). A sum of
// monotonic models with positive weights plus a per-block constant is monotonic. Programs
// whose weighted cost would overflow 64 bits are refused with a UserError.
#include "ir/fusion/cost_model.h"

#include "core/error.h"

namespace hassium {

namespace {

[[noreturn]] void overflow() {
  throw UserError("cost model robinson: the weighted cost of this program overflows 64 bits; "
                  "use max_locality or bohrium");
}

int64_t mul_checked(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

class RobinsonCost final : public CostModel {
public:
  explicit RobinsonCost(const AccessTable& t)
      : CostModel(t), locality_(make_max_locality_cost(t)), contract_(make_max_contract_cost(t)) {
    w_con_ = int64_t(t.size()) + 1;
    w_loc_ = mul_checked(contract_->program_cost() + 1, w_con_);
    // The largest magnitude any partial sum reaches: checked once, then plain arithmetic.
    int64_t top = mul_checked(locality_->program_cost() + 1, w_loc_);
    int64_t sum;
    if (__builtin_add_overflow(top, mul_checked(w_con_, w_con_), &sum)) overflow();
    constant_ = locality_->program_cost() * w_loc_ + contract_->program_cost() * w_con_;
  }
  std::string_view name() const override { return "robinson"; }
  std::string_view unit() const override { return "units"; }
  int64_t base_cost(uint32_t base, uint8_t flags, std::span<const ViewStat> views) const override {
    return w_loc_ * locality_->base_cost(base, flags, views) +
           w_con_ * contract_->base_cost(base, flags, views);
  }
  int64_t base_bound(uint32_t base, std::span<const BasePart> placed,
                     const BasePart& rest) const override {
    return w_loc_ * locality_->base_bound(base, placed, rest) +
           w_con_ * contract_->base_bound(base, placed, rest);
  }
  int64_t block_cost() const override { return 1; }
  int64_t program_cost() const override { return constant_; }

private:
  std::unique_ptr<CostModel> locality_, contract_;
  int64_t w_con_ = 1, w_loc_ = 1, constant_ = 0;
};

} // namespace

std::unique_ptr<CostModel> make_robinson_cost(const AccessTable& t) {
  return std::make_unique<RobinsonCost>(t);
}

} // namespace hassium
