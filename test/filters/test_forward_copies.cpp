// Tests for filters/forward_copies: before/after cases, the window, and a loop of updates.
#include <catch2/catch.hpp>

#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("forward_copies: before/after cases") {
  test::check_all_filter_cases("forward_copies", [](Program p) { return forward_copies(p); });
}

namespace {
// `A[0] -= 1.0` as NumPy records it, with `gap` unrelated instructions before the store.
Program update_with_gap(int gap) {
  std::string text = ".base A float64 4\n.base T float64 1\n.base X float64 4\nRANGE A\n"
                     "IDENTITY T{0;;}, A{0;;}\nSUBTRACT T{0;;}, T{0;;}, 1\n";
  for (int i = 0; i < gap; ++i) text += "ADD X, X, 1\n";
  text += "IDENTITY A{0;;}, T{0;;}\nFREE T\nSYNC A\nSYNC X\n";
  return parse_program(text);
}
size_t count(const Program& p, Opcode op) {
  size_t n = 0;
  for (const auto& ins : p.instrs) n += ins.op == op;
  return n;
}
} // namespace

TEST_CASE("forward_copies: a copy is forwarded only when its FREE is within the window") {
  Program near = forward_copies(update_with_gap(50));
  REQUIRE_NOTHROW(verify_program(near));
  CHECK(count(near, Opcode::IDENTITY) == 0);
  Program far = forward_copies(update_with_gap(100));
  CHECK(count(far, Opcode::IDENTITY) == 2);
}

TEST_CASE("forward_copies: a loop of element updates keeps only the updates") {
  // for j in range(8): A[j] -= A[j - 1] (j >= 1), each element copied, updated, stored.
  std::string text = ".base A float64 8\n";
  for (int j = 1; j < 8; ++j)
    text +=
        ".base T" + std::to_string(j) + " float64 1\n.base U" + std::to_string(j) + " float64 1\n";
  text += "RANGE A\n";
  for (int j = 1; j < 8; ++j) {
    std::string t = "T" + std::to_string(j), u = "U" + std::to_string(j);
    std::string e = "A{" + std::to_string(j) + ";;}", d = "A{" + std::to_string(j - 1) + ";;}";
    std::string t0 = t + "{0;;}", u0 = u + "{0;;}";
    text += "IDENTITY " + t0 + ", " + e + "\nIDENTITY " + u0 + ", " + d + "\nSUBTRACT " + t0 +
            ", " + t0 + ", " + u0 + "\nFREE " + u + "\nIDENTITY " + e + ", " + t0 + "\nFREE " + t +
            "\n";
  }
  text += "SYNC A\n";
  Program q = forward_copies(parse_program(text));
  REQUIRE_NOTHROW(verify_program(q));
  CHECK(count(q, Opcode::IDENTITY) == 0);
  CHECK(count(q, Opcode::SUBTRACT) == 7);
  CHECK(print_instruction(q.instrs[1]) == "SUBTRACT A{1;;}, A{1;;}, A{0;;}");
}
