// Tests for filters/expand_power: before/after cases and the exponent limit.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

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

namespace {
// The rewrite of DIVIDE X, c (float dtype `t`): the multiplier, or 0 when it stays a divide.
double rewritten_scale(double c, const char* t) {
  char text[160];
  std::snprintf(text, sizeof text, ".base X %s 4\n.base Y %s 4\nRANGE X\nDIVIDE Y, X, %.17g:%s\n",
                t, t, c, t);
  Program q = expand_power(parse_program(text));
  return q.instrs[1].op == Opcode::MULTIPLY ? q.instrs[1].constant(2).as_double() : 0;
}

// x / c and x * r as the hardware computes them, bit for bit.
template <typename F> bool same_bits(F x, F c, F r) {
  volatile F vx = x, vc = c, vr = r;
  F q = vx / vc, p = vx * vr;
  return std::memcmp(&q, &p, sizeof q) == 0;
}

template <typename F> std::vector<F> sample_values() {
  using L = std::numeric_limits<F>;
  std::vector<F> v = {0,
                      -F(0),
                      1,
                      -1,
                      L::infinity(),
                      -L::infinity(),
                      L::quiet_NaN(),
                      L::max(),
                      -L::max(),
                      L::min(),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::epsilon()};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 4000; ++i) {
    typename std::conditional<sizeof(F) == 8, uint64_t, uint32_t>::type bits = rng();
    F x;
    std::memcpy(&x, &bits, sizeof x);
    v.push_back(x);
  }
  return v;
}
} // namespace

// The rule behind the rewrite: x / 2**k and x * 2**-k are one correctly rounded operation on the
// same exact value, so every x (zeros, infinities, NaN, subnormals, overflowing and underflowing
// results) gives the same bits; the filter rewrites exactly the powers of two whose reciprocal
// is a normal number of the dtype, and nothing else.
TEST_CASE("expand_power: a divide by a power of two is a multiply by its reciprocal, bit for bit") {
  const auto doubles = sample_values<double>();
  const auto floats = sample_values<float>();
  for (int k = -1074; k <= 1023; ++k) {
    const double c = std::ldexp(1.0, k);
    for (double sign : {1.0, -1.0}) {
      INFO("c = " << sign * c);
      const double r = rewritten_scale(sign * c, "float64");
      CHECK((r != 0) == (k >= -1023 && k <= 1022)); // 1/c = 2**-k normal: -1022 <= -k <= 1023
      if (r == 0) continue;
      CHECK(r == 1 / (sign * c));
      for (double x : doubles) CHECK(same_bits(x, sign * c, r));
    }
  }
  for (int k = -149; k <= 127; ++k) {
    const float c = std::ldexp(1.0f, k);
    INFO("c = " << c);
    const double r = rewritten_scale(c, "float32");
    CHECK((r != 0) == (k >= -127 && k <= 126)); // normal in float32: -126 <= -k <= 127
    if (r == 0) continue;
    for (float x : floats) CHECK(same_bits(x, c, float(r)));
  }
  for (double c : {3.0, 0.0, 1.5, -0.75, 1e300, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()}) {
    INFO("c = " << c);
    CHECK(rewritten_scale(c, "float64") == 0);
  }
}
