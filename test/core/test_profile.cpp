// Tests for core/profile: counters add up and print one labelled line each.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/profile.h"

using namespace hassium;

TEST_CASE("profile counters add and print") {
  ProfileCounters a, b;
  a.flushes = 2;
  a.compile_seconds = 0.5;
  b.flushes = 3;
  b.kernel_disk_hits = 4;
  a += b;
  CHECK(a.flushes == 5);
  CHECK(a.kernel_disk_hits == 4);
  std::ostringstream os;
  print_profile(os, a);
  std::string s = os.str();
  CHECK_THAT(s, Catch::Contains("flushes:") && Catch::Contains("5\n"));
  CHECK_THAT(s, Catch::Contains("kernel cache hits (disk):"));
  CHECK_THAT(s, Catch::Contains("compile time (s):") && Catch::Contains("0.5\n"));
  CHECK_THAT(s, Catch::Contains("merge-cache hits:"));
}

TEST_CASE("profile rates, peak and the slowest kernels merge") {
  ProfileCounters a, b;
  a.merge_cache_hits = 3;
  a.merge_cache_misses = 1;
  a.kernels_compiled = 1;
  a.kernel_memory_hits = 2;
  a.kernel_disk_hits = 1;
  a.partition_cost = 25;
  a.singleton_cost = 100;
  a.peak_bytes = 10;
  b.peak_bytes = 7;
  CHECK(a.merge_cache_hit_rate() == 0.75);
  CHECK(a.kernel_cache_hit_rate() == 0.75);
  CHECK(a.fused_to_singleton() == 0.25);
  CHECK(ProfileCounters().merge_cache_hit_rate() == 0); // no lookups
  for (int k = 0; k < 8; ++k) {
    a.slowest_kernels.push_back({"K" + std::to_string(k), 1, 0.1 * k, 8});
    b.slowest_kernels.push_back({"L" + std::to_string(k), 2, 0.1 * k + 0.05, 8});
  }
  a += b;
  CHECK(a.peak_bytes == 10); // a high-water mark, not a sum
  REQUIRE(a.slowest_kernels.size() == ProfileCounters::kMaxSlowestKernels);
  CHECK(a.slowest_kernels[0].bytecode == "L7");
  CHECK(a.slowest_kernels[1].bytecode == "K7");
  for (size_t k = 1; k < a.slowest_kernels.size(); ++k)
    CHECK(a.slowest_kernels[k - 1].seconds >= a.slowest_kernels[k].seconds);

  std::ostringstream os;
  print_profile(os, a);
  std::string s = os.str();
  CHECK_THAT(s, Catch::Contains("merge-cache hit rate:") && Catch::Contains("75.0% (3 of 4)"));
  CHECK_THAT(s, Catch::Contains("kernel-cache hit rate:") && Catch::Contains("75.0% (3 of 4)"));
  CHECK_THAT(s, Catch::Contains("0.250 (25 / 100)"));
  CHECK_THAT(s, Catch::Contains("#5: ") && !Catch::Contains("#6: ")); // five printed
  CHECK_THAT(s, Catch::Contains("      L7\n"));
}

TEST_CASE("a long kernel prints its first lines only") {
  ProfileCounters c;
  std::string text;
  for (int k = 0; k < 100; ++k) text += "ADD a" + std::to_string(k) + ", a0, 1\n";
  c.slowest_kernels.push_back({text, 1, 1.0, 0});
  std::ostringstream os;
  print_profile(os, c);
  CHECK_THAT(os.str(), Catch::Contains("ADD a29, a0, 1") && !Catch::Contains("ADD a30, a0, 1") &&
                           Catch::Contains("... 70 more lines"));
  CHECK_THAT(os.str(),
             Catch::Contains("fused / singleton cost:") && Catch::Contains("n/a (not gathered)"));
}

TEST_CASE("duration histogram: quantiles within a bucket's width, merged by +=") {
  DurationHistogram h;
  CHECK(h.quantile(0.5) == 0);
  for (int i = 1; i <= 100; ++i) h.add(1e-3 * i); // 1 .. 100 ms
  CHECK(h.total == 100);
  auto near = [](double got, double want) { return got > want / 1.2 && got < want * 1.2; };
  CHECK(near(h.quantile(0.5), 0.050));
  CHECK(near(h.quantile(0.95), 0.095));
  DurationHistogram g;
  g.add(2.0, 100); // beyond the last bucket's start: counted there
  g += h;
  CHECK(g.total == 200);
  CHECK(near(g.quantile(0.25), 0.050));
  CHECK(g.quantile(0.99) > 1.0);
  ProfileCounters c;
  c.fast_compiles = h;
  std::ostringstream os;
  print_profile(os, c);
  CHECK_THAT(os.str(), Catch::Contains("compile per kernel, fast tier:") &&
                           Catch::Contains("(100 kernels)") &&
                           !Catch::Contains("compile per kernel, optimized"));
}
