// Tests of ir/greedy.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/algorithms.h"

using namespace hassium;
using test::ProgramBuilder;

TEST_CASE("greedy on Fig. 3") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition g = greedy_partition(ctx);
  CHECK(check_partition(ctx.graph(), g.blocks) == "");
  CHECK(g.cost >= 304);
  CHECK(g.cost <= 752);
  CHECK(g.algorithm == "greedy");
}

TEST_CASE("greedy drops the heaviest edge when a block in between cannot join") {
  static double data[8];
  ProgramBuilder b;
  auto A = b.base("A", 4), T = b.base("T", 4), U = b.base("U", 2), W = b.base("W", 4);
  A->data = data;
  using P = ProgramBuilder;
  b.op(Opcode::IDENTITY, {P::whole(T), P::whole(A)});                 // 0: writes T
  b.op(Opcode::IDENTITY, {P::whole(U), P::view(T, 0, 2)});            // 1: shape (2,)
  b.op(Opcode::ADD, {P::whole(W), P::whole(T), P::view(U, 0, 4, 0)}); // 2: reads T and U
  FusionContext ctx(b.p, "bohrium");
  // The heaviest saving is 0 with 2 (T), but 0 -> 1 -> 2 and 1 fuses with neither.
  int64_t heaviest = 0;
  for (const auto& e : ctx.graph().weight_edges()) heaviest = std::max(heaviest, e.weight);
  bool zero_two = false;
  for (const auto& e : ctx.graph().weight_edges())
    zero_two |= e.u == 0 && e.v == 2 && e.weight == heaviest;
  REQUIRE(zero_two);
  Partition g = greedy_partition(ctx);
  CHECK(check_partition(ctx.graph(), g.blocks) == "");
  CHECK(g.blocks.size() == 3);
}

TEST_CASE("greedy from a start partition keeps its blocks together") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Blocks start;
  for (uint32_t i = 0; i < p.size(); ++i) start.push_back({i});
  start[9].push_back(10); // 10 and 11 start together
  start.erase(start.begin() + 10);
  Partition g = greedy_partition(ctx, start);
  CHECK(check_partition(ctx.graph(), g.blocks) == "");
  bool together = false;
  for (const auto& blk : g.blocks)
    together |= std::count(blk.begin(), blk.end(), 9) && std::count(blk.begin(), blk.end(), 10);
  CHECK(together);
}

TEST_CASE("greedy under robinson also merges blocks that share nothing") {
  ProgramBuilder b;
  auto A = b.base("A", 4), B = b.base("B", 4);
  b.op(Opcode::IDENTITY, {ProgramBuilder::whole(A), ProgramBuilder::f64(1)});
  b.op(Opcode::IDENTITY, {ProgramBuilder::whole(B), ProgramBuilder::f64(2)});
  FusionContext robinson(b.p, "robinson"), bohrium(b.p, "bohrium");
  CHECK(greedy_partition(robinson).blocks.size() == 1);
  CHECK(greedy_partition(bohrium).blocks.size() == 2); // no saving, no merge
}
