// Partition graph: block contraction with a maintained topological order.
#include "ir/fusion/partition_graph.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "core/error.h"

namespace hassium {

namespace {

constexpr uint32_t kDead = UINT32_MAX;

void sort_unique(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// In the sorted list of block `owner`'s neighbors, block `from` becomes block `to`.
void relabel(std::vector<uint32_t>& list, uint32_t from, uint32_t to) {
  auto it = std::lower_bound(list.begin(), list.end(), from);
  if (it != list.end() && *it == from) list.erase(it);
  it = std::lower_bound(list.begin(), list.end(), to);
  if (it == list.end() || *it != to) list.insert(it, to);
}

// a := (a u b) \ {x, y}, all sorted; in place, from the back.
void unite(std::vector<uint32_t>& a, const std::vector<uint32_t>& b, uint32_t x, uint32_t y) {
  const size_t n = a.size();
  a.resize(n + b.size());
  size_t i = n, j = b.size(), w = a.size();
  while (j > 0) {
    if (i > 0 && a[i - 1] >= b[j - 1]) {
      if (a[i - 1] == b[j - 1]) --j;
      a[--w] = a[--i];
    } else {
      a[--w] = b[--j];
    }
  }
  if (w > i) a.erase(a.begin() + long(i), a.begin() + long(w));
  a.erase(std::remove_if(a.begin(), a.end(), [&](uint32_t v) { return v == x || v == y; }),
          a.end());
}

} // namespace

PartitionGraph::PartitionGraph(const WspGraph& g, const std::vector<std::vector<uint32_t>>& blocks)
    : g_(g), blocks_(blocks.size()) {
  const AccessTable& t = g.table();
  std::vector<uint32_t> of(g.size(), kDead);
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    Block& blk = blocks_[b];
    blk.members = blocks[b];
    std::sort(blk.members.begin(), blk.members.end());
    HS_INTERNAL_ASSERT(!blk.members.empty()) << "partition graph: empty block " << b;
    for (uint32_t i : blk.members) {
      HS_INTERNAL_ASSERT(i < g.size() && of[i] == kDead)
          << "partition graph: bad instruction " << i;
      of[i] = b;
      blk.cls = blk.cls.merged(LoopClass::of(t, i));
    }
    blk.summary =
        blk.members.size() == 1 ? g.summaries()[blk.members[0]] : summarize_block(t, blk.members);
  }
  for (uint32_t i = 0; i < g.size(); ++i)
    HS_INTERNAL_ASSERT(of[i] != kDead) << "partition graph: instruction " << i << " in no block";
  block_of_ = of;
  forward_.resize(blocks_.size());
  for (uint32_t b = 0; b < blocks_.size(); ++b) forward_[b] = b;
  seen_.assign(blocks_.size(), 0);
  // Accessor lists, CSR: per view and per base, the instructions (each once, in order).
  view_off_.assign(t.views.size() + 1, 0);
  base_off_.assign(t.bases.size() + 1, 0);
  for (uint32_t i = 0; i < g.size(); ++i)
    for (const Access& a : t.accesses_of(i)) {
      if (a.view != kNoView) ++view_off_[a.view + 1];
      ++base_off_[a.base + 1];
    }
  for (size_t v = 0; v < t.views.size(); ++v) view_off_[v + 1] += view_off_[v];
  for (size_t b = 0; b < t.bases.size(); ++b) base_off_[b + 1] += base_off_[b];
  view_instrs_.resize(view_off_.back());
  base_instrs_.resize(base_off_.back());
  {
    std::vector<uint32_t> vnext(view_off_.begin(), view_off_.end() - 1);
    std::vector<uint32_t> bnext(base_off_.begin(), base_off_.end() - 1);
    for (uint32_t i = 0; i < g.size(); ++i)
      for (const Access& a : t.accesses_of(i)) {
        if (a.view != kNoView) view_instrs_[vnext[a.view]++] = i;
        base_instrs_[bnext[a.base]++] = i;
      }
  }
  for (uint32_t v = 0; v < g.size(); ++v)
    for (uint32_t w : g.successors(v))
      if (of[v] != of[w]) {
        blocks_[of[v]].succ.push_back(of[w]);
        blocks_[of[w]].pred.push_back(of[v]);
      }
  for (const auto& e : g.weight_edges())
    if (of[e.u] != of[e.v]) {
      blocks_[of[e.u]].aff.push_back(of[e.v]);
      blocks_[of[e.v]].aff.push_back(of[e.u]);
    }
  for (Block& blk : blocks_) {
    sort_unique(blk.succ);
    sort_unique(blk.pred);
    sort_unique(blk.aff);
  }
  alive_count_ = blocks_.size();

