// ViewIndex: (view up to View::identical, tag) -> the int stored with its first occurrence.
//
// The kernel planner asks it once per operand of a block to merge identical views into one
// array, the merge cache's key once per operand to number distinct views: a hash of base, offset,
// shape and stride, open addressing, compared in full with View::identical. reset() is O(1); no
// allocation once grown (core/generation_table.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/generation_table.h"
#include "core/view.h"

namespace hassium {

class ViewIndex {
public:
  // Empties the index and makes room for `expected` entries.
  void reset(size_t expected = 0);
  // The value stored for a view identical to v with the same tag; else stores `value` for v
  // (which must outlive the index's use until the next reset) and returns it.
  int find_or_insert(const View& v, int tag, int value);
  size_t size() const { return table_.size(); }

  static uint64_t hash(const View& v, int tag);

private:
  struct Slot {
    const View* view = nullptr;
    uint64_t hash = 0;
    uint32_t generation = 0;
    int tag = 0;
    int value = 0;
    uint64_t home() const { return hash; }
  };

  GenerationTable<Slot> table_;
};

} // namespace hassium
