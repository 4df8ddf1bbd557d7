// MemoryPool: size classes, near and wide reuse, cut blocks, arenas bounded by their peaks.
#include "vem/node/memory_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include <sys/mman.h>

#include "core/error.h"

namespace hassium {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kPage = size_t(4) << 10;

size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}
} // namespace

MemoryPool::MemoryPool(MemoryPoolOptions options) : options_(options) {}

MemoryPool::~MemoryPool() {
  trim();
}

size_t MemoryPool::size_class(size_t bytes) {
  if (bytes <= 256) return bytes <= kAlignment ? kAlignment : round_up(bytes, 64);
  size_t top = std::bit_floor(bytes); // 2^k <= bytes < 2^(k+1)
  return round_up(bytes, top / 4);
}

void* MemoryPool::os_allocate(size_t size, size_t used) {
  bool huge = options_.huge_pages && size >= options_.huge_page_threshold;
  // Huge pages only over the whole 2 MiB pages of what the request uses: the class's slack
  // and the request's last partial 2 MiB stay small pages, so the resident set is what is
  // touched (a 32 MB array in a 33.5 MB class would otherwise be 34 MB resident).
  size_t advised = used / kHugePage * kHugePage;
  huge = huge && advised > 0;
  void* p = nullptr;
  if (size >= options_.mmap_threshold) {
    size_t len = round_up(size, kPage);
    size_t align = huge ? kHugePage : kPage;
    size_t span = len + align - kPage; // room to slide to an `align` boundary
    void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      throw OutOfMemory("out of memory allocating " + std::to_string(size) + " bytes");
    auto base = reinterpret_cast<uintptr_t>(m);
    uintptr_t start = round_up(base, align);
    if (start > base) munmap(m, start - base); // the unaligned head
    if (base + span > start + len)
      munmap(reinterpret_cast<void*>(start + len), base + span - (start + len));
    p = reinterpret_cast<void*>(start);
    if (huge) madvise(p, advised, MADV_HUGEPAGE); // advice only: failure changes nothing
  } else { // mmap_threshold above huge_page_threshold: huge blocks from the heap too
    size_t align = huge ? kHugePage : kAlignment;
    size_t len = round_up(size, align); // aligned_alloc wants a multiple
    p = std::aligned_alloc(align, len);
    if (!p) throw OutOfMemory("out of memory allocating " + std::to_string(size) + " bytes");
    if (huge) madvise(p, advised, MADV_HUGEPAGE);
  }
  ++stats_.os_allocations;
  return p;
}

void MemoryPool::os_free(void* p, size_t size) noexcept {
  if (size >= options_.mmap_threshold)
    munmap(p, round_up(size, kPage));
  else
    std::free(p);
  ++stats_.os_frees;
}

MemoryPool::Cached MemoryPool::pop_newest(FreeLists::iterator it) {
  // The list is not empty (callers skip empty ones).
  const Cached c = it->second.back();
  const size_t cls = it->first;
  it->second.pop_back();
  Arena& a = arena_of(cls);
  --a.blocks;
  a.cached -= cls;
  stats_.bytes_cached -= cls;
  return c;
}

bool MemoryPool::is_cached(const Age& age) const {
  auto it = free_lists_.find(age.cls);
  return it != free_lists_.end() && !it->second.empty() && it->second.front().seq <= age.seq &&
         age.seq <= it->second.back().seq;
}

const MemoryPool::Age* MemoryPool::oldest(Arena& a) {
  if (a.blocks == 0) {
    a.ages.clear();
    return nullptr;
  }
  while (!is_cached(a.ages.front())) a.ages.pop_front();
  return &a.ages.front();
}

void MemoryPool::took(size_t cls) {
  Arena& a = arena_of(cls);
  a.in_use += cls;
  a.peak = std::max(a.peak, a.in_use);
  stats_.bytes_in_use += cls;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
}

MemoryPool::Block MemoryPool::take_cached(size_t cls, int classes) {
  size_t limit = cls;
  for (int k = 0; k < classes; ++k) limit = size_class(limit + 1);
  auto it = free_lists_.lower_bound(cls);
  while (it != free_lists_.end() && it->first <= limit && it->second.empty()) ++it;
  if (it == free_lists_.end() || it->first > limit) return {nullptr, 0};
  const size_t got = it->first;
  const Cached c = pop_newest(it);
  ++stats_.reuses;
  took(got);
  return {c.p, got};
}

