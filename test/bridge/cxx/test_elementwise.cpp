// Tests of bridge/cxx/elementwise.cpp: operators, promotion, math functions, where, casts and
// assignment, each compared with a plain C++ loop.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "helpers.h"

using namespace hassium;
using hstest::check_values;
using hstest::make;

namespace {
// NumPy's % (the sign of the divisor) and // for the reference loops.
template <typename T> T py_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else if constexpr (std::is_signed_v<T>) {
    T r = T(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
    return r;
  } else {
    return T(a % b);
  }
}
template <typename T> T py_floordiv(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::floor(a / b);
  else
    return T((a - py_mod(a, b)) / b);
}

template <typename R, typename A, typename B, typename F>
std::vector<R> loop2(const std::vector<A>& a, const std::vector<B>& b, F f) {
  std::vector<R> r;
  for (size_t i = 0; i < a.size(); ++i) r.push_back(R(f(a[i], b[i])));
  return r;
}
} // namespace

TEMPLATE_TEST_CASE("arithmetic operators match loops", "[cxx][elementwise]", int8_t, int16_t,
                   int32_t, int64_t, uint8_t, uint32_t, uint64_t, float, double) {
  using T = TestType;
  auto va = hstest::sample<T>(60, 1), vb = hstest::sample<T>(60, 2, true);
  array<T> a({6, 10}, va), b({6, 10}, vb);
  double tol = std::is_floating_point_v<T> ? 1e-6 : 0;
  check_values(a + b, loop2<T>(va, vb, [](T x, T y) { return T(x + y); }), tol);
  check_values(a - b, loop2<T>(va, vb, [](T x, T y) { return T(x - y); }), tol);
  check_values(a * b, loop2<T>(va, vb, [](T x, T y) { return T(x * y); }), tol);
  using D = typename decltype(a / b)::value_type; // float for float, else double
  check_values(a / b, loop2<D>(va, vb, [](T x, T y) { return D(x) / D(y); }), 1e-15);
  check_values(a % b, loop2<T>(va, vb, [](T x, T y) { return py_mod(x, y); }), tol);
  check_values(floor_divide(a, b), loop2<T>(va, vb, [](T x, T y) { return py_floordiv(x, y); }));
  check_values(-a, loop2<T>(va, va, [](T x, T) { return T(-x); }));
  // Scalars on either side (weak: the array's type is kept).
  check_values(a + 3, loop2<T>(va, va, [](T x, T) { return T(x + T(3)); }), tol);
  check_values(T(7) - a, loop2<T>(va, va, [](T x, T) { return T(T(7) - x); }), tol);
  check_values(2 * a, loop2<T>(va, va, [](T x, T) { return T(2 * x); }), tol);
  static_assert(std::is_same_v<decltype(a + 3), array<T>>);
}

TEMPLATE_TEST_CASE("comparisons and logical operators give bool arrays", "[cxx][elementwise]",
                   int32_t, uint16_t, float, double, bool) {
  using T = TestType;
  auto va = hstest::sample<T>(50, 3), vb = hstest::sample<T>(50, 4);
  array<T> a({50}, va), b({50}, vb);
  check_values(a < b, loop2<bool>(
                          va, vb, [](T x, T y) { return x < y; }));
  check_values(a <= b, loop2<bool>(va, vb, [](T x, T y) { return x <= y; }));
  check_values(a > b, loop2<bool>(va, vb, [](T x, T y) { return x > y; }));
  check_values(a >= b, loop2<bool>(va, vb, [](T x, T y) { return x >= y; }));
  check_values(a == b, loop2<bool>(va, vb, [](T x, T y) { return x == y; }));
  check_values(a != b, loop2<bool>(va, vb, [](T x, T y) { return x != y; }));
  check_values(a && b, loop2<bool>(va, vb, [](T x, T y) { return x != T(0) && y != T(0); }));
  check_values(a || b, loop2<bool>(va, vb, [](T x, T y) { return x != T(0) || y != T(0); }));
  check_values(logical_xor(a, b),
               loop2<bool>(va, vb, [](T x, T y) { return (x != T(0)) != (y != T(0)); }));
  check_values(!a, loop2<bool>(va, va, [](T x, T) { return x == T(0); }));
  check_values(a == a(0), loop2<bool>(va, va, [&](T x, T) { return x == va[0]; }));
}

