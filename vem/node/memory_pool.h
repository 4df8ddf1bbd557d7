// MemoryPool: size-classed, 64-byte aligned buffers kept for reuse after free, up to a cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace hassium {

// Why a pool: glibc hands blocks above its mmap threshold back to the OS at free(), so every
// fresh temporary of a large array pays one page fault per 4 KiB at first touch (NumPy pays
// this on every operation). Keeping freed blocks and handing them out again avoids the faults.
//
// Size classes: up to 256 bytes, multiples of 64; above, four classes per power of two
// (n rounded up to a multiple of 2^k / 4 where 2^k <= n < 2^(k+1)), so a class wastes at most
// 25%. Blocks of `huge_page_threshold` bytes or more are 2 MiB aligned and advised as
// transparent huge pages (one fault per 2 MiB instead of per 4 KiB on first touch).
// Thread-safe.
struct MemoryPoolOptions {
  bool enabled = true;                          // false: every release goes back to the OS
  size_t cap_bytes = size_t(4) << 30;           // most bytes kept in free lists
  bool huge_pages = true;                       // madvise(MADV_HUGEPAGE) for big blocks
  size_t huge_page_threshold = size_t(4) << 20; // bytes
};

struct MemoryPoolStats {
  int64_t allocations = 0; // calls to allocate()
  int64_t reuses = 0;      // allocations served from a free list
  int64_t os_allocations = 0;
  int64_t os_frees = 0;    // releases that went back to the OS (pool off, or over the cap)
  size_t bytes_in_use = 0; // handed out and not yet released (class sizes)
  size_t bytes_cached = 0; // held in free lists
  size_t peak_bytes_in_use = 0;
};

class MemoryPool {
public:
  static constexpr size_t kAlignment = 64;

  explicit MemoryPool(MemoryPoolOptions options = {});
  ~MemoryPool(); // returns every cached block to the OS
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A block of at least `bytes` bytes (a non-null unique block even for 0), 64-byte aligned.
  // Throws UserError when the system is out of memory.
  void* allocate(size_t bytes);
  // Gives back a block from allocate(bytes) (the same `bytes`).
  void release(void* p, size_t bytes);
  // Returns every cached block to the OS.
  void trim();

  MemoryPoolStats stats() const;
  const MemoryPoolOptions& options() const { return options_; }
  static size_t size_class(size_t bytes);

private:
  void* os_allocate(size_t size);
  void os_free(void* p) noexcept;

  MemoryPoolOptions options_;
  mutable std::mutex mutex_;
  std::map<size_t, std::vector<void*>> free_lists_; // class size -> blocks
  MemoryPoolStats stats_;
};

} // namespace hassium
