// Tests of ve/cpu/ops_*.cpp: every element-wise opcode on every signature the opcode table
// allows, over edge-case values of each dtype, against plain C++ implementations of NumPy's
// rules written here (independent of the IR emitters).
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

using namespace hassium;
using namespace hassium::test;

namespace {
template <typename T> struct Tag { using type = T; };

template <typename F> void with_type(DType t, F&& f) {
  switch (t) {
  case DType::BOOL:
    return f(Tag<bool>{});
  case DType::INT8:
    return f(Tag<int8_t>{});
  case DType::INT16:
    return f(Tag<int16_t>{});
  case DType::INT32:
    return f(Tag<int32_t>{});
  case DType::INT64:
    return f(Tag<int64_t>{});
  case DType::UINT8:
    return f(Tag<uint8_t>{});
  case DType::UINT16:
    return f(Tag<uint16_t>{});
  case DType::UINT32:
    return f(Tag<uint32_t>{});
  case DType::UINT64:
    return f(Tag<uint64_t>{});
  case DType::FLOAT32:
    return f(Tag<float>{});
  case DType::FLOAT64:
    return f(Tag<double>{});
  case DType::COMPLEX64:
    return f(Tag<std::complex<float>>{});
  case DType::COMPLEX128:
    return f(Tag<std::complex<double>>{});
  }
}

template <typename T> struct is_complex_t : std::false_type {};
template <typename R> struct is_complex_t<std::complex<R>> : std::true_type {};
template <typename T> constexpr bool is_cplx = is_complex_t<T>::value;
template <typename T> constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T> struct real_of { using type = T; };
template <typename R> struct real_of<std::complex<R>> { using type = R; };
template <typename T> using real_t = typename real_of<T>::type;

// Edge-case values of each dtype.
template <typename T> std::vector<T> samples() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (is_int<T>) {
    using L = std::numeric_limits<T>;
    const T w = T(sizeof(T) * 8);
    std::vector<T> v = {0,        1,  2, 3, 7, 13, T(w - 1), w, T(w + 1), L::max(), T(L::max() - 1),
                        L::min(), 100};
    if constexpr (std::is_signed_v<T>)
      v.insert(v.end(), {T(-1), T(-2), T(-7), T(-13), T(L::min() + 1)});
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    const T inf = std::numeric_limits<T>::infinity();
    return {
        0,  T(-0.0), 1,        -1,  T(2.5),  T(-2.5), T(0.5), 3,
        -7, T(1e10), T(0.001), 100, T(-3.5), inf,     -inf,   std::numeric_limits<T>::quiet_NaN()};
  } else {
    using R = real_t<T>;
    const R nan = std::numeric_limits<R>::quiet_NaN();
    return {T(0, 0),
            T(1, 0),
            T(0, 1),
            T(-1, 2),
            T(R(2.5), R(-0.5)),
            T(3, 4),
            T(R(-0.25), R(-7)),
            T(2, 0),
            T(-3, 0),
            T(nan, 0),
            T(R(0.5), R(0.5))};
  }
}

template <typename T> bool truthy(T x) {
  if constexpr (is_cplx<T>)
    return x.real() != 0 || x.imag() != 0;
  else
    return x != T(0);
}

// Wrapping integer arithmetic (no signed overflow UB).
template <typename T> T wrap_add(T a, T b) {
  return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
}
template <typename T> T wrap_sub(T a, T b) {
  return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));
}
template <typename T> T wrap_mul(T a, T b) {
  return T(uint64_t(std::make_unsigned_t<T>(a)) * uint64_t(std::make_unsigned_t<T>(b)));
}

template <typename R> std::complex<R> cmul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// NumPy's complex division (scale by the larger part of the divisor).
template <typename R> std::complex<R> cdiv(std::complex<R> a, std::complex<R> b) {
  R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if (std::fabs(br) >= std::fabs(bi)) {
    if (br == 0 && bi == 0) return {ar / std::fabs(br), ai / std::fabs(br)};
    R rat = bi / br, scl = R(1) / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  R rat = br / bi, scl = R(1) / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}

// Python's floor division and modulo for floats, as NumPy computes them.
template <typename R> std::pair<R, R> py_divmod(R a, R b) {
  R mod = std::fmod(a, b);
  if (b == 0) return {a / b, mod};
  R div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1;
    }
  } else {
    mod = std::copysign(R(0), b);
  }
  R floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > R(0.5)) floordiv += 1;
  } else {
    floordiv = std::copysign(R(0), a / b);
  }
  return {floordiv, mod};
}