TEMPLATE_TEST_CASE("bitwise operators and shifts", "[cxx][elementwise]", int8_t, int32_t, uint8_t,
                   uint64_t) {
  using T = TestType;
  auto va = hstest::sample<T>(40, 5), vb = hstest::sample<T>(40, 6);
  std::vector<T> shifts;
  for (size_t i = 0; i < va.size(); ++i) shifts.push_back(T(i % 5));
  array<T> a({40}, va), b({40}, vb), s({40}, shifts);
  check_values(a & b, loop2<T>(va, vb, [](T x, T y) { return T(x & y); }));
  check_values(a | b, loop2<T>(va, vb, [](T x, T y) { return T(x | y); }));
  check_values(a ^ b, loop2<T>(va, vb, [](T x, T y) { return T(x ^ y); }));
  check_values(~a, loop2<T>(va, va, [](T x, T) { return T(~x); }));
  check_values(a << s, loop2<T>(va, shifts, [](T x, T y) { return T(x << y); }));
  check_values(a >> s, loop2<T>(va, shifts, [](T x, T y) { return T(x >> y); }));
  check_values(a & 6, loop2<T>(va, va, [](T x, T) { return T(x & T(6)); }));
}

TEST_CASE("bool arrays: + is or, * is and, ~ is not", "[cxx][elementwise]") {
  auto va = hstest::sample<bool>(30, 7), vb = hstest::sample<bool>(30, 8);
  array<bool> a({30}, va), b({30}, vb);
  check_values(a + b, loop2<bool>(va, vb, [](bool x, bool y) { return x || y; }));
  check_values(a * b, loop2<bool>(va, vb, [](bool x, bool y) { return x && y; }));
  check_values(~a, loop2<bool>(va, va, [](bool x, bool) { return !x; }));
  check_values(a ^ b, loop2<bool>(va, vb, [](bool x, bool y) { return x != y; }));
  static_assert(std::is_same_v<decltype(a + 1), array<int64_t>>);
  check_values(a + 1, loop2<int64_t>(va, va, [](bool x, bool) { return int64_t(x) + 1; }));
}

TEST_CASE("mixed types promote as NumPy does", "[cxx][elementwise][types]") {
  auto vi = hstest::sample<int32_t>(20, 9);
  auto vf = hstest::sample<float>(20, 10);
  auto vu = hstest::sample<uint8_t>(20, 11);
  auto vs = hstest::sample<int8_t>(20, 12);
  auto vh = hstest::sample<int16_t>(20, 13);
  array<int32_t> i({20}, vi);
  array<float> f({20}, vf);
  array<uint8_t> u({20}, vu);
  array<int8_t> s({20}, vs);
  array<int16_t> h({20}, vh);
  static_assert(std::is_same_v<decltype(i + f), array<double>>);
  static_assert(std::is_same_v<decltype(h + f), array<float>>);
  static_assert(std::is_same_v<decltype(u + s), array<int16_t>>);
  static_assert(std::is_same_v<decltype(f * 2.0), array<float>>);
  static_assert(std::is_same_v<decltype(i * 0.5), array<double>>);
  static_assert(
      std::is_same_v<decltype(f * std::complex<double>(1, 1)), array<std::complex<float>>>);
  static_assert(std::is_same_v<decltype(array<uint64_t>() + array<int64_t>()), array<double>>);
  check_values(i + f,
               loop2<double>(vi, vf, [](int32_t x, float y) { return double(x) + double(y); }),
               1e-12);
  check_values(h + f, loop2<float>(vh, vf, [](int16_t x, float y) { return float(x) + y; }), 1e-6);
  check_values(u + s, loop2<int16_t>(vu, vs, [](uint8_t x, int8_t y) { return int16_t(x + y); }));
  check_values(i * 0.5, loop2<double>(vi, vi, [](int32_t x, int32_t) { return x * 0.5; }));
  // An integer constant must fit the array's type (NumPy raises OverflowError).
  CHECK(hstest::error_of([&] { (void)(u + 300); }).find("300 is out of bounds for uint8") !=
        std::string::npos);
  CHECK(hstest::error_of([&] { (void)(u - (-1)); }).find("out of bounds for uint8") !=
        std::string::npos);
}

