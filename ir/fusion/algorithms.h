// Partition algorithms (the paper's Sec. V), one file each, and their registry by name.
//
//   singleton    one block per instruction (the bottom of the partition lattice)
//   linear       walk the list, add to the current block unless illegal       (Sec. V-E)
//   unintrusive  merge only blocks that are surely together in an optimum     (Sec. V-B)
//   greedy       merge over the heaviest weight edge if legal, else drop it    (Sec. V-C)
//   optimal      branch and bound from the unintrusive partition, seeded with greedy,
//                within a budget of search nodes                              (Sec. V-D)
//
// Every algorithm returns a legal partition (Def. 5) with its blocks in execution order and
// its cost under the context's cost model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/program.h"
#include "core/registry.h"
#include "ir/fusion/access_table.h"
#include "ir/fusion/cost_model.h"
#include "ir/fusion/partition.h"
#include "ir/fusion/wsp_graph.h"

namespace hassium {

// What one partitioning run works on: the program's access table, the cost model, and the
// WSP graph, built on first use (linear and singleton never need it).
class FusionContext {
public:
  FusionContext(const Program& program, std::string_view cost_model,
                int64_t optimal_budget = 100000);
  FusionContext(const FusionContext&) = delete;
  FusionContext& operator=(const FusionContext&) = delete;

  const Program& program() const { return program_; }
  const AccessTable& table() const { return table_; }
  const CostModel& model() const { return *model_; }
  const WspGraph& graph();
  int64_t optimal_budget() const { return optimal_budget_; }

  // Fills cost, algorithm and cost_model of a result.
  Partition finish(std::vector<std::vector<size_t>> blocks, std::string_view algorithm,
                   bool proven_optimal = false) const;

private:
  const Program& program_;
  AccessTable table_;
  std::unique_ptr<CostModel> model_;
  int64_t optimal_budget_;
  std::optional<WspGraph> graph_;
};

using Blocks = std::vector<std::vector<uint32_t>>;

Partition singleton_partition(FusionContext& ctx);
Partition linear_partition(FusionContext& ctx);
// The merges of the unintrusive rule, starting from `start` (singletons when empty).
Blocks unintrusive_blocks(FusionContext& ctx, const Blocks& start = {});
Partition unintrusive_partition(FusionContext& ctx);
// Greedy merging starting from `start` (singletons when empty).
Partition greedy_partition(FusionContext& ctx, const Blocks& start);
Partition greedy_partition(FusionContext& ctx);
// Branch and bound over the partitions coarser than `start` (which must be coarsened only by
// merges that keep an optimum reachable, e.g. unintrusive ones), with `incumbent` as the
// first best (a legal partition coarser than `start`). Search nodes are limited by
// ctx.optimal_budget(); proven_optimal tells whether the search finished.
Partition optimal_partition(FusionContext& ctx, const Blocks& start, const Partition& incumbent);
Partition optimal_partition(FusionContext& ctx);

using AlgorithmFn = Partition (*)(FusionContext&);

struct Algorithm {
  AlgorithmFn run;
  bool searches = false; // works on the WSP graph (costs ~1-2 us per instruction more)
};

// The one list of algorithms by name (ir/fusion/algorithms.cpp; id "fuser.algorithm").
const Registry<Algorithm>& algorithm_registry();

} // namespace hassium
