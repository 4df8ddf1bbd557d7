// Tests for filters/fold_constants: before/after cases and NumPy's integer/float rules.
#include <catch2/catch.hpp>

#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

namespace {
// The folded text of `OP OUT, a, b` with OUT of dtype `t` (one element), or the instruction
// as it stayed.
std::string fold(const std::string& op, const std::string& t, const std::string& args) {
  Program p = parse_program(".base O " + t + " 1\n" + op + " O, " + args + "\n");
  REQUIRE_NOTHROW(verify_program(p));
  Program q = fold_constants(p);
  REQUIRE_NOTHROW(verify_program(q));
  return print_instruction(q.instrs[0]);
}
} // namespace

TEST_CASE("fold_constants: before/after cases") {
  test::check_all_filter_cases("fold_constants", [](Program p) { return fold_constants(p); });
}

TEST_CASE("fold_constants: integer semantics are NumPy's") {
  CHECK(fold("ADD", "int8", "127, 1") == "IDENTITY O, -128");
  CHECK(fold("SUBTRACT", "uint8", "0, 1") == "IDENTITY O, 255");
  CHECK(fold("MULTIPLY", "int16", "300, 300") == "IDENTITY O, 24464");
  CHECK(fold("FLOOR_DIVIDE", "int32", "-7, 2") == "IDENTITY O, -4");
  CHECK(fold("MOD", "int32", "-7, 2") == "IDENTITY O, 1");
  CHECK(fold("MOD", "int32", "7, -2") == "IDENTITY O, -1");
  CHECK(fold("ABSOLUTE", "int8", "-128:int8") == "IDENTITY O, -128");
  CHECK(fold("RIGHT_SHIFT", "int32", "-8, 1") == "IDENTITY O, -4");
  CHECK(fold("LEFT_SHIFT", "uint8", "129, 1") == "IDENTITY O, 2");
  CHECK(fold("INVERT", "uint16", "0") == "IDENTITY O, 65535");
  CHECK(fold("LESS", "bool", "-1:int64, 0:int64") == "IDENTITY O, true");
  CHECK(fold("LESS", "bool", "18446744073709551615:uint64, 0:uint64") == "IDENTITY O, false");
  // Left to the engine: x // 0, MIN // -1, a shift by the width.
  CHECK(fold("FLOOR_DIVIDE", "int32", "7, 0") == "FLOOR_DIVIDE O, 7, 0");
  CHECK(fold("FLOOR_DIVIDE", "int8", "-128, -1") == "FLOOR_DIVIDE O, -128, -1");
  CHECK(fold("LEFT_SHIFT", "int32", "1, 32") == "LEFT_SHIFT O, 1, 32");
}

TEST_CASE("fold_constants: float semantics are IEEE in the dtype") {
  CHECK(fold("DIVIDE", "float64", "1, 3") == "IDENTITY O, 0.33333333333333331");
  CHECK(fold("DIVIDE", "float32", "1, 3") == "IDENTITY O, 0.333333343");
  CHECK(fold("DIVIDE", "float64", "1, 0") == "IDENTITY O, inf");
  CHECK(fold("SQRT", "float64", "2") == "IDENTITY O, 1.4142135623730951");
  CHECK(fold("MAXIMUM", "float64", "nan, 1") == "IDENTITY O, nan");
  CHECK(fold("RINT", "float64", "2.5") == "IDENTITY O, 2.0");
  CHECK(fold("ISNAN", "bool", "nan:float64") == "IDENTITY O, true");
  CHECK(fold("IDENTITY", "int32", "2.9:float64") == "IDENTITY O, 2");
  CHECK(fold("IDENTITY", "int32", "-2.9:float64") == "IDENTITY O, -2");
  CHECK(fold("IDENTITY", "float32", "0.1:float64") == "IDENTITY O, 0.100000001");
  // Not exact everywhere: left as they are.
  CHECK(fold("SIN", "float64", "1") == "SIN O, 1.0");
  CHECK(fold("IDENTITY", "int8", "300.5:float64") == "IDENTITY O, 300.5:float64");
}
