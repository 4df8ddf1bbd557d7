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