  // A topological order, smallest first instruction first.
  std::vector<uint32_t> indeg(blocks_.size());
  using Item = std::pair<uint32_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (uint32_t b = 0; b < blocks_.size(); ++b) {
    indeg[b] = uint32_t(blocks_[b].pred.size());
    if (indeg[b] == 0) ready.push({blocks_[b].members[0], b});
  }
  while (!ready.empty()) {
    uint32_t b = ready.top().second;
    ready.pop();
    blocks_[b].pos = uint32_t(order_.size());
    order_.push_back(b);
    for (uint32_t c : blocks_[b].succ)
      if (--indeg[c] == 0) ready.push({blocks_[c].members[0], c});
  }
  HS_INTERNAL_ASSERT(order_.size() == blocks_.size())
      << "partition graph: the start partition has a cycle";
  fw_mark_.assign(blocks_.size(), 0);
  bw_mark_.assign(blocks_.size(), 0);
}

bool PartitionGraph::fusible(uint32_t a, uint32_t b) const {
  return blocks_[a].cls.compatible(blocks_[b].cls) &&
         views_fusible(g_.table(), blocks_[a].summary, blocks_[b].summary);
}

bool PartitionGraph::no_long_path(uint32_t a, uint32_t b) {
  if (++stamp_ == 0) {
    std::fill(fw_mark_.begin(), fw_mark_.end(), 0);
    std::fill(bw_mark_.begin(), bw_mark_.end(), 0);
    stamp_ = 1;
  }
  const uint32_t lo = blocks_[a].pos, hi = blocks_[b].pos;
  fw_.clear();
  bw_.clear();
  // Either search alone is complete (the forward one meets b, the backward one meets a, when
  // a path of length >= 2 exists), so a side whose first list is long (a block that grew along
  // the flush has many successors or predecessors) is seeded only once the other side's search
  // has grown that large. Seeding returns false when it meets the other side's marks.
  const std::vector<uint32_t>& first_fw = blocks_[a].succ;
  const std::vector<uint32_t>& first_bw = blocks_[b].pred;
  bool fw_seeded = false, bw_seeded = false;
  auto seed_fw = [&] {
    fw_seeded = true;
    for (uint32_t c : first_fw)
      if (c != b && blocks_[c].pos < hi && fw_mark_[c] != stamp_) {
        if (bw_mark_[c] == stamp_) return false; // a -> c -> ... -> b
        fw_mark_[c] = stamp_;
        fw_.push_back(c);
      }
    return true;
  };
  auto seed_bw = [&] {
    bw_seeded = true;
    for (uint32_t c : first_bw)
      if (c != a && blocks_[c].pos > lo && bw_mark_[c] != stamp_) {
        if (fw_mark_[c] == stamp_) return false;
        bw_mark_[c] = stamp_;
        bw_.push_back(c);
      }
    return true;
  };
  if (first_fw.size() <= first_bw.size() ? !seed_fw() : !seed_bw()) return false;
  size_t fi = 0, bi = 0;
  while (true) {
    if (fw_seeded && fi == fw_.size()) {
      side_.assign(fw_.begin(), fw_.end());
      side_forward_ = true;
      return true;
    }
    if (bw_seeded && bi == bw_.size()) {
      side_.assign(bw_.begin(), bw_.end());
      side_forward_ = false;
      return true;
    }
    if (!bw_seeded && fw_.size() >= first_bw.size()) {
      if (!seed_bw()) return false;
      continue; // an empty seed proves it at once
    }
    if (!fw_seeded && bw_.size() >= first_fw.size()) {
      if (!seed_fw()) return false;
      continue;
    }
    const bool forward =
        fw_seeded && (!bw_seeded || fw_.size() - fi <= bw_.size() - bi) && fi < fw_.size();
    if (forward) {
      for (uint32_t d : blocks_[fw_[fi++]].succ) {
        if (d == b || bw_mark_[d] == stamp_) return false;
        if (blocks_[d].pos < hi && fw_mark_[d] != stamp_) {
          fw_mark_[d] = stamp_;
          fw_.push_back(d);
        }
      }
    } else {
      for (uint32_t d : blocks_[bw_[bi++]].pred) {
        if (d == a || fw_mark_[d] == stamp_) return false;
        if (blocks_[d].pos > lo && bw_mark_[d] != stamp_) {
          bw_mark_[d] = stamp_;
          bw_.push_back(d);
        }
      }
    }
  }
}

bool PartitionGraph::reaches(uint32_t a, uint32_t b) {
  const uint32_t hi = blocks_[b].pos;
  if (blocks_[a].pos >= hi) return false;
  if (++stamp_ == 0) {
    std::fill(fw_mark_.begin(), fw_mark_.end(), 0);
    std::fill(bw_mark_.begin(), bw_mark_.end(), 0);
    stamp_ = 1;
  }
  checked_a_ = checked_b_ = UINT32_MAX; // the marks of the last legality search are gone
  fw_.assign(1, a);
  for (size_t i = 0; i < fw_.size(); ++i)
    for (uint32_t d : blocks_[fw_[i]].succ) {
      if (d == b) return true;
      if (blocks_[d].pos < hi && fw_mark_[d] != stamp_) {
        fw_mark_[d] = stamp_;
        fw_.push_back(d);
      }
    }
  return false;
}

bool PartitionGraph::can_merge(uint32_t a, uint32_t b) {
  return a != b && alive(a) && alive(b) && fusible(a, b) && path_free(a, b);
}

bool PartitionGraph::path_free(uint32_t a, uint32_t b) {
  if (blocks_[a].pos > blocks_[b].pos) std::swap(a, b);
  if (!no_long_path(a, b)) return false;
  checked_a_ = a;
  checked_b_ = b;
  return true;
}

uint32_t PartitionGraph::find(uint32_t b) {
  uint32_t r = b;
  while (forward_[r] != r) r = forward_[r];
  while (forward_[b] != r) b = std::exchange(forward_[b], r); // path compression
  return r;
}

bool PartitionGraph::shares(const BlockSummary& big, const BlockSummary& small) {
  for (const ViewStat& v : small.views)
    if (big.find_view(v.view)) return true;
  for (const BaseStat& x : small.bases)
    if (const BaseStat* y = big.find_base(x.base); y && y->flags != 0) return true;
  return false;
}

void PartitionGraph::neighbors_sharing(const BlockSummary& part, uint32_t self,
                                       std::vector<uint32_t>& out) {
  out.clear();
  if (++seen_stamp_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0);
    seen_stamp_ = 1;
  }
  auto add = [&](std::span<const uint32_t> instrs) {
    for (uint32_t i : instrs) {
      uint32_t x = block_of_[i];
      if (x == self || seen_[x] == seen_stamp_) continue;
      seen_[x] = seen_stamp_;
      out.push_back(x);
    }
  };
  for (const ViewStat& v : part.views)
    add({view_instrs_.data() + view_off_[v.view], view_off_[v.view + 1] - view_off_[v.view]});
  for (const BaseStat& x : part.bases)
    if (x.flags != 0)
      add({base_instrs_.data() + base_off_[x.base], base_off_[x.base + 1] - base_off_[x.base]});
}

