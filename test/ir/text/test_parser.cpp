// Tests for ir/parser (and ir/lexer, ir/literal): what parses to what, and the error positions.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.h"
#include "ir/text/parser.h"

using namespace hassium;

namespace {
// The message of the UserError that parsing `text` throws, or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    parse_program(text, "t.hsb");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

const std::string kDecl = ".base A float64 4\n.base I int32 4\n.base U uint8 4\n.base M bool 4\n"
                          ".base C complex64 4\n.base G float64 100\n";
} // namespace

TEST_CASE("the design's example parses") {
  Program p = parse_program(R"(
.base A float64 4            # declare a base: name, dtype, number of elements
.base G float64 100          # views of it may have any shape
.base D float64 4
.base S float64 10
IDENTITY A, 0                # A alone = the whole base, 1-D, offset 0, stride 1
ADD A, A, D{0;4;1}           # NAME{offset;shape;stride}, shape/stride comma-separated
ADD G{11;8,8;10,1}, G{1;8,8;10,1}, 2.5
ADD_REDUCE S, G{0;10,10;10,1}, 1    # reductions/scans: the axis is the last operand
FREE A
SYNC D
)",
                            "design.hsb");
  REQUIRE(p.bases.size() == 4);
  CHECK(p.bases[1]->name == "G");
  CHECK(p.bases[1]->nelem == 100);
  REQUIRE(p.instrs.size() == 6);
  CHECK(p.source_name == "design.hsb");
  CHECK(p.source_lines == std::vector<int>{6, 7, 8, 9, 10, 11});
  const Instruction& fill = p.instrs[0];
  CHECK(fill.op == Opcode::IDENTITY);
  CHECK(fill.view(0).is_whole_base());
  CHECK(fill.constant(1) == Scalar::of_float(0.0)); // typed by the output
  const Instruction& add = p.instrs[2];
  CHECK(add.view(0).offset == 11);
  CHECK(add.view(0).shape == Dims{8, 8});
  CHECK(add.view(0).stride == Dims{10, 1});
  CHECK(add.view(0).base == p.bases[1]);
  const Instruction& red = p.instrs[3];
  CHECK(red.constant(2) == Scalar::of_int(1));
  CHECK(p.instrs[4].op == Opcode::FREE);
  CHECK(p.instrs[5].view(0).base->name == "D");
}

TEST_CASE("constants take the dtype the signature needs, else their natural one") {
  Program p = parse_program(kDecl + "ADD I, I, 7\n"
                                    "LESS M, U, 200\n"
                                    "ADD C, C, (1,-2.5)\n"
                                    "MULTIPLY C, C, 3\n"
                                    "ADD M, M, true\n"
                                    "LESS M, 1, 2.5\n"
                                    "LESS M, 1, 2:int16\n"
                                    "IDENTITY A, 5:uint8\n"
                                    "ADD A, A, -inf\n"
                                    "ADD A, A, 1e-3\n"
                                    "LESS M, 1, 9223372036854775808\n"
                                    "IDENTITY I, -2147483648\n"
                                    "ADD A, A, -nan\n");
  auto c = [&](size_t k, size_t i) { return p.instrs[k].constant(i); };
  CHECK(c(0, 2) == Scalar::of_int(7, DType::INT32));
  CHECK(c(1, 2) == Scalar::of_uint(200, DType::UINT8));
  CHECK(c(2, 2) == Scalar::of_complex({1, -2.5}, DType::COMPLEX64));
  CHECK(c(3, 2) == Scalar::of_complex({3, 0}, DType::COMPLEX64));
  CHECK(c(4, 2) == Scalar::of_bool(true));
  CHECK(c(5, 1) == Scalar::of_int(1));               // nothing to go by: int64
  CHECK(c(5, 2) == Scalar::of_float(2.5));           // and float64
  CHECK(c(6, 1) == Scalar::of_int(1, DType::INT16)); // typed by the suffixed neighbour
  CHECK(c(7, 1) == Scalar::of_uint(5, DType::UINT8));
  CHECK(c(8, 2).re == -HUGE_VAL);
  CHECK(c(9, 2).re == 1e-3);
  CHECK(c(10, 2) == Scalar::of_uint(9223372036854775808u));
  CHECK(c(11, 1) == Scalar::of_int(-2147483648, DType::INT32));
  CHECK(std::isnan(c(12, 2).re));
  CHECK_FALSE(std::signbit(c(12, 2).re));
}

