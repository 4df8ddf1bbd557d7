// Tests of ir/fusion/fusibility.cpp: the rules at the top of ir/fusion/fusibility.h, pairwise and
// per block.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/fusibility.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;
using test::ProgramBuilder;

namespace {

bool fuse_pair(const Program& p, uint32_t f, uint32_t g) {
  AccessTable t = build_access_table(p);
  return fusible(t, f, g);
}

} // namespace

TEST_CASE("Fig. 3 pairs") {
  Program p = test::paper_fig3();
  AccessTable t = build_access_table(p);
  auto fu = [&](int f, int g) { return fusible(t, uint32_t(f - 1), uint32_t(g - 1)); };
  CHECK_FALSE(fu(5, 10)); // D[:-1] read, D[1:] written: overlap, not identical
  CHECK_FALSE(fu(6, 10));
  CHECK(fu(10, 11));     // D[1:] and E[1:] identical where they meet
  CHECK(fu(5, 11));      // two reads of overlapping views are fine
  CHECK_FALSE(fu(3, 5)); // loop shapes (5,) and (4,)
  CHECK(fu(1, 5));
  CHECK(fu(3, 12));  // FREE fuses with anything
  CHECK(fu(16, 10)); // SYNC too
  CHECK(fu(3, 4));
}

TEST_CASE("reductions fuse with producers of their input, along one axis") {
  ProgramBuilder b;
  auto X = b.base("X", 100), Y = b.base("Y", 100), R = b.base("R", 10), S = b.base("S", 10);
  const View x = View::contiguous(X, {10, 10}), y = View::contiguous(Y, {10, 10});
  b.op(Opcode::MULTIPLY, {x, y, y});                                               // 0: X = Y*Y
  b.op(Opcode::ADD_REDUCE, {View::contiguous(R, {10}), x, Scalar::of_int(1)});     // 1: sum rows
  b.op(Opcode::MAXIMUM_REDUCE, {View::contiguous(S, {10}), x, Scalar::of_int(1)}); // 2
  b.op(Opcode::ADD_REDUCE, {View::contiguous(S, {10}), y, Scalar::of_int(0)});     // 3
  b.op(Opcode::ADD, {View::contiguous(R, {10}), View::contiguous(R, {10}), ProgramBuilder::f64(1)});
  const Program& p = b.p;
  CHECK(fuse_pair(p, 0, 1));       // loop shape of a reduction = its input's (10, 10)
  CHECK(fuse_pair(p, 1, 2));       // same input shape, same axis
  CHECK_FALSE(fuse_pair(p, 1, 3)); // axes 1 and 0
  CHECK(fuse_pair(p, 0, 3));
  CHECK_FALSE(fuse_pair(p, 1, 4)); // the reduction's consumer loops over (10,)
  AccessTable t = build_access_table(p);
  LoopClass block = LoopClass::of(t, 0).merged(LoopClass::of(t, 1));
  CHECK(block.compatible(LoopClass::of(t, 2)));
  CHECK_FALSE(block.compatible(LoopClass::of(t, 3)));
  CHECK(LoopClass::of(t, 0).compatible(LoopClass::of(t, 3)));
}

TEST_CASE("indexing, scans and extension methods fuse only with FREE and SYNC") {
  ProgramBuilder b;
  auto A = b.base("A", 16), B = b.base("B", 16), C = b.base("C", 16),
       I = b.base("I", 16, DType::INT64);
  auto M1 = b.base("M1", 16), M2 = b.base("M2", 16), M3 = b.base("M3", 16);
  const View a = ProgramBuilder::whole(A), bb = ProgramBuilder::whole(B),
             c = ProgramBuilder::whole(C);
  b.op(Opcode::ADD, {a, bb, bb});                                         // 0
  b.op(Opcode::GATHER, {c, bb, ProgramBuilder::whole(I)});                // 1
  b.op(Opcode::ADD_ACCUMULATE, {View::whole(M1), bb, Scalar::of_int(0)}); // 2
  b.op(Opcode::MATMUL, {View::contiguous(M3, {4, 4}), View::contiguous(M1, {4, 4}),
                        View::contiguous(M2, {4, 4})}); // 3
  b.op(Opcode::ADD, {View::whole(M2), bb, bb});         // 4
  b.free(B);                                            // 5
  b.sync(C);                                            // 6
  const Program& p = b.p;
  for (uint32_t solo : {1u, 2u, 3u}) {
    CHECK_FALSE(fuse_pair(p, 0, solo));
    CHECK_FALSE(fuse_pair(p, 4, solo));
    CHECK(fuse_pair(p, solo, 5));
    CHECK(fuse_pair(p, solo, 6));
  }
  CHECK_FALSE(fuse_pair(p, 1, 2));
  CHECK(fuse_pair(p, 0, 4));
}

TEST_CASE("pairwise fusibility matches the element-set reference, blocks match pairs") {
  std::mt19937 rng(1234);
  for (int k = 0; k < 300; ++k) {
    Program p = test::random_program(rng, {.max_instrs = 12});
    test::Reference ref(p);
    AccessTable t = build_access_table(p);
    for (uint32_t f = 0; f < p.size(); ++f)
      for (uint32_t g = 0; g < p.size(); ++g) {
        if (f == g) continue;
        REQUIRE(fusible(t, f, g) == ref.fusible(std::min(f, g), std::max(f, g)));
      }
    // Two random disjoint blocks: the block-level test equals "every pair fusible".
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<uint32_t> x, y;
      for (uint32_t i = 0; i < p.size(); ++i) {
        int r = std::uniform_int_distribution<int>(0, 2)(rng);
        if (r == 0) x.push_back(i);
        if (r == 1) y.push_back(i);
      }
      bool pairs = true;
      LoopClass cx, cy;
      for (uint32_t i : x) cx = cx.merged(LoopClass::of(t, i));
      for (uint32_t i : y) cy = cy.merged(LoopClass::of(t, i));
      bool inside = true;
      for (uint32_t i : x)
        for (uint32_t j : x) inside = inside && fusible(t, i, j);
      for (uint32_t i : y)
        for (uint32_t j : y) inside = inside && fusible(t, i, j);
      if (!inside) continue; // block classes only describe fusible blocks
      for (uint32_t i : x)
        for (uint32_t j : y) pairs = pairs && fusible(t, i, j);
      bool blocks =
          cx.compatible(cy) && views_fusible(t, summarize_block(t, x), summarize_block(t, y));
      REQUIRE(blocks == pairs);
    }
  }
}
