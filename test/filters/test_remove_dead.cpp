// Tests for filters/remove_dead: before/after cases and bases live at the end.
#include <catch2/catch.hpp>

#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("remove_dead: before/after cases") {
  test::check_all_filter_cases("remove_dead", [](Program p) { return remove_dead(p); });
}

TEST_CASE("remove_dead: without FREE nothing is dead") {
  Program p = parse_program(
      ".base X float64 4\n.base T float64 4\nRANGE X\nADD T, X, 1\nMULTIPLY T, T, T\n");
  CHECK(remove_dead(p).instrs.size() == 3);
  p.instrs.push_back(Instruction(Opcode::FREE, {View::whole(p.find_base("T"))}));
  Program q = remove_dead(p);
  REQUIRE(q.instrs.size() == 2); // RANGE X (X lives on) and FREE T
  CHECK(q.instrs[0].op == Opcode::RANGE);
  CHECK(q.instrs[1].op == Opcode::FREE);
}
