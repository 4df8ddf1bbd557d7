// The registry of partition algorithms, and the context they run in.
#include "ir/fusion/algorithms.h"

#include <sstream>

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

std::span<const AlgorithmEntry> algorithm_registry() {
  static const AlgorithmEntry list[] = {
      {"singleton", singleton_partition, "one block per instruction"},
      {"linear", linear_partition, "add each instruction to the current block unless illegal"},
      {"unintrusive", unintrusive_partition, "only merges that are surely in an optimum", true},
      {"greedy", greedy_partition, "merge over the heaviest legal weight edge first", true},
      {"optimal", optimal_partition, "branch and bound, within optimal_budget search nodes", true},
  };
  return list;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const auto& e : algorithm_registry()) names.emplace_back(e.name);
  return names;
}

const AlgorithmEntry& find_algorithm(std::string_view name) {
  for (const auto& e : algorithm_registry())
    if (e.name == name) return e;
  std::ostringstream valid;
  for (const auto& e : algorithm_registry()) valid << (valid.tellp() ? ", " : "") << e.name;
  throw UserError("unknown fusion algorithm '" + std::string(name) + "' (valid: " + valid.str() +
                  ")");
}

} // namespace hassium
