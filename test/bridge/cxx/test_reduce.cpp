// Tests of bridge/cxx/reduce.cpp: sum, prod, min, max, mean, any, all (whole array and along
// each axis, contiguous and strided inputs) and cumsum/cumprod, against loops.
#include "helpers.h"

using namespace hassium;
using hstest::check_values;
using hstest::error_of;

namespace {
// Reduces a row-major (d0, d1, d2) vector along `axis` (or all: axis -1) with f from init.
template <typename R, typename T, typename F>
std::vector<R> reduce_loop(const std::vector<T>& v, const shape_type& s, int axis, R init, F f) {
  if (axis < 0) {
    R acc = init;
    for (T x : v) acc = f(acc, R(x));
    return {acc};
  }
  shape_type out;
  for (int k = 0; k < 3; ++k)
    if (k != axis) out.push_back(s[size_t(k)]);
  std::vector<R> r(size_t(out[0] * out[1]), init);
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j)
      for (int64_t k = 0; k < s[2]; ++k) {
        int64_t idx[3] = {i, j, k};
        int64_t o[2], n = 0;
        for (int d = 0; d < 3; ++d)
          if (d != axis) o[n++] = idx[d];
        size_t at = size_t(o[0] * out[1] + o[1]);
        r[at] = f(R(r[at]), R(v[size_t((i * s[1] + j) * s[2] + k)]));
      }
  return r;
}
} // namespace

TEMPLATE_TEST_CASE("reductions over all axes and each axis match loops", "[cxx][reduce]", int32_t,
                   uint8_t, int64_t, double) {
  using T = TestType;
  const shape_type s = {3, 4, 5};
  auto v = hstest::sample<T>(60, 41);
  array<T> a(s, v);
  // Products of small values, so that integer products do not overflow.
  std::vector<T> vp;
  for (T x : v) {
    if constexpr (std::is_integral_v<T>)
      vp.push_back(T(x % 3));
    else
      vp.push_back(x);
  }
  array<T> p(s, vp);
  using S = typename decltype(sum(a))::value_type;
  static_assert(std::is_same_v<
                S, std::conditional_t<std::is_floating_point_v<T>, T,
                                      std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>);
  double tol = std::is_floating_point_v<T> ? 1e-12 : 0;
  for (int axis = -1; axis < 3; ++axis) {
    INFO("axis " << axis);
    std::optional<int> ax = axis < 0 ? std::nullopt : std::optional<int>(axis);
    check_values(sum(a, ax), reduce_loop<S>(v, s, axis, S(0), [](S x, S y) { return S(x + y); }),
                 tol);
    check_values(prod(p, ax), reduce_loop<S>(vp, s, axis, S(1), [](S x, S y) { return S(x * y); }),
                 1e-12);
    check_values(min(a, ax), reduce_loop<T>(v, s, axis, std::numeric_limits<T>::max(),
                                            [](T x, T y) { return std::min(x, y); }));
    check_values(max(a, ax), reduce_loop<T>(v, s, axis, std::numeric_limits<T>::lowest(),
                                            [](T x, T y) { return std::max(x, y); }));
    std::vector<double> m =
        reduce_loop<double>(v, s, axis, 0.0, [](double x, double y) { return x + y; });
    double count = axis < 0 ? 60.0 : double(s[size_t(axis)]);
    for (double& x : m) x /= count;
    check_values(mean(a, ax), m, 1e-12);
    check_values(any(a, ax),
                 reduce_loop<bool>(v, s, axis, false, [](bool x, bool y) { return x || y; }));
    check_values(all(a, ax),
                 reduce_loop<bool>(v, s, axis, true, [](bool x, bool y) { return x && y; }));
  }
  // Negative axes count from the end; whole reductions are 0-d.
  check_values(sum(a, -1), reduce_loop<S>(v, s, 2, S(0), [](S x, S y) { return S(x + y); }), tol);
  CHECK(sum(a).ndim() == 0);
  CHECK(hstest::close(sum(a).item(),
                      reduce_loop<S>(v, s, -1, S(0), [](S x, S y) { return S(x + y); })[0], tol));
}

