// Tests of bridge/cxx/layout.cpp: slicing (steps, negative steps, integers, newaxis), transpose,
// reshape, broadcast_to, assignment through views (with overlap), element access, iteration,
// data() and the errors for bad indices, each compared with loops over the same data.
#include <sstream>

#include "helpers.h"

using namespace hassium;
using hstest::check_values;
using hstest::error_of;

namespace {
// NumPy's slice as a list of positions in [0, n) (with _ bounds as std::nullopt).
std::vector<int64_t> positions(int64_t n, std::optional<int64_t> start, std::optional<int64_t> stop,
                               int64_t step) {
  std::vector<int64_t> r;
  auto wrap = [&](int64_t v) { return v < 0 ? v + n : v; };
  if (step > 0) {
    int64_t b = start ? wrap(*start) : 0, e = stop ? wrap(*stop) : n;
    for (int64_t i = b; i < e; i += step) r.push_back(i);
  } else {
    int64_t b = start ? std::min(wrap(*start), n - 1) : n - 1, e = stop ? wrap(*stop) : -1;
    for (int64_t i = b; i > e; i += step) r.push_back(i);
  }
  return r;
}
} // namespace

TEST_CASE("2-d slices with steps match loops", "[cxx][layout]") {
  const int64_t R = 7, C = 9;
  auto v = hstest::sample<int32_t>(R * C, 31);
  array<int32_t> a({R, C}, v);
  struct Case {
    std::optional<int64_t> b0, e0;
    int64_t s0;
    std::optional<int64_t> b1, e1;
    int64_t s1;
  };
  std::vector<Case> cases = {{1, -1, 1, 1, -1, 1},
                             {std::nullopt, std::nullopt, 2, 0, 9, 3},
                             {std::nullopt, std::nullopt, -1, std::nullopt, std::nullopt, -2},
                             {5, 1, -2, 8, 0, -3},
                             {-3, std::nullopt, 1, std::nullopt, -4, -1},
                             {3, 3, 1, 0, 9, 1},
                             {7, std::nullopt, -1, -9, 9, 4}};
  for (const Case& c : cases) {
    auto bound = [](std::optional<int64_t> x) {
      return x ? hassium::bound(*x) : hassium::bound(_);
    };
    array<int32_t> s =
        a(slice(bound(c.b0), bound(c.e0), c.s0), slice(bound(c.b1), bound(c.e1), c.s1));
    auto rows = positions(R, c.b0, c.e0, c.s0), cols = positions(C, c.b1, c.e1, c.s1);
    CHECK(s.shape() == shape_type{int64_t(rows.size()), int64_t(cols.size())});
    std::vector<int32_t> want;
    for (int64_t i : rows)
      for (int64_t j : cols) want.push_back(v[size_t(i * C + j)]);
    check_values(s, want);
    // The view computes like any array.
    if (!want.empty()) {
      std::vector<int32_t> twice;
      for (int32_t x : want) twice.push_back(2 * x + 1);
      check_values(s * 2 + 1, twice);
    }
  }
}

TEST_CASE("integer indices drop axes, _ keeps them, newaxis adds them", "[cxx][layout]") {
  auto v = hstest::sample<double>(2 * 3 * 4, 32);
  array<double> a({2, 3, 4}, v);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return v[size_t((i * 3 + j) * 4 + k)]; };
  array<double> r = a(1, _, -1);
  CHECK(r.shape() == shape_type{3});
  check_values(r, {at(1, 0, 3), at(1, 1, 3), at(1, 2, 3)});
  array<double> n = a(0, newaxis, 2, slice(1, 3));
  CHECK(n.shape() == shape_type{1, 2});
  check_values(n, {at(0, 2, 1), at(0, 2, 2)});
  array<double> whole = a.view({_, newaxis});
  CHECK(whole.shape() == shape_type{2, 1, 3, 4});
  CHECK(a(1, 2, 3) == at(1, 2, 3));
  CHECK(a(-1, -1, -1) == at(1, 2, 3));
  const array<double>& ca = a;
  CHECK(ca(0, 1, 2) == at(0, 1, 2));
  array<double> zero_d = a.view({1, 1, 1});
  CHECK(zero_d.ndim() == 0);
  CHECK(zero_d.item() == at(1, 1, 1));
}

TEST_CASE("bad indices throw hassium::error naming them", "[cxx][layout][errors]") {
  array<double> a = zeros<double>({3, 4});
  CHECK(error_of([&] { (void)a(slice(0, 5), _); }) ==
        "slice stop 5 is out of range for axis 0 with size 3");
  CHECK(error_of([&] { (void)a(_, slice(-5, _)); }) ==
        "slice start -5 is out of range for axis 1 with size 4");
  CHECK(error_of([&] { (void)a(_, slice(0, 2, 0)); }) == "slice step cannot be zero (axis 1)");
  CHECK(error_of([&] { (void)a(3, _); }) ==
        "index 3 is out of bounds for axis 0 with size 3 (shape (3, 4))");
  CHECK(error_of([&] { (void)a(1, -5); }) ==
        "index -5 is out of bounds for axis 1 with size 4 (shape (3, 4))");
  CHECK(error_of([&] { (void)a(0, 0, _); }) ==
        "too many indices for array: array is 2-dimensional, but 3 were indexed (shape (3, 4))");
  CHECK(error_of([&] { (void)a(1); }) ==
        "element access needs 2 indices for an array of shape (3, 4), got 1");
  CHECK(error_of([&] {
          (void)a.transpose({0, 0});
        }) == "axes (0, 0) are not a permutation of the 2 axes of an array of shape (3, 4)");
  CHECK(error_of([&] {
          (void)a.reshape({5, 3});
        }) == "cannot reshape array of size 12 into shape (5, 3)");
  CHECK(error_of([&] {
          (void)a.reshape({-1, 5});
        }) == "cannot reshape array of size 12 into shape (-1, 5)");
  CHECK(error_of([&] {
          (void)broadcast_to(a, {4, 4});
        }) == "cannot broadcast an array of shape (3, 4) to shape (4, 4)");
  CHECK(error_of([&] {
          broadcast_to(a(0, _), {3, 4}) += 1.0;
        }) == "cannot write into a broadcast view (shape (3, 4), strides (0, 1))");
  CHECK(error_of([&] {
          a(slice(0, 2), _) = ones<double>({3, 4});
        }) == "could not broadcast input from shape (3, 4) into shape (2, 4)");
  // Nothing was recorded or broken: the array still computes.
  a += 1.0;
  check_values(a, std::vector<double>(12, 1.0));
}

