// Tests of ir/fusion/linear.cpp.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"

using namespace hassium;
using test::ProgramBuilder;

TEST_CASE("linear on Fig. 3") {
  Program p = test::paper_fig3();
  FusionContext ctx(p, "bohrium");
  Partition l = linear_partition(ctx);
  // 1-2 (shape 4), 3-4 (shape 5), 5-9 (shape 4), then 10 writes D[1:] that 5 and 6 read: a
  // new block, which takes 11 and every FREE/SYNC after it.
  std::vector<std::vector<size_t>> expect = {
      {0, 1}, {2, 3}, {4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16}};
  CHECK(l.blocks == expect);
  // {1,2}: 8 elements, {3,4}: 10, {5..9}: reads A, D[:-1], B, E[:-1], writes A, B, T (28),
  // {10..17}: reads T, E[1:], writes D[1:], E[1:] (16).
  CHECK(l.cost == (8 + 10 + 28 + 16) * 8);
  CHECK(l.cost >= 304);
  CHECK(l.cost <= 752);
}

TEST_CASE("linear opens a block exactly where the current one would break") {
  ProgramBuilder b;
  auto A = b.base("A", 8), B = b.base("B", 8);
  using P = ProgramBuilder;
  b.op(Opcode::ADD, {P::view(A, 0, 4), P::view(B, 0, 4), P::f64(1)}); // 0
  b.op(Opcode::ADD, {P::view(B, 4, 4), P::view(B, 0, 4), P::f64(1)}); // 1: reads B[0:4] again
  b.op(Opcode::ADD,
       {P::view(B, 2, 4), P::view(A, 0, 4), P::f64(1)}); // 2: writes over B[0:4], B[4:8]
  b.op(Opcode::ADD, {P::view(A, 4, 2), P::view(A, 0, 2), P::f64(1)}); // 3: another shape
  b.free(B);                                                          // 4
  FusionContext ctx(b.p, "bohrium");
  Partition l = linear_partition(ctx);
  std::vector<std::vector<size_t>> expect = {{0, 1}, {2}, {3, 4}};
  CHECK(l.blocks == expect);
}
