// Tests for core/view: geometry and the exact overlap test against brute force.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "core/view.h"

using namespace hassium;

namespace {
View make(const BasePtr& b, int64_t off, Dims shape, Dims stride) {
  View v;
  v.base = b;
  v.offset = off;
  v.shape = shape;
  v.stride = stride;
  return v;
}

std::set<int64_t> elements(const View& v) {
  std::set<int64_t> s;
  for (int64_t f = 0; f < v.size(); ++f) s.insert(v.index_of_flat(f));
  return s;
}
} // namespace

TEST_CASE("view size, bounds and contiguity") {
  auto b = make_base("A", DType::FLOAT64, 100);
  View w = View::whole(b);
  CHECK(w.size() == 100);
  CHECK(w.is_whole_base());
  CHECK(w.is_contiguous());
  View g = make(b, 11, {8, 8}, {10, 1});
  CHECK(g.size() == 64);
  CHECK(g.min_index() == 11);
  CHECK(g.max_index() == 88);
  CHECK(g.in_bounds());
  CHECK_FALSE(g.is_contiguous());
  View rev = make(b, 99, {100}, {-1});
  CHECK(rev.in_bounds());
  CHECK(rev.min_index() == 0);
  CHECK_FALSE(make(b, 95, {10}, {1}).in_bounds());
  CHECK_FALSE(make(b, 5, {10}, {-1}).in_bounds());
  View bc = make(b, 3, {4, 5}, {0, 1});
  CHECK(bc.in_bounds());
  CHECK(bc.index_of_flat(7) == 5);
  View zero_d = make(b, 42, {}, {});
  CHECK(zero_d.size() == 1);
  CHECK(zero_d.min_index() == 42);
  CHECK(make(b, 0, {0, 3}, {3, 1}).size() == 0);
  CHECK(View::contiguous(b, {2, 3, 4}).stride == Dims{12, 4, 1});
}

TEST_CASE("overlap: the paper's shifted views") {
  auto b = make_base("G", DType::FLOAT64, 100);
  View c = make(b, 11, {8, 8}, {10, 1});
  CHECK(overlaps(c, make(b, 1, {8, 8}, {10, 1})));
  CHECK(overlaps(c, make(b, 12, {8, 8}, {10, 1})));
  // Even and odd columns interleave without meeting.
  CHECK_FALSE(overlaps(make(b, 0, {10, 5}, {10, 2}), make(b, 1, {10, 5}, {10, 2})));
  // Different bases never overlap.
  auto b2 = make_base("H", DType::FLOAT64, 100);
  CHECK_FALSE(overlaps(View::whole(b), View::whole(b2)));
  // Columns 0..3 of rows vs columns 5..8: intervals meet, elements do not.
  CHECK_FALSE(overlaps(make(b, 0, {10, 4}, {10, 1}), make(b, 5, {10, 4}, {10, 1})));
}

TEST_CASE("overlap agrees with brute force on random views") {
  std::mt19937 rng(1234);
  auto b = make_base("B", DType::INT32, 200);
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto random_view = [&] {
    for (;;) {
      int nd = rnd(0, 3);
      View v = make(b, rnd(0, 199), {}, {});
      for (int k = 0; k < nd; ++k) {
        v.shape.push_back(rnd(0, 6));
        v.stride.push_back(rnd(-25, 25));
      }
      if (v.in_bounds()) return v;
    }
  };
  for (int trial = 0; trial < 20000; ++trial) {
    View x = random_view(), y = random_view();
    auto ex = elements(x), ey = elements(y);
    bool brute = false;
    for (auto e : ex) brute = brute || ey.count(e);
    INFO("trial " << trial);
    REQUIRE(overlaps(x, y) == brute);
  }
}

TEST_CASE("overlap of huge shifted views is decided without enumerating") {
  auto b = make_base("A", DType::INT8, 1000000000000000000);
  View x = make(b, 0, {1000000000, 2}, {1000000000, 1});
  View y = make(b, 2, {1000000000, 2}, {1000000000, 1});
  CHECK_FALSE(overlaps(x, y));
  CHECK(overlaps(x, make(b, 1, {1000000000, 2}, {1000000000, 1})));
  CHECK(overlaps(x, make(b, 1000000001, {5}, {1})));
  CHECK_FALSE(overlaps(make(b, 0, {1000000000}, {2}), make(b, 1, {1000000000}, {2})));
}
