// Cost models: the price of a partition, which the partition algorithms minimize.
//
// Every model here has the same shape, which the algorithms rely on:
//   cost(P) = program_cost() + sum over blocks B of ( block_cost() + sum over bases X that B
//             touches of base_cost(X, B's accesses of X) )
// i.e. it is a sum of per-base terms plus a constant per block. Each per-base term must be
// sub-additive (merging two blocks never raises the sum of the terms) and block_cost() >= 0,
// which makes the model monotonic (Def. 6: merging never costs more). Consequences used by
// ir/fusion/unintrusive.cpp and ir/fusion/optimal.cpp: two blocks that touch no common base gain
// exactly block_cost() by merging; the savings of a merge only depend on the two blocks (Prop. 1).
// And each per-base term sees the flags only through is_contracted(), and for a given
// contraction state is a constant plus a sum of per-view terms:
//   base_cost(X, flags, views) = c(X, contracted) + sum over v in views of t(X, contracted, v)
// so merge_savings() only looks at the views both blocks access, unless the merge contracts
// the base (test/ir/fusion/test_cost_models.cpp checks every model against the definition).
//
// The registry is the list in cost_model.cpp; `bohrium` is the default.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"
#include "ir/fusion/access_table.h"
#include "ir/fusion/block_summary.h"

namespace hassium {

// One base's accesses inside one block (or inside a set of instructions).
struct BasePart {
  uint8_t flags = 0; // BaseFlags
  std::span<const ViewStat> views;
};

class CostModel {
public:
  explicit CostModel(const AccessTable& t) : table_(t) {}
  virtual ~CostModel() = default;
  virtual std::string_view name() const = 0;
  // The unit `hassium fuse` prints after the number ("bytes", "bases", ...).
  virtual std::string_view unit() const = 0;
  // The cost of a block's accesses of one base. `flags` are BaseFlags for the block.
  virtual int64_t base_cost(uint32_t base, uint8_t flags,
                            std::span<const ViewStat> views) const = 0;
  // For the branch and bound of ir/fusion/optimal.cpp, which places instructions in a topological
  // order: a lower bound on the sum of this base's terms over the final blocks, when `placed`
  // holds the base's part in each block built so far that touches it and `rest` the union of
  // its accesses still to be placed (they may join those blocks or new ones). Exact when
  // `rest` is empty.
  virtual int64_t base_bound(uint32_t base, std::span<const BasePart> placed,
                             const BasePart& rest) const = 0;
  // Paid once per block.
  virtual int64_t block_cost() const { return 0; }
  // Paid once per partition.
  virtual int64_t program_cost() const { return 0; }

  const AccessTable& table() const { return table_; }

protected:
  const AccessTable& table_;
};

using CostModelFactory = std::unique_ptr<CostModel> (*)(const AccessTable&);

// The registry (id "fuser.cost_model"), in the order `hassium fuse --help` lists them.
const Registry<CostModelFactory>& cost_model_registry();
// The unit of the named model's costs ("bytes", ...).
std::string_view cost_model_unit(std::string_view name);
// The named model for this program; UserError listing the valid names when unknown.
std::unique_ptr<CostModel> make_cost_model(std::string_view name, const AccessTable& t);

// One factory per file (ir/cost_<name>.cpp).
std::unique_ptr<CostModel> make_bohrium_cost(const AccessTable& t);
std::unique_ptr<CostModel> make_max_contract_cost(const AccessTable& t);
std::unique_ptr<CostModel> make_max_locality_cost(const AccessTable& t);
std::unique_ptr<CostModel> make_robinson_cost(const AccessTable& t);

// Whether some block may still end up contracting the base (see base_bound): its FREE is
// still to be placed, and it is created (and never SYNCed).
bool may_contract(std::span<const BasePart> placed, const BasePart& rest);
// The sum of base_cost over the placed parts.
int64_t placed_cost(const CostModel& m, uint32_t base, std::span<const BasePart> placed);
// The view's statistics in a part, or null.
const ViewStat* find_view(const BasePart& part, uint32_t view);

// The cost of one block (without program_cost()).
int64_t block_cost(const CostModel& m, const BlockSummary& s);
// cost(a) + cost(b) - cost(a u b), computed from the bases both touch (Prop. 1).
int64_t merge_savings(const CostModel& m, const BlockSummary& a, const BlockSummary& b);
// The cost of a whole partition given as blocks of instruction indices.
int64_t partition_cost(const CostModel& m, const std::vector<std::vector<size_t>>& blocks);

} // namespace hassium
