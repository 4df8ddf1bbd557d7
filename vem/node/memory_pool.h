// MemoryPool: size-classed, 64-byte aligned buffers kept for reuse after free, bounded by need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

namespace hassium {

// Why a pool: an OS allocation of a large array is fresh memory, so every fresh temporary pays
// one page fault per 4 KiB at first touch (NumPy pays this on every operation). Keeping freed
// blocks and handing them out again avoids the faults.
//
// Size classes: up to 256 bytes, multiples of 64; above, four classes per power of two
// (n rounded up to a multiple of 2^k / 4 where 2^k <= n < 2^(k+1)), so a class wastes at most
// 25%. A request is served by the most recently freed cached block of the smallest cached
// class among its own class and the `reuse_classes` classes above it (a temporary that shrinks
// a little every iteration, A[k:, k:], keeps reusing the block of its first size); failing
// that, among the `wide_reuse_classes` classes above it (at most 8x its size by default: an
// array compressed smaller every iteration, mandelbrot's Z = Z[I], lands in the blocks its
// larger predecessors left instead of in fresh memory: no page faults, and in use + cached
// stays what it was, so the pool's footprint does not grow by it).
//
// Bounded by need, per arena: the heap blocks (classes below `mmap_threshold`) and the mapped
// ones each never hold more bytes (in use + cached) than their own peak of bytes in use. When a
// request has to go to the OS and its arena's in use + cached + the new block would exceed that
// peak, a larger cached mapped block is cut down to the request in place (its head's pages are
// already faulted in; its tail goes back to the OS); without one, the arena's cached blocks go
// back to the OS first, least recently freed first. So the pool's footprint is the program's
// peak live memory of each kind, not the sum of every size it ever freed; and a scalar's 64
// bytes never evict a cached 32 MiB block that the next iteration would fault in again.
// Independently, at most `cap_bytes` stay cached.
//
// OS memory: blocks of `mmap_threshold` bytes or more are mapped directly (munmap gives them
// back at once; glibc would keep them in its heap once its dynamic mmap threshold has grown);
// smaller ones come from aligned_alloc. Blocks of `huge_page_threshold` bytes or more are
// 2 MiB aligned and advised as transparent huge pages (one fault per 2 MiB instead of per
// 4 KiB on first touch), over the whole 2 MiB pages of the request that got them only: the
// class's slack and the last partial 2 MiB stay small pages, so untouched bytes are never
// resident. Thread-safe.
struct MemoryPoolOptions {
  bool enabled = true;                // false: every release goes back to the OS
  size_t cap_bytes = size_t(4) << 30; // most bytes kept in free lists
  int reuse_classes = 2;              // how many classes larger a reused block may be
  int wide_reuse_classes = 12; // ... when none of those is cached (else: fresh memory or a cut)
  bool bound_by_peak = true;   // in use + cached <= peak in use (see above)
  bool huge_pages = true;      // madvise(MADV_HUGEPAGE) for big blocks
  size_t huge_page_threshold = size_t(4) << 20; // bytes
  size_t mmap_threshold = size_t(256) << 10;    // bytes; blocks this big are mapped directly
};

struct MemoryPoolStats {
  int64_t allocations = 0; // calls to allocate()
  int64_t reuses = 0;      // allocations served from a free list
  int64_t os_allocations = 0;
  int64_t os_frees = 0;    // blocks given back to the OS (pool off, cap, bound, trim)
  int64_t cuts = 0;        // reuses of a larger mapped block cut down in place
  size_t bytes_in_use = 0; // handed out and not yet released (class sizes of the blocks)
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
  // The same, without the pool remembering the block's class: the caller keeps `cls` and gives
  // the block back with release(p, cls) (no lookup: a loop's temporaries pay no hash map).
  struct Block {
    void* p;
    size_t cls;
  };
  Block allocate_block(size_t bytes);
  // Gives back a block from allocate() (the pool knows its size).
  void release(void* p);
  void release(void* p, size_t cls); // a block of allocate_block()
  // Returns every cached block to the OS.
  void trim();

  MemoryPoolStats stats() const;
  const MemoryPoolOptions& options() const { return options_; }
  static size_t size_class(size_t bytes);

private:
  struct Cached {
    uint64_t seq; // order of release (its arena's `ages` entry)
    void* p;
  };
  // A release, in release order: the block of class `cls` released `seq`-th. Stale once the
  // block left the cache (taken again: is_cached() says), dropped lazily.
  struct Age {
    uint64_t seq;
    size_t cls;
  };
  // The blocks of one kind (heap, mapped): its cached ones by age, its bytes and its peak.
  struct Arena {
    std::deque<Age> ages; // every cached block's release, oldest first, and stale ones
    size_t blocks = 0;    // cached blocks
    size_t in_use = 0, cached = 0, peak = 0;
  };
  Arena& arena_of(size_t cls) { return arenas_[cls >= options_.mmap_threshold ? 1 : 0]; }
  // class size -> blocks, oldest first. A list that empties stays (a loop that takes and
  // gives back one block of a class every iteration makes no list each time).
  using FreeLists = std::map<size_t, std::deque<Cached>>;
  // Whether the block of that release is still cached: a list holds a contiguous range of
  // its releases (blocks leave it at the back when taken, at the front when evicted).
  bool is_cached(const Age& age) const;
  // The arena's least recently released cached block's release (stale ones dropped first), or
  // null when it caches none.
  const Age* oldest(Arena& a);
  // The most recently freed block of a free list, out of the cache (lists, age, bytes).
  Cached pop_newest(FreeLists::iterator it);
  void took(size_t cls); // accounting of a block of class `cls` handed out
  void evict_all();      // every cached block back to the OS
  // A cached block of class `cls` up to `classes` classes larger, or null; updates stats.
  Block take_cached(size_t cls, int classes);
  Block take_cut(size_t cls);  // a larger cached mapped block cut down to `cls`, or null
  void evict_oldest(Arena& a); // the arena's least recently freed cached block back to the OS
  void evict_oldest();         // ... of either arena
  // `size` bytes (a class size) for a request of `used` bytes (huge pages cover only whole
  // 2 MiB pages of `used`).
  void* os_allocate(size_t size, size_t used);
  void os_free(void* p, size_t size) noexcept;

  MemoryPoolOptions options_;
  mutable std::mutex mutex_;
  FreeLists free_lists_;
  Arena arenas_[2];                          // heap, mapped
  std::unordered_map<void*, size_t> in_use_; // allocate()'s blocks -> their class sizes
  uint64_t next_seq_ = 0;
  MemoryPoolStats stats_;
};

} // namespace hassium
