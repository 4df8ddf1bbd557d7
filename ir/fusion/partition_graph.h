// Partition graph (the paper's Def. 14-17): the blocks of a partition as vertices, with block
// merges as vertex contractions, used by the greedy and unintrusive algorithms.
//
// Each block keeps its instructions, its BlockSummary (cost and view fusibility), its
// LoopClass, and sorted neighbor lists: dependency successors and predecessors, and
// affinity neighbors (blocks joined by a WEIGHT edge of the WSP graph). The blocks also keep
// a topological order, so the legality test of a merge (Lemma 1: fusible, and no path of
// length >= 2 between the two blocks) only searches the blocks placed between them; the merge
// then restores a topological order by moving the blocks reachable from the first one behind
// the merged block, or those reaching the second one before it (whichever the search found),
// in time linear in that window.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/fusion/block_summary.h"
#include "ir/fusion/fusibility.h"
#include "ir/fusion/wsp_graph.h"

namespace hassium {

class PartitionGraph {
public:
  // `blocks` must be a legal partition of g's instructions; block i gets id i.
  PartitionGraph(const WspGraph& g, const std::vector<std::vector<uint32_t>>& blocks);

  const WspGraph& wsp() const { return g_; }
  size_t num_ids() const { return blocks_.size(); }
  size_t num_alive() const { return alive_count_; }
  bool alive(uint32_t b) const { return blocks_[b].alive; }
  const std::vector<uint32_t>& members(uint32_t b) const { return blocks_[b].members; }
  const BlockSummary& summary(uint32_t b) const { return blocks_[b].summary; }
  const LoopClass& loop_class(uint32_t b) const { return blocks_[b].cls; }
  const std::vector<uint32_t>& successors(uint32_t b) const { return blocks_[b].succ; }
  const std::vector<uint32_t>& predecessors(uint32_t b) const { return blocks_[b].pred; }
  const std::vector<uint32_t>& affinity(uint32_t b) const { return blocks_[b].aff; }
  // Position in the maintained topological order.
  uint32_t position(uint32_t b) const { return blocks_[b].pos; }

  // Rules 1-5 of ir/fusion/fusibility.h between two blocks.
  bool fusible(uint32_t a, uint32_t b) const;
  // Lemma 1: fusible and no path of length >= 2 between a and b.
  bool can_merge(uint32_t a, uint32_t b);
  // The second half of can_merge() for two distinct alive blocks: no path of length >= 2.
  bool path_free(uint32_t a, uint32_t b);
  // A path of dependency edges leads from block a to block b (a != b).
  bool reaches(uint32_t a, uint32_t b);
  // Merges two blocks for which can_merge() holds; returns the id of the merged block (one
  // of a, b; the other dies, and find() forwards its id to the merged block from then on).
  // With `affected`: the blocks other than the merged one whose merge savings with it may
  // differ from their savings with the merged block's old part, found without computing any
  // savings (see neighbors_sharing()).
  uint32_t merge(uint32_t a, uint32_t b, std::vector<uint32_t>* affected = nullptr);
  // The alive block an id stands for: itself, or the block it was merged into (transitively).
  uint32_t find(uint32_t b);
  // The cost saved by merging a and b (the weight of the edge between them).
  int64_t savings(uint32_t a, uint32_t b) const;
  // The alive blocks in the maintained topological order.
  std::vector<uint32_t> order() const;
  // The partition as blocks of instruction indices, in a legal execution order.
  std::vector<std::vector<size_t>> blocks() const;

private:
  // The blocks other than `self` that share a view with the summary `part`, or a base for which
  // `part` holds a creator, FREE or SYNC. Every cost model here is, per base, a sum of per-view
  // terms gated by the base's flags (ir/fusion/cost_model.h), so merging `part` into a block
  // changes that block's savings with exactly these blocks (Prop. 1): the others keep their
  // weights.
  void neighbors_sharing(const BlockSummary& part, uint32_t self, std::vector<uint32_t>& out);
  // The same test for one pair: `small` shares a view with `big`, or a base `big` flags.
  static bool shares(const BlockSummary& big, const BlockSummary& small);

  struct Block {
    bool alive = true;
    uint32_t pos = 0;
    std::vector<uint32_t> members;
    BlockSummary summary;
    LoopClass cls;
    std::vector<uint32_t> succ, pred, aff;
  };
  // Whether no path of length >= 2 leads from a to b (pos[a] < pos[b]). Searches forward from
  // a and backward from b at once, one block at a time from the smaller frontier, only among
  // the blocks placed between them: a path shows as the two searches meeting, and the search
  // that runs out first proves there is none, so the cost is about twice the smaller of the
  // two closures (short paths are found at once). Fills side_ with that closure.
  bool no_long_path(uint32_t a, uint32_t b);

  const WspGraph& g_;
  std::vector<Block> blocks_;
  std::vector<uint32_t> block_of_; // instruction -> its block id (kept on merges)
  std::vector<uint32_t> forward_;  // block id -> the id it was merged into (itself if alive)
  // Instructions accessing each view, and each base (CSR, from the access table).
  std::vector<uint32_t> view_off_, view_instrs_, base_off_, base_instrs_;
  std::vector<uint32_t> seen_; // stamps for neighbors_sharing
  uint32_t seen_stamp_ = 0;
  std::vector<uint32_t> order_; // position -> block id, kDead for holes
  size_t alive_count_ = 0;
  std::vector<uint32_t> fw_mark_, bw_mark_;
  uint32_t stamp_ = 0;
  std::vector<uint32_t> fw_, bw_; // the two searches' blocks, in visiting order
  std::vector<uint32_t> side_;    // the closure that completed (blocks between a and b)
  bool side_forward_ = true;      // side_ is reachable from a (else: reaches b)
  uint32_t checked_a_ = UINT32_MAX, checked_b_ = UINT32_MAX; // what side_ was computed for
};

} // namespace hassium
