// Constants of the .hsb text format: reading literals, their natural dtype, fitting a dtype.
#include "ir/text/literal.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "ir/text/lexer.h"

namespace hassium {

namespace {
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// digits [. digits] [e [sign] digits], with at least one mantissa digit.
bool is_decimal(std::string_view s) {
  size_t i = 0, mantissa = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++mantissa;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mantissa;
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Inclusive range of an integer dtype, as (negative magnitude limit, positive limit).
struct IntRange {
  uint64_t neg; // largest magnitude allowed for a negative value
  uint64_t pos; // largest positive value
};
IntRange int_range(DType t) {
  int bits = dtype_size(t) * 8;
  if (is_unsigned_int(t)) return {0, bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1};
  uint64_t half = uint64_t(1) << (bits - 1);
  return {half, half - 1};
}

std::string range_text(DType t) {
  IntRange r = int_range(t);
  return (r.neg ? "-" + std::to_string(r.neg) : "0") + ".." + std::to_string(r.pos);
}

std::string not_fit(const Literal& lit, DType t, const std::string& why) {
  return "constant `" + printable(lit.text) + "` does not fit " + std::string(dtype_name(t)) +
         " (" + why + ")";
}

// A float value as an integer of dtype t, when it is one and in range.
std::optional<Literal> integral_value(double v, DType t) {
  if (!std::isfinite(v) || std::floor(v) != v) return std::nullopt;
  Literal l;
  l.negative = v < 0;
  double mag = std::fabs(v);
  if (mag >= 18446744073709551616.0) return std::nullopt;
  l.magnitude = uint64_t(mag);
  IntRange r = int_range(t);
  if (l.magnitude > (l.negative ? r.neg : r.pos)) return std::nullopt;
  return l;
}

Scalar int_scalar(const Literal& l, DType t) {
  if (is_unsigned_int(t)) return Scalar::of_uint(l.magnitude, t);
  int64_t v = l.negative ? int64_t(0 - l.magnitude) : int64_t(l.magnitude);
  return Scalar::of_int(v, t);
}

double int_as_double(const Literal& l) {
  double m = double(l.magnitude);
  return l.negative ? -m : m;
}

// A finite double that becomes infinite as float32 does not fit it.
bool fits_single(double v) {
  return !std::isfinite(v) || std::isfinite(float(v));
}
} // namespace

std::string read_real_literal(std::string_view text, Literal& out) {
  out = Literal{};
  out.text = std::string(text);
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "inf" || body == "nan") {
    out.kind = Literal::Kind::FLOAT;
    if (body == "nan")
      out.re = std::numeric_limits<double>::quiet_NaN(); // one NaN, no sign
    else
      out.re = negative ? -HUGE_VAL : HUGE_VAL;
    return "";
  }
  if (!body.empty() && body.find_first_not_of("0123456789") == std::string_view::npos) {
    uint64_t m = 0;
    for (char c : body) {
      uint64_t d = uint64_t(c - '0');
      if (m > (~uint64_t(0) - d) / 10) return "integer `" + printable(text) + "` is too large";
      m = m * 10 + d;
    }
    if (negative && m > (uint64_t(1) << 63))
      return "integer `" + printable(text) + "` is too small for int64";
    out.kind = Literal::Kind::INT;
    out.negative = negative && m != 0;
    out.magnitude = m;
    return "";
  }
  if (!is_decimal(body)) return "bad number `" + printable(text) + "`";
  std::string copy(body);
  double v = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(v)) return "number `" + printable(text) + "` is out of range for float64";
  out.kind = Literal::Kind::FLOAT;
  out.re = negative ? -v : v;
  return "";
}

DType natural_dtype(const Literal& lit) {
  switch (lit.kind) {
  case Literal::Kind::BOOL:
    return DType::BOOL;
  case Literal::Kind::INT:
    return lit.negative || lit.magnitude <= uint64_t(INT64_MAX) ? DType::INT64 : DType::UINT64;
  case Literal::Kind::FLOAT:
    return DType::FLOAT64;
  case Literal::Kind::COMPLEX:
    return DType::COMPLEX128;
  }
  return DType::FLOAT64;
}

DType natural_dtype(const Scalar& s) {
  if (is_bool(s.dtype)) return DType::BOOL;
  if (is_signed_int(s.dtype)) return DType::INT64;
  if (is_unsigned_int(s.dtype)) return s.u <= uint64_t(INT64_MAX) ? DType::INT64 : DType::UINT64;
  if (is_float(s.dtype)) return DType::FLOAT64;
  return DType::COMPLEX128;
}

std::string literal_to_scalar(const Literal& lit, DType t, Scalar& out) {
  using K = Literal::Kind;
  if (is_bool(t)) {
    if (lit.kind != K::BOOL) return not_fit(lit, t, "use true or false");
    out = Scalar::of_bool(lit.b);
    return "";
  }
  if (lit.kind == K::BOOL) return not_fit(lit, t, "a bool literal");
  if (lit.kind == K::COMPLEX && !is_complex(t)) return not_fit(lit, t, "a complex literal");
  if (is_integer(t)) {
    if (lit.kind == K::FLOAT) {
      auto l = integral_value(lit.re, t);
      if (!l) {
        bool integral = std::isfinite(lit.re) && std::floor(lit.re) == lit.re;
        return not_fit(lit, t, integral ? "range " + range_text(t) : "not an integer");
      }
      out = int_scalar(*l, t);
      return "";
    }
    IntRange r = int_range(t);
    if (lit.magnitude > (lit.negative ? r.neg : r.pos))
      return not_fit(lit, t, "range " + range_text(t));
    out = int_scalar(lit, t);
    return "";
  }
  double re = lit.kind == K::INT ? int_as_double(lit) : lit.re;
  double im = lit.kind == K::COMPLEX ? lit.im : 0.0;
  bool single = t == DType::FLOAT32 || t == DType::COMPLEX64;
  if (single && (!fits_single(re) || !fits_single(im))) return not_fit(lit, t, "out of range");
  out = is_float(t) ? Scalar::of_float(re, t) : Scalar::of_complex({re, im}, t);
  return "";
}

std::optional<DType> context_dtype(Opcode op, size_t position,
                                   std::span<const std::optional<DType>> known) {
  const OpInfo& info = op_info(op);
  if (info.operands < 0 || known.size() != size_t(info.operands) || position >= known.size())
    return std::nullopt;
  return expected_constant_dtype(op, int(position), known);
}

} // namespace hassium
