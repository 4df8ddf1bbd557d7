// Tests for vem/node/contraction: which bases a block may keep in registers.
#include <catch2/catch.hpp>

#include "ir/fusion/contraction.h"
#include "ir/text/parser.h"
#include "vem/node/contraction.h"

using namespace hassium;

namespace {
Partition one_block(const Program& p) {
  Partition part;
  part.blocks.emplace_back();
  for (size_t i = 0; i < p.instrs.size(); ++i) part.blocks[0].push_back(i);
  return part;
}

std::vector<std::string> names(const std::vector<const Base*>& bases) {
  std::vector<std::string> out;
  for (const Base* b : bases) out.push_back(b->name);
  return out;
}
} // namespace

TEST_CASE("a view visits each element once unless strides fold it onto itself") {
  auto b = make_base("b", DType::FLOAT64, 100);
  CHECK(visits_each_element_once(View::whole(b)));
  CHECK(visits_each_element_once(View::contiguous(b, {4, 5})));
  View v = View::contiguous(b, {4, 5});
  v.stride = {1, 4}; // transposed
  CHECK(visits_each_element_once(v));
  v.stride = {-5, 1};
  v.offset = 15;
  CHECK(visits_each_element_once(v));
  v.stride = {0, 1}; // broadcast
  CHECK_FALSE(visits_each_element_once(v));
  v.stride = {1, 1}; // overlapping rows
  CHECK_FALSE(visits_each_element_once(v));
  v.shape = {1, 5};
  v.stride = {0, 1}; // a stride 0 over an extent of 1 is harmless
  CHECK(visits_each_element_once(v));
  v.shape = {0, 5};
  CHECK(visits_each_element_once(v));
}

TEST_CASE("a temporary created and freed in one block is contracted") {
  Program p = parse_program(R"(
.base A float64 4
.base T float64 4
.base O float64 4
IDENTITY A, 1.5
MULTIPLY T, A, A
ADD O, T, A
FREE T
SYNC O
)");
  auto c = contracted_bases(p, one_block(p));
  REQUIRE(c.size() == 1);
  CHECK(names(c[0]) == std::vector<std::string>{"T"});
}

TEST_CASE("a temporary a reduction reads is contracted: sum(exp(a) * b) stores nothing") {
  Program p = parse_program(R"(
.base A float64 6
.base B float64 6
.base T float64 6
.base U float64 6
.base S float64 2
IDENTITY A, 0.5
IDENTITY B, 2
EXP T{0;2,3;3,1}, A{0;2,3;3,1}
MULTIPLY U{0;2,3;3,1}, T{0;2,3;3,1}, B{0;2,3;3,1}
ADD_REDUCE S, U{0;2,3;3,1}, 1
FREE T
FREE U
SYNC S
)");
  auto c = contracted_bases(p, one_block(p));
  CHECK(names(c[0]) == std::vector<std::string>{"T", "U"});
}

TEST_CASE("what keeps a base from being contracted") {
  SECTION("it is not freed, or it is synced") {
    Program p = parse_program(R"(
.base A float64 4
.base S float64 4
IDENTITY A, 1
IDENTITY S, A
SYNC S
FREE S
)");
    CHECK(contracted_bases(p, one_block(p))[0].empty());
  }
  SECTION("it spans two blocks") {
    Program p = parse_program(R"(
.base T float64 4
.base O float64 4
IDENTITY T, 1
ADD O, T, 2
FREE T
)");
    Partition part;
    part.blocks = {{0}, {1, 2}};
    auto c = contracted_bases(p, part);
    CHECK(c[0].empty());
    CHECK(c[1].empty());
  }
  SECTION("it is read before it is written") {
    Program p = parse_program(R"(
.base T float64 4
.base O float64 4
ADD O, T, 2
IDENTITY T, 1
FREE T
)");
    CHECK(contracted_bases(p, one_block(p))[0].empty());
  }
  SECTION("a scan reads it") {
    Program p = parse_program(R"(
.base T float64 4
.base S float64 4
IDENTITY T, 1
ADD_ACCUMULATE S, T, 0
FREE T
)");
    CHECK(contracted_bases(p, one_block(p))[0].empty());
  }
  SECTION("a gather reads it") {
    Program p = parse_program(R"(
.base T float64 4
.base I int64 4
.base O float64 4
IDENTITY T, 1
IDENTITY I, 2
GATHER O, T, I
FREE T
)");
    CHECK(contracted_bases(p, one_block(p))[0].empty());
  }
  SECTION("a reduction writes it, even if nothing reads it") {
    Program p = parse_program(R"(
.base A float64 4
.base S float64 1
IDENTITY A, 1
ADD_REDUCE S{0;;}, A, 0
FREE A
FREE S
)");
    CHECK(names(contracted_bases(p, one_block(p))[0]) == std::vector<std::string>{"A"});
  }
  SECTION("two different views of it") {
    Program p = parse_program(R"(
.base T float64 4
.base O float64 2
IDENTITY T{0;2;1}, 1
IDENTITY T{2;2;1}, 2
ADD O, T{0;2;1}, T{2;2;1}
FREE T
)");
    CHECK(contracted_bases(p, one_block(p))[0].empty());
  }
  SECTION("it has data already") {
    Program p = parse_program(R"(
.base T float64 4
IDENTITY T, 1
FREE T
)");
    double mem[4];
    p.find_base("T")->data = mem;
    CHECK(contracted_bases(p, one_block(p))[0].empty());
    p.find_base("T")->data = nullptr;
    CHECK(names(contracted_bases(p, one_block(p))[0]) == std::vector<std::string>{"T"});
  }
}
