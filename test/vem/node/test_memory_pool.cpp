// Tests for vem/node/memory_pool: size classes, alignment, reuse, cuts, the peak bound and the cap.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include "vem/node/memory_pool.h"

using namespace hassium;

namespace {
// Resident KiB of exactly [p, p + len) (mincore, page by page: smaps would count whole
// mappings, and the kernel merges the pool's mapping with adjacent anonymous ones).
long resident_kb_of(const void* p, size_t len) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  auto lo = reinterpret_cast<uintptr_t>(p) / page * page;
  size_t pages = (reinterpret_cast<uintptr_t>(p) + len - lo + page - 1) / page;
  std::vector<unsigned char> in(pages);
  if (mincore(reinterpret_cast<void*>(lo), pages * page, in.data()) != 0) return -1;
  long kb = 0;
  for (unsigned char c : in) kb += (c & 1) ? long(page / 1024) : 0;
  return kb;
}
} // namespace

TEST_CASE("size classes round up by at most 25% and stay multiples of 64") {
  CHECK(MemoryPool::size_class(0) == 64);
  CHECK(MemoryPool::size_class(1) == 64);
  CHECK(MemoryPool::size_class(64) == 64);
  CHECK(MemoryPool::size_class(65) == 128);
  CHECK(MemoryPool::size_class(256) == 256);
  CHECK(MemoryPool::size_class(257) == 320); // 256 + 64
  CHECK(MemoryPool::size_class(1024) == 1024);
  CHECK(MemoryPool::size_class(1025) == 1280);
  CHECK(MemoryPool::size_class(1536) == 1536);
  for (size_t n = 1; n < (size_t(1) << 26); n = n * 3 + 7) {
    size_t c = MemoryPool::size_class(n);
    CHECK(c >= n);
    CHECK(c % 64 == 0);
    if (n > 256) CHECK(double(c) <= 1.25 * double(n) + 1);
    CHECK(MemoryPool::size_class(c) == c); // a class is its own class
  }
}

TEST_CASE("blocks are aligned and reused by size class") {
  MemoryPool pool;
  void* a = pool.allocate(1000);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  std::memset(a, 1, 1000);
  pool.release(a);
  void* b = pool.allocate(1020); // same class (1024)
  CHECK(b == a);
  void* c = pool.allocate(1000); // the class's list is empty now: a fresh block
  CHECK(c != b);
  auto s = pool.stats();
  CHECK(s.allocations == 3);
  CHECK(s.reuses == 1);
  CHECK(s.os_allocations == 2);
  CHECK(s.bytes_in_use == 2048);
  pool.release(b);
  pool.release(c);
  s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_cached == 2048);
  CHECK(s.peak_bytes_in_use == 2048);
  pool.trim();
  CHECK(pool.stats().bytes_cached == 0);
  CHECK(pool.stats().os_frees == 2);
}

TEST_CASE("blocks whose class the caller keeps are reused like the others") {
  MemoryPool pool;
  MemoryPool::Block a = pool.allocate_block(1000);
  CHECK(a.cls == 1024);
  CHECK(reinterpret_cast<uintptr_t>(a.p) % 64 == 0);
  pool.release(a.p, a.cls);
  void* b = pool.allocate(1020); // the cached block, now remembered by the pool
  CHECK(b == a.p);
  pool.release(b);
  MemoryPool::Block c = pool.allocate_block(900); // one class up from 896: the same block
  CHECK(c.p == a.p);
  CHECK(c.cls == 1024); // the class of the block handed out, not of the request
  pool.release(c.p, c.cls);
  // A loop of take and give back: the pool's bookkeeping stays bounded.
  for (int i = 0; i < 100000; ++i) {
    MemoryPool::Block t = pool.allocate_block(size_t(64 + i % 3 * 64));
    pool.release(t.p, t.cls);
  }
  auto s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.os_allocations <= 4);
  pool.trim();
  CHECK(pool.stats().bytes_cached == 0);
}

TEST_CASE("zero-byte allocations are distinct non-null blocks") {
  MemoryPool pool;
  void* a = pool.allocate(0);
  void* b = pool.allocate(0);
  CHECK(a != nullptr);
  CHECK(b != nullptr);
  CHECK(a != b);
  pool.release(a);
  pool.release(b);
}

TEST_CASE("the cap bounds what the pool keeps") {
  MemoryPoolOptions o;
  o.cap_bytes = 3000;
  MemoryPool pool(o);
  void* a = pool.allocate(1024);
  void* b = pool.allocate(1024);
  void* c = pool.allocate(1024);
  pool.release(a);
  pool.release(b);
  pool.release(c); // 3072 > 3000: the oldest (a) goes back to the OS
  auto s = pool.stats();
  CHECK(s.bytes_cached == 2048);
  CHECK(s.os_frees == 1);
  CHECK(pool.allocate(1024) == c); // the most recently freed first
  CHECK(pool.allocate(1024) == b);
  pool.release(b);
  pool.release(c);
}

