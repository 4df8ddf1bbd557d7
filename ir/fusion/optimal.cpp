// Partition algorithm `optimal` (Sec. V-D): branch and bound over the partitions coarser than
// the unintrusive one, seeded with the greedy partition, within a budget of search nodes.
//
// Search: the start blocks (the unintrusive partition's) are placed one at a time in a
// topological order of their dependency graph; each joins one of the blocks built so far or
// opens a new one (blocks are numbered by creation, so every partition is built once). A
// start block may join a block when they are fusible and the join makes no cycle among the
// blocks built so far; as later start blocks never precede earlier ones, no cycle can
// appear through them, and every leaf is a legal partition (Def. 5). The search visits the
// cheapest-looking choices first.
//
// Bound: cost models give, per base, a lower bound on the base's terms in any completion
// (CostModel::base_bound, exact once every access of the base is placed); the bound of a node
// is the sum over bases, plus the per-block cost of the blocks opened so far. The bounds of
// the bases a start block touches are updated when it is placed and restored on the way
// back; what remains to be placed of each base is precomputed per depth. A node whose bound
// reaches the best cost found is pruned.
//
// The paper's search instead cuts weight edges top-down from the partition with one block;
// its bound (the cost of a partition that still merges non-fusible blocks) prunes little,
// and cutting only weight edges misses merges that save nothing but are needed for
// legality (a block A -> X -> B must take X along). This search is exact for every model of
// ir/fusion/cost_model.h; test/ir/fusion/test_partition_property.cpp compares it with an exhaustive
// search.
//
// The budget counts search nodes; when it runs out the best partition found so far (at
// worst the greedy one) is returned with proven_optimal = false.
#include <algorithm>
#include <functional>
#include <queue>

#include "core/error.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fusibility.h"

namespace hassium {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

struct Rest {
  uint8_t flags = 0;
  std::vector<ViewStat> views;
};

class BranchAndBound {
public:
  BranchAndBound(FusionContext& ctx, const Blocks& start, const Partition& incumbent)
      : ctx_(ctx), t_(ctx.table()), model_(ctx.model()), start_(start), best_cost_(incumbent.cost),
        budget_(std::max<int64_t>(ctx.optimal_budget(), 1)), k_(uint32_t(start.size())) {}

  Partition run(const Partition& incumbent) {
    if (!prepare()) return result_from(incumbent, false);
    search(0);
    if (!found_) return result_from(incumbent, !exhausted_);
    Blocks blocks;
    for (uint32_t v = 0; v < k_; ++v) {
      uint32_t g = best_group_of_[v];
      if (g >= blocks.size()) blocks.resize(g + 1);
      blocks[g].insert(blocks[g].end(), start_[v].begin(), start_[v].end());
    }
    Partition p = ctx_.finish(order_blocks(ctx_.graph(), blocks), "optimal", !exhausted_);
    HS_INTERNAL_ASSERT(p.cost == best_cost_)
        << "optimal: cost " << p.cost << " differs from the search's " << best_cost_;
    return p;
  }

private:
  Partition result_from(const Partition& incumbent, bool proven) const {
    Partition p = incumbent;
    p.algorithm = "optimal";
    p.proven_optimal = proven;
    return p;
  }

