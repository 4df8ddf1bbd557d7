// Tests of ve/cpu/ops_*.cpp: every element-wise opcode on every signature the opcode table
// allows, over edge-case values of each dtype, against plain C++ implementations of NumPy's
// rules (numpy_reference.h, independent of the IR emitters).
#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "test/ve/cpu_fixture.h"
#include "test/ve/numpy_reference.h"

using namespace hassium;
using namespace hassium::test;
using namespace hassium::test::numpy_ref;

namespace {
// Opcodes computed by math library approximations (allowed a few ulps).
bool approximate(Opcode op) {
  switch (op) {
  case Opcode::POWER:
  case Opcode::EXP:
  case Opcode::EXP2:
  case Opcode::EXPM1:
  case Opcode::LOG:
  case Opcode::LOG2:
  case Opcode::LOG10:
  case Opcode::LOG1P:
  case Opcode::SIN:
  case Opcode::COS:
  case Opcode::TAN:
  case Opcode::ARCSIN:
  case Opcode::ARCCOS:
  case Opcode::ARCTAN:
  case Opcode::SINH:
  case Opcode::COSH:
  case Opcode::TANH:
  case Opcode::ARCSINH:
  case Opcode::ARCCOSH:
  case Opcode::ARCTANH:
  case Opcode::ARCTAN2:
  case Opcode::HYPOT:
  case Opcode::CBRT:
  case Opcode::LOGADDEXP:
  case Opcode::LOGADDEXP2:
  case Opcode::ABSOLUTE:
  case Opcode::SQRT:
    return true;
  default:
    return false;
  }
}

template <typename R> R tolerance() {
  return sizeof(R) == 4 ? R(4e-6) : R(1e-13);
}

// Exact (same bits up to the NaN payload) unless the op is approximate: then a few ulps.
template <typename R> bool close(R got, R want, bool approx) {
  if (std::isnan(want)) return std::isnan(got);
  if (!approx || std::isinf(want)) return got == want && std::signbit(got) == std::signbit(want);
  return std::fabs(got - want) <= tolerance<R>() * std::fabs(want) + tolerance<R>() * R(1e-2);
}

template <typename O> bool matches(O got, O want, bool approx) {
  if constexpr (is_cplx<O>) {
    using R = real_t<O>;
    R mag = std::hypot(want.real(), want.imag());
    if (!(mag > 1)) mag = 1; // also when NaN
    auto part = [&](R g, R w) {
      if (std::isnan(w)) return std::isnan(g);
      if (!approx || std::isinf(w)) return g == w;
      return std::fabs(g - w) <= tolerance<R>() * mag;
    };
    return part(got.real(), want.real()) && part(got.imag(), want.imag());
  } else if constexpr (std::is_floating_point_v<O>) {
    return close(got, want, approx);
  } else {
    return got == want;
  }
}

template <typename T> std::string show(T x) {
  std::ostringstream os;
  os.precision(17);
  if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>)
    os << int(x);
  else
    os << x;
  return os.str();
}