TEST_CASE("a disabled pool returns every block to the OS") {
  MemoryPoolOptions o;
  o.enabled = false;
  MemoryPool pool(o);
  void* a = pool.allocate(4096);
  pool.release(a);
  void* b = pool.allocate(4096); // may or may not be the same address; never a reuse
  pool.release(b);
  auto s = pool.stats();
  CHECK(s.reuses == 0);
  CHECK(s.os_frees == 2);
  CHECK(s.bytes_cached == 0);
}

TEST_CASE("big blocks are aligned to 2 MiB for huge pages, mapped or from the heap") {
  for (size_t mmap_threshold : {size_t(256) << 10, size_t(-1)}) {
    INFO(mmap_threshold);
    MemoryPoolOptions o;
    o.huge_page_threshold = size_t(1) << 20;
    o.mmap_threshold = mmap_threshold;
    MemoryPool pool(o);
    size_t n = (size_t(5) << 20) + 8;
    void* a = pool.allocate(n);
    CHECK(reinterpret_cast<uintptr_t>(a) % (size_t(2) << 20) == 0);
    std::memset(a, 0, n);
    pool.release(a);
    pool.trim();
    CHECK(pool.stats().os_frees == 1);
  }
}

TEST_CASE("a request takes a cached block up to reuse_classes classes larger") {
  MemoryPoolOptions o;
  o.bound_by_peak = false;  // reuse alone (the bound would evict `big` for `b` below)
  o.wide_reuse_classes = 0; // near classes only
  MemoryPool pool(o);       // reuse_classes = 2: 1024 may take 1280 or 1536, not 1792
  void* big = pool.allocate(1792);
  void* mid = pool.allocate(1500); // class 1536
  pool.release(big);
  pool.release(mid);
  void* a = pool.allocate(1000); // class 1024: the smallest fitting cached class, 1536
  CHECK(a == mid);
  CHECK(pool.stats().bytes_in_use == 1536);
  void* b = pool.allocate(1000); // 1792 is three classes up: a fresh block
  CHECK(b != big);
  void* c = pool.allocate(1700); // class 1792: the cached one
  CHECK(c == big);
  auto s = pool.stats();
  CHECK(s.reuses == 2);
  CHECK(s.bytes_cached == 0);
  pool.release(a);
  pool.release(b);
  pool.release(c);
  CHECK(pool.stats().bytes_in_use == 0);
  CHECK(pool.stats().bytes_cached == 1536 + 1024 + 1792);
}

TEST_CASE("a request no near class serves takes a cached block up to 8x its size") {
  MemoryPoolOptions o;
  o.bound_by_peak = false;
  MemoryPool pool(o); // reuse_classes 2, wide_reuse_classes 12 (three powers of two)
  void* big = pool.allocate(8192);
  void* mid = pool.allocate(1500); // class 1536
  pool.release(big);
  pool.release(mid);
  void* a = pool.allocate(1000); // class 1024: a near class first (1536), not the older 8192
  CHECK(a == mid);
  void* b = pool.allocate(1000); // no near class: 8192, eight times 1024, rather than fresh memory
  CHECK(b == big);
  CHECK(pool.stats().bytes_in_use == 1536 + 8192);
  CHECK(pool.stats().os_allocations == 2);
  pool.release(a);
  pool.release(b);
  REQUIRE(MemoryPool::size_class(700) == 768);
  void* c = pool.allocate(700); // the smallest cached class in the wide window: 1536
  CHECK(c == mid);
  void* d = pool.allocate(700); // 8192 is more than 12 classes (6144) above 768: fresh
  CHECK(d != big);
  CHECK(pool.stats().os_allocations == 3);
  pool.release(c);
  pool.release(d);
}

TEST_CASE("a fresh block past the peak bound is cut from a larger cached mapped block") {
  MemoryPoolOptions o;
  o.huge_pages = false;
  MemoryPool pool(o);
  const size_t big = size_t(16) << 20, small = size_t(1) << 20; // 16x apart: no reuse window
  void* a = pool.allocate(big);
  std::memset(a, 3, big);
  pool.release(a); // peak 16 MiB, all cached
  // A fresh 1 MiB block would hold 17 MiB against a 16 MiB peak: the cached block's first
  // MiB serves it (its pages already faulted in), the other 15 go back to the OS.
  void* b = pool.allocate(small);
  CHECK(b == a);
  auto s = pool.stats();
  CHECK(s.cuts == 1);
  CHECK(s.os_allocations == 1);
  CHECK(s.bytes_in_use == small);
  CHECK(s.bytes_cached == 0);
  CHECK(static_cast<unsigned char*>(b)[small - 1] == 3); // the same memory, still mapped
  // The tail is unmapped: mincore fails on it (ENOMEM: no mapping there).
  CHECK(resident_kb_of(static_cast<char*>(a) + small, big - small) == -1);
  std::memset(b, 4, small);
  pool.release(b);
  CHECK(pool.stats().bytes_cached == small);
  // The cut block is a block of its new class: reused as such, unmapped by its new length.
  void* c = pool.allocate(small - 4096);
  CHECK(c == a);
  pool.release(c);
  pool.trim();
  CHECK(pool.stats().os_frees == 1);
  CHECK(pool.stats().bytes_cached == 0);

  // Under the bound, no cut: the fresh block fits next to the cached one.
  MemoryPool roomy(o);
  void* x = roomy.allocate(big);
  void* y = roomy.allocate(big);
  roomy.release(x);
  void* z = roomy.allocate(small); // in use 16 + cached 16 + 1 > peak 32: cut x
  CHECK(z == x);
  roomy.release(y);
  void* w = roomy.allocate(small); // in use 1 + cached 16 + 1 <= 32: a fresh block, y kept
  CHECK(w != y);
  CHECK(roomy.stats().cuts == 1);
  CHECK(roomy.stats().bytes_cached == big);
  roomy.release(z);
  roomy.release(w);
}