TEST_CASE("transpose, reshape, ravel, broadcast_to", "[cxx][layout]") {
  auto v = hstest::sample<int64_t>(24, 33);
  array<int64_t> a({2, 3, 4}, v);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return v[size_t((i * 3 + j) * 4 + k)]; };
  array<int64_t> t = a.transpose();
  CHECK(t.shape() == shape_type{4, 3, 2});
  std::vector<int64_t> want;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t i = 0; i < 2; ++i) want.push_back(at(i, j, k));
  check_values(t, want);
  array<int64_t> p = a.transpose({1, 0, 2});
  want.clear();
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 4; ++k) want.push_back(at(i, j, k));
  check_values(p, want);
  // Reshape of contiguous data is a view; of a transposed one a copy in row-major order.
  array<int64_t> r = a.reshape({6, -1});
  CHECK(r.shape() == shape_type{6, 4});
  r(0, 0) = 1000;
  CHECK(a(0, 0, 0) == 1000);
  array<int64_t> tr = t.reshape({-1});
  CHECK(tr.shape() == shape_type{24});
  want = t.to_vector();
  check_values(tr, want);
  check_values(a.ravel(), a.to_vector());
  array<int64_t> flat = a.flatten();
  flat(0) = -7;
  CHECK(a(0, 0, 0) == 1000);
  array<int64_t> row({4}, std::vector<int64_t>{1, 2, 3, 4});
  array<int64_t> b = broadcast_to(row, {3, 4});
  CHECK(b.strides() == shape_type{0, 1});
  check_values(b, {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4});
  CHECK(a.strides() == shape_type{12, 4, 1});
  CHECK(a.size() == 24);
  CHECK(a.ndim() == 3);
  CHECK(a.shape(-1) == 4);
}

TEST_CASE("assignment through views, with overlap copied first", "[cxx][layout][assign]") {
  auto v = hstest::sample<double>(10, 34);
  array<double> a({10}, v);
  a(slice(1, _)) = a(slice(_, -1)); // NumPy a[1:] = a[:-1]
  std::vector<double> want = v;
  for (size_t i = 1; i < 10; ++i) want[i] = v[i - 1];
  check_values(a, want);
  a(slice(_, _, -1)) = a; // reverse in place (overlapping: copied first)
  std::reverse(want.begin(), want.end());
  check_values(a, want);
  a(slice(0, 10, 3)) = 0.5; // scalar, broadcast
  for (size_t i = 0; i < 10; i += 3) want[i] = 0.5;
  check_values(a, want);
  // 2-d: a += a.T (overlapping, not identical) reads the old values.
  auto m = hstest::sample<int32_t>(16, 35);
  array<int32_t> s({4, 4}, m);
  s += s.transpose();
  std::vector<int32_t> ws;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) ws.push_back(m[size_t(i * 4 + j)] + m[size_t(j * 4 + i)]);
  check_values(s, ws);
  // Named views write with assign()/fill(); plain assignment rebinds.
  array<int32_t> col = s(_, 1);
  col.fill(9);
  for (int i = 0; i < 4; ++i) ws[size_t(i * 4 + 1)] = 9;
  check_values(s, ws);
  col.assign(arange<int32_t>(4) * 10);
  for (int i = 0; i < 4; ++i) ws[size_t(i * 4 + 1)] = 10 * i;
  check_values(s, ws);
  col = zeros<int32_t>({4}); // rebinding: s is unchanged
  check_values(s, ws);
  // Assigning another type casts.
  s(0, _) = array<double>({4}, std::vector<double>{1.9, -2.9, 3.1, 4.0});
  ws[0] = 1, ws[1] = -2, ws[2] = 3, ws[3] = 4;
  check_values(s, ws);
}

TEST_CASE("element access, iteration and data() see pending results", "[cxx][layout][data]") {
  array<double> a = arange<double>(12).reshape({3, 4});
  a *= 2.0;
  CHECK(a(2, 3) == 22.0);
  a(0, 1) = -1.0; // writes memory after the flush
  a += 1.0;
  CHECK(a(0, 1) == 0.0);
  double total = 0;
  for (double x : a) total += x;
  CHECK(total == 132.0 - 2.0 - 1.0 + 12.0); // 2i, element 1 set to -1, then + 1
  array<double> col = a(_, 2);
  std::vector<double> seen(col.begin(), col.end());
  CHECK(seen == std::vector<double>{5.0, 13.0, 21.0});
  for (double& x : col) x = 0.0; // strided writes through iteration
  CHECK(a(1, 2) == 0.0);
  const double* p = a.data();
  CHECK(p[4] == 9.0);
  CHECK(a.to_vector().size() == 12);
  std::ostringstream os;
  os << array<int32_t>({2, 2}, std::vector<int32_t>{1, 2, 3, 4});
  CHECK(os.str() == "[[1 2]\n [3 4]]");
}
