// PointerIndex: pointer -> dense id (0, 1, 2, ... in order of first insertion), open addressing.
//
// For the per-flush passes that ask "seen this base before? which one is it?" thousands of times:
// reset() empties the table in O(1) and a grown table allocates nothing when reused
// (core/generation_table.h). Ids index the caller's own vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/generation_table.h"

namespace hassium {

class PointerIndex {
public:
  static constexpr uint32_t kAbsent = uint32_t(-1);

  // Empties the table and makes room for `expected` pointers.
  void reset(size_t expected = 0) { table_.reset(expected); }

  // The id of p, inserting it (with the next id) when absent; `fresh` tells which.
  uint32_t insert(const void* p, bool& fresh) {
    const uint32_t next = uint32_t(table_.size());
    return table_
        .find_or_insert(
            home(p), [p](const Slot& s) { return s.ptr == p; },
            [&](Slot& s) {
              s.ptr = p;
              s.id = next;
            },
            fresh)
        .id;
  }
  uint32_t insert(const void* p) {
    bool fresh;
    return insert(p, fresh);
  }

  // The id of p, or kAbsent.
  uint32_t find(const void* p) const {
    const Slot* s = table_.find(home(p), [p](const Slot& s) { return s.ptr == p; });
    return s ? s->id : kAbsent;
  }
  bool contains(const void* p) const { return find(p) != kAbsent; }

  size_t size() const { return table_.size(); }

private:
  static uint64_t home(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) >> 4) * 0x9e3779b97f4a7c15ULL >> 20;
  }
  struct Slot {
    const void* ptr = nullptr;
    uint32_t generation = 0;
    uint32_t id = 0;
    uint64_t home() const { return PointerIndex::home(ptr); }
  };

  GenerationTable<Slot> table_;
};

} // namespace hassium
