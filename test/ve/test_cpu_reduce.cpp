// Tests of reductions and scans on the CPU engine (codegen.cpp's register and memory
// accumulation, launcher.cpp's partial results, ops_reduce.cpp): every axis of 1-, 2- and 3-D
// views of every layout, fused element-wise producers, sizes that split into chunks, empty axes.
#include <cmath>
#include <complex>
#include <functional>
#include <type_traits>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
enum class Layout { CONTIGUOUS, TRANSPOSED, REVERSED, BROADCAST, STRIDED };
const Layout kLayouts[] = {Layout::CONTIGUOUS, Layout::TRANSPOSED, Layout::REVERSED,
                           Layout::BROADCAST, Layout::STRIDED};

const char* layout_name(Layout l) {
  switch (l) {
  case Layout::CONTIGUOUS:
    return "contiguous";
  case Layout::TRANSPOSED:
    return "transposed";
  case Layout::REVERSED:
    return "reversed";
  case Layout::BROADCAST:
    return "broadcast";
  case Layout::STRIDED:
    return "strided";
  }
  return "";
}

// A view of the given shape and layout on a fresh base just large enough.
View make_view(const std::string& name, DType t, const Dims& shape, Layout layout) {
  const size_t nd = shape.size();
  Dims stride(nd, 0);
  int64_t n = 1;
  auto assign = [&](size_t k) {
    stride[k] = n;
    n *= std::max<int64_t>(shape[k], 1);
  };
  switch (layout) {
  case Layout::TRANSPOSED:
    for (size_t k = 0; k < nd; ++k) assign(k);
    break;
  case Layout::STRIDED:
    n = 2;
    for (size_t k = nd; k-- > 0;) assign(k);
    break;
  case Layout::BROADCAST:
    for (size_t k = nd; k-- > 0;)
      if (k == 0 && nd > 1)
        stride[k] = 0;
      else
        assign(k);
    break;
  default:
    for (size_t k = nd; k-- > 0;) assign(k);
  }
  int64_t offset = 0;
  if (layout == Layout::REVERSED && nd > 0) {
    offset = stride[0] * (shape[0] - 1);
    stride[0] = -stride[0];
  }
  auto base = make_data_base(name, t, n + 1);
  return view(base, offset, shape, stride);
}

Opcode reduce_ops[] = {Opcode::ADD_REDUCE, Opcode::MULTIPLY_REDUCE, Opcode::MINIMUM_REDUCE,
                       Opcode::MAXIMUM_REDUCE};

// a + b and a * b as NumPy computes them: integers wrap around (done in the unsigned type, where
// C++ defines the wrap; signed overflow would be undefined).
template <typename T> T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return T(U(U(a) + U(b)));
  } else {
    return T(a + b);
  }
}
template <typename T> T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>; // no int promotion
    return T(U(W(U(a)) * W(U(b))));
  } else {
    return T(a * b);
  }
}

template <typename T> T combine(Opcode op, T a, T b) {
  switch (op) {
  case Opcode::ADD_REDUCE:
    return wrapping_add(a, b);
  case Opcode::MULTIPLY_REDUCE:
    return wrapping_mul(a, b);
  case Opcode::MINIMUM_REDUCE:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
    return std::min(a, b);
  case Opcode::MAXIMUM_REDUCE:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return std::nan("");
    return std::max(a, b);
  default:
    FAIL("not a reduction");
    return a;
  }
}

// Plain reduction of `in` (values by row-major position) along `axis`, sequentially.
template <typename T> std::vector<T> reference_reduce(Opcode op, const View& in, int axis) {
  Dims out_shape = without(in.shape, axis);
  int64_t out_n = 1;
  for (auto e : out_shape) out_n *= e;
  std::vector<T> r(static_cast<size_t>(out_n));
  std::vector<bool> seen(static_cast<size_t>(out_n), false);
  for (int64_t pos = 0; pos < in.size(); ++pos) {
    int64_t o = flatten_without(in.shape, unflatten(in.shape, pos), axis);
    T x = element<T>(in, pos);
    r[size_t(o)] = seen[size_t(o)] ? combine(op, r[size_t(o)], x) : x;
    seen[size_t(o)] = true;
  }
  return r;
}