TEST_CASE("broadcasting combines shapes and names them when it cannot", "[cxx][elementwise]") {
  auto vc = hstest::sample<double>(3, 14), vr = hstest::sample<double>(4, 15);
  array<double> col({3, 1}, vc), row({4}, vr);
  auto r = col * row;
  CHECK(r.shape() == shape_type{3, 4});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(vc[size_t(i)] * vr[size_t(j)]);
  check_values(r, want, 1e-15);
  array<double> bad = zeros<double>({5});
  std::string msg = hstest::error_of([&] { (void)(r + bad); });
  CHECK(msg == "operands could not be broadcast together with shapes (3, 4) (5,)");
}

TEST_CASE("compound assignment writes in place with NumPy's casting", "[cxx][elementwise]") {
  auto va = hstest::sample<float>(24, 16);
  auto vb = hstest::sample<double>(24, 17, true);
  array<float> a({4, 6}, va);
  array<float> alias = a; // the same data
  array<double> b({4, 6}, vb);
  a += b;
  a *= 2;
  a -= 1.5;
  a /= b;
  std::vector<float> want;
  for (size_t k = 0; k < va.size(); ++k) {
    float x = float(double(va[k]) + vb[k]);
    x = x * 2;
    x = x - 1.5f;
    x = float(double(x) / vb[k]);
    want.push_back(x);
  }
  check_values(alias, want, 1e-6);
  auto vi = hstest::sample<int32_t>(24, 18), vj = hstest::sample<int32_t>(24, 19, true);
  array<int32_t> i({24}, vi), j({24}, vj);
  i %= j;
  i <<= 2;
  i |= 1;
  i ^= j;
  i &= 0x7f;
  i >>= 1;
  std::vector<int32_t> wi;
  for (size_t k = 0; k < vi.size(); ++k)
    wi.push_back(((((py_mod(vi[k], vj[k]) << 2) | 1) ^ vj[k]) & 0x7f) >> 1);
  check_values(i, wi);
}

