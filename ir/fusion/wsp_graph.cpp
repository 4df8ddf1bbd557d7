// WSP graph construction: dependency edges by bucketed access lists, affinity weight edges.
#include "ir/fusion/wsp_graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <sstream>

#include "core/error.h"
#include "ir/fusion/fusibility.h"
#include "ir/fusion/legality.h"

namespace hassium {

namespace {

// The last few distinct instructions that touched something, newest last.
struct Recent {
  static constexpr int kSize = 4;
  uint32_t items[kSize];
  int n = 0;

  void push(uint32_t i) {
    if (n > 0 && items[n - 1] == i) return;
    if (n == kSize) {
      std::copy(items + 1, items + kSize, items);
      --n;
    }
    items[n++] = i;
  }
};

} // namespace

WspGraph::WspGraph(const AccessTable& t, const CostModel& m, WspGraphOptions options)
    : table_(t), model_(m), options_(options) {
  const uint32_t n = uint32_t(t.size());

  // --- dependencies (ir/fusion/legality.h)
  // --------------------------------------------------------
  deps_ = find_dependencies(t);
  succ_off_.assign(n + 1, 0);
  for (uint32_t f : deps_.preds) ++succ_off_[f + 1];
  for (uint32_t v = 0; v < n; ++v) succ_off_[v + 1] += succ_off_[v];
  succ_.resize(deps_.preds.size());
  {
    std::vector<uint32_t> next(succ_off_.begin(), succ_off_.end() - 1);
    for (uint32_t g = 0; g < n; ++g)
      for (uint32_t f : predecessors(g)) succ_[next[f]++] = g;
  }

  // --- singleton summaries and weight edges ---------------------------------------------------
  summaries_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) summaries_.push_back(summarize_instruction(t, i));

  std::vector<Recent> by_view(t.views.size()), by_base(t.bases.size());
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  auto link = [&](Recent& r, uint32_t g) {
    for (int k = r.n - 1; k >= 0; --k)
      if (r.items[k] != g && fusible(t, r.items[k], g)) {
        pairs.emplace_back(r.items[k], g);
        break;
      }
  };
  for (uint32_t g = 0; g < n; ++g) {
    for (const Access& a : t.accesses_of(g)) {
      if (a.view != kNoView) link(by_view[a.view], g);
      link(by_base[a.base], g);
    }
    for (const Access& a : t.accesses_of(g)) {
      if (a.view != kNoView) by_view[a.view].push(g);
      by_base[a.base].push(g);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  weights_.reserve(pairs.size());
  for (auto [u, v] : pairs) {
    int64_t w = merge_savings(m, summaries_[u], summaries_[v]);
    weights_.push_back({u, v, w});
  }
}

const WspBoostGraph& WspGraph::graph() const {
  if (g_) return *g_;
  const uint32_t n = uint32_t(size());
  WspBoostGraph& g = g_.emplace(n);
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t f : predecessors(v))
      boost::add_edge(f, v, WspEdge{WspEdgeKind::DEPENDENCY, 0}, g);
  for (const WeightEdge& e : weights_)
    boost::add_edge(e.u, e.v, WspEdge{WspEdgeKind::WEIGHT, e.weight}, g);
  if (options_.fuse_preventing_edges)
    for (uint32_t u = 0; u < n; ++u)
      for (uint32_t v = u + 1; v < n; ++v)
        if (!fusible(table_, u, v))
          boost::add_edge(u, v, WspEdge{WspEdgeKind::FUSE_PREVENTING, 0}, g);
  return g;
}

namespace {

// Block index of every instruction; -1 when missing. Reports duplicates through `error`.
std::vector<int64_t> block_of(size_t n, const std::vector<std::vector<size_t>>& blocks,
                              std::string& error) {
  std::vector<int64_t> of(n, -1);
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t i : blocks[b]) {
      if (i >= n) {
        error = "block " + std::to_string(b + 1) + " names instruction " + std::to_string(i + 1) +
                " of a program of " + std::to_string(n);
        return of;
      }
      if (of[i] >= 0) {
        error = "instruction " + std::to_string(i + 1) + " is in two blocks";
        return of;
      }
      of[i] = int64_t(b);
    }
  for (size_t i = 0; i < n; ++i)
    if (of[i] < 0) {
      error = "instruction " + std::to_string(i + 1) + " is in no block";
      return of;
    }
  return of;
}

// Kahn's algorithm on the block graph, smallest first instruction first. Returns fewer
// blocks than given when there is a cycle.
std::vector<size_t> topological_blocks(const WspGraph& g,
                                       const std::vector<std::vector<size_t>>& blocks,
                                       const std::vector<int64_t>& of) {
  const size_t k = blocks.size();
  std::vector<std::vector<size_t>> out(k);
  std::vector<size_t> indeg(k, 0), first(k, SIZE_MAX);
  for (size_t b = 0; b < k; ++b)
    for (size_t i : blocks[b]) first[b] = std::min(first[b], i);
  for (uint32_t v = 0; v < g.size(); ++v)
    for (uint32_t w : g.successors(v)) {
      size_t a = size_t(of[v]), b = size_t(of[w]);
      if (a != b) out[a].push_back(b);
    }
  for (auto& o : out) {
    std::sort(o.begin(), o.end());
    o.erase(std::unique(o.begin(), o.end()), o.end());
    for (size_t b : o) ++indeg[b];
  }
  using Item = std::pair<size_t, size_t>; // (first instruction, block)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (size_t b = 0; b < k; ++b)
    if (indeg[b] == 0) ready.push({first[b], b});
  std::vector<size_t> order;
  order.reserve(k);
  while (!ready.empty()) {
    size_t b = ready.top().second;
    ready.pop();
    order.push_back(b);
    for (size_t c : out[b])
      if (--indeg[c] == 0) ready.push({first[c], c});
  }
  return order;
}

} // namespace

std::vector<std::vector<size_t>> order_blocks(const WspGraph& g,
                                              const std::vector<std::vector<uint32_t>>& blocks) {
  std::vector<std::vector<size_t>> sorted;
  sorted.reserve(blocks.size());
  for (const auto& b : blocks) {
    if (b.empty()) continue;
    sorted.emplace_back(b.begin(), b.end());
    std::sort(sorted.back().begin(), sorted.back().end());
  }
  std::string error;
  auto of = block_of(g.size(), sorted, error);
  HS_INTERNAL_ASSERT(error.empty()) << "partition: " << error;
  auto order = topological_blocks(g, sorted, of);
  HS_INTERNAL_ASSERT(order.size() == sorted.size()) << "partition: the block graph has a cycle";
  std::vector<std::vector<size_t>> result;
  result.reserve(order.size());
  for (size_t b : order) result.push_back(std::move(sorted[b]));
  return result;
}

} // namespace hassium