TEST_CASE("views: bare names, offsets, 0-d, negative and zero strides") {
  Program p = parse_program(kDecl + "IDENTITY G{5;;}, G{99; 4, 3 ; -10 , 0 }\n"
                                    "IDENTITY G{0;0;1}, G{7;0;-1}\n");
  const View& v = p.instrs[0].view(1);
  CHECK(p.instrs[0].view(0).ndim() == 0);
  CHECK(p.instrs[0].view(0).offset == 5);
  CHECK(v.offset == 99);
  CHECK(v.shape == Dims{4, 3});
  CHECK(v.stride == Dims{-10, 0});
  CHECK(p.instrs[1].view(0).size() == 0);
}

TEST_CASE("lines: comments, blank lines, CRLF, no final newline") {
  Program p = parse_program("# only a comment\r\n\r\n.base A int8 2 # trailing\r\n  \tFREE A");
  REQUIRE(p.instrs.size() == 1);
  CHECK(p.source_lines == std::vector<int>{4});
  CHECK(parse_program("").instrs.empty());
}

TEST_CASE("parse errors name the file, line, column, what was expected and found") {
  // clang-format off
  const std::vector<std::pair<std::string, std::string>> cases = {
    {"ADDD A, A, A", "t.hsb:7:1: unknown opcode `ADDD` (did you mean ADD?)"},
    {"add A, A, A", "t.hsb:7:1: unknown opcode `add` (did you mean ADD?)"},
    {"FROBNICATE A", "t.hsb:7:1: unknown opcode `FROBNICATE`"},
    {"ADD A, A, X", "t.hsb:7:11: undeclared base `X`"},
    {"ADD A A, A", "t.hsb:7:7: expected `,` between operands, found `A`"},
    {"ADD A, A,", "t.hsb:7:10: expected an operand (a base, a view or a constant), found end of line"},
    {"ADD A, A, 1.2.3", "t.hsb:7:11: bad number `1.2.3`"},
    {"ADD A, A, 12abc", "t.hsb:7:11: bad number `12abc`"},
    {"ADD A, A, -foo", "t.hsb:7:11: bad number `-foo`"},
    {"ADD A, A, 1e999", "t.hsb:7:11: number `1e999` is out of range for float64"},
    {"ADD A, A, 99999999999999999999", "t.hsb:7:11: integer `99999999999999999999` is too large"},
    {"ADD U, U, 300", "t.hsb:7:11: constant `300` does not fit uint8 (range 0..255)"},
    {"ADD U, U, -1", "t.hsb:7:11: constant `-1` does not fit uint8 (range 0..255)"},
    {"ADD I, I, 2.5", "t.hsb:7:11: constant `2.5` does not fit int32 (not an integer)"},
    {"ADD I, I, 3e10", "t.hsb:7:11: constant `3e10` does not fit int32 (range -2147483648..2147483647)"},
    {"ADD I, I, true", "t.hsb:7:11: constant `true` does not fit int32 (a bool literal)"},
    {"ADD M, M, 1", "t.hsb:7:11: constant `1` does not fit bool (use true or false)"},
    {"ADD A, A, (1,2)", "t.hsb:7:11: constant `(1,2)` does not fit float64 (a complex literal)"},
    {"ADD C, C, 1e300", "t.hsb:7:11: constant `1e300` does not fit complex64 (out of range)"},
    {"ADD A, A, 2:float", "t.hsb:7:13: unknown dtype `float` (valid: bool, int8, int16, int32, "
                          "int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)"},
    {"ADD A, A, 2:", "t.hsb:7:13: expected a dtype after `:`, found end of line"},
    {"ADD A, A:float64, 2", "t.hsb:7:9: a `:dtype` suffix applies to constants, not to views"},
    {"ADD A, A, (1 2)", "t.hsb:7:14: expected `,` between the parts of a complex constant, found `2`"},
    {"ADD C, C, (1,2", "t.hsb:7:15: expected `)` to close the complex constant, found end of line"},
    {"ADD C, C, (true,2)", "t.hsb:7:12: expected the real part of a complex constant, found `true`"},
    {"ADD A, G{0;4}, 1", "t.hsb:7:13: expected `;` after the view shape, found `}`"},
    {"ADD A, G{0;4;1,1}, 1", "t.hsb:7:14: the view shape has 1 dimension(s) but its stride has 2"},
    {"ADD A, G{0;-4;1}, 1", "t.hsb:7:12: negative extent -4 in the view shape"},
    {"ADD A, G{x;4;1}, 1", "t.hsb:7:10: expected an integer (the view offset), found `x`"},
    {"ADD A, G{0;4;1.5}, 1", "t.hsb:7:14: expected an integer (a stride of the view), found `1.5`"},
    {"ADD A, G{0;4;1 1", "t.hsb:7:16: expected `}` to close the view, found `1`"},
    {"ADD A, G{99999999999999999999;4;1}, 1", "t.hsb:7:10: integer `99999999999999999999` is too large"},
    {"ADD A, G{9223372036854775808;4;1}, 1", "t.hsb:7:10: the view offset `9223372036854775808` is out of the int64 range"},
    {"ADD A, A, 1 @", "t.hsb:7:13: unexpected character `@`"},
    {"ADD A, A, 1 # fine\nADD A, A, 1 2", "t.hsb:8:13: expected `,` between operands, found `2`"},
    {", A", "t.hsb:7:1: expected an opcode or .base, found `,`"},
    {".bas A int8 3", "t.hsb:7:1: unknown directive `.bas` (expected .base)"},
    {".base A int8 3", "t.hsb:7:7: duplicate base `A` (first declared at line 1)"},
    {".base B int8", "t.hsb:7:13: expected the number of elements, found end of line"},
    {".base B int 3", "t.hsb:7:9: unknown dtype `int` (valid: bool, int8, int16, int32, "
                      "int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)"},
    {".base B int8 -3", "t.hsb:7:14: the number of elements must be >= 0, found -3"},
    {".base B int8 3 4", "t.hsb:7:16: unexpected `4` after the .base declaration"},
    {".base 3 int8 3", "t.hsb:7:7: expected a base name after .base, found `3`"},
    {".base nan int8 3", "t.hsb:7:7: `nan` is a constant and cannot name a base"},
    {".base B float64 2000000000000000000", "t.hsb:7:17: base `B` is too large: "
                      "2000000000000000000 elements of float64 exceed 2^63 bytes"},
    {"ADD A, A, \x01", "t.hsb:7:11: unexpected character `\\x01`"},
  };
  // clang-format on
  for (const auto& [line, msg] : cases) {
    INFO(line);
    CHECK(parse_error(kDecl + line) == msg);
  }
}

TEST_CASE("parse_file reads files and names them in messages") {
  Program p = parse_file(HASSIUM_TEST_DIR "/corpus/valid/design_example.hsb");
  CHECK(p.source_name == HASSIUM_TEST_DIR "/corpus/valid/design_example.hsb");
  CHECK_FALSE(p.instrs.empty());
  CHECK_THROWS_WITH(parse_file("/nonexistent/x.hsb"),
                    "/nonexistent/x.hsb: cannot open: No such file or directory");
  CHECK_THROWS_WITH(parse_file(HASSIUM_TEST_DIR "/corpus"),
                    HASSIUM_TEST_DIR "/corpus: is a directory");
}