TEST_CASE("math functions match <cmath>", "[cxx][elementwise][math]") {
  std::vector<double> v = hstest::sample<double>(64, 20);
  std::vector<double> pos, unit, big;
  for (double x : v) {
    pos.push_back(std::abs(x) + 0.1);
    unit.push_back(x / 10.5);
    big.push_back(std::abs(x) + 1.0);
  }
  array<double> a({8, 8}, v), p({8, 8}, pos), u({8, 8}, unit), g({8, 8}, big);
  auto map = [](const std::vector<double>& in, double (*f)(double)) {
    std::vector<double> r;
    for (double x : in) r.push_back(f(x));
    return r;
  };
  const double tol = 1e-14;
  check_values(exp(a), map(v, std::exp), tol);
  check_values(exp2(a), map(v, std::exp2), tol);
  check_values(expm1(a), map(v, std::expm1), tol);
  check_values(log(p), map(pos, std::log), tol);
  check_values(log2(p), map(pos, std::log2), tol);
  check_values(log10(p), map(pos, std::log10), tol);
  check_values(log1p(p), map(pos, std::log1p), tol);
  check_values(sqrt(p), map(pos, std::sqrt), tol);
  check_values(sin(a), map(v, std::sin), tol);
  check_values(cos(a), map(v, std::cos), tol);
  check_values(tan(u), map(unit, std::tan), tol);
  check_values(asin(u), map(unit, std::asin), tol);
  check_values(acos(u), map(unit, std::acos), tol);
  check_values(atan(a), map(v, std::atan), tol);
  check_values(sinh(u), map(unit, std::sinh), tol);
  check_values(cosh(u), map(unit, std::cosh), tol);
  check_values(tanh(a), map(v, std::tanh), tol);
  check_values(asinh(a), map(v, std::asinh), tol);
  check_values(acosh(g), map(big, std::acosh), tol);
  check_values(atanh(u), map(unit, std::atanh), tol);
  check_values(floor(a), map(v, std::floor));
  check_values(ceil(a), map(v, std::ceil));
  check_values(trunc(a), map(v, std::trunc));
  check_values(rint(a), map(v, std::nearbyint));
  check_values(abs(a), map(v, std::fabs));
  check_values(sign(a), map(v, [](double x) { return double((x > 0) - (x < 0)); }));
  check_values(pow(p, u),
               loop2<double>(pos, unit, [](double x, double y) { return std::pow(x, y); }), tol);
  check_values(atan2(a, p),
               loop2<double>(v, pos, [](double x, double y) { return std::atan2(x, y); }), tol);
  check_values(hypot(a, u),
               loop2<double>(v, unit, [](double x, double y) { return std::hypot(x, y); }), tol);
  check_values(fmod(a, p),
               loop2<double>(v, pos, [](double x, double y) { return std::fmod(x, y); }));
  check_values(minimum(a, u),
               loop2<double>(v, unit, [](double x, double y) { return std::min(x, y); }));
  check_values(maximum(a, u),
               loop2<double>(v, unit, [](double x, double y) { return std::max(x, y); }));
  check_values(clip(a, -1.0, 2.0), map(v, [](double x) { return std::clamp(x, -1.0, 2.0); }));
}

TEST_CASE("math edge values: NaN propagation and classification", "[cxx][elementwise][math]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = INFINITY;
  std::vector<double> v = {1.0, nan, -inf, inf, -0.0, 2.0};
  std::vector<double> w = {nan, 0.5, 3.0, -inf, 0.0, 2.0};
  array<double> a({6}, v), b({6}, w);
  check_values(maximum(a, b), {nan, nan, 3.0, inf, 0.0, 2.0});
  check_values(minimum(a, b), {nan, nan, -inf, -inf, -0.0, 2.0});
  check_values(isnan(a), {false, true, false, false, false, false});
  check_values(isinf(a), {false, false, true, true, false, false});
  check_values(isfinite(a), {true, false, false, false, true, true});
  array<int32_t> i = arange<int32_t>(4);
  check_values(isnan(i), {false, false, false, false});
  check_values(isfinite(i), {true, true, true, true});
  static_assert(std::is_same_v<decltype(floor(i)), array<int32_t>>);
  static_assert(std::is_same_v<decltype(sqrt(i)), array<double>>);
  static_assert(std::is_same_v<decltype(sqrt(array<int16_t>())), array<float>>);
  check_values(sqrt(i), {0.0, 1.0, std::sqrt(2.0), std::sqrt(3.0)}, 1e-15);
}

TEST_CASE("complex arithmetic and functions", "[cxx][elementwise][complex]") {
  using C = std::complex<double>;
  auto va = hstest::sample<C>(16, 21), vb = hstest::sample<C>(16, 22);
  array<C> a({16}, va), b({16}, vb);
  check_values(a + b, loop2<C>(va, vb, [](C x, C y) { return x + y; }), 1e-14);
  check_values(a * b, loop2<C>(va, vb, [](C x, C y) { return x * y; }), 1e-14);
  check_values(a / b, loop2<C>(va, vb, [](C x, C y) { return x / y; }), 1e-13);
  check_values(exp(a), loop2<C>(va, va, [](C x, C) { return std::exp(x); }), 1e-13);
  check_values(sqrt(a), loop2<C>(va, va, [](C x, C) { return std::sqrt(x); }), 1e-13);
  check_values(log(a), loop2<C>(va, va, [](C x, C) { return std::log(x); }), 1e-13);
  check_values(conj(a), loop2<C>(va, va, [](C x, C) { return std::conj(x); }));
  check_values(abs(a), loop2<double>(va, va, [](C x, C) { return std::abs(x); }), 1e-14);
  check_values(real(a), loop2<double>(va, va, [](C x, C) { return x.real(); }));
  check_values(imag(a), loop2<double>(va, va, [](C x, C) { return x.imag(); }));
  check_values(-a, loop2<C>(va, va, [](C x, C) { return -x; }));
  array<float> f({3}, std::vector<float>{1, 2, 3});
  check_values(imag(f), {0.f, 0.f, 0.f});
  static_assert(std::is_same_v<decltype(abs(array<std::complex<float>>())), array<float>>);
}