// One opcode on one signature: a block over every pair of sample values.
template <typename T, typename O>
void check_signature(Engine& engine, Opcode op, DType in, DType out) {
  const std::vector<T> s = samples<T>();
  const bool binary = op_info(op).operands == 3;
  // Unary ops repeat the samples so the vectorized loop body (libmvec's variants) sees them too.
  const int64_t n = binary ? int64_t(s.size() * s.size()) : int64_t(16 * s.size());
  auto a = make_data_base("a", in, n);
  auto b = make_data_base("b", in, n);
  auto r = make_data_base("r", out, n);
  for (int64_t i = 0; i < n; ++i) {
    data_of<T>(a)[i] = binary ? s[size_t(i) / s.size()] : s[size_t(i) % s.size()];
    data_of<T>(b)[i] = binary ? s[size_t(i) % s.size()] : s[0];
  }
  Program p;
  std::vector<Operand> ops = {View::whole(r), View::whole(a)};
  if (binary) ops.push_back(View::whole(b));
  p.instrs.emplace_back(op, ops);
  bool skipped_error = false;
  try {
    run_all(engine, p);
  } catch (const UserError&) {
    skipped_error = op == Opcode::POWER; // integer power of a negative exponent: tested apart
    REQUIRE(skipped_error);
  }
  if (skipped_error) return;
  for (int64_t i = 0; i < n; ++i) {
    T x = data_of<T>(a)[i], y = data_of<T>(b)[i];
    std::optional<O> want = reference<T, O>(op, x, y);
    if (!want) continue;
    O got = data_of<O>(r)[i];
    HS_REQUIRE_ELEMENT(matches(got, *want, approximate(op)),
                       op_name(op) << " " << dtype_name(in) << " -> " << dtype_name(out) << ": f("
                                   << show(x) << ", " << show(y) << ") = " << show(got)
                                   << ", expected " << show(*want));
  }
}
// WHERE on one dtype: every sample in both branches under a condition pattern, in one block;
// with a constant condition and a constant branch as well.
template <typename T> void check_where(Engine& engine, DType t) {
  const std::vector<T> s = samples<T>();
  const int64_t n = int64_t(4 * s.size());
  auto k = make_data_base("k", DType::BOOL, n);
  auto a = make_data_base("a", t, n), b = make_data_base("b", t, n);
  auto r = make_data_base("r", t, n), c = make_data_base("c", t, n);
  auto d = make_data_base("d", t, n);
  for (int64_t i = 0; i < n; ++i) {
    data_of<bool>(k)[i] = (i * 7) % 3 == 0;
    data_of<T>(a)[i] = s[size_t(i) % s.size()];
    data_of<T>(b)[i] = s[size_t(i * 5 + 1) % s.size()];
  }
  const Scalar fill = Scalar::of_int(1).cast(t);
  Program p;
  p.instrs.emplace_back(Opcode::WHERE, std::vector<Operand>{View::whole(r), View::whole(k),
                                                            View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::WHERE, std::vector<Operand>{View::whole(c), Scalar::of_bool(false),
                                                            View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::WHERE,
                        std::vector<Operand>{View::whole(d), View::whole(k), fill, View::whole(b)});
  run_all(engine, p);
  const T one = data_of<T>(d)[0]; // k[0] is true: the constant, as the engine stores it
  for (int64_t i = 0; i < n; ++i) {
    const bool cond = data_of<bool>(k)[i];
    const T x = data_of<T>(a)[i], y = data_of<T>(b)[i];
    HS_REQUIRE_ELEMENT(matches(data_of<T>(r)[i], cond ? x : y, false),
                       "WHERE " << dtype_name(t) << ": where(" << cond << ", " << show(x) << ", "
                                << show(y) << ") = " << show(data_of<T>(r)[i]));
    HS_REQUIRE_ELEMENT(matches(data_of<T>(c)[i], y, false),
                       "WHERE " << dtype_name(t) << ": constant false");
    HS_REQUIRE_ELEMENT(matches(data_of<T>(d)[i], cond ? one : y, false),
                       "WHERE " << dtype_name(t) << ": constant branch");
  }
  CHECK(matches(one, T(1), false));
}
} // namespace

TEST_CASE("element-wise: every opcode on every signature", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  int signatures = 0;
  for (const OpInfo& info : all_opcodes()) {
    if (info.family != Family::ELEMENTWISE) continue;
    for (const auto& sig : all_signatures(info.op)) {
      ++signatures;
      if (info.rule == SigRule::SELECT) {
        with_type(sig[0],
                  [&](auto tt) { check_where<typename decltype(tt)::type>(*engine, sig[0]); });
        continue;
      }
      DType out = sig[0], in = sig[1];
      with_type(in, [&](auto ti) {
        with_type(out, [&](auto to) {
          using T = typename decltype(ti)::type;
          using O = typename decltype(to)::type;
          check_signature<T, O>(*engine, info.op, in, out);
        });
      });
    }
  }
  CHECK(signatures > 400);
}

TEST_CASE("element-wise: integer power of a negative exponent is an error",
          "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  auto a = make_data_base("a", DType::INT64, 4);
  auto r = make_data_base("r", DType::INT64, 4);
  Program p;
  p.instrs.emplace_back(Opcode::POWER,
                        std::vector<Operand>{View::whole(r), View::whole(a), Scalar::of_int(-2)});
  CHECK_THROWS_WITH(run_all(*engine, p), Catch::Contains("negative integer powers"));
  // The engine stays usable.
  Program q;
  data_of<int64_t>(a)[1] = 3;
  q.instrs.emplace_back(Opcode::POWER,
                        std::vector<Operand>{View::whole(r), View::whole(a), Scalar::of_int(3)});
  run_all(*engine, q);
  CHECK(data_of<int64_t>(r)[1] == 27);
}

TEST_CASE("element-wise: NumPy's integer division and modulo signs", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  const std::vector<int32_t> xs = {7, -7, 7, -7, 5, 0, INT32_MIN};
  const std::vector<int32_t> ys = {2, 2, -2, -2, 0, 3, -1};
  const std::vector<int32_t> floor_div = {3, -4, -4, 3, 0, 0, INT32_MIN};
  const std::vector<int32_t> mod = {1, 1, -1, -1, 0, 0, 0};
  const std::vector<int32_t> fmod = {1, -1, 1, -1, 0, 0, 0};
  const int64_t n = int64_t(xs.size());
  auto a = make_data_base("a", DType::INT32, n), b = make_data_base("b", DType::INT32, n);
  auto q = make_data_base("q", DType::INT32, n), m = make_data_base("m", DType::INT32, n);
  auto f = make_data_base("f", DType::INT32, n);
  for (int64_t i = 0; i < n; ++i) {
    data_of<int32_t>(a)[i] = xs[size_t(i)];
    data_of<int32_t>(b)[i] = ys[size_t(i)];
  }
  Program p;
  p.instrs.emplace_back(Opcode::FLOOR_DIVIDE,
                        std::vector<Operand>{View::whole(q), View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::MOD,
                        std::vector<Operand>{View::whole(m), View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::FMOD,
                        std::vector<Operand>{View::whole(f), View::whole(a), View::whole(b)});
  run_all(*engine, p);
  for (int64_t i = 0; i < n; ++i) {
    INFO(xs[size_t(i)] << " and " << ys[size_t(i)]);
    CHECK(data_of<int32_t>(q)[i] == floor_div[size_t(i)]);
    CHECK(data_of<int32_t>(m)[i] == mod[size_t(i)]);
    CHECK(data_of<int32_t>(f)[i] == fmod[size_t(i)]);
  }
}

TEST_CASE("element-wise: float floor division, modulo and rint by hand", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  const std::vector<double> xs = {7.5, -7.5, 7.5, 1.0, -0.5, 2.5, 3.5, -2.5};
  const std::vector<double> ys = {2, 2, -2, 0, 1, 1, 1, 1};
  auto a = make_data_base("a", DType::FLOAT64, 8), b = make_data_base("b", DType::FLOAT64, 8);
  auto q = make_data_base("q", DType::FLOAT64, 8), m = make_data_base("m", DType::FLOAT64, 8);
  auto r = make_data_base("r", DType::FLOAT64, 8);
  for (size_t i = 0; i < 8; ++i) {
    data_of<double>(a)[i] = xs[i];
    data_of<double>(b)[i] = ys[i];
  }
  Program p;
  p.instrs.emplace_back(Opcode::FLOOR_DIVIDE,
                        std::vector<Operand>{View::whole(q), View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::MOD,
                        std::vector<Operand>{View::whole(m), View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::RINT, std::vector<Operand>{View::whole(r), View::whole(a)});
  run_all(*engine, p);
  const double* Q = data_of<double>(q);
  const double* M = data_of<double>(m);
  const double* R = data_of<double>(r);
  CHECK(Q[0] == 3.0);
  CHECK(M[0] == 1.5);
  CHECK(Q[1] == -4.0);
  CHECK(M[1] == 0.5);
  CHECK(Q[2] == -4.0);
  CHECK(M[2] == -0.5);
  CHECK(std::isinf(Q[3]));
  CHECK(std::isnan(M[3]));
  CHECK(Q[4] == -1.0);
  CHECK(M[4] == 0.5);
  CHECK(R[5] == 2.0); // 2.5 rounds to even
  CHECK(R[6] == 4.0);
  CHECK(R[7] == -2.0);
}

TEST_CASE("element-wise: shifts by the width or more", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  auto a = make_data_base("a", DType::INT8, 4), r = make_data_base("r", DType::INT8, 4);
  auto l = make_data_base("l", DType::INT8, 4);
  const int8_t xs[4] = {-100, 100, -1, 5};
  for (int i = 0; i < 4; ++i) data_of<int8_t>(a)[i] = xs[i];
  Program p;
  p.instrs.emplace_back(Opcode::RIGHT_SHIFT, std::vector<Operand>{View::whole(r), View::whole(a),
                                                                  Scalar::of_int(8, DType::INT8)});
  p.instrs.emplace_back(Opcode::LEFT_SHIFT, std::vector<Operand>{View::whole(l), View::whole(a),
                                                                 Scalar::of_int(9, DType::INT8)});
  run_all(*engine, p);
  CHECK(data_of<int8_t>(r)[0] == -1);
  CHECK(data_of<int8_t>(r)[1] == 0);
  CHECK(data_of<int8_t>(r)[2] == -1);
  for (int i = 0; i < 4; ++i) CHECK(data_of<int8_t>(l)[i] == 0);
}

TEST_CASE("element-wise: float to integer casts truncate", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  auto a = make_data_base("a", DType::FLOAT64, 4);
  auto i8 = make_data_base("i8", DType::INT8, 4), u64 = make_data_base("u64", DType::UINT64, 4);
  auto bl = make_data_base("bl", DType::BOOL, 4);
  const double xs[4] = {-2.9, 2.9, 1e19, std::nan("")};
  for (int i = 0; i < 4; ++i) data_of<double>(a)[i] = xs[i];
  Program p;
  p.instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{View::whole(i8), View::whole(a)});
  p.instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{View::whole(u64), View::whole(a)});
  p.instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{View::whole(bl), View::whole(a)});
  run_all(*engine, p);
  CHECK(data_of<int8_t>(i8)[0] == -2);
  CHECK(data_of<int8_t>(i8)[1] == 2);
  CHECK(data_of<uint64_t>(u64)[1] == 2);
  CHECK(data_of<uint64_t>(u64)[2] == 10000000000000000000ull);
  CHECK(data_of<bool>(bl)[0]);
  CHECK(data_of<bool>(bl)[3]); // NaN is true
}

TEST_CASE("element-wise: WHERE of a condition computed in the same block (contracted)",
          "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  const int64_t n = 1000;
  auto a = make_data_base("a", DType::FLOAT32, n), b = make_data_base("b", DType::FLOAT32, n);
  auto r = make_data_base("r", DType::FLOAT32, n);
  auto k = make_temp_base("k", DType::BOOL, n);
  for (int64_t i = 0; i < n; ++i) {
    data_of<float>(a)[i] = float((i * 37) % 101) - 50.0f;
    data_of<float>(b)[i] = float((i * 53) % 97) - 48.0f;
  }
  Program p;
  p.instrs.emplace_back(Opcode::LESS,
                        std::vector<Operand>{View::whole(k), View::whole(a), View::whole(b)});
  p.instrs.emplace_back(Opcode::WHERE, std::vector<Operand>{View::whole(r), View::whole(k),
                                                            View::whole(a), View::whole(b)});
  run_all(*engine, p, {k.get()});
  CHECK(k->data == nullptr);
  for (int64_t i = 0; i < n; ++i)
    HS_REQUIRE_ELEMENT(data_of<float>(r)[i] == std::min(data_of<float>(a)[i], data_of<float>(b)[i]),
                       "where(a < b, a, b) at " << i);
}
