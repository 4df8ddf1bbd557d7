// ViewIndex: (view up to View::identical, tag) -> the int stored with its first occurrence.
//
// The kernel planner asks it once per operand of a block to merge identical views into one
// array: a hash of base, offset, shape and stride, open addressing, compared in full with
// View::identical. reset() is O(1) (a generation bump); no allocation once grown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/view.h"

namespace hassium::cpu {

class ViewIndex {
public:
  // Empties the index and makes room for `expected` entries.
  void reset(size_t expected = 0);
  // The value stored for a view identical to v with the same tag; else stores `value` for v
  // (which must outlive the index's use until the next reset) and returns it.
  int find_or_insert(const View& v, int tag, int value);
  size_t size() const { return count_; }

  static uint64_t hash(const View& v, int tag);

private:
  struct Slot {
    const View* view = nullptr;
    uint64_t hash = 0;
    uint32_t generation = 0;
    int tag = 0;
    int value = 0;
  };
  void grow();

  std::vector<Slot> slots_;
  uint32_t generation_ = 0;
  size_t count_ = 0;
};

} // namespace hassium::cpu
