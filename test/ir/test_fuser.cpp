// Tests of ir/fuser.cpp: the registries, option checking, configuration.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "fusion_programs.h"
#include "ir/fuser.h"
#include "ir/merge_cache.h"

using namespace hassium;

TEST_CASE("fuse runs every registered algorithm and model") {
  CHECK(algorithm_names() ==
        std::vector<std::string>{"singleton", "linear", "unintrusive", "greedy", "optimal"});
  Program p = test::paper_fig3();
  for (const auto& a : algorithm_names())
    for (const auto& m : cost_model_names()) {
      FuserOptions o;
      o.algorithm = a;
      o.cost_model = m;
      Partition part = fuse(p, o);
      CHECK(part.algorithm == a);
      CHECK(part.cost_model == m);
      size_t n = 0;
      for (const auto& b : part.blocks) n += b.size();
      CHECK(n == p.size());
    }
  FuserOptions def;
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
}