// Floats: sums within 1e-12 of the sum of magnitudes `scale`; products within a relative
// 1e-14 per factor (`scale` = the number of factors).
template <typename T> bool near(T got, T want, double scale, bool product) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) return std::isnan(got);
    if (product)
      return std::fabs(double(got) - double(want)) <= 1e-14 * scale * std::fabs(double(want));
    return std::fabs(double(got) - double(want)) <= 1e-12 * scale + 1e-300;
  } else {
    return got == want;
  }
}

template <typename T>
void check_reduce(Engine& engine, Opcode op, DType t, const Dims& shape, int axis, Layout layout) {
  View in = make_view("in", t, shape, layout);
  fill<T>(in, [&](int64_t i) {
    if constexpr (std::is_floating_point_v<T>)
      return op == Opcode::MULTIPLY_REDUCE ? 1.0 + 1e-3 * double(i % 7)
                                           : double((i * 37) % 101) - 50.5;
    else
      return op == Opcode::MULTIPLY_REDUCE ? T(1 + i % 3) : T((i * 37) % 101 - 50);
  });
  auto out = make_data_base("out", t, std::max<int64_t>(1, [&] {
                              int64_t n = 1;
                              for (auto e : without(shape, axis)) n *= e;
                              return n;
                            }()));
  View ov = View::contiguous(out, without(shape, axis));
  Program p;
  p.instrs.emplace_back(op, std::vector<Operand>{ov, in, axis_const(axis)});
  run_all(engine, p);
  std::vector<T> want = reference_reduce<T>(op, in, axis);
  double scale = 0;
  for (int64_t i = 0; i < in.size(); ++i) scale += std::fabs(double(element<T>(in, i)));
  const bool product = op == Opcode::MULTIPLY_REDUCE;
  if (product) scale = double(shape[size_t(axis)]);
  for (size_t i = 0; i < want.size(); ++i) {
    HS_REQUIRE_ELEMENT(near(element<T>(ov, int64_t(i)), want[i], scale, product),
                       op_name(op)
                           << " " << dtype_name(t) << " shape " << dims_text(shape) << " axis "
                           << axis << " " << layout_name(layout) << " element " << i);
  }
}
} // namespace

TEST_CASE("reductions: every axis of every layout, small and split sizes", "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const std::vector<Dims> shapes = {{7},          {5, 6},       {3, 4, 5},    {1 << 17},
                                    {3, 1 << 16}, {1 << 15, 3}, {1 << 14, 16}};
  for (const Dims& shape : shapes)
    for (int axis = 0; axis < int(shape.size()); ++axis)
      for (Layout layout : kLayouts)
        if (shape[0] * shape.back() < 100 || layout == Layout::CONTIGUOUS ||
            layout == Layout::REVERSED)
          for (Opcode op : reduce_ops) {
            check_reduce<double>(*engine, op, DType::FLOAT64, shape, axis, layout);
            check_reduce<int32_t>(*engine, op, DType::INT32, shape, axis, layout);
          }
}