template <typename T> std::optional<T> ref_same(Opcode op, T a, T b) {
  constexpr bool B = std::is_same_v<T, bool>, I = is_int<T>, F = std::is_floating_point_v<T>,
                 C = is_cplx<T>;
  switch (op) {
  case Opcode::ADD:
    if constexpr (B)
      return a || b;
    else if constexpr (I)
      return wrap_add(a, b);
    else
      return a + b;
  case Opcode::SUBTRACT:
    if constexpr (I)
      return wrap_sub(a, b);
    else if constexpr (F || C)
      return a - b;
    break;
  case Opcode::MULTIPLY:
    if constexpr (B)
      return a && b;
    else if constexpr (I)
      return wrap_mul(a, b);
    else if constexpr (F)
      return a * b;
    else
      return cmul(a, b);
  case Opcode::DIVIDE:
    if constexpr (F)
      return a / b;
    else if constexpr (C)
      return cdiv(a, b);
    break;
  case Opcode::FLOOR_DIVIDE:
    if constexpr (I) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return wrap_sub(T(0), a);
        T q = T(a / b), r = T(a % b);
        return (r != 0 && ((r < 0) != (b < 0))) ? T(q - 1) : q;
      }
      return T(a / b);
    } else if constexpr (F) {
      return b == 0 ? a / b : py_divmod(a, b).first;
    }
    break;
  case Opcode::MOD:
    if constexpr (I) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return T(0);
        T r = T(a % b);
        return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
      }
      return T(a % b);
    } else if constexpr (F) {
      return b == 0 ? std::fmod(a, b) : py_divmod(a, b).second;
    }
    break;
  case Opcode::FMOD:
    if constexpr (I) {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == -1) return T(0);
      return T(a % b);
    } else if constexpr (F) {
      return std::fmod(a, b);
    }
    break;
  case Opcode::POWER:
    if constexpr (I) {
      if constexpr (std::is_signed_v<T>)
        if (b < 0) return std::nullopt; // an error, tested on its own
      T r = 1, base = a;
      for (auto n = std::make_unsigned_t<T>(b); n; n >>= 1) {
        if (n & 1) r = wrap_mul(r, base);
        base = wrap_mul(base, base);
      }
      return r;
    } else if constexpr (F) {
      return std::pow(a, b);
    } else if constexpr (C) {
      if (a == T(0, 0) || std::isnan(a.real())) return std::nullopt; // NumPy's special cases
      if (b == T(0, 0)) return T(1, 0);
      return std::pow(a, b);
    }
    break;
  case Opcode::MAXIMUM:
  case Opcode::MINIMUM: {
    bool is_max = op == Opcode::MAXIMUM;
    if constexpr (B)
      return is_max ? (a || b) : (a && b);
    else if constexpr (I)
      return is_max ? std::max(a, b) : std::min(a, b);
    else if constexpr (F) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      return is_max ? (a >= b ? a : b) : (a <= b ? a : b);
    }
    break;
  }
  case Opcode::ARCTAN2:
    if constexpr (F) return std::atan2(a, b);
    break;
  case Opcode::HYPOT:
    if constexpr (F) return std::hypot(a, b);
    break;
  case Opcode::LEFT_SHIFT:
  case Opcode::RIGHT_SHIFT:
    if constexpr (I) {
      using U = std::make_unsigned_t<T>;
      const bool in_range = U(b) < sizeof(T) * 8;
      if (op == Opcode::LEFT_SHIFT) return in_range ? T(U(a) << U(b)) : T(0);
      if (in_range) return T(a >> U(b));
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      return T(0);
    }
    break;
  case Opcode::BITWISE_AND:
    if constexpr (B || I) return T(a & b);
    break;
  case Opcode::BITWISE_OR:
    if constexpr (B || I) return T(a | b);
    break;
  case Opcode::BITWISE_XOR:
    if constexpr (B || I) return T(a ^ b);
    break;
  case Opcode::NEGATIVE:
    if constexpr (I)
      return wrap_sub(T(0), a);
    else if constexpr (F || C)
      return -a;
    break;
  case Opcode::SIGN:
    if constexpr (I)
      return T((a > 0) - (a < 0));
    else if constexpr (F)
      return std::isnan(a) ? a : a > 0 ? T(1) : a < 0 ? T(-1) : T(0);
    break;
  case Opcode::INVERT:
    if constexpr (B)
      return !a;
    else if constexpr (I)
      return T(~a);
    break;
  case Opcode::CONJ:
    if constexpr (C) return std::conj(a);
    break;
  default:
    break;
  }
  if constexpr (F) {
    switch (op) {
    case Opcode::SQRT:
      return std::sqrt(a);
    case Opcode::EXP:
      return std::exp(a);
    case Opcode::EXP2:
      return std::exp2(a);
    case Opcode::EXPM1:
      return std::expm1(a);
    case Opcode::LOG:
      return std::log(a);
    case Opcode::LOG2:
      return std::log2(a);
    case Opcode::LOG10:
      return std::log10(a);
    case Opcode::LOG1P:
      return std::log1p(a);
    case Opcode::SIN:
      return std::sin(a);
    case Opcode::COS:
      return std::cos(a);
    case Opcode::TAN:
      return std::tan(a);
    case Opcode::ARCSIN:
      return std::asin(a);
    case Opcode::ARCCOS:
      return std::acos(a);
    case Opcode::ARCTAN:
      return std::atan(a);
    case Opcode::SINH:
      return std::sinh(a);
    case Opcode::COSH:
      return std::cosh(a);
    case Opcode::TANH:
      return std::tanh(a);
    case Opcode::ARCSINH:
      return std::asinh(a);
    case Opcode::ARCCOSH:
      return std::acosh(a);
    case Opcode::ARCTANH:
      return std::atanh(a);
    case Opcode::FLOOR:
      return std::floor(a);
    case Opcode::CEIL:
      return std::ceil(a);
    case Opcode::TRUNC:
      return std::trunc(a);
    case Opcode::RINT:
      return std::nearbyint(a);
    default:
      break;
    }
  }
  if constexpr (C) {
    switch (op) {
    case Opcode::SQRT:
      return std::sqrt(a);
    case Opcode::EXP:
      return std::exp(a);
    case Opcode::LOG:
      return std::log(a);
    default:
      break;
    }
  }
  FAIL("no reference for " << op_name(op));
  return std::nullopt;
}