MemoryPool::Block MemoryPool::take_cut(size_t cls) {
  if (cls < options_.mmap_threshold) return {nullptr, 0}; // (a heap block is not cut)
  auto it = free_lists_.upper_bound(cls); // the smallest larger class: the least to unmap
  while (it != free_lists_.end() && it->second.empty()) ++it;
  if (it == free_lists_.end()) return {nullptr, 0};
  const size_t had = it->first;
  const Cached c = pop_newest(it);
  // Both classes are at or above the threshold, so the block is a mapping: its tail's pages
  // go back to the OS, and os_free() later unmaps the head by the new class's length.
  const size_t keep = round_up(cls, kPage), len = round_up(had, kPage);
  if (len > keep) munmap(static_cast<char*>(c.p) + keep, len - keep);
  ++stats_.cuts;
  ++stats_.reuses;
  took(cls);
  return {c.p, cls};
}

void MemoryPool::evict_oldest(Arena& a) {
  const Age* age = oldest(a);
  HS_INTERNAL_ASSERT(age) << "eviction from an arena that caches nothing";
  auto it = free_lists_.find(age->cls);
  HS_INTERNAL_ASSERT(it != free_lists_.end() && it->second.front().seq == age->seq)
      << "memory pool free lists out of order";
  os_free(it->second.front().p, it->first);
  --a.blocks;
  a.cached -= it->first;
  stats_.bytes_cached -= it->first;
  it->second.pop_front();
  a.ages.pop_front();
}

void MemoryPool::evict_oldest() {
  Arena &heap = arenas_[0], &mapped = arenas_[1];
  const Age *h = oldest(heap), *m = oldest(mapped);
  if (!m || (h && h->seq < m->seq))
    evict_oldest(heap);
  else
    evict_oldest(mapped);
}

void MemoryPool::evict_all() {
  while (arenas_[0].blocks > 0 || arenas_[1].blocks > 0) evict_oldest();
}

MemoryPool::Block MemoryPool::allocate_block(size_t bytes) {
  size_t cls = size_class(bytes);
  std::lock_guard lock(mutex_);
  ++stats_.allocations;
  Arena& a = arena_of(cls);
  const size_t bound = std::max(a.peak, a.in_use + cls);
  const bool over = options_.bound_by_peak && a.in_use + a.cached + cls > bound; // a fresh one
  if (options_.enabled) {
    Block b = take_cached(cls, options_.reuse_classes);
    if (!b.p) b = take_cached(cls, std::max(options_.reuse_classes, options_.wide_reuse_classes));
    if (!b.p && over) b = take_cut(cls); // rather than cached blocks evicted for a fresh one
    if (b.p) return b;
  }
  if (over)
    while (a.blocks > 0 && a.in_use + a.cached + cls > bound) evict_oldest(a);
  void* p;
  try {
    p = os_allocate(cls, bytes);
  } catch (const OutOfMemory&) {
    // What the pool keeps for reuse goes back to the OS, then one more try.
    evict_all();
    p = os_allocate(cls, bytes);
  }
  took(cls);
  return {p, cls};
}

void* MemoryPool::allocate(size_t bytes) {
  const Block b = allocate_block(bytes);
  std::lock_guard lock(mutex_);
  in_use_.emplace(b.p, b.cls);
  return b.p;
}

void MemoryPool::release(void* p) {
  if (!p) return;
  size_t cls;
  {
    std::lock_guard lock(mutex_);
    auto it = in_use_.find(p);
    HS_INTERNAL_ASSERT(it != in_use_.end()) << "release of a block the pool did not hand out";
    cls = it->second;
    in_use_.erase(it);
  }
  release(p, cls);
}

void MemoryPool::release(void* p, size_t cls) {
  if (!p) return;
  std::lock_guard lock(mutex_);
  Arena& a = arena_of(cls);
  a.in_use -= cls;
  stats_.bytes_in_use -= cls;
  if (!options_.enabled || cls > options_.cap_bytes) {
    os_free(p, cls);
    return;
  }
  free_lists_[cls].push_back({next_seq_, p});
  a.ages.push_back({next_seq_++, cls});
  ++a.blocks;
  // Stale releases go when they outnumber the cached blocks (amortized: at most one pass per
  // as many releases as the arena caches blocks).
  if (a.ages.size() > 2 * a.blocks + 64)
    std::erase_if(a.ages, [this](const Age& age) { return !is_cached(age); });
  a.cached += cls;
  stats_.bytes_cached += cls;
  while (stats_.bytes_cached > options_.cap_bytes) evict_oldest();
}

void MemoryPool::trim() {
  std::lock_guard lock(mutex_);
  evict_all();
}

MemoryPoolStats MemoryPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

} // namespace hassium