TEST_CASE("reductions: sum(exp(a) * b) fused into one kernel on every axis", "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const std::vector<Dims> shapes = {{1 << 18}, {300, 7}, {7, 300}, {20, 30, 40}, {}};
  for (const Dims& shape : shapes) {
    for (int axis = 0; axis < std::max<int>(1, int(shape.size())); ++axis) {
      Dims sh = shape.empty() ? Dims{1} : shape; // 0-d input: reduce a 1-element axis instead
      View a = make_view("a", DType::FLOAT64, sh, Layout::CONTIGUOUS);
      View b = make_view("b", DType::FLOAT64, sh, Layout::REVERSED);
      fill<double>(a, [](int64_t i) { return 1e-4 * double(i % 1000); });
      fill<double>(b, [](int64_t i) { return double(i % 13) - 6.0; });
      int64_t n = a.size();
      auto t = make_temp_base("t", DType::FLOAT64, n), u = make_temp_base("u", DType::FLOAT64, n);
      Dims osh = without(sh, axis);
      int64_t on = 1;
      for (auto e : osh) on *= e;
      auto s = make_data_base("s", DType::FLOAT64, on);
      Program p;
      p.instrs.emplace_back(Opcode::EXP, std::vector<Operand>{View::contiguous(t, sh), a});
      p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::contiguous(u, sh),
                                                                   View::contiguous(t, sh), b});
      p.instrs.emplace_back(Opcode::ADD_REDUCE,
                            std::vector<Operand>{View::contiguous(s, osh), View::contiguous(u, sh),
                                                 axis_const(axis)});
      run_all(*engine, p, {t.get(), u.get()});
      std::vector<double> want(static_cast<size_t>(on), 0.0);
      double scale = 0;
      for (int64_t pos = 0; pos < n; ++pos) {
        double x = std::exp(element<double>(a, pos)) * element<double>(b, pos);
        want[size_t(flatten_without(sh, unflatten(sh, pos), axis))] += x;
        scale += std::fabs(x);
      }
      for (int64_t i = 0; i < on; ++i) {
        HS_REQUIRE_ELEMENT(std::fabs(data_of<double>(s)[i] - want[size_t(i)]) <= 1e-12 * scale,
                           "shape " << dims_text(sh) << " axis " << axis << " element " << i);
      }
    }
  }
  CHECK(engine->stats().kernels_compiled >= 1);
}

TEST_CASE("reductions: two reductions and a stored element-wise result in one block",
          "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const int64_t m = 100, n = 1000;
  auto a = make_data_base("a", DType::FLOAT64, m * n);
  auto sq = make_data_base("sq", DType::FLOAT64, m * n);
  auto s = make_data_base("s", DType::FLOAT64, m), mx = make_data_base("mx", DType::FLOAT64, m);
  fill<double>(View::whole(a), [](int64_t i) { return double((i * 7919) % 1000) / 100.0; });
  Program p;
  View av = View::contiguous(a, {m, n}), sqv = View::contiguous(sq, {m, n});
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{sqv, av, av});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{View::whole(s), sqv, axis_const(1)});
  p.instrs.emplace_back(Opcode::MAXIMUM_REDUCE,
                        std::vector<Operand>{View::whole(mx), sqv, axis_const(1)});
  run_all(*engine, p);
  for (int64_t i = 0; i < m; ++i) {
    double sum = 0, best = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      double x = data_of<double>(a)[i * n + j];
      HS_REQUIRE_ELEMENT(data_of<double>(sq)[i * n + j] == x * x, "element " << i * n + j);
      sum += x * x;
      best = std::max(best, x * x);
    }
    REQUIRE(std::fabs(data_of<double>(s)[i] - sum) <= 1e-12 * sum);
    REQUIRE(data_of<double>(mx)[i] == best);
  }
}

TEST_CASE("reductions: results do not depend on the thread count", "[ve][cpu][reduce]") {
  const int64_t n = 3 << 18;
  auto a = make_data_base("a", DType::FLOAT64, n);
  fill<double>(View::whole(a), [](int64_t i) { return std::sin(double(i)) * 1e3; });
  std::vector<double> sums;
  for (int threads : {1, 2, 3}) {
    auto engine = test_engine(threads);
    auto s = make_data_base("s", DType::FLOAT64, 1);
    Program p;
    p.instrs.emplace_back(Opcode::ADD_REDUCE,
                          std::vector<Operand>{view(s, 0, {}, {}), View::whole(a), axis_const(0)});
    run_all(*engine, p);
    sums.push_back(data_of<double>(s)[0]);
  }
  CHECK(sums[0] == sums[1]);
  CHECK(sums[0] == sums[2]);
}

