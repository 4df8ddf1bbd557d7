// Tests of ir/fusion/optimal.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"

using namespace hassium;
using test::ProgramBuilder;

TEST_CASE("optimal on Fig. 3: 304 bytes (38 float64 elements), proven") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition o = optimal_partition(ctx);
  CHECK(o.cost == 304);
  CHECK(o.proven_optimal);
  CHECK(o.algorithm == "optimal");
  CHECK(check_partition(ctx.table(), o.blocks) == "");
  for (const auto& e : algorithm_registry().entries()) CHECK(e.value.run(ctx).cost >= o.cost);
}

TEST_CASE("optimal takes along a block that saves nothing but is needed for legality") {
  static double data[8];
  ProgramBuilder b;
  auto A = b.base("A", 4), B = b.base("B", 4), T = b.base("T", 4);
  A->data = data;
  B->data = data;
  using P = ProgramBuilder;
  b.op(Opcode::IDENTITY, {P::whole(T), P::whole(A)});       // 0: reads A
  b.op(Opcode::IDENTITY, {P::whole(A), P::whole(B)});       // 1: writes A (after 0), reads B
  b.op(Opcode::ADD, {P::whole(B), P::whole(T), P::f64(1)}); // 2: writes B (after 1), reads T
  FusionContext ctx(b.p, "bohrium");
  // Merging 0 and 2 saves the read of T, but 0 -> 1 -> 2: only {0, 1, 2} together is legal,
  // and merging 1 with 0 or 2 alone saves nothing. Greedy stops at the singletons.
  CHECK(greedy_partition(ctx).cost == 192);
  Partition o = optimal_partition(ctx);
  CHECK(o.cost == 160);
  CHECK(o.blocks == std::vector<std::vector<size_t>>{{0, 1, 2}});
}

TEST_CASE("optimal out of budget returns its best so far, not proven") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium", 1);
  Blocks singletons;
  for (uint32_t i = 0; i < p.size(); ++i) singletons.push_back({i});
  Partition seed = singleton_partition(ctx);
  Partition o = optimal_partition(ctx, singletons, seed);
  CHECK_FALSE(o.proven_optimal);
  CHECK(o.cost == seed.cost);
  CHECK(check_partition(ctx.table(), o.blocks) == "");
  FusionContext roomy(p, "bohrium", 1'000'000);
  Partition full = optimal_partition(roomy, singletons, singleton_partition(roomy));
  CHECK(full.proven_optimal);
  CHECK(full.cost == 304);
}

TEST_CASE("optimal with every cost model on Fig. 3 is proven and no worse than greedy") {
  Program p = test::paper_fig3();
  for (const auto& model : cost_model_registry().names()) {
    FusionContext ctx(p, model);
    Partition o = optimal_partition(ctx);
    INFO(model);
    CHECK(o.proven_optimal);
    CHECK(o.cost <= greedy_partition(ctx).cost);
    CHECK(check_partition(ctx.table(), o.blocks) == "");
  }
}
