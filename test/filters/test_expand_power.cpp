// Tests for filters/expand_power: before/after cases and the exponent limit.
#include <catch2/catch.hpp>

#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("expand_power: before/after cases") {
  test::check_all_filter_cases("expand_power", [](Program p) { return expand_power(p); });
}

TEST_CASE("expand_power: max_int_exponent bounds the integer exponents rewritten") {
  Program p = parse_program(".base X int64 4\n.base Y int64 4\nRANGE X\nPOWER Y, X, 9\n");
  ExpandPowerOptions o;
  o.max_int_exponent = 8;
  CHECK(expand_power(p, o).instrs.size() == 2);
  o.max_int_exponent = 9;
  Program q = expand_power(p, o);
  // 9 = 0b1001: square, square, square, multiply by x: 4 multiplications and a FREE.
  REQUIRE(q.instrs.size() == 6);
  CHECK(q.instrs[5].op == Opcode::FREE);
  CHECK(print_instruction(q.instrs[4]) == "MULTIPLY Y, _pw0, X");
  CHECK_NOTHROW(verify_program(q));
}

TEST_CASE("expand_power: source lines follow the rewritten instruction") {
  Program p = parse_program(".base X int64 4\n.base Y int64 4\nRANGE X\nPOWER Y, X, 3\n", "f.hsb");
  Program q = expand_power(p);
  REQUIRE(q.source_lines.size() == q.instrs.size());
  CHECK(q.source_lines == std::vector<int>{3, 4, 4, 4});
}
