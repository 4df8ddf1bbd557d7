// Tests of ir/fusion/singleton.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"

using namespace hassium;

TEST_CASE("singleton: one block per instruction, in program order") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition s = singleton_partition(ctx);
  REQUIRE(s.blocks.size() == p.size());
  for (size_t i = 0; i < p.size(); ++i) CHECK(s.blocks[i] == std::vector<size_t>{i});
  CHECK(s.cost == 752);
  CHECK(s.algorithm == "singleton");
  CHECK(s.cost_model == "bohrium");
  CHECK_FALSE(s.proven_optimal);
}

TEST_CASE("every algorithm handles the empty program") {
  Program p;
  FusionContext ctx(p, "robinson");
  for (const auto& e : algorithm_registry().entries()) {
    Partition part = e.value.run(ctx);
    CHECK(part.blocks.empty());
    CHECK(part.cost == 0);
  }
}
