// WSP graph (the paper's Def. 1 and Sec. IV-A3): instructions as vertices, on Boost.Graph.
//
// Three kinds of edges, all in one boost::adjacency_list (built on first use of graph(): the
// algorithms work on the adjacency arrays and weight list, so a flush never pays for it):
// - DEPENDENCY f -> g (f first): the dependencies of ir/fusion/legality.h (find_dependencies: the
//   edges not implied by a path; reachability is that of the full relation).
// - FUSE_PREVENTING {f, g}: the pair is not fusible (ir/fusion/fusibility.h). Materialized only on
//   request (WspGraphOptions), as there may be O(n^2); the algorithms test fusibility on
//   blocks instead (loop classes + view overlaps).
// - WEIGHT {f, g}: the pair has an affinity (they access an identical view, or touch a base one
//   after the other) and is fusible; the weight is the cost saved by merging the two
//   singletons (merge_savings). Weights of merged blocks are recomputed by the algorithms.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "ir/fusion/access_table.h"
#include "ir/fusion/block_summary.h"
#include "ir/fusion/cost_model.h"
#include "ir/fusion/legality.h"

namespace hassium {

enum class WspEdgeKind : uint8_t { DEPENDENCY, FUSE_PREVENTING, WEIGHT };

struct WspEdge {
  WspEdgeKind kind = WspEdgeKind::DEPENDENCY;
  int64_t weight = 0; // WEIGHT edges: the merge savings of the two singletons
};

using WspBoostGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                          WspEdge, boost::no_property, boost::vecS>;

struct WspGraphOptions {
  bool fuse_preventing_edges = false; // add every non-fusible pair (O(n^2) pair tests)
};

class WspGraph {
public:
  WspGraph(const AccessTable& t, const CostModel& m, WspGraphOptions options = {});

  const AccessTable& table() const { return table_; }
  const CostModel& model() const { return model_; }
  // The Boost.Graph view of every edge (the DOT printer's and the tests'), built when first
  // asked for (with FUSE_PREVENTING edges only when the options asked for them).
  const WspBoostGraph& graph() const;
  size_t size() const { return table_.size(); }

  // Dependency edges as adjacency arrays (the same edges as in graph()).
  std::span<const uint32_t> successors(uint32_t v) const {
    return {succ_.data() + succ_off_[v], succ_off_[v + 1] - succ_off_[v]};
  }
  std::span<const uint32_t> predecessors(uint32_t v) const { return deps_.of(v); }
  size_t num_dependencies() const { return succ_.size(); }
  const Dependencies& dependencies() const { return deps_; }

  struct WeightEdge {
    uint32_t u, v; // u < v
    int64_t weight;
  };
  const std::vector<WeightEdge>& weight_edges() const { return weights_; }
  // The summary of each instruction as a singleton block.
  const std::vector<BlockSummary>& summaries() const { return summaries_; }

private:
  const AccessTable& table_;
  const CostModel& model_;
  WspGraphOptions options_;
  mutable std::optional<WspBoostGraph> g_;
  std::vector<uint32_t> succ_off_, succ_;
  Dependencies deps_;
  std::vector<WeightEdge> weights_;
  std::vector<BlockSummary> summaries_;
};

// The blocks with their instructions sorted and the blocks in a legal execution order (a
// topological order of the block graph; ties go to the block with the smaller first
// instruction). InternalError when the block graph has a cycle.
std::vector<std::vector<size_t>> order_blocks(const WspGraph& g,
                                              const std::vector<std::vector<uint32_t>>& blocks);

} // namespace hassium
