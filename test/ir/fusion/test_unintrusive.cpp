// Tests of ir/fusion/unintrusive.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"

using namespace hassium;
using test::ProgramBuilder;

TEST_CASE("unintrusive merges pendant blocks") {
  static double data[8];
  ProgramBuilder b;
  auto X = b.base("X", 4), Y = b.base("Y", 4), Z = b.base("Z", 4), W = b.base("W", 4);
  Y->data = data;
  W->data = data;
  using P = ProgramBuilder;
  b.op(Opcode::IDENTITY, {P::whole(X), P::f64(0)});                // 0: X only with 1
  b.op(Opcode::ADD, {P::whole(Y), P::whole(X), P::f64(1)});        // 1
  b.op(Opcode::IDENTITY, {P::whole(Z), P::f64(0)});                // 2: Z only with 3
  b.sync(Z);                                                       // 3
  b.op(Opcode::ADD, {P::whole(W), P::whole(W), P::whole(Y)});      // 4: Y is shared with 1
  b.op(Opcode::ADD, {P::whole(W), P::whole(W), P::f64(2)});        // 5: W with 4 and 6
  b.op(Opcode::MULTIPLY, {P::whole(W), P::whole(W), P::whole(W)}); // 6
  b.free(X);                                                       // 7: X with 0 and 1
  FusionContext ctx(b.p, "bohrium");
  Partition u = unintrusive_partition(ctx);
  CHECK(check_partition(ctx.table(), u.blocks) == "");
  auto block_of = [&](size_t i) {
    for (size_t k = 0; k < u.blocks.size(); ++k)
      for (size_t j : u.blocks[k])
        if (j == i) return k;
    return SIZE_MAX;
  };
  // Sink rule: the FREE of X (7) joins 1, the later of its predecessors 0 -> 1. Then 0 is
  // pendant on {1, 7} (X), and {0, 1, 7} on 4 (Y). Z: 2 (compute) may not move into the SYNC's
  // block (it could hold any loop shape), but the SYNC (3) may join 2.
  CHECK(block_of(7) == block_of(1));
  CHECK(block_of(0) == block_of(1));
  CHECK(block_of(4) == block_of(1));
  CHECK(block_of(2) == block_of(3));
  // 4, 5, 6 each touch W with two others: nothing is pendant among them.
  CHECK(block_of(4) != block_of(5));
  CHECK(block_of(5) != block_of(6));
  CHECK(u.blocks.size() == 4);
  CHECK(u.cost <= singleton_partition(ctx).cost);
}

TEST_CASE("unintrusive merges a chain of pendants") {
  ProgramBuilder b;
  auto X = b.base("X", 4), Y = b.base("Y", 4), Z = b.base("Z", 4), W = b.base("W", 4);
  using P = ProgramBuilder;
  b.op(Opcode::IDENTITY, {P::whole(X), P::f64(0)});           // 0: X only with 1
  b.op(Opcode::ADD, {P::whole(Y), P::whole(X), P::f64(1)});   // 1: Y with 2 and 3
  b.op(Opcode::ADD, {P::whole(Z), P::whole(Y), P::whole(Y)}); // 2: Z with 4
  b.op(Opcode::ADD, {P::whole(W), P::whole(Y), P::f64(2)});   // 3: W with 5
  b.op(Opcode::IDENTITY, {P::view(Z, 0, 2), P::f64(0)});      // 4: shape (2,)
  b.sync(W);                                                  // 5
  FusionContext ctx(b.p, "bohrium");
  // 0 is pendant on 1 (X). The SYNC (5) sinks into 3. Y links {0,1}, 2 and {3,5}: no more
  // pendants there; 4 is pendant on 2 but has another loop shape, 2 on 4 has other bases.
  Partition u = unintrusive_partition(ctx);
  std::vector<std::vector<size_t>> expect = {{0, 1}, {2}, {3, 5}, {4}};
  CHECK(u.blocks == expect);
}

TEST_CASE("the sink rule puts Fig. 3's FREEs and SYNC after the last access of their base") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition u = unintrusive_partition(ctx);
  // FREE A, FREE B -> 9 (the last access of A and B); FREE E, FREE T, SYNC D, FREE D -> 11.
  std::vector<std::vector<size_t>> expect = {
      {0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8, 11, 12}, {9}, {10, 13, 14, 15, 16}};
  CHECK(u.blocks == expect);
  CHECK(u.cost == 752); // no contraction possible yet: only fewer blocks to search
}

TEST_CASE("unintrusive on Fig. 3 keeps the optimum reachable") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition u = unintrusive_partition(ctx);
  CHECK(u.cost <= 752);
  CHECK(u.cost >= 304);
  Blocks start = unintrusive_blocks(ctx);
  Partition opt = optimal_partition(ctx, start, singleton_partition(ctx));
  CHECK(opt.cost == 304);
  CHECK(opt.proven_optimal);
}
