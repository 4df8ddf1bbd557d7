// MemoryPool: size classes, free lists under a cap, aligned OS allocations.
#include "vem/node/memory_pool.h"

#include <bit>
#include <cstdlib>

#include <sys/mman.h>

#include "core/error.h"

namespace hassium {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

MemoryPool::MemoryPool(MemoryPoolOptions options) : options_(options) {}

MemoryPool::~MemoryPool() {
  trim();
}

size_t MemoryPool::size_class(size_t bytes) {
  if (bytes <= 256) return bytes <= kAlignment ? kAlignment : (bytes + 63) / 64 * 64;
  size_t top = std::bit_floor(bytes); // 2^k <= bytes < 2^(k+1)
  size_t step = top / 4;
  return (bytes + step - 1) / step * step;
}

void* MemoryPool::os_allocate(size_t size) {
  bool huge = options_.huge_pages && size >= options_.huge_page_threshold;
  size_t align = huge ? kHugePage : kAlignment;
  size_t rounded = (size + align - 1) / align * align; // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(align, rounded);
  if (!p) HS_USER_ERROR() << "out of memory allocating " << size << " bytes";
  if (huge) madvise(p, rounded, MADV_HUGEPAGE); // advice only: failure changes nothing
  ++stats_.os_allocations;
  return p;
}

void MemoryPool::os_free(void* p) noexcept {
  std::free(p);
  ++stats_.os_frees;
}

void* MemoryPool::allocate(size_t bytes) {
  size_t cls = size_class(bytes);
  std::lock_guard lock(mutex_);
  ++stats_.allocations;
  void* p = nullptr;
  auto it = free_lists_.find(cls);
  if (it != free_lists_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.bytes_cached -= cls;
    ++stats_.reuses;
  } else {
    p = os_allocate(cls);
  }
  stats_.bytes_in_use += cls;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  return p;
}

void MemoryPool::release(void* p, size_t bytes) {
  if (!p) return;
  size_t cls = size_class(bytes);
  std::lock_guard lock(mutex_);
  HS_INTERNAL_ASSERT(stats_.bytes_in_use >= cls) << "release of a block the pool did not hand out";
  stats_.bytes_in_use -= cls;
  if (!options_.enabled || stats_.bytes_cached + cls > options_.cap_bytes) {
    os_free(p);
    return;
  }
  free_lists_[cls].push_back(p);
  stats_.bytes_cached += cls;
}

void MemoryPool::trim() {
  std::lock_guard lock(mutex_);
  for (auto& [cls, blocks] : free_lists_)
    for (void* p : blocks) os_free(p);
  free_lists_.clear();
  stats_.bytes_cached = 0;
}

MemoryPoolStats MemoryPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

} // namespace hassium