TEST_CASE("reductions: logical and bitwise reductions, complex sums and products",
          "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const int64_t m = 9, n = 70000;
  auto bits = make_data_base("bits", DType::UINT8, m * n);
  auto flags = make_data_base("flags", DType::BOOL, m * n);
  auto z = make_data_base("z", DType::COMPLEX128, m * n);
  fill<uint8_t>(View::whole(bits),
                [](int64_t i) { return uint8_t(1u << (i % 7)) | uint8_t(i % 5 == 0 ? 0x80 : 0); });
  fill<bool>(View::whole(flags), [&](int64_t i) { return (i / n) % 3 == 0 || (i % n) != 17; });
  fill<std::complex<double>>(
      View::whole(z), [](int64_t i) { return std::complex<double>(1.0, 1e-6 * double(i % 3)); });
  auto band = make_data_base("band", DType::UINT8, m), bor = make_data_base("bor", DType::UINT8, m);
  auto bxor = make_data_base("bxor", DType::UINT8, m);
  auto land = make_data_base("land", DType::BOOL, m), lor = make_data_base("lor", DType::BOOL, m);
  auto lxor = make_data_base("lxor", DType::BOOL, m);
  auto zs = make_data_base("zs", DType::COMPLEX128, m),
       zp = make_data_base("zp", DType::COMPLEX128, m);
  View bv = View::contiguous(bits, {m, n}), fv = View::contiguous(flags, {m, n}),
       zv = View::contiguous(z, {m, n});
  Program p;
  p.instrs.emplace_back(Opcode::BITWISE_AND_REDUCE,
                        std::vector<Operand>{View::whole(band), bv, axis_const(1)});
  p.instrs.emplace_back(Opcode::BITWISE_OR_REDUCE,
                        std::vector<Operand>{View::whole(bor), bv, axis_const(1)});
  p.instrs.emplace_back(Opcode::BITWISE_XOR_REDUCE,
                        std::vector<Operand>{View::whole(bxor), bv, axis_const(1)});
  p.instrs.emplace_back(Opcode::LOGICAL_AND_REDUCE,
                        std::vector<Operand>{View::whole(land), fv, axis_const(1)});
  p.instrs.emplace_back(Opcode::LOGICAL_OR_REDUCE,
                        std::vector<Operand>{View::whole(lor), fv, axis_const(1)});
  p.instrs.emplace_back(Opcode::LOGICAL_XOR_REDUCE,
                        std::vector<Operand>{View::whole(lxor), fv, axis_const(1)});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{View::whole(zs), zv, axis_const(1)});
  p.instrs.emplace_back(Opcode::MULTIPLY_REDUCE,
                        std::vector<Operand>{View::whole(zp), zv, axis_const(1)});
  run_singletons(*engine, p);
  for (int64_t i = 0; i < m; ++i) {
    uint8_t a = 0xff, o = 0, x = 0;
    bool la = true, lo = false, lx = false;
    std::complex<double> s = 0, pr = 1;
    for (int64_t j = 0; j < n; ++j) {
      uint8_t v = data_of<uint8_t>(bits)[i * n + j];
      a &= v;
      o |= v;
      x ^= v;
      bool f = data_of<bool>(flags)[i * n + j];
      la = la && f;
      lo = lo || f;
      lx = lx != f;
      std::complex<double> c = data_of<std::complex<double>>(z)[i * n + j];
      s += c;
      pr = std::complex<double>(pr.real() * c.real() - pr.imag() * c.imag(),
                                pr.real() * c.imag() + pr.imag() * c.real());
    }
    CHECK(data_of<uint8_t>(band)[i] == a);
    CHECK(data_of<uint8_t>(bor)[i] == o);
    CHECK(data_of<uint8_t>(bxor)[i] == x);
    CHECK(data_of<bool>(land)[i] == la);
    CHECK(data_of<bool>(lor)[i] == lo);
    CHECK(data_of<bool>(lxor)[i] == lx);
    CHECK(std::abs(data_of<std::complex<double>>(zs)[i] - s) <= 1e-9 * std::abs(s));
    CHECK(std::abs(data_of<std::complex<double>>(zp)[i] - pr) <= 1e-9 * std::abs(pr));
  }
}

