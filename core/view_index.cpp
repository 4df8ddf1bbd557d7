// ViewIndex: hashing views and the open-addressing table.
#include "core/view_index.h"

namespace hassium {

namespace {
inline uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}
} // namespace

uint64_t ViewIndex::hash(const View& v, int tag) {
  uint64_t h = mix(uint64_t(reinterpret_cast<uintptr_t>(v.base.get())), uint64_t(tag));
  h = mix(h, uint64_t(v.offset));
  for (size_t k = 0; k < v.shape.size(); ++k) {
    h = mix(h, uint64_t(v.shape[k]));
    h = mix(h, uint64_t(v.stride[k]));
  }
  return h ^ (h >> 29);
}

void ViewIndex::reset(size_t expected) {
  table_.reset(expected);
}

int ViewIndex::find_or_insert(const View& v, int tag, int value) {
  const uint64_t h = hash(v, tag);
  bool fresh;
  return table_
      .find_or_insert(
          h, [&](const Slot& s) { return s.hash == h && s.tag == tag && s.view->identical(v); },
          [&](Slot& s) {
            s.view = &v;
            s.hash = h;
            s.tag = tag;
            s.value = value;
          },
          fresh)
      .value;
}

} // namespace hassium