TEST_CASE("where is exact for every value, including inf, nan and -0.0", "[cxx][elementwise]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = INFINITY;
  std::vector<double> va = {inf, nan, -0.0, 1.5, -inf, 0.0};
  std::vector<double> vb = {0.0, -inf, nan, -0.0, 2.0, -0.0};
  std::vector<bool> vc = {true, true, false, true, false, false};
  array<double> a({6}, va), b({6}, vb);
  array<bool> c({6}, vc);
  std::vector<double> got = where(c, a, b).to_vector();
  for (size_t i = 0; i < 6; ++i) {
    double want = vc[i] ? va[i] : vb[i];
    INFO("element " << i);
    CHECK(std::memcmp(&got[i], &want, sizeof(double)) == 0); // bit for bit
  }
  // Broadcast condition and scalar branches; promotion of the branches.
  auto vi = hstest::sample<int32_t>(12, 23);
  array<int32_t> m({3, 4}, vi);
  array<bool> row({4}, std::vector<bool>{true, false, false, true});
  auto w = where(row, m, -1);
  static_assert(std::is_same_v<decltype(w), array<int32_t>>);
  std::vector<int32_t> want;
  for (size_t k = 0; k < 12; ++k) want.push_back(k % 4 == 0 || k % 4 == 3 ? vi[k] : -1);
  check_values(w, want);
  auto wd = where(m > 0, m, 0.5);
  static_assert(std::is_same_v<decltype(wd), array<double>>);
  std::vector<double> want_d;
  for (int32_t x : vi) want_d.push_back(x > 0 ? double(x) : 0.5);
  check_values(wd, want_d);
  CHECK(hstest::error_of([&] {
          (void)where(array<bool>({5}, std::vector<bool>(5)), m, 0);
        }).find("could not be broadcast") != std::string::npos);
  // A non-bool condition is nonzero-is-true; a constant condition picks a side; complex values.
  std::vector<int32_t> want_i;
  for (int32_t x : vi) want_i.push_back(x != 0 ? 7 : x);
  check_values(where(m, 7, m), want_i);
  check_values(where(true, m, -1), vi);
  check_values(where(0, m, -1), std::vector<int32_t>(12, -1));
  using Z = std::complex<double>;
  array<Z> z({3}, std::vector<Z>{{1, -2}, {0, 3}, {-0.0, inf}});
  check_values(where(array<bool>{true, false, true}, z, Z(5, 6)),
               std::vector<Z>{{1, -2}, {5, 6}, {-0.0, inf}});
}

TEST_CASE("casting with astype follows C++ conversions", "[cxx][elementwise]") {
  std::vector<double> v = {-2.7, -0.5, 0.0, 0.4, 3.9, 250.0};
  array<double> a({6}, v);
  check_values(a.astype<int32_t>(), {-2, 0, 0, 0, 3, 250});
  check_values(a.astype<bool>(), {true, true, false, true, true, true});
  check_values(a.astype<float>(), {-2.7f, -0.5f, 0.0f, 0.4f, 3.9f, 250.0f});
  check_values(a.astype<std::complex<double>>(),
               {{-2.7, 0}, {-0.5, 0}, {0, 0}, {0.4, 0}, {3.9, 0}, {250, 0}});
  array<int32_t> i({3}, std::vector<int32_t>{-1, 0, 300});
  check_values(i.astype<uint8_t>(), {255, 0, 44});
  check_values(i.astype<double>(), {-1.0, 0.0, 300.0});
}