TEST_CASE("reductions of strided views", "[cxx][reduce]") {
  auto v = hstest::sample<double>(6 * 8, 42);
  array<double> a({6, 8}, v);
  array<double> t = a.transpose()(slice(_, _, -2), slice(1, _)); // (4, 5), strides (-2, 8)
  double total = 0, biggest = -1e300;
  std::vector<double> rows;
  for (int64_t j = 7; j >= 0; j -= 2) {
    double r = 0;
    for (int64_t i = 1; i < 6; ++i) {
      double x = v[size_t(i * 8 + j)];
      total += x, r += x, biggest = std::max(biggest, x);
    }
    rows.push_back(r);
  }
  CHECK(hstest::close(sum(t).item(), total, 1e-12));
  CHECK(max(t).item() == biggest);
  check_values(sum(t, 1), rows, 1e-12);
}

TEST_CASE("bool reductions, sums of bools count", "[cxx][reduce]") {
  std::vector<bool> v = {true, false, true, true, false, false};
  array<bool> b({2, 3}, v);
  static_assert(std::is_same_v<decltype(sum(b)), array<int64_t>>);
  CHECK(sum(b).item() == 3);
  check_values(sum(b, 0), {int64_t(2), int64_t(0), int64_t(1)});
  check_values(any(b, 1), {true, true});
  check_values(all(b, 1), {false, false});
  CHECK(any(b).item());
  CHECK(!all(b).item());
  CHECK(array_equal(b, array<bool>({2, 3}, v)));
  CHECK(!array_equal(b, b.transpose()));
}

TEST_CASE("cumsum and cumprod, flattened and along an axis", "[cxx][reduce]") {
  auto v = hstest::sample<int32_t>(12, 43);
  array<int32_t> a({3, 4}, v);
  static_assert(std::is_same_v<decltype(cumsum(a)), array<int64_t>>);
  std::vector<int64_t> flat;
  int64_t acc = 0;
  for (int32_t x : v) flat.push_back(acc += x);
  check_values(cumsum(a), flat);
  CHECK(cumsum(a).shape() == shape_type{12});
  std::vector<int64_t> rows(12), cols(12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      size_t k = size_t(i * 4 + j);
      rows[k] = v[k] + (j > 0 ? rows[k - 1] : 0);
      cols[k] = v[k] + (i > 0 ? cols[k - 4] : 0);
    }
  check_values(cumsum(a, 1), rows);
  check_values(cumsum(a, 0), cols);
  check_values(cumsum(a.transpose(), 1), cumsum(a, 0).transpose().to_vector());
  std::vector<double> d = {1.5, -2.0, 0.5, 3.0};
  check_values(cumprod(array<double>({4}, d)), {1.5, -3.0, -1.5, -4.5});
}

TEST_CASE("reduction errors name the axis or the empty shape", "[cxx][reduce][errors]") {
  array<double> a = ones<double>({2, 3});
  CHECK(error_of([&] { (void)sum(a, 2); }) == "axis 2 is out of bounds for array of dimension 2");
  CHECK(error_of([&] { (void)mean(a, -3); }) ==
        "axis -3 is out of bounds for array of dimension 2");
  CHECK(error_of([&] { (void)cumsum(a, 5); }) ==
        "axis 5 is out of bounds for array of dimension 2");
  array<double> e = zeros<double>({0, 3});
  CHECK(error_of([&] { (void)min(e); }) ==
        "zero-size array to reduction operation minimum which has no identity (shape (0, 3))");
  CHECK(error_of([&] { (void)max(e, 0); }) ==
        "zero-size array to reduction operation maximum which has no identity (shape (0, 3))");
  // Sums of empty axes are the identity; along a non-empty axis of an empty array, empty.
  check_values(sum(e, 0), {0.0, 0.0, 0.0});
  CHECK(sum(e, 1).shape() == shape_type{0});
  CHECK(sum(e).item() == 0.0);
  CHECK(sum(a).item() == 6.0); // still usable
}
