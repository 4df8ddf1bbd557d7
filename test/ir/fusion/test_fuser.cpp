// Tests of ir/fusion/fuser.cpp: the registries, option checking, configuration.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/program_key.h"
#include "ir/text/parser.h"

using namespace hassium;

TEST_CASE("fuse runs every registered algorithm and model") {
  CHECK(algorithm_registry().names() ==
        std::vector<std::string>{"singleton", "linear", "unintrusive", "greedy", "optimal"});
  Program p = test::paper_fig3();
  for (const auto& a : algorithm_registry().names())
    for (const auto& m : cost_model_registry().names()) {
      FuserOptions o;
      o.algorithm = a;
      o.cost_model = m;
      o.search_min_bytes = 0;
      Partition part = fuse(p, o);
      CHECK(part.algorithm == a);
      CHECK(part.cost_model == m);
      size_t n = 0;
      for (const auto& b : part.blocks) n += b.size();
      CHECK(n == p.size());
    }
  FuserOptions def;
  def.search_min_bytes = 0;
  CHECK(fuse(p, def).algorithm == "greedy");
  CHECK(fuse(p, def).cost_model == "bohrium");
}

TEST_CASE("unknown names are user errors listing the valid ones") {
  Program p = test::paper_fig3();
  FuserOptions o;
  o.algorithm = "quantum";
  CHECK_THROWS_WITH(fuse(p, o),
                    Catch::Contains("quantum") &&
                        Catch::Contains("singleton, linear, unintrusive, greedy, optimal"));
  o.algorithm = "greedy";
  o.cost_model = "free";
  CHECK_THROWS_AS(fuse(p, o), UserError);
  CHECK_THROWS_WITH(fuse(p, o), Catch::Contains("bohrium, max_contract, max_locality, robinson"));
}

TEST_CASE("fuser options and the cache from the configuration") {
  const Environment home = {{"HOME", "/home/someone"}};
  Config c = Config::from_text("[fuser]\nalgorithm = optimal\ncost_model = robinson\n"
                               "optimal_budget = 77\ncache = none\n",
                               "test.ini", home);
  FuserOptions o = FuserOptions::from_config(c);
  CHECK(o.algorithm == "optimal");
  CHECK(o.cost_model == "robinson");
  CHECK(o.optimal_budget == 77);
  CHECK(MergeCache::from_config(c) == nullptr);
  Config env = Config::from_text("", "test.ini",
                                 {{"HOME", "/home/someone"},
                                  {"HASSIUM_FUSER_ALGORITHM", "linear"},
                                  {"HASSIUM_FUSER_CACHE", "disk"},
                                  {"HASSIUM_FUSER_CACHE_DIR", "/tmp/hassium-x"}});
  CHECK(FuserOptions::from_config(env).algorithm == "linear");
  auto cache = MergeCache::from_config(env);
  REQUIRE(cache);
  CHECK(cache->options().dir == "/tmp/hassium-x");
  CHECK(MergeCache::from_config(Config::from_text("", "t.ini", home))->options().dir.empty());
  Config bad = Config::from_text("[fuser]\nalgorithm = fastest\n", "bad.ini", home);
  CHECK_THROWS_WITH(FuserOptions::from_config(bad),
                    Catch::Contains("bad.ini:2") && Catch::Contains("greedy"));
  Config zero = Config::from_text("[fuser]\noptimal_budget = 0\n", "zero.ini", home);
  CHECK_THROWS_AS(FuserOptions::from_config(zero), UserError);
  CHECK(FuserOptions::from_config(c).search_min_bytes == 8192);
  Config min = Config::from_text("[fuser]\nsearch_min_bytes = 0\n", "min.ini", home);
  CHECK(FuserOptions::from_config(min).search_min_bytes == 0);
  Config negative = Config::from_text("[fuser]\nsearch_min_bytes = -1\n", "neg.ini", home);
  CHECK_THROWS_WITH(FuserOptions::from_config(negative),
                    Catch::Contains("search_min_bytes") && Catch::Contains("neg.ini:2"));
}

namespace {
// A chain of n element-wise steps over arrays of `len` float64 elements: 16 * len bytes per
// instruction (one input, one output).
Program chain(int64_t len, int n = 6) {
  std::string text = ".base X0 float64 " + std::to_string(len) + "\nRANGE X0\n";
  for (int i = 1; i <= n; ++i) {
    std::string x = "X" + std::to_string(i), prev = "X" + std::to_string(i - 1);
    text = ".base " + x + " float64 " + std::to_string(len) + "\n" + text + "MULTIPLY " + x + ", " +
           prev + ", 2\nFREE " + prev + "\n";
  }
  return parse_program(text + "SYNC X" + std::to_string(n) + "\n");
}
} // namespace

TEST_CASE("a flush of too few bytes per instruction is partitioned by linear") {
  FuserOptions o;                                              // greedy, search_min_bytes 8192
  CHECK(small_program(chain(100), o.search_min_bytes));        // 1600 bytes per instruction
  CHECK_FALSE(small_program(chain(1000), o.search_min_bytes)); // 16000
  CHECK_FALSE(small_program(chain(100), 0));
  FuseInfo info;
  Partition small = fuse(chain(100), o, nullptr, &info);
  CHECK(info.small);
  CHECK(small.algorithm == "linear");
  Partition large = fuse(chain(1000), o, nullptr, &info);
  CHECK_FALSE(info.small);
  CHECK(large.algorithm == "greedy");
  // Any searching algorithm gives way; singleton and linear run as named.
  for (std::string a : {"unintrusive", "optimal", "singleton"}) {
    o.algorithm = a;
    CHECK(fuse(chain(100), o).algorithm == (a == "singleton" ? "singleton" : "linear"));
  }
  o.algorithm = "greedy";
  o.search_min_bytes = 0;
  CHECK(fuse(chain(100), o).algorithm == "greedy");
}

TEST_CASE("small and large programs of one structure have their own merge-cache entries") {
  FuserOptions o;
  MergeCache cache;
  ProgramKey small_key, large_key;
  small_key.compute(chain(100), o);
  large_key.compute(chain(1000), o);
  CHECK(small_key.small);
  CHECK(small_key.text != large_key.text);
  fuse(chain(100), o, &cache);
  Partition large = fuse(chain(1000), o, &cache);
  CHECK(large.algorithm == "greedy");
  CHECK(cache.stats().misses == 2);
}