template <typename T> bool ref_pred(Opcode op, T a, T b) {
  switch (op) {
  case Opcode::LOGICAL_AND:
    return truthy(a) && truthy(b);
  case Opcode::LOGICAL_OR:
    return truthy(a) || truthy(b);
  case Opcode::LOGICAL_XOR:
    return truthy(a) != truthy(b);
  case Opcode::LOGICAL_NOT:
    return !truthy(a);
  case Opcode::EQUAL:
    return a == b;
  case Opcode::NOT_EQUAL:
    return a != b;
  default:
    break;
  }
  if constexpr (!is_cplx<T>) {
    switch (op) {
    case Opcode::GREATER:
      return a > b;
    case Opcode::GREATER_EQUAL:
      return a >= b;
    case Opcode::LESS:
      return a < b;
    case Opcode::LESS_EQUAL:
      return a <= b;
    default:
      break;
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
    case Opcode::ISNAN:
      return std::isnan(a);
    case Opcode::ISINF:
      return std::isinf(a);
    case Opcode::ISFINITE:
      return std::isfinite(a);
    default:
      break;
    }
  }
  if constexpr (is_cplx<T>) {
    switch (op) {
    case Opcode::ISNAN:
      return std::isnan(a.real()) || std::isnan(a.imag());
    case Opcode::ISINF:
      return std::isinf(a.real()) || std::isinf(a.imag());
    case Opcode::ISFINITE:
      return std::isfinite(a.real()) && std::isfinite(a.imag());
    default:
      break;
    }
  }
  FAIL("no predicate reference for " << op_name(op));
  return false;
}

template <typename T> real_t<T> ref_to_real(Opcode op, T a) {
  if constexpr (is_cplx<T>) {
    if (op == Opcode::REAL) return a.real();
    if (op == Opcode::IMAG) return a.imag();
    return std::hypot(a.real(), a.imag());
  } else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return a;
  } else if constexpr (is_int<T>) {
    return a == std::numeric_limits<T>::min() ? a : T(a < 0 ? -a : a);
  } else {
    return std::fabs(a);
  }
}

// C casts; nullopt where C (and NumPy) leave the result undefined (float out of the target's
// range).
template <typename T, typename O> std::optional<O> ref_cast(T a) {
  if constexpr (std::is_same_v<O, bool>) {
    return truthy(a);
  } else if constexpr (is_cplx<T>) {
    if constexpr (is_cplx<O>)
      return O(real_t<O>(a.real()), real_t<O>(a.imag()));
    else
      return ref_cast<real_t<T>, O>(a.real());
  } else if constexpr (is_cplx<O>) {
    return O(real_t<O>(a), 0);
  } else if constexpr (std::is_floating_point_v<T> && is_int<O>) {
    if (!(a > T(-1) + T(std::numeric_limits<O>::min()) && a < T(std::numeric_limits<O>::max()) &&
          std::isfinite(a)))
      return std::nullopt;
    return O(a);
  } else {
    return O(a);
  }
}

template <typename T, typename O> std::optional<O> reference(Opcode op, T a, T b) {
  switch (op_info(op).rule) {
  case SigRule::SAME:
    if constexpr (std::is_same_v<T, O>) return ref_same<T>(op, a, b);
    break;
  case SigRule::PRED:
    if constexpr (std::is_same_v<O, bool>) return ref_pred<T>(op, a, b);
    break;
  case SigRule::TO_REAL:
    if constexpr (std::is_same_v<O, real_t<T>>) return ref_to_real<T>(op, a);
    break;
  case SigRule::CAST:
    return ref_cast<T, O>(a);
  default:
    break;
  }
  FAIL("bad signature for " << op_name(op));
  return std::nullopt;
}

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
} // namespace

TEST_CASE("element-wise: every opcode on every signature", "[ve][cpu][elementwise]") {
  auto engine = test_engine();
  int signatures = 0;
  for (const OpInfo& info : all_opcodes()) {
    if (info.family != Family::ELEMENTWISE) continue;
    for (const auto& sig : all_signatures(info.op)) {
      DType out = sig[0], in = sig[1];
      with_type(in, [&](auto ti) {
        with_type(out, [&](auto to) {
          using T = typename decltype(ti)::type;
          using O = typename decltype(to)::type;
          check_signature<T, O>(*engine, info.op, in, out);
        });
      });
      ++signatures;
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
