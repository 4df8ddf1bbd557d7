// PointerIndex: pointer -> dense id (0, 1, 2, ... in order of first insertion), open addressing.
//
// For the per-flush passes that ask "seen this base before? which one is it?" thousands of times:
// reset() empties the table in O(1) (a generation bump), and once the table has grown to a
// program's size a reuse allocates nothing. Ids index the caller's own vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hassium {

class PointerIndex {
public:
  static constexpr uint32_t kAbsent = uint32_t(-1);

  // Empties the table and makes room for `expected` pointers.
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

  // The id of p, inserting it (with the next id) when absent; `fresh` tells which.
  uint32_t insert(const void* p, bool& fresh) {
    if (slots_.empty()) reset();
    if (2 * (size_t(count_) + 1) > slots_.size()) grow(); // load stays at most one half
    const size_t mask = slots_.size() - 1;
    for (size_t i = home(p) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.generation != generation_) {
        s = {p, generation_, count_++};
        fresh = true;
        return s.id;
      }
      if (s.ptr == p) {
        fresh = false;
        return s.id;
      }
    }
  }
  uint32_t insert(const void* p) {
    bool fresh;
    return insert(p, fresh);
  }

  // The id of p, or kAbsent.
  uint32_t find(const void* p) const {
    if (slots_.empty()) return kAbsent;
    const size_t mask = slots_.size() - 1;
    for (size_t i = home(p) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.generation != generation_) return kAbsent;
      if (s.ptr == p) return s.id;
    }
  }
  bool contains(const void* p) const { return find(p) != kAbsent; }

  size_t size() const { return count_; }

private:
  struct Slot {
    const void* ptr = nullptr;
    uint32_t generation = 0;
    uint32_t id = 0;
  };
  static size_t home(const void* p) {
    return size_t((reinterpret_cast<uintptr_t>(p) >> 4) * 0x9e3779b97f4a7c15ULL >> 20);
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.generation == generation_) {
        size_t i = home(s.ptr) & mask;
        while (slots_[i].generation == generation_) i = (i + 1) & mask;
        slots_[i] = s;
      }
  }

  std::vector<Slot> slots_;
  uint32_t generation_ = 0;
  uint32_t count_ = 0;
};

} // namespace hassium
