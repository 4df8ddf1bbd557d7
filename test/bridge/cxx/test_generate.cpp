// Tests of bridge/cxx/generate.cpp: full/zeros/ones/empty, arange, linspace and random numbers,
// the latter against Random123's Philox2x32 computed here in a loop.
#include <Random123/philox.h>

#include "helpers.h"

using namespace hassium;
using hstest::check_values;

namespace {
// What RANDOM gives at position i: philox2x32-10 of counter (c + i) under key lo32(seed).
uint64_t philox_bits(uint64_t seed, uint64_t counter) {
  r123::Philox2x32 rng;
  r123::Philox2x32::ctr_type c = {{uint32_t(counter), uint32_t(counter >> 32)}};
  r123::Philox2x32::key_type k = {{uint32_t(seed)}};
  auto r = rng(c, k);
  return uint64_t(r[0]) | uint64_t(r[1]) << 32;
}
} // namespace

TEST_CASE("constant constructors", "[cxx][generate]") {
  check_values(zeros<int16_t>({2, 3}), std::vector<int16_t>(6, 0));
  check_values(ones<double>({4}), std::vector<double>(4, 1.0));
  check_values(full<std::complex<float>>({2}, {1.5f, -2.0f}), {{1.5f, -2.0f}, {1.5f, -2.0f}});
  check_values(full<bool>({3}, true), {true, true, true});
  array<uint32_t> e = empty<uint32_t>({2, 2});
  CHECK(e.shape() == shape_type{2, 2});
  e.fill(7u);
  check_values(e, std::vector<uint32_t>(4, 7));
  array<double> like = zeros_like(ones<double>({3, 1}));
  CHECK(like.shape() == shape_type{3, 1});
  check_values(full_like(like, 2.5), {2.5, 2.5, 2.5});
  array<double> none;
  CHECK(none.shape() == shape_type{0});
  CHECK(none.size() == 0);
  CHECK(zeros<double>({}).ndim() == 0);
  CHECK(zeros<double>({}).item() == 0.0);
  CHECK(hstest::error_of([] {
          (void)zeros<double>({2, -1});
        }) == "negative dimensions are not allowed: shape (2, -1)");
}

TEST_CASE("arange matches a loop for ints, floats and negative steps", "[cxx][generate]") {
  auto loop = [](double start, double stop, double step) {
    std::vector<double> r;
    int64_t n = int64_t(std::ceil((stop - start) / step));
    for (int64_t i = 0; i < n; ++i) r.push_back(start + double(i) * step);
    return r;
  };
  check_values(arange<int32_t>(5), {0, 1, 2, 3, 4});
  check_values(arange<int64_t>(10, -3, -4), {10, 6, 2, -2});
  check_values(arange<uint8_t>(3, 12, 3), {3, 6, 9});
  check_values(arange(0.5, 2.0, 0.25), loop(0.5, 2.0, 0.25));
  check_values(arange(1.0, -1.0, -0.3), loop(1.0, -1.0, -0.3));
  CHECK(arange<int32_t>(5, 5).size() == 0);
  CHECK(arange<int32_t>(5, 1).size() == 0);
  CHECK(hstest::error_of([] { (void)arange(0, 5, 0); }) == "arange: step cannot be zero");
}

TEST_CASE("linspace matches NumPy's formula", "[cxx][generate]") {
  auto loop = [](double a, double b, int64_t n, bool endpoint) {
    std::vector<double> r;
    int64_t div = endpoint ? n - 1 : n;
    double step = (b - a) / double(div);
    for (int64_t i = 0; i < n; ++i) r.push_back(double(i) * step + a);
    if (endpoint && n > 1) r.back() = b;
    return r;
  };
  check_values(linspace(0.0, 1.0, 11), loop(0.0, 1.0, 11, true));
  check_values(linspace(-2.0, 3.0, 7, false), loop(-2.0, 3.0, 7, false));
  check_values(linspace(1.0, 1.0 / 3.0, 5), loop(1.0, 1.0 / 3.0, 5, true));
  check_values(linspace(2.0, 5.0, 1), {2.0});
  check_values(linspace<int32_t>(0, 10, 4), {0, 3, 6, 10});
  check_values(linspace<int32_t>(0, -10, 4), {0, -4, -7, -10});
  check_values(linspace<float>(0, 1, 3), {0.0f, 0.5f, 1.0f});
  CHECK(linspace(0.0, 1.0, 0).size() == 0);
}

TEST_CASE("random numbers are Philox bits made uniform, reproducible", "[cxx][generate]") {
  const uint64_t seed = 20240601;
  array<double> r = random({3, 5}, seed);
  std::vector<double> want;
  for (uint64_t i = 0; i < 15; ++i) want.push_back(double(philox_bits(seed, i) >> 11) * 0x1p-53);
  check_values(r, want);
  array<float> f = random<float>({7}, seed);
  std::vector<float> wf;
  for (uint64_t i = 0; i < 7; ++i) wf.push_back(float(philox_bits(seed, i) >> 40) * 0x1p-24f);
  check_values(f, wf);
  check_values(random({3, 5}, seed), r.to_vector()); // same seed, same stream
  CHECK(!array_equal(random({3, 5}, seed + 1), r));
  // Statistics of a bigger sample from a fixed seed: in [0, 1), mean near 1/2.
  array<double> big = random({100000}, 7);
  CHECK(min(big).item() >= 0.0);
  CHECK(max(big).item() < 1.0);
  CHECK(std::abs(mean(big).item() - 0.5) < 0.01);
  // The process stream continues from call to call and restarts at seed().
  hassium::seed(99);
  array<double> s1 = random({4});
  array<double> s2 = random({4});
  std::vector<double> w12;
  for (uint64_t i = 0; i < 8; ++i) w12.push_back(double(philox_bits(99, i) >> 11) * 0x1p-53);
  check_values(s1, {w12[0], w12[1], w12[2], w12[3]});
  check_values(s2, {w12[4], w12[5], w12[6], w12[7]});
}

TEST_CASE("randint gives integers from low up to but not including high", "[cxx][generate]") {
  array<int32_t> r = randint<int32_t>({1000}, -5, 5, 3);
  std::vector<int32_t> want;
  for (uint64_t i = 0; i < 1000; ++i) want.push_back(int32_t(int64_t(philox_bits(3, i) % 10) - 5));
  check_values(r, want);
  CHECK(min(r).item() == -5);
  CHECK(max(r).item() == 4);
  CHECK(hstest::error_of([] { (void)randint<int32_t>({3}, 5, 5, 1); }) ==
        "randint: low 5 must be below high 5");
}
