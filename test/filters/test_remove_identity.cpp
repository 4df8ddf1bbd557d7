// Tests for filters/remove_identity: before/after cases and chains of copies.
#include <catch2/catch.hpp>

#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("remove_identity: before/after cases") {
  test::check_all_filter_cases("remove_identity", [](Program p) { return remove_identity(p); });
}

TEST_CASE("remove_identity: a chain of renames collapses") {
  Program p = parse_program(R"(
.base X float64 4
.base A float64 4
.base B float64 4
.base C float64 4
.base Y float64 4
RANGE X
ADD A, X, 1
IDENTITY B, A
FREE A
IDENTITY C, B
FREE B
IDENTITY Y, C
FREE C
SYNC Y
)");
  Program q = remove_identity(p);
  REQUIRE_NOTHROW(verify_program(q));
  for (const auto& ins : q.instrs) CHECK(ins.op != Opcode::IDENTITY);
  CHECK(print_instruction(q.instrs[1]) == "ADD Y, X, 1.0");
}

// A and C come from an earlier flush (their first access here is the scatter): a scatter and an
// accumulation write only the indexed elements, so renaming A to B (C to D) would lose the rest.
TEST_CASE("remove_identity: a copy of a scattered base stays") {
  Program p = parse_program(R"(
.base A float64 8
.base B float64 8
.base C float64 8
.base D float64 8
.base I int64 2
.base V float64 2
RANGE I
RANGE V
SCATTER A{0;2;3}, V, I
IDENTITY B, A
FREE A
ADD_AT C, V, I
IDENTITY D, C
FREE C
FREE I
FREE V
SYNC B
SYNC D
)");
  Program q = remove_identity(p);
  CHECK(print_program(q) == print_program(p));
}