TEST_CASE("reductions: empty axes give the identity, minimum of nothing is an error",
          "[ve][cpu][reduce]") {
  auto engine = test_engine();
  auto a = make_data_base("a", DType::FLOAT64, 1);
  auto s = make_data_base("s", DType::FLOAT64, 4), pr = make_data_base("pr", DType::INT64, 4);
  auto ai = make_data_base("ai", DType::INT64, 1);
  data_of<double>(s)[0] = 99;
  data_of<int64_t>(pr)[2] = 99;
  Program p;
  p.instrs.emplace_back(
      Opcode::ADD_REDUCE,
      std::vector<Operand>{View::whole(s), view(a, 0, {4, 0}, {0, 1}), axis_const(1)});
  p.instrs.emplace_back(
      Opcode::MULTIPLY_REDUCE,
      std::vector<Operand>{View::whole(pr), view(ai, 0, {0, 4}, {1, 0}), axis_const(0)});
  run_singletons(*engine, p);
  for (int i = 0; i < 4; ++i) {
    CHECK(data_of<double>(s)[i] == 0.0);
    CHECK(data_of<int64_t>(pr)[i] == 1);
  }
  Program q;
  q.instrs.emplace_back(
      Opcode::MINIMUM_REDUCE,
      std::vector<Operand>{View::whole(s), view(a, 0, {4, 0}, {0, 1}), axis_const(1)});
  CHECK_THROWS_AS(run_all(*engine, q), UserError);
  // Empty outputs: nothing to do, no error.
  Program r;
  r.instrs.emplace_back(
      Opcode::MINIMUM_REDUCE,
      std::vector<Operand>{view(s, 0, {0}, {1}), view(a, 0, {0, 0}, {1, 1}), axis_const(1)});
  run_all(*engine, r);
}

TEST_CASE("reductions: NaN propagates through minimum and maximum", "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const int64_t n = 1 << 17;
  auto a = make_data_base("a", DType::FLOAT32, n);
  fill<float>(View::whole(a), [](int64_t i) { return float(i % 100); });
  data_of<float>(a)[12345] = std::nanf("");
  auto lo = make_data_base("lo", DType::FLOAT32, 1), hi = make_data_base("hi", DType::FLOAT32, 1);
  Program p;
  p.instrs.emplace_back(Opcode::MINIMUM_REDUCE,
                        std::vector<Operand>{view(lo, 0, {}, {}), View::whole(a), axis_const(0)});
  p.instrs.emplace_back(Opcode::MAXIMUM_REDUCE,
                        std::vector<Operand>{view(hi, 0, {}, {}), View::whole(a), axis_const(0)});
  run_all(*engine, p);
  CHECK(std::isnan(data_of<float>(lo)[0]));
  CHECK(std::isnan(data_of<float>(hi)[0]));
  data_of<float>(a)[12345] = 7;
  run_all(*engine, p);
  CHECK(data_of<float>(lo)[0] == 0);
  CHECK(data_of<float>(hi)[0] == 99);
}

