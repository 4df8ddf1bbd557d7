// Partition algorithm `greedy` (Sec. V-C, Fig. 7): repeatedly take the heaviest weight edge;
// merge its blocks if that is legal (Lemma 1), else drop the edge.
//
// The edges wait in a max-heap. A merge bumps the merged block's version, which makes its
// old edges stale (skipped when popped), and pushes its edges to its affinity neighbors with
// recomputed weights (Prop. 1: only the two blocks matter). So a dropped edge comes back when
// one of its blocks changes. Ties go to the smaller block ids, so results are deterministic.
// O((E + merges * degree) log E) heap work plus the legality searches, which only visit the
// blocks placed between the two (see ir/fusion/partition_graph.h).
//
// Large flushes (more than kExactBlocks start blocks) use a bounded-window variant: a pair
// placed more than kWindow positions apart in the maintained topological order is not tried
// (neither its weight computed nor its legality searched), so each legality search visits at
// most kWindow blocks and greedy no longer goes quadratic when far-apart blocks sharing a
// long-lived base keep coming back after merges. Every merge still passes can_merge(), so the
// result is legal; it may only miss merges of far-apart blocks, which costs a lot when one
// block keeps growing along the whole flush (a NumPy loop updating x in place: 408 MB instead
// of 24 MB at 40,000 instructions, still far less time than the exact search took). Smaller
// flushes (all the tests, the paper's figures) are partitioned exactly as before. Figures and
// what is left: ir/README.md.
//
// Models with a per-block cost (robinson) also gain by merging blocks that share nothing, at
// the same weight block_cost() everywhere: after the heap is empty, a sweep in topological
// order tries to merge each block into one of the few blocks seen just before it.
//
// Last, ir/fusion/refine.h moves a temporary's creator (with its FREE) into its consumer's block
// when that lowers the cost: pairwise weights cannot see a contraction, so a tie can merge the
// creator into a block that merely shares one of its reads (SOR: 2680 -> 2536 bytes, the
// optimum, on one 8x8 sweep). Instructions of a multi-instruction start block never move.
#include <algorithm>
#include <queue>
#include <utility>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/partition_graph.h"
#include "ir/fusion/refine.h"

