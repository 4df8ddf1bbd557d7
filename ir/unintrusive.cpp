// Partition algorithm `unintrusive` (Sec. V-B, Theorem 3): merge only pairs of blocks that are
// together in some optimal partition, so the optimum stays reachable from the result.
//
// The rule used here is the pendant rule, stated for the "shares a base" graph, for which it
// can be proven for every model of ir/cost_model.h (per-base terms plus a per-block constant):
// block V may be merged into block U when
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
// Applied repeatedly (each merge keeps an optimum among the coarser partitions), the
// optimum over partitions coarser than the result equals the global optimum; the property
// test of ir/optimal.cpp checks exactly that.
#include <deque>

#include "ir/algorithms.h"
#include "ir/partition_graph.h"

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
  std::vector<uint32_t> bases_v, bases_u;
  while (!work.empty()) {
    uint32_t v = work.front();
    work.pop_front();
    queued[v] = 0;
    if (!pg.alive(v)) continue;
    uint32_t u = UINT32_MAX;
    bool pendant = true;
    for (const BaseStat& s : pg.summary(v).bases) {
      for (uint32_t x : touching[s.base]) {
        if (x == v || x == u) continue;
        if (u != UINT32_MAX) {
          pendant = false;
          break;
        }
        u = x;
      }
      if (!pendant) break;
    }
    if (!pendant || u == UINT32_MAX) continue;
    if (!fits_anywhere_with(pg.loop_class(v), pg.loop_class(u)) || !pg.can_merge(v, u)) continue;
    bases_v.clear();
    for (const BaseStat& s : pg.summary(v).bases) bases_v.push_back(s.base);
    bases_u.clear();
    for (const BaseStat& s : pg.summary(u).bases) bases_u.push_back(s.base);
    uint32_t m = pg.merge(v, u);
    uint32_t dead = m == v ? u : v;
    for (uint32_t base : (dead == v ? bases_v : bases_u)) replace_sorted(touching[base], dead, m);
    for (const BaseStat& s : pg.summary(m).bases)
      for (uint32_t x : touching[s.base]) enqueue(x);
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
