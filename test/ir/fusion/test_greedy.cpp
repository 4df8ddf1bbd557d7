// Tests of ir/fusion/greedy.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"

using namespace hassium;
using test::ProgramBuilder;

TEST_CASE("greedy on Fig. 3") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition g = greedy_partition(ctx);
  CHECK(check_partition(ctx.table(), g.blocks) == "");
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
  CHECK(check_partition(ctx.table(), g.blocks) == "");
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
  CHECK(check_partition(ctx.table(), g.blocks) == "");
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

TEST_CASE("greedy above the exact-size threshold stays legal and keeps local merges") {
  // 1500 chains of 4 instructions (6000, over greedy's exact limit): each chain reads the
  // long-lived S and a shifted view of the base the previous chain wrote, so the chains cannot
  // fuse with their neighbors but every one can contract its temporary.
  const int64_t n = 8;
  ProgramBuilder b;
  using P = ProgramBuilder;
  auto S = b.base("S", n), O = b.base("O", n + 1), Q = b.base("Q", n + 1);
  const int chains = 1500;
  for (int k = 0; k < chains; ++k) {
    auto T = b.base("T" + std::to_string(k), n);
    const auto& src = k % 2 ? Q : O;
    const auto& dst = k % 2 ? O : Q;
    b.op(Opcode::ADD, {P::whole(T), P::whole(S), P::view(src, 1, n)});
    b.op(Opcode::MULTIPLY, {P::whole(T), P::whole(T), P::f64(2)});
    b.op(Opcode::IDENTITY, {P::view(dst, 0, n), P::whole(T)});
    b.free(T);
  }
  FusionContext ctx(b.p, "bohrium");
  Partition g = greedy_partition(ctx);
  CHECK(check_partition(ctx.table(), g.blocks) == "");
  std::vector<size_t> block_of(b.p.size());
  for (size_t k = 0; k < g.blocks.size(); ++k)
    for (size_t i : g.blocks[k]) block_of[i] = k;
  int split = 0;
  for (size_t c = 0; c < chains; ++c)
    for (size_t j = 1; j < 4; ++j) split += block_of[4 * c + j] != block_of[4 * c];
  CHECK(split == 0);
  CHECK(g.blocks.size() >= size_t(chains));
}
