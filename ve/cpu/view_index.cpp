// ViewIndex: hashing views and the open-addressing table.
#include "ve/cpu/view_index.h"

namespace hassium::cpu {

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
  size_t cap = 16;
  while (cap < 2 * expected) cap *= 2;
  if (cap > slots_.size()) slots_.assign(cap, Slot{});
  if (++generation_ == 0) { // wrapped: stale slots could look current
    slots_.assign(slots_.size(), Slot{});
    generation_ = 1;
  }
  count_ = 0;
}

int ViewIndex::find_or_insert(const View& v, int tag, int value) {
  if (slots_.empty()) reset();
  if (2 * (count_ + 1) > slots_.size()) grow(); // load stays at most one half
  const uint64_t h = hash(v, tag);
  const size_t mask = slots_.size() - 1;
  for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.generation != generation_) {
      s = {&v, h, generation_, tag, value};
      ++count_;
      return value;
    }
    if (s.hash == h && s.tag == tag && s.view->identical(v)) return s.value;
  }
}

void ViewIndex::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old)
    if (s.generation == generation_) {
      size_t i = size_t(s.hash) & mask;
      while (slots_[i].generation == generation_) i = (i + 1) & mask;
      slots_[i] = s;
    }
}

} // namespace hassium::cpu