namespace {
template <typename T>
void check_scan(Engine& engine, Opcode op, DType t, const Dims& shape, int axis, Layout layout,
                bool in_place) {
  View in = make_view("in", t, shape, layout);
  fill<T>(in, [&](int64_t i) {
    if constexpr (std::is_same_v<T, std::complex<double>>)
      return T(double(i % 5) * 0.5, 1.0);
    else
      return op == Opcode::MULTIPLY_ACCUMULATE ? T(1 + i % 2) : T(i % 11);
  });
  std::vector<T> before(size_t(in.size()));
  for (int64_t i = 0; i < in.size(); ++i) before[size_t(i)] = element<T>(in, i);
  int64_t n = in.size();
  View out =
      in_place ? in : View::contiguous(make_data_base("out", t, std::max<int64_t>(n, 1)), shape);
  Program p;
  p.instrs.emplace_back(op, std::vector<Operand>{out, in, axis_const(axis)});
  run_all(engine, p);
  // out[..., k, ...] = combination of in[..., 0..k, ...]; walk the positions in order.
  std::vector<T> want(static_cast<size_t>(n));
  for (int64_t pos = 0; pos < n; ++pos) {
    Dims idx = unflatten(shape, pos);
    T x = before[size_t(pos)];
    if (idx[size_t(axis)] == 0) {
      want[size_t(pos)] = x;
      continue;
    }
    Dims prev = idx;
    prev[size_t(axis)] -= 1;
    int64_t pp = 0;
    for (size_t k = 0; k < shape.size(); ++k) pp = pp * shape[k] + prev[k];
    T acc = want[size_t(pp)];
    want[size_t(pos)] = op == Opcode::ADD_ACCUMULATE ? wrapping_add(acc, x) : wrapping_mul(acc, x);
  }
  for (int64_t pos = 0; pos < n; ++pos) {
    HS_REQUIRE_ELEMENT(element<T>(out, pos) == want[size_t(pos)],
                       op_name(op) << " " << dtype_name(t) << " shape " << dims_text(shape)
                                   << " axis " << axis << " " << layout_name(layout)
                                   << (in_place ? " in place" : "") << " position " << pos);
  }
}
} // namespace

TEST_CASE("scans: cumulative sum and product along every axis", "[ve][cpu][scan]") {
  auto engine = test_engine();
  const std::vector<Dims> shapes = {{9}, {4, 5}, {3, 4, 5}, {50000}, {3, 20000}, {20000, 3}};
  for (const Dims& shape : shapes)
    for (int axis = 0; axis < int(shape.size()); ++axis)
      for (Layout layout :
           {Layout::CONTIGUOUS, Layout::TRANSPOSED, Layout::REVERSED, Layout::STRIDED})
        for (bool in_place : {false, true}) {
          check_scan<int64_t>(*engine, Opcode::ADD_ACCUMULATE, DType::INT64, shape, axis, layout,
                              in_place);
          check_scan<double>(*engine, Opcode::ADD_ACCUMULATE, DType::FLOAT64, shape, axis, layout,
                             in_place);
          check_scan<int32_t>(*engine, Opcode::MULTIPLY_ACCUMULATE, DType::INT32, shape, axis,
                              layout, in_place);
        }
  check_scan<std::complex<double>>(*engine, Opcode::MULTIPLY_ACCUMULATE, DType::COMPLEX128, {3, 4},
                                   1, Layout::CONTIGUOUS, false);
  check_scan<bool>(*engine, Opcode::ADD_ACCUMULATE, DType::BOOL, {3, 4}, 0, Layout::CONTIGUOUS,
                   false);
}

TEST_CASE("reductions: a split sum storing its element-wise producer too", "[ve][cpu][reduce]") {
  auto engine = test_engine();
  const int64_t n = (1 << 20) + 3;
  auto a = make_data_base("a", DType::FLOAT64, n), sq = make_data_base("sq", DType::FLOAT64, n);
  auto s = make_data_base("s", DType::FLOAT64, 1);
  fill<double>(View::whole(a), [](int64_t i) { return double(i % 1001) * 1e-3; });
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(sq), View::whole(a), View::whole(a)});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{view(s, 0, {}, {}), View::whole(sq), axis_const(0)});
  run_all(*engine, p);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = data_of<double>(a)[i];
    HS_REQUIRE_ELEMENT(data_of<double>(sq)[i] == x * x, "element " << i);
    want += x * x;
  }
  CHECK(std::fabs(data_of<double>(s)[0] - want) <= 1e-12 * want);
}