  // Order, summaries, classes, dependencies, conflicts and the rest of every base per depth.
  bool prepare() {
    const WspGraph& g = ctx_.graph();
    std::vector<uint32_t> of(g.size());
    sums_.resize(k_);
    cls_.resize(k_);
    for (uint32_t v = 0; v < k_; ++v) {
      for (uint32_t i : start_[v]) {
        of[i] = v;
        cls_[v] = cls_[v].merged(LoopClass::of(t_, i));
      }
      sums_[v] = summarize_block(t_, start_[v]);
    }
    preds_.resize(k_);
    std::vector<std::vector<uint32_t>> succs(k_);
    for (uint32_t i = 0; i < g.size(); ++i)
      for (uint32_t j : g.successors(i))
        if (of[i] != of[j]) {
          preds_[of[j]].push_back(of[i]);
          succs[of[i]].push_back(of[j]);
        }
    for (auto& p : preds_) {
      std::sort(p.begin(), p.end());
      p.erase(std::unique(p.begin(), p.end()), p.end());
    }
    // Topological order, smallest first instruction first.
    std::vector<uint32_t> indeg(k_), first(k_);
    using Item = std::pair<uint32_t, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (uint32_t v = 0; v < k_; ++v) {
      first[v] = *std::min_element(start_[v].begin(), start_[v].end());
      indeg[v] = uint32_t(preds_[v].size());
      if (indeg[v] == 0) ready.push({first[v], v});
    }
    for (auto& s : succs) {
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    while (!ready.empty()) {
      uint32_t v = ready.top().second;
      ready.pop();
      order_.push_back(v);
      for (uint32_t w : succs[v])
        if (--indeg[w] == 0) ready.push({first[w], w});
    }
    HS_INTERNAL_ASSERT(order_.size() == k_) << "optimal: the start partition has a cycle";

    // Per base, the start blocks touching it in placement order.
    std::vector<std::vector<uint32_t>> touching(t_.bases.size());
    for (uint32_t d = 0; d < k_; ++d)
      for (const BaseStat& s : sums_[order_[d]].bases) touching[s.base].push_back(d);
    uint64_t pair_work = 0;
    for (const auto& list : touching) pair_work += uint64_t(list.size()) * list.size();
    if (pair_work > uint64_t(budget_) * 16) return false; // too big to even start
    conflicts_.resize(k_);
    for (const auto& list : touching)
      for (size_t x = 0; x < list.size(); ++x)
        for (size_t y = x + 1; y < list.size(); ++y) {
          uint32_t a = order_[list[x]], b = order_[list[y]];
          if (cls_[a].compatible(cls_[b]) && !views_fusible(t_, sums_[a], sums_[b]))
            conflicts_[b].push_back(a); // b is placed after a
        }

    // What remains of each base after each depth, built backwards.
    rest_initial_.resize(t_.bases.size());
    rest_after_.resize(k_);
    for (uint32_t base = 0; base < t_.bases.size(); ++base) {
      Rest acc;
      for (size_t j = touching[base].size(); j-- > 0;) {
        uint32_t d = touching[base][j];
        rest_after_[d].emplace_back(base, acc);
        const BlockSummary& s = sums_[order_[d]];
        const BaseStat* bs = s.find_base(base);
        Rest next;
        next.flags = uint8_t(acc.flags | bs->flags);
        merge_views(acc.views, s.views_of(*bs), next.views);
        acc = std::move(next);
      }
      rest_initial_[base] = std::move(acc);
    }

    rest_cur_.resize(t_.bases.size());
    bound_.resize(t_.bases.size());
    touching_groups_.resize(t_.bases.size());
    group_of_.assign(k_, kNone);
    bound_sum_ = 0;
    for (uint32_t base = 0; base < t_.bases.size(); ++base) {
      rest_cur_[base] = &rest_initial_[base];
      bound_[base] = base_bound(base);
      bound_sum_ += bound_[base];
    }
    return true;
  }

  int64_t base_bound(uint32_t base) {
    parts_.clear();
    for (uint32_t g : touching_groups_[base]) {
      const BlockSummary& s = groups_[g].sum;
      const BaseStat* bs = s.find_base(base);
      parts_.push_back({bs->flags, s.views_of(*bs)});
    }
    const Rest& r = *rest_cur_[base];
    return model_.base_bound(base, parts_, BasePart{r.flags, r.views});
  }

  // The node bound if start block v (at `depth`) joined block g (a new one when g is
  // groups_.size()), computed without placing it: only v's bases change, and their merged
  // parts go to scratch buffers.
  int64_t bound_if(uint32_t depth, uint32_t g) {
    const uint32_t v = order_[depth];
    const BlockSummary& sv = sums_[v];
    const bool opened = g == groups_.size();
    int64_t b = model_.program_cost() +
                model_.block_cost() * (int64_t(groups_.size()) + (opened ? 1 : 0)) + bound_sum_;
    size_t r = 0; // rest_after_[depth] lists v's bases in base order
    const auto& rests = rest_after_[depth];
    for (const BaseStat& x : sv.bases) {
      while (rests[r].first != x.base) ++r;
      const Rest& rest = rests[r].second;
      parts_.clear();
      merged_.clear();
      BasePart mine{x.flags, sv.views_of(x)};
      for (uint32_t h : touching_groups_[x.base]) {
        const BlockSummary& s = groups_[h].sum;
        const BaseStat* bs = s.find_base(x.base);
        if (h != g) {
          parts_.push_back({bs->flags, s.views_of(*bs)});
          continue;
        }
        merge_views(s.views_of(*bs), mine.views, merged_);
        mine = {uint8_t(bs->flags | x.flags), merged_};
      }
      parts_.push_back(mine);
      b += model_.base_bound(x.base, parts_, BasePart{rest.flags, rest.views}) - bound_[x.base];
    }
    return b;
  }

  int64_t node_bound() const {
    return model_.program_cost() + model_.block_cost() * int64_t(groups_.size()) + bound_sum_;
  }

  // Start block v joins block g (or a new block when g == groups_.size()) without a cycle?
  bool can_join(uint32_t v, uint32_t g) {
    const Group& grp = groups_[g];
    if (!grp.cls.compatible(cls_[v])) return false;
    for (uint32_t u : conflicts_[v])
      if (group_of_[u] == g) return false;
    // A cycle appears when g reaches a block holding a predecessor of v.
    ++stamp_;
    if (mark_.size() < groups_.size()) mark_.resize(groups_.size(), 0);
    for (uint32_t p : preds_[v]) mark_[group_of_[p]] = stamp_;
    if (mark_[g] == stamp_) mark_[g] = 0; // edges from g itself stay inside the block
    bool any = false;
    for (uint32_t p : preds_[v]) any |= group_of_[p] != g;
    if (!any) return true;
    stack_.assign(1, g);
    seen_.assign(groups_.size(), 0);
    seen_[g] = 1;
    while (!stack_.empty()) {
      uint32_t h = stack_.back();
      stack_.pop_back();
      for (uint32_t n : group_succ_[h]) {
        if (mark_[n] == stamp_) return false;
        if (!seen_[n]) {
          seen_[n] = 1;
          stack_.push_back(n);
        }
      }
    }
    return true;
  }

  struct Undo {
    uint32_t v, g;
    bool opened;
    BlockSummary sum;
    LoopClass cls;
    std::vector<uint32_t> edge_sources; // groups whose successor list got g appended
    std::vector<uint32_t> new_touch;    // bases whose touching list got g appended
    std::vector<std::pair<uint32_t, int64_t>> bounds;
    std::vector<std::pair<uint32_t, const Rest*>> rests;
  };

  void place(uint32_t depth, uint32_t g, Undo& u) {
    const uint32_t v = order_[depth];
    u = Undo();
    u.v = v;
    u.g = g;
    u.opened = g == groups_.size();
    if (u.opened) {
      groups_.push_back({sums_[v], cls_[v]});
      group_succ_.emplace_back();
    } else {
      u.sum = std::move(groups_[g].sum);
      u.cls = groups_[g].cls;
      groups_[g].sum = merge_summaries(u.sum, sums_[v]);
      groups_[g].cls = u.cls.merged(cls_[v]);
    }
    group_of_[v] = g;
    for (uint32_t p : preds_[v]) {
      uint32_t h = group_of_[p];
      if (h != g) {
        group_succ_[h].push_back(g);
        u.edge_sources.push_back(h);
      }
    }
    for (auto& [base, rest] : rest_after_[depth]) {
      u.rests.emplace_back(base, rest_cur_[base]);
      rest_cur_[base] = &rest;
    }
    for (const BaseStat& s : sums_[v].bases) {
      auto& tg = touching_groups_[s.base];
      if (std::find(tg.begin(), tg.end(), g) == tg.end()) {
        tg.push_back(g);
        u.new_touch.push_back(s.base);
      }
      int64_t b = base_bound(s.base);
      u.bounds.emplace_back(s.base, bound_[s.base]);
      bound_sum_ += b - bound_[s.base];
      bound_[s.base] = b;
    }
  }

  void unplace(Undo& u) {
    for (auto& [base, old] : u.bounds) {
      bound_sum_ += old - bound_[base];
      bound_[base] = old;
    }
    for (uint32_t base : u.new_touch) touching_groups_[base].pop_back();
    for (auto& [base, old] : u.rests) rest_cur_[base] = old;
    for (size_t i = u.edge_sources.size(); i-- > 0;) group_succ_[u.edge_sources[i]].pop_back();
    group_of_[u.v] = kNone;
    if (u.opened) {
      groups_.pop_back();
      group_succ_.pop_back();
    } else {
      groups_[u.g].sum = std::move(u.sum);
      groups_[u.g].cls = u.cls;
    }
  }

  void search(uint32_t depth) {
    if (exhausted_) return;
    if (depth == k_) {
      int64_t c = model_.program_cost();
      for (const Group& g : groups_) c += block_cost(model_, g.sum);
      if (c < best_cost_) {
        best_cost_ = c;
        best_group_of_ = group_of_;
        found_ = true;
      }
      return;
    }
    if (++nodes_ > budget_) {
      exhausted_ = true;
      return;
    }
    const uint32_t v = order_[depth];
    std::vector<std::pair<int64_t, uint32_t>> options; // (bound, block)
    Undo u;
    const uint32_t groups = uint32_t(groups_.size());
    for (uint32_t g = 0; g <= groups; ++g) {
      if (g < groups && !can_join(v, g)) continue;
      int64_t b = bound_if(depth, g);
      if (b < best_cost_) options.emplace_back(b, g);
    }
    std::stable_sort(options.begin(), options.end());
    for (auto [b, g] : options) {
      if (b >= best_cost_ || exhausted_) break;
      place(depth, g, u);
      Undo mine = std::move(u);
      search(depth + 1);
      unplace(mine);
    }
  }

  struct Group {
    BlockSummary sum;
    LoopClass cls;
  };

  FusionContext& ctx_;
  const AccessTable& t_;
  const CostModel& model_;
  const Blocks& start_;
  int64_t best_cost_;
  int64_t budget_;
  uint32_t k_;
  int64_t nodes_ = 0;
  bool exhausted_ = false, found_ = false;

  std::vector<uint32_t> order_; // placement order of the start blocks
  std::vector<BlockSummary> sums_;
  std::vector<LoopClass> cls_;
  std::vector<std::vector<uint32_t>> preds_, conflicts_;
  std::vector<Rest> rest_initial_;
  std::vector<std::vector<std::pair<uint32_t, Rest>>> rest_after_; // per depth: (base, rest)

  std::vector<Group> groups_;
  std::vector<std::vector<uint32_t>> group_succ_, touching_groups_;
  std::vector<uint32_t> group_of_, best_group_of_;
  std::vector<const Rest*> rest_cur_;
  std::vector<int64_t> bound_;
  int64_t bound_sum_ = 0;
  std::vector<BasePart> parts_;
  std::vector<ViewStat> merged_;
  std::vector<uint32_t> mark_, stack_;
  std::vector<uint8_t> seen_;
  uint32_t stamp_ = 0;
};

} // namespace

Partition optimal_partition(FusionContext& ctx, const Blocks& start, const Partition& incumbent) {
  return BranchAndBound(ctx, start, incumbent).run(incumbent);
}

Partition optimal_partition(FusionContext& ctx) {
  Blocks start = unintrusive_blocks(ctx);
  Partition incumbent = greedy_partition(ctx, start);
  return optimal_partition(ctx, start, incumbent);
}

} // namespace hassium
