// NumPy's element-wise rules in plain C++ (no IR): the expected values of the CPU engine's
// element-wise tests, per opcode and dtype, with edge-case sample values for each dtype.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "core/opcode.h"

namespace hassium::test::numpy_ref {

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
  case Opcode::COPYSIGN:
    if constexpr (F) return std::copysign(a, b);
    break;
  case Opcode::FMAX:
  case Opcode::FMIN: {
    bool is_max = op == Opcode::FMAX;
    if constexpr (B)
      return is_max ? (a || b) : (a && b);
    else if constexpr (I)
      return is_max ? std::max(a, b) : std::min(a, b);
    else if constexpr (F) {
      if (a == b) return std::nullopt; // (which zero C's fmax gives for +-0 is open)
      return is_max ? std::fmax(a, b) : std::fmin(a, b);
    }
    break;
  }
  case Opcode::LOGADDEXP:
  case Opcode::LOGADDEXP2:
    if constexpr (F) { // npy_logaddexp, npy_logaddexp2
      const bool two = op == Opcode::LOGADDEXP2;
      if (a == b) return a + (two ? T(1) : T(0.6931471805599453));
      const T d = a - b;
      auto tail = [&](T x) {
        return two ? T(std::log1p(std::exp2(x)) * T(1.4426950408889634)) : std::log1p(std::exp(x));
      };
      if (d > 0) return a + tail(-d);
      if (d <= 0) return b + tail(d);
      return d;
    }
    break;
  case Opcode::HEAVISIDE:
    if constexpr (F)
      return std::isnan(a) ? std::numeric_limits<T>::quiet_NaN() : a < 0 ? T(0) : a == 0 ? b : T(1);
    break;
  case Opcode::NEXTAFTER:
    if constexpr (F) return std::nextafter(a, b);
    break;
  case Opcode::GCD:
  case Opcode::LCM:
    if constexpr (I) { // NumPy: on the magnitudes, as unsigned integers
      using U = std::make_unsigned_t<T>;
      auto mag = [](T v) { return v < 0 ? U(U(0) - U(v)) : U(v); };
      U x = mag(a), y = mag(b), g;
      {
        U p = x, q = y;
        while (p != 0) {
          U c = p;
          p = U(q % p);
          q = c;
        }
        g = q;
      }
      if (op == Opcode::GCD) return T(g);
      return T(g == 0 ? U(0) : U(U(x / g) * y));
    }
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
    case Opcode::CBRT:
      return std::cbrt(a);
    case Opcode::SPACING:
      if (std::isinf(a)) return std::numeric_limits<T>::quiet_NaN();
      return std::nextafter(a, a < 0 ? -std::numeric_limits<T>::infinity()
                                     : std::numeric_limits<T>::infinity()) -
             a;
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
    case Opcode::SIGNBIT:
      return std::signbit(a);
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

} // namespace hassium::test::numpy_ref
