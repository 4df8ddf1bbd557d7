// GenerationTable: the open-addressing slot array behind PointerIndex and ViewIndex.
//
// Linear probing over a power-of-two array kept at most half full. A slot is live when its
// `generation` equals the table's, so reset() empties the table in O(1) (a generation bump)
// and a table grown to a program's size allocates nothing when reused. `Slot` has a `uint32_t
// generation` member and a `uint64_t home() const` giving the hash its probe starts from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hassium {

template <typename Slot> class GenerationTable {
public:
  // Empties the table and makes room for `expected` entries.
  void reset(size_t expected = 0) {
    size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    if (cap > slots_.size()) slots_.assign(cap, Slot{});
    if (++generation_ == 0) { // wrapped: stale slots could look current
      slots_.assign(slots_.size(), Slot{});
      generation_ = 1;
    }
    count_ = 0;
  }

  // The live slot from `home` on that `matches`; else a fresh slot there, filled by `fill`
  // (which sets everything but `generation`). `fresh` tells which.
  template <typename Matches, typename Fill>
  Slot& find_or_insert(uint64_t home, Matches matches, Fill fill, bool& fresh) {
    if (slots_.empty()) reset();
    if (2 * (count_ + 1) > slots_.size()) grow(); // load stays at most one half
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(home) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        fill(s);
        s.generation = generation_;
        ++count_;
        fresh = true;
        return s;
      }
      if (matches(s)) {
        fresh = false;
        return s;
      }
    }
  }

  // The live slot from `home` on that `matches`, or null.
  template <typename Matches> const Slot* find(uint64_t home, Matches matches) const {
    if (slots_.empty()) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(home) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return nullptr;
      if (matches(s)) return &s;
    }
  }

  size_t size() const { return count_; }

private:
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.generation == generation_) {
        size_t i = size_t(s.home()) & mask;
        while (slots_[i].generation == generation_) i = (i + 1) & mask;
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;
  uint32_t generation_ = 0;
  size_t count_ = 0;
};

} // namespace hassium
