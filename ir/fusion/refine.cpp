// Local improvement of a partition by moving a temporary's creator (and its FREE) into the
// block of its other accesses; see ir/fusion/refine.h.
#include "ir/fusion/refine.h"

#include <algorithm>

#include "ir/fusion/cost_model.h"
#include "ir/fusion/fusibility.h"

namespace hassium {

namespace {

constexpr int kMaxPasses = 8;
constexpr int64_t kBudgetPerEdge = 32;    // edges scanned by cycle tests, per dependency edge
constexpr int64_t kSearchLimit = 1 << 14; // edges one cycle test may scan (else: no move)
constexpr size_t kMaxBlock = 256; // blocks this large neither give nor take (cost is O(size))

class Refiner {
public:
  Refiner(const WspGraph& g, std::vector<std::vector<uint32_t>> blocks,
          const std::vector<bool>& movable)
      : g_(g), t_(g.table()), blocks_(std::move(blocks)), movable_(movable), of_(g.size(), 0),
        free_of_(t_.bases.size(), -1), accessors_(t_.bases.size()), mark_(blocks_.size(), 0),
        budget_(kBudgetPerEdge * int64_t(g.num_dependencies() + g.size()) + 1024) {
    for (uint32_t b = 0; b < blocks_.size(); ++b)
      for (uint32_t i : blocks_[b]) of_[i] = b;
    for (uint32_t i = 0; i < t_.size(); ++i)
      for (const Access& a : t_.accesses_of(i)) {
        if (a.mode == AccessMode::FREE) free_of_[a.base] = int32_t(i);
        auto& list = accessors_[a.base];
        if (list.empty() || list.back() != i) list.push_back(i);
      }
  }

  std::vector<std::vector<uint32_t>> run() {
    for (int pass = 0; pass < kMaxPasses && budget_ > 0; ++pass) {
      bool moved = false;
      for (uint32_t base = 0; base < t_.bases.size() && budget_ > 0; ++base)
        moved |= try_base(base);
      if (!moved) break;
    }
    std::vector<std::vector<uint32_t>> out;
    for (auto& b : blocks_)
      if (!b.empty()) out.push_back(std::move(b));
    return out;
  }

private:
  bool movable(uint32_t i) const { return movable_.empty() || movable_[i]; }

  int64_t cost(uint32_t b) const {
    if (blocks_[b].empty()) return 0;
    return block_cost(g_.model(), summarize_block(t_, blocks_[b]));
  }

  bool try_base(uint32_t base) {
    const BaseEntry& e = t_.bases[base];
    if (e.creator < 0 || !e.contractible || free_of_[base] < 0) return false;
    const uint32_t f = uint32_t(e.creator), r = uint32_t(free_of_[base]);
    if (!movable(f) || !movable(r)) return false;
    const uint32_t x = of_[f];
    if (of_[r] == x) return false; // contracted already
    std::vector<uint32_t> targets;
    for (uint32_t i : accessors_[base])
      if (of_[i] != x && std::find(targets.begin(), targets.end(), of_[i]) == targets.end())
        targets.push_back(of_[i]);
    for (uint32_t y : targets)
      if (try_move(f, r, y)) return true;
    return false;
  }

  bool fusible_with(uint32_t i, uint32_t y) const {
    for (uint32_t j : blocks_[y])
      if (!fusible(t_, i, j)) return false;
    return true;
  }

  static void erase(std::vector<uint32_t>& v, uint32_t i) {
    v.erase(std::find(v.begin(), v.end(), i));
  }

  // Moves f (and r, the FREE of f's base, when outside y) into block y if legal and cheaper.
  bool try_move(uint32_t f, uint32_t r, uint32_t y) {
    const uint32_t x = of_[f], z = of_[r];
    if (blocks_[x].size() > kMaxBlock || blocks_[y].size() > kMaxBlock) return false;
    if (!fusible_with(f, y)) return false; // a FREE fuses with anything
    std::vector<uint32_t> changed{x, y};
    if (z != x && z != y) changed.push_back(z);
    int64_t before = 0;
    for (uint32_t b : changed) before += cost(b);
    std::vector<std::vector<uint32_t>> saved;
    for (uint32_t b : changed) saved.push_back(blocks_[b]);
    erase(blocks_[x], f);
    blocks_[y].push_back(f);
    of_[f] = y;
    if (z != y) {
      erase(blocks_[z], r);
      blocks_[y].push_back(r);
      of_[r] = y;
    }
    int64_t after = 0;
    for (uint32_t b : changed) after += cost(b);
    if (after < before && acyclic(changed)) return true;
    for (size_t k = 0; k < changed.size(); ++k) blocks_[changed[k]] = std::move(saved[k]);
    of_[f] = x;
    of_[r] = z;
    return false;
  }

  // No cycle of the block graph passes through a changed block (the others' edges among
  // themselves did not change, and the partition was acyclic before the move).
  bool acyclic(const std::vector<uint32_t>& changed) {
    int64_t limit = kSearchLimit;
    for (uint32_t c : changed) {
      if (blocks_[c].empty()) continue;
      ++stamp_;
      std::vector<uint32_t> stack{c};
      mark_[c] = stamp_;
      while (!stack.empty()) {
        uint32_t b = stack.back();
        stack.pop_back();
        for (uint32_t i : blocks_[b])
          for (uint32_t s : g_.successors(i)) {
            if (--budget_ <= 0 || --limit <= 0) return false;
            uint32_t n = of_[s];
            if (n == b) continue;
            if (n == c) return false;
            if (mark_[n] != stamp_) {
              mark_[n] = stamp_;
              stack.push_back(n);
            }
          }
      }
    }
    return true;
  }

  const WspGraph& g_;
  const AccessTable& t_;
  std::vector<std::vector<uint32_t>> blocks_;
  const std::vector<bool>& movable_;
  std::vector<uint32_t> of_;
  std::vector<int32_t> free_of_;
  std::vector<std::vector<uint32_t>> accessors_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  int64_t budget_;
};

} // namespace

std::vector<std::vector<uint32_t>> refine_by_moves(const WspGraph& g,
                                                   std::vector<std::vector<uint32_t>> blocks,
                                                   const std::vector<bool>& movable) {
  return Refiner(g, std::move(blocks), movable).run();
}

} // namespace hassium
