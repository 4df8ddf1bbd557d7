// Partition graph: block contraction with a maintained topological order.
#include "ir/partition_graph.h"

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
  for (uint32_t c : blocks_[a].succ)
    if (c != b && blocks_[c].pos < hi) {
      fw_mark_[c] = stamp_;
      fw_.push_back(c);
    }
  for (uint32_t c : blocks_[b].pred)
    if (c != a && blocks_[c].pos > lo) {
      if (fw_mark_[c] == stamp_) return false; // a -> c -> b
      bw_mark_[c] = stamp_;
      bw_.push_back(c);
    }
  size_t fi = 0, bi = 0;
  while (true) {
    if (fi == fw_.size()) {
      side_.assign(fw_.begin(), fw_.end());
      side_forward_ = true;
      return true;
    }
    if (bi == bw_.size()) {
      side_.assign(bw_.begin(), bw_.end());
      side_forward_ = false;
      return true;
    }
    if (fw_.size() - fi <= bw_.size() - bi) {
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
  if (a == b || !alive(a) || !alive(b) || !fusible(a, b)) return false;
  if (blocks_[a].pos > blocks_[b].pos) std::swap(a, b);
  if (!no_long_path(a, b)) return false;
  checked_a_ = a;
  checked_b_ = b;
  return true;
}

uint32_t PartitionGraph::merge(uint32_t a, uint32_t b) {
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
