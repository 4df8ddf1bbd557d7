// Tests for vem/node/memory_pool: size classes, alignment, reuse, the cap.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "vem/node/memory_pool.h"

using namespace hassium;

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
  pool.release(a, 1000);
  void* b = pool.allocate(1020); // same class (1024)
  CHECK(b == a);
  void* c = pool.allocate(1000); // the class's list is empty now: a fresh block
  CHECK(c != b);
  auto s = pool.stats();
  CHECK(s.allocations == 3);
  CHECK(s.reuses == 1);
  CHECK(s.os_allocations == 2);
  CHECK(s.bytes_in_use == 2048);
  pool.release(b, 1020);
  pool.release(c, 1000);
  s = pool.stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_cached == 2048);
  CHECK(s.peak_bytes_in_use == 2048);
  pool.trim();
  CHECK(pool.stats().bytes_cached == 0);
  CHECK(pool.stats().os_frees == 2);
}

TEST_CASE("zero-byte allocations are distinct non-null blocks") {
  MemoryPool pool;
  void* a = pool.allocate(0);
  void* b = pool.allocate(0);
  CHECK(a != nullptr);
  CHECK(b != nullptr);
  CHECK(a != b);
  pool.release(a, 0);
  pool.release(b, 0);
}

TEST_CASE("the cap bounds what the pool keeps") {
  MemoryPoolOptions o;
  o.cap_bytes = 3000;
  MemoryPool pool(o);
  void* a = pool.allocate(1024);
  void* b = pool.allocate(1024);
  void* c = pool.allocate(1024);
  pool.release(a, 1024);
  pool.release(b, 1024);
  pool.release(c, 1024); // 3072 > 3000: back to the OS
  auto s = pool.stats();
  CHECK(s.bytes_cached == 2048);
  CHECK(s.os_frees == 1);
}

TEST_CASE("a disabled pool returns every block to the OS") {
  MemoryPoolOptions o;
  o.enabled = false;
  MemoryPool pool(o);
  void* a = pool.allocate(4096);
  pool.release(a, 4096);
  void* b = pool.allocate(4096); // may or may not be the same address; never a reuse
  pool.release(b, 4096);
  auto s = pool.stats();
  CHECK(s.reuses == 0);
  CHECK(s.os_frees == 2);
  CHECK(s.bytes_cached == 0);
}

TEST_CASE("big blocks are aligned to 2 MiB for huge pages") {
  MemoryPoolOptions o;
  o.huge_page_threshold = size_t(1) << 20;
  MemoryPool pool(o);
  size_t n = (size_t(5) << 20) + 8;
  void* a = pool.allocate(n);
  CHECK(reinterpret_cast<uintptr_t>(a) % (size_t(2) << 20) == 0);
  std::memset(a, 0, n);
  pool.release(a, n);
}
