// Tests for ve/cpu/parallel_choice.h: one thread or all, learned from launch times per size class.
#include <catch2/catch.hpp>

#include "ve/cpu/parallel_choice.h"

using hassium::cpu::ParallelChoice;

namespace {
// Runs `launches` launches of `elements` elements whose time per element is `serial` on one
// thread and `parallel` on all; returns how many ran on all threads.
int drive(ParallelChoice& c, int64_t elements, double serial, double parallel, int launches) {
  int on_all = 0;
  for (int i = 0; i < launches; ++i) {
    bool p = c.parallel(elements);
    on_all += p;
    c.record(elements, p, double(elements) * (p ? parallel : serial));
  }
  return on_all;
}
} // namespace

TEST_CASE("parallel_choice: both ways measured first, then the faster") {
  ParallelChoice c;
  const int64_t n = 100000;
  // The first kTrials launches on all threads, the next kTrials on one.
  CHECK(c.parallel(n));
  c.record(n, true, 3e-4);
  CHECK(c.parallel(n));
  c.record(n, true, 3e-4);
  CHECK_FALSE(c.parallel(n));
  c.record(n, false, 1e-4);
  CHECK_FALSE(c.parallel(n));
  c.record(n, false, 1e-4);
  // One thread was faster: 31 of the next 32 launches run there, one checks the other way.
  CHECK(drive(c, n, 1e-9, 3e-9, 32) == 1);
}

TEST_CASE("parallel_choice: a launch of milliseconds on all threads stays there") {
  ParallelChoice c;
  const int64_t n = int64_t(1) << 24;
  // 16M elements at 0.5 ns each on all threads: 8 ms a launch, never tried on one thread.
  CHECK(drive(c, n, 1e-9, 0.5e-9, 100) == 100);
}

TEST_CASE("parallel_choice: each size class learns on its own, and follows a change") {
  ParallelChoice c;
  const int64_t small = 40000, big = 4000000; // big: 1 ms a launch on all threads at 0.25 ns
  drive(c, small, 1e-9, 2e-9, 8);             // small: one thread wins
  drive(c, big, 1e-9, 0.25e-9, 8);            // big: all threads win
  CHECK(drive(c, small, 1e-9, 2e-9, 64) <= 2);
  CHECK(drive(c, big, 1e-9, 0.25e-9, 64) >= 62);
  // The machine gets busy: all threads become slow for the big size; the rechecks of one
  // thread notice, and the choice moves over within a few rechecks.
  drive(c, big, 1e-9, 4e-9, 32 * 6);
  CHECK(drive(c, big, 1e-9, 4e-9, 64) <= 2);
}

TEST_CASE("parallel_choice: the same timings give the same choices") {
  ParallelChoice a, b;
  CHECK(drive(a, 70000, 1e-9, 1.1e-9, 100) == drive(b, 70000, 1e-9, 1.1e-9, 100));
}