uint32_t PartitionGraph::merge(uint32_t a, uint32_t b, std::vector<uint32_t>* affected) {
  if (blocks_[a].pos > blocks_[b].pos) std::swap(a, b);
  if (checked_a_ != a || checked_b_ != b) {
    bool ok = no_long_path(a, b);
    HS_INTERNAL_ASSERT(ok) << "partition graph: merging blocks " << a << " and " << b
                           << " makes a cycle";
  }
  checked_a_ = checked_b_ = UINT32_MAX;

  // Survivor: the block with more neighbors, so fewer lists are rewritten.
  auto degree = [&](uint32_t x) {
    const Block& k = blocks_[x];
    return k.succ.size() + k.pred.size() + k.aff.size() + k.members.size();
  };
  uint32_t s = degree(a) >= degree(b) ? a : b;
  uint32_t d = s == a ? b : a;

  // New order of the window [pos a, pos b], relative orders kept: either the blocks not
  // reachable from a, the merged block, the blocks reachable from a; or the blocks reaching
  // b, the merged block, the others. When that set is empty, the merged block simply takes
  // the place of b (nothing between depends on a) or of a (nothing between leads to b).
  const uint32_t lo = blocks_[a].pos, hi = blocks_[b].pos;
  if (side_.empty()) {
    const uint32_t at = side_forward_ ? hi : lo;
    order_[at] = s;
    blocks_[s].pos = at;
    order_[side_forward_ ? lo : hi] = kDead;
  } else {
    std::sort(side_.begin(), side_.end(),
              [&](uint32_t x, uint32_t y) { return blocks_[x].pos < blocks_[y].pos; });
    std::vector<uint32_t>& marks = side_forward_ ? fw_mark_ : bw_mark_;
    std::vector<uint32_t> others;
    for (uint32_t p = lo + 1; p < hi; ++p) {
      uint32_t x = order_[p];
      if (x != kDead && marks[x] != stamp_) others.push_back(x);
    }
    uint32_t p = lo;
    auto place = [&](uint32_t x) {
      order_[p] = x;
      blocks_[x].pos = p++;
    };
    const auto& first = side_forward_ ? others : side_;
    const auto& last = side_forward_ ? side_ : others;
    for (uint32_t x : first) place(x);
    place(s);
    for (uint32_t x : last) place(x);
    while (p <= hi) order_[p++] = kDead;
  }
  // Holes make windows longer: squeeze them out once they outnumber the blocks.
  if (order_.size() > 2 * (alive_count_ - 1) + 64) {
    size_t w = 0;
    for (uint32_t x : order_)
      if (x != kDead) {
        order_[w] = x;
        blocks_[x].pos = uint32_t(w++);
      }
    order_.resize(w);
  }

  Block& bs = blocks_[s];
  Block& bd = blocks_[d];
  for (uint32_t i : bd.members) block_of_[i] = s;
  forward_[d] = s;
  // Savings that may have changed (Prop. 1 and the per-view form of the cost models): with
  // blocks sharing with d, whose entries named s's old part; and, among d's neighbors (whose
  // entries named d), those sharing with s's old part. Only affinity neighbors count (the
  // others are never weighed); the sharers of d are found by scanning the affinity lists or
  // through d's views' accessors, whichever is shorter.
  if (affected) {
    affected->clear();
    if (++seen_stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      seen_stamp_ = 1;
    }
    size_t through_views = 0;
    for (const ViewStat& v : bd.summary.views)
      through_views += view_off_[v.view + 1] - view_off_[v.view];
    for (const BaseStat& x : bd.summary.bases)
      if (x.flags != 0) through_views += base_off_[x.base + 1] - base_off_[x.base];
    auto note = [&](uint32_t x) {
      if (x == s || x == d || seen_[x] == seen_stamp_) return;
      seen_[x] = seen_stamp_;
      affected->push_back(x);
    };
    if (through_views < bs.aff.size() + bd.aff.size()) {
      std::vector<uint32_t> sharers;
      neighbors_sharing(bd.summary, s, sharers); // restamps seen_
      if (++seen_stamp_ == 0) {
        std::fill(seen_.begin(), seen_.end(), 0);
        seen_stamp_ = 1;
      }
      for (uint32_t x : sharers)
        if (std::binary_search(bs.aff.begin(), bs.aff.end(), x) ||
            std::binary_search(bd.aff.begin(), bd.aff.end(), x))
          note(x);
    } else {
      for (uint32_t x : bs.aff)
        if (x != d && shares(bd.summary, blocks_[x].summary)) note(x);
      for (uint32_t x : bd.aff)
        if (x != s && shares(bd.summary, blocks_[x].summary)) note(x);
    }
    for (uint32_t x : bd.aff)
      if (x != s && shares(bs.summary, blocks_[x].summary)) note(x);
  }
  for (uint32_t nb : bd.succ)
    if (nb != s) relabel(blocks_[nb].pred, d, s);
  for (uint32_t nb : bd.pred)
    if (nb != s) relabel(blocks_[nb].succ, d, s);
  for (uint32_t nb : bd.aff)
    if (nb != s) relabel(blocks_[nb].aff, d, s);
  unite(bs.succ, bd.succ, s, d);
  unite(bs.pred, bd.pred, s, d);
  unite(bs.aff, bd.aff, s, d);
  bs.members.insert(bs.members.end(), bd.members.begin(), bd.members.end());
  merge_into(bs.summary, bd.summary);
  bs.cls = bs.cls.merged(bd.cls);
  bd = Block();
  bd.alive = false;
  --alive_count_;
  return s;
}

int64_t PartitionGraph::savings(uint32_t a, uint32_t b) const {
  return merge_savings(g_.model(), blocks_[a].summary, blocks_[b].summary);
}

std::vector<uint32_t> PartitionGraph::order() const {
  std::vector<uint32_t> out;
  out.reserve(alive_count_);
  for (uint32_t x : order_)
    if (x != kDead) out.push_back(x);
  return out;
}

std::vector<std::vector<size_t>> PartitionGraph::blocks() const {
  std::vector<std::vector<size_t>> out;
  out.reserve(alive_count_);
  for (uint32_t x : order()) {
    out.emplace_back(blocks_[x].members.begin(), blocks_[x].members.end());
    std::sort(out.back().begin(), out.back().end());
  }
  return out;
}

} // namespace hassium
