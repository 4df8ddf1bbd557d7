// The registry of partition algorithms, and the context they run in.
#include "ir/fusion/algorithms.h"

#include "core/error.h"

namespace hassium {

FusionContext::FusionContext(const Program& program, std::string_view cost_model,
                             int64_t optimal_budget)
    : program_(program), table_(build_access_table(program)),
      model_(make_cost_model(cost_model, table_)), optimal_budget_(optimal_budget) {}

const WspGraph& FusionContext::graph() {
  if (!graph_) graph_.emplace(table_, *model_);
  return *graph_;
}

Partition FusionContext::finish(std::vector<std::vector<size_t>> blocks, std::string_view algorithm,
                                bool proven_optimal) const {
  Partition p;
  p.cost = partition_cost(*model_, blocks);
  p.blocks = std::move(blocks);
  p.proven_optimal = proven_optimal;
  p.algorithm = std::string(algorithm);
  p.cost_model = std::string(model_->name());
  return p;
}

const Registry<Algorithm>& algorithm_registry() {
  static const Registry<Algorithm> registry(
      "fuser.algorithm", "fusion algorithm",
      {
          {"singleton", {singleton_partition}, "one block per instruction"},
          {"linear",
           {linear_partition},
           "add each instruction to the current block unless illegal"},
          {"unintrusive",
           {unintrusive_partition, true},
           "only merges that are surely in an optimum"},
          {"greedy", {greedy_partition, true}, "merge over the heaviest legal weight edge first"},
          {"optimal",
           {optimal_partition, true},
           "branch and bound, within optimal_budget search nodes"},
      });
  return registry;
}

} // namespace hassium
