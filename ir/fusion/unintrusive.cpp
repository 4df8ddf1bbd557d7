// Partition algorithm `unintrusive` (Sec. V-B, Theorem 3): merge only pairs of blocks that are
// together in some optimal partition, so the optimum stays reachable from the result.
//
// Two rules, each proven for every model of ir/fusion/cost_model.h (per-base terms, sub-additive,
// plus a per-block constant), applied until neither finds a merge:
//
// Pendant rule (Theorem 3 stated for the "shares a base" graph): block V may be merged into
// block U when
//   (a) every other block touching a base that V touches is U (V is a pendant vertex: no
//       dependency, conflict or saving links V to anything but U), and
//   (b) V fits in ANY fusible block containing U: V is only FREE/SYNC; or V has no SOLO
//       instruction, U has a non-system instruction of V's loop shape and no SOLO one, and
//       if V reduces an axis, U reduces the same axis.
// Proof sketch: take an optimal partition P with V in block Bv and U in Bu != Bv. Move V from Bv
// into Bu. By (b) Bu + V is fusible; V's dependency edges all go to U, so no cycle appears and
// Bv - V loses edges only. V's bases are touched only by V and U, so their terms go from
// f(V) + f(Bu part) to f(V + Bu part) <= (sub-additivity); the terms of other bases do not
// change, and the block count does not grow. So the moved partition is legal and no worse.
//
// Sink rule (FREE/SYNC placement): a block S of FREE/SYNC instructions that nothing depends on
// may be merged into its latest predecessor U when every other predecessor reaches U.
// Proof sketch: every block touching S's bases is an ancestor of S (FREE/SYNC come after
// every access of their base, and later accesses would depend on S), hence of U. In an optimal
// P with S in Bs != Bu, Bs holds no other toucher of S's bases (it would reach Bu, and Bu
// reaches Bs through U -> S: a cycle). Moving S into Bu adds only edges from blocks that
// already reach Bu, S fuses with anything, and S's bases go from f(S) + f(Bu part) to
// f(S + Bu part) <=. In the paper's Fig. 3 this puts every FREE and the SYNC next to the last
// access of their base.
//
// Applied repeatedly (each merge keeps an optimum among the coarser partitions), the optimum
// over partitions coarser than the result equals the global optimum; the property test of
// test/ir/fusion/test_partition_property.cpp checks exactly that.
#include <deque>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/partition_graph.h"

namespace hassium {

namespace {

// Condition (b): moving V into any legal block that holds U keeps it fusible.
bool fits_anywhere_with(const LoopClass& v, const LoopClass& u) {
  if (!v.compute) return true;
  if (v.solo || !u.compute || u.solo) return false;
  if (v.shape != u.shape) return false;
  return v.axis < 0 || v.axis == u.axis;
}

void replace_sorted(std::vector<uint32_t>& list, uint32_t from, uint32_t to) {
  auto it = std::lower_bound(list.begin(), list.end(), from);
  if (it != list.end() && *it == from) list.erase(it);
  it = std::lower_bound(list.begin(), list.end(), to);
  if (it == list.end() || *it != to) list.insert(it, to);
}

} // namespace

Blocks unintrusive_blocks(FusionContext& ctx, const Blocks& start) {
  const WspGraph& g = ctx.graph();
  const AccessTable& t = g.table();
  Blocks blocks = start;
  if (blocks.empty())
    for (uint32_t i = 0; i < g.size(); ++i) blocks.push_back({i});
  PartitionGraph pg(g, blocks);

  std::vector<std::vector<uint32_t>> touching(t.bases.size()); // sorted block ids per base
  for (uint32_t b = 0; b < pg.num_ids(); ++b)
    for (const BaseStat& s : pg.summary(b).bases) touching[s.base].push_back(b);

  std::deque<uint32_t> work;
  std::vector<uint8_t> queued(pg.num_ids(), 1);
  for (uint32_t b = 0; b < pg.num_ids(); ++b) work.push_back(b);
  auto enqueue = [&](uint32_t b) {
    if (!queued[b]) {
      queued[b] = 1;
      work.push_back(b);
    }
  };
  // The block V merges into by the pendant rule, or UINT32_MAX.
  auto pendant_target = [&](uint32_t v) {
    uint32_t u = UINT32_MAX;
    for (const BaseStat& s : pg.summary(v).bases)
      for (uint32_t x : touching[s.base]) {
        if (x == v || x == u) continue;
        if (u != UINT32_MAX) return UINT32_MAX;
        u = x;
      }
    if (u == UINT32_MAX || !fits_anywhere_with(pg.loop_class(v), pg.loop_class(u)))
      return UINT32_MAX;
    return u;
  };
  // The block S merges into by the sink rule, or UINT32_MAX.
  auto sink_target = [&](uint32_t s) {
    if (pg.loop_class(s).compute || !pg.successors(s).empty() || pg.predecessors(s).empty())
      return UINT32_MAX;
    uint32_t u = pg.predecessors(s)[0];
    for (uint32_t p : pg.predecessors(s))
      if (pg.position(p) > pg.position(u)) u = p;
    for (uint32_t p : pg.predecessors(s))
      if (p != u && !pg.reaches(p, u)) return UINT32_MAX;
    return u;
  };
  std::vector<uint32_t> bases_v, bases_u;
  while (!work.empty()) {
    uint32_t v = work.front();
    work.pop_front();
    queued[v] = 0;
    if (!pg.alive(v)) continue;
    uint32_t u = pendant_target(v);
    if (u == UINT32_MAX) u = sink_target(v);
    if (u == UINT32_MAX || !pg.can_merge(v, u)) continue;
    bases_v.clear();
    for (const BaseStat& s : pg.summary(v).bases) bases_v.push_back(s.base);
    bases_u.clear();
    for (const BaseStat& s : pg.summary(u).bases) bases_u.push_back(s.base);
    uint32_t m = pg.merge(v, u);
    uint32_t dead = m == v ? u : v;
    for (uint32_t base : (dead == v ? bases_v : bases_u)) replace_sorted(touching[base], dead, m);
    for (const BaseStat& s : pg.summary(m).bases)
      for (uint32_t x : touching[s.base]) enqueue(x);
    for (uint32_t x : pg.predecessors(m)) enqueue(x);
    for (uint32_t x : pg.successors(m)) enqueue(x);
  }

  Blocks result;
  for (uint32_t b : pg.order()) result.push_back(pg.members(b));
  return result;
}

Partition unintrusive_partition(FusionContext& ctx) {
  Blocks blocks = unintrusive_blocks(ctx);
  return ctx.finish(order_blocks(ctx.graph(), blocks), "unintrusive");
}

} // namespace hassium