namespace hassium {

namespace {

struct Candidate {
  int64_t weight;
  uint32_t a, b;   // a < b, block ids when pushed (PartitionGraph::find() forwards merged ones)
  uint32_t va, vb; // their full-repush versions then
  uint32_t pa, pb; // their partial-repush counts then
};

struct Lighter {
  bool operator()(const Candidate& x, const Candidate& y) const {
    if (x.weight != y.weight) return x.weight < y.weight;
    if (x.a != y.a) return x.a > y.a;
    return x.b > y.b;
  }
};

void sweep_unrelated(PartitionGraph& pg) {
  constexpr size_t kLookBack = 4;
  std::vector<uint32_t> recent;
  for (uint32_t b : pg.order()) {
    if (!pg.alive(b)) continue;
    size_t stop = recent.size() > kLookBack ? recent.size() - kLookBack : 0;
    for (size_t k = recent.size(); k-- > stop;) {
      uint32_t r = recent[k];
      if (pg.alive(r) && pg.can_merge(r, b)) {
        b = pg.merge(r, b);
        recent.erase(recent.begin() + long(k));
        break;
      }
    }
    recent.push_back(b);
  }
}

constexpr size_t kExactBlocks = 5000;
constexpr uint32_t kWindow = 1024;

void run_greedy(PartitionGraph& pg, bool singletons) {
  const bool bounded = pg.num_ids() > kExactBlocks;
  auto near = [&](uint32_t a, uint32_t b) {
    if (!bounded) return true;
    uint32_t pa = pg.position(a), pb = pg.position(b);
    return (pa > pb ? pa - pb : pb - pa) <= kWindow;
  };
  // After a merge, eager greedy weighs the merged block against every affinity neighbor again
  // (the block's older entries all become stale: `version`). A block that grew along the flush
  // has thousands of neighbors, and most of those weights cannot have changed: with more than
  // kEagerNeighbors, only the neighbors PartitionGraph::merge() reports as affected are weighed
  // (`partial`), and the block's older entries stay in the heap, checked when popped (a stale
  // one is dropped when its weight no longer holds; the merge that changed it pushed a newer
  // one). The same merges happen in the same order either way.
  constexpr size_t kEagerNeighbors = 64;
  const size_t ids = pg.num_ids();
  std::vector<uint32_t> version(ids, 0), partial(ids, 0);
  std::vector<uint8_t> absorbed_eagerly(ids, 0);
  std::priority_queue<Candidate, std::vector<Candidate>, Lighter> heap;
  auto push = [&](uint32_t a, uint32_t b, int64_t w) {
    if (w <= 0) return;
    if (a > b) std::swap(a, b);
    heap.push({w, a, b, version[a], version[b], partial[a], partial[b]});
  };
  // Loop classes only get stricter as blocks grow: a pair incompatible now never merges, so
  // its weight is not computed (same result, less work).
  auto repush = [&](uint32_t m, uint32_t n) {
    if (pg.alive(n) && n != m && near(m, n) && pg.loop_class(m).compatible(pg.loop_class(n)))
      push(m, n, pg.savings(m, n));
  };
  if (singletons) {
    for (const auto& e : pg.wsp().weight_edges()) push(e.u, e.v, e.weight);
  } else {
    for (uint32_t a = 0; a < ids; ++a)
      for (uint32_t n : pg.affinity(a))
        if (n > a && near(a, n)) push(a, n, pg.savings(a, n));
  }
  // Per side of an entry: 0 fresh, 1 stale, 2 to be checked by its weight.
  auto state = [&](uint32_t id, uint32_t root, uint32_t v, uint32_t p) {
    if (root != id) return absorbed_eagerly[id] ? 1 : 2;
    if (version[id] != v) return 1;
    return partial[id] != p ? 2 : 0;
  };
  // Pairs refused for a path between them, by block: a later merge of either block may remove
  // the path, so they are tried again then (refusals for fusibility are final).
  std::vector<std::vector<uint32_t>> refused(ids);
  std::vector<uint32_t> affected, retry;
  while (!heap.empty()) {
    Candidate c = heap.top();
    heap.pop();
    const uint32_t a = pg.find(c.a), b = pg.find(c.b);
    if (a == b || !near(a, b)) continue;
    const int sa = state(c.a, a, c.va, c.pa), sb = state(c.b, b, c.vb, c.pb);
    if (sa == 1 || sb == 1) continue;
    if ((sa == 2 || sb == 2) && pg.savings(a, b) != c.weight) continue;
    if (!pg.fusible(a, b)) continue;
    if (!pg.path_free(a, b)) {
      refused[a].push_back(b);
      refused[b].push_back(a);
      continue;
    }
    const bool eager = pg.affinity(a).size() + pg.affinity(b).size() <= kEagerNeighbors;
    const uint32_t m = pg.merge(a, b, eager ? nullptr : &affected);
    const uint32_t gone = m == a ? b : a;
    absorbed_eagerly[gone] = eager;
    if (eager) {
      ++version[m];
      for (uint32_t n : pg.affinity(m)) repush(m, n);
    } else {
      ++partial[m];
      for (uint32_t n : affected)
        if (std::binary_search(pg.affinity(m).begin(), pg.affinity(m).end(), n)) repush(m, n);
      // Each block refused beside m once: a pair refused from both sides, or again after each
      // merge, is listed as often as it was refused, and re-pushing every listing made the
      // copies, each refused again, double at every merge (lbm_d3q19 under robinson: 10^7
      // refusals for 1,131 merges).
      retry.clear();
      for (uint32_t side : {m, gone})
        for (uint32_t n : std::exchange(refused[side], {})) retry.push_back(pg.find(n));
      std::sort(retry.begin(), retry.end());
      retry.erase(std::unique(retry.begin(), retry.end()), retry.end());
      for (uint32_t n : retry) repush(m, n);
    }
    refused[m].clear();
    refused[gone].clear();
  }
  if (pg.wsp().model().block_cost() > 0) sweep_unrelated(pg);
}

} // namespace

Partition greedy_partition(FusionContext& ctx, const Blocks& start) {
  const WspGraph& g = ctx.graph();
  Blocks blocks = start;
  if (blocks.empty())
    for (uint32_t i = 0; i < g.size(); ++i) blocks.push_back({i});
  PartitionGraph pg(g, blocks);
  run_greedy(pg, start.empty());
  std::vector<bool> movable;
  if (!start.empty()) {
    movable.assign(g.size(), false);
    for (const auto& b : start)
      if (b.size() == 1) movable[b[0]] = true;
  }
  Blocks merged;
  for (const auto& b : pg.blocks()) merged.emplace_back(b.begin(), b.end());
  return ctx.finish(order_blocks(g, refine_by_moves(g, std::move(merged), movable)), "greedy");
}

Partition greedy_partition(FusionContext& ctx) {
  return greedy_partition(ctx, Blocks{});
}

} // namespace hassium
