// Tests for core/dims.h: Dims against std::vector<int64_t> under random operations, copies and
// moves across the inline/heap boundary, and its comparisons.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/dims.h"

using hassium::Dims;

namespace {
bool same(const Dims& d, const std::vector<int64_t>& v) {
  return d.size() == v.size() && std::equal(d.begin(), d.end(), v.begin()) &&
         d.empty() == v.empty();
}
} // namespace

TEST_CASE("dims: constructors give the listed elements") {
  CHECK(same(Dims{}, {}));
  CHECK(same(Dims{3, -1, 7}, {3, -1, 7}));
  CHECK(same(Dims(5, 2), {2, 2, 2, 2, 2}));
  CHECK(same(Dims(size_t(3)), {0, 0, 0}));
  std::vector<int64_t> src{1, 2, 3, 4, 5, 6};
  CHECK(same(Dims(src.begin() + 1, src.end()), {2, 3, 4, 5, 6}));
  const Dims scalar; // const default construction (a 0-d shape)
  CHECK(scalar.empty());
}

TEST_CASE("dims: copies and moves keep the elements and leave the source valid") {
  for (size_t n = 0; n <= 9; ++n) {
    Dims a;
    std::vector<int64_t> ref;
    for (size_t i = 0; i < n; ++i) {
      a.push_back(int64_t(i * 7 + 1));
      ref.push_back(int64_t(i * 7 + 1));
    }
    Dims copy(a);
    CHECK(same(copy, ref));
    CHECK(same(a, ref));
    Dims assigned{9, 9, 9, 9, 9, 9}; // heap storage, assigned a smaller or larger one
    assigned = a;
    CHECK(same(assigned, ref));
    Dims moved(std::move(copy));
    CHECK(same(moved, ref));
    CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty
    copy.push_back(4);   // and usable
    CHECK(same(copy, {4}));
    Dims target{1};
    target = std::move(moved);
    CHECK(same(target, ref));
    const Dims& alias = target;
    target = alias; // self-assignment keeps the elements
    CHECK(same(target, ref));
    // A copy after the source shrank (junk past its size) compares by size only.
    Dims shrunk = a;
    if (!shrunk.empty()) shrunk.pop_back();
    Dims c2 = shrunk;
    CHECK(c2 == shrunk);
    CHECK(c2.size() + (n ? 1 : 0) == n);
  }
}

TEST_CASE("dims: random edits agree with std::vector") {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    Dims d;
    std::vector<int64_t> v;
    for (int step = 0; step < 12; ++step) {
      const int op = int(rng() % 8);
      const int64_t x = int64_t(rng() % 100) - 50;
      const size_t pos = v.empty() ? 0 : rng() % (v.size() + 1);
      switch (op) {
      case 0:
        d.push_back(x);
        v.push_back(x);
        break;
      case 1:
        d.insert(d.begin() + pos, x);
        v.insert(v.begin() + long(pos), x);
        break;
      case 2: {
        const size_t k = rng() % 3;
        d.insert(d.begin() + pos, k, x);
        v.insert(v.begin() + long(pos), k, x);
        break;
      }
      case 3: // a range of itself, inserted into itself
        d.insert(d.begin() + pos, d.begin(), d.end());
        {
          std::vector<int64_t> copy = v;
          v.insert(v.begin() + long(pos), copy.begin(), copy.end());
        }
        break;
      case 4:
        if (!v.empty() && pos < v.size()) {
          d.erase(d.begin() + pos);
          v.erase(v.begin() + long(pos));
        }
        break;
      case 5: {
        const size_t n = rng() % 7;
        d.resize(n, x);
        v.resize(n, x);
        break;
      }
      case 6: {
        const size_t n = rng() % 7;
        d.assign(n, x);
        v.assign(n, x);
        break;
      }
      case 7:
        if (!v.empty()) {
          d.pop_back();
          v.pop_back();
        }
        break;
      }
      REQUIRE(same(d, v));
      Dims copy = d, moved = Dims(d);
      REQUIRE(copy == d);
      REQUIRE(moved == d);
    }
  }
}

TEST_CASE("dims: comparisons are by elements") {
  CHECK(Dims{1, 2} == Dims{1, 2});
  CHECK(Dims{1, 2} != Dims{1, 2, 0});
  CHECK(Dims{} == Dims{});
  CHECK(Dims{1, 2} < Dims{1, 3});
  CHECK(Dims{1, 2} < Dims{1, 2, 0});
  CHECK_FALSE(Dims{2} < Dims{1, 9});
  Dims a{5, 6, 7, 8, 9}; // heap
  Dims b{5, 6, 7, 8};
  b.push_back(9);
  CHECK(a == b);
  CHECK(a.at(4) == 9);
  CHECK_THROWS_AS(a.at(5), std::out_of_range);
  CHECK(a.front() == 5);
  CHECK(a.back() == 9);
  a.erase(a.begin() + 1, a.begin() + 3);
  CHECK(same(a, {5, 8, 9}));
  a.clear();
  CHECK(a.empty());
}