TEST_CASE("in use + cached never exceeds the peak in use: stale classes go back to the OS") {
  MemoryPool pool;
  void* a = pool.allocate(1 << 20);
  void* b = pool.allocate(1 << 20);
  pool.release(a);
  pool.release(b);
  CHECK(pool.stats().bytes_cached == size_t(2) << 20);
  void* c = pool.allocate(size_t(4) << 20); // no fitting class: both cached blocks go first
  auto s = pool.stats();
  CHECK(s.bytes_cached == 0);
  CHECK(s.os_frees == 2);
  CHECK(s.peak_bytes_in_use == size_t(4) << 20);
  pool.release(c);

  MemoryPoolOptions o;
  o.bound_by_peak = false; // the old behaviour: everything stays cached
  MemoryPool loose(o);
  a = loose.allocate(1 << 20);
  loose.release(a);
  c = loose.allocate(size_t(4) << 20);
  CHECK(loose.stats().bytes_cached == size_t(1) << 20);
  loose.release(c);
}

TEST_CASE("heap and mapped blocks are bounded apart: a small request evicts no mapped block") {
  MemoryPool pool;
  const size_t big = size_t(32) << 20;
  // An iteration: a 32 MiB temporary and a scalar live at the peak; then the temporary is
  // freed and the next iteration's scalars come before its temporary.
  for (int iteration = 0; iteration < 3; ++iteration) {
    void* t = pool.allocate(big);
    void* s = pool.allocate(8);
    pool.release(t);
    pool.release(s);
    std::vector<void*> scalars;
    for (int k = 0; k < 4; ++k) scalars.push_back(pool.allocate(8)); // past the heap's peak
    CHECK(pool.stats().bytes_cached >= big);                         // the temporary's block stays
    for (void* q : scalars) pool.release(q);
  }
  auto s = pool.stats();
  CHECK(s.os_allocations == 1 + 4); // one mapped block, reused; the scalars' heap blocks
  CHECK(s.os_frees == 0);
}

TEST_CASE("a temporary shrinking every iteration keeps the pool within its peak") {
  // Gauss elimination's A[k:, k:] temporaries: two of them live per step, a little smaller
  // each step.
  MemoryPool pool;
  size_t n = 700;
  for (size_t k = 0; k < n; k += 3) {
    size_t bytes = (n - k) * (n - k) * 8;
    void* x = pool.allocate(bytes);
    void* y = pool.allocate(bytes);
    std::memset(x, 1, bytes);
    pool.release(x);
    pool.release(y);
    auto s = pool.stats();
    CHECK(s.bytes_in_use + s.bytes_cached <= s.peak_bytes_in_use);
  }
  auto s = pool.stats();
  CHECK(s.peak_bytes_in_use == 2 * MemoryPool::size_class(n * n * 8));
  // Each block serves several steps: far fewer OS allocations than allocations.
  CHECK(s.os_allocations * 4 < s.allocations);
}

TEST_CASE("mapped blocks are aligned, writable and go back to the OS at trim") {
  MemoryPoolOptions o;
  o.huge_pages = false;
  MemoryPool pool(o);
  size_t n = (size_t(3) << 20) + 100;
  void* a = pool.allocate(n);
  CHECK(reinterpret_cast<uintptr_t>(a) % 4096 == 0);
  std::memset(a, 7, n);
  void* b = pool.allocate(1000); // below mmap_threshold: from the heap
  pool.release(a);
  pool.release(b);
  pool.trim();
  auto s = pool.stats();
  CHECK(s.os_frees == 2);
  CHECK(s.bytes_cached == 0);
}

TEST_CASE("huge pages cover only whole 2 MiB pages of the request: untouched slack stays out") {
  MemoryPoolOptions o;
  MemoryPool pool(o);
  const size_t bytes = (size_t(5) << 20) + (100 << 10); // class: 6 MiB
  REQUIRE(MemoryPool::size_class(bytes) >= (size_t(6) << 20));
  void* p = pool.allocate(bytes);
  std::memset(p, 1, bytes); // touch exactly what was asked for
  long kb = resident_kb_of(p, MemoryPool::size_class(bytes));
  REQUIRE(kb > 0);
  // Huge pages over the class (6 MiB) would make all of it resident; over the request's
  // whole 2 MiB pages (4 MiB) plus small pages for the rest, it is the request, to a page.
  CHECK(size_t(kb) * 1024 <= bytes + 4096);
  CHECK(size_t(kb) * 1024 >= bytes - 4096);
  pool.release(p);
}
