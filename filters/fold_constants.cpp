// fold_constants: element-wise operations on constants only -> an IDENTITY fill of the value.
//
// Contract: walking the program in order, a base is "uniform c" from an instruction that writes
// all of it (contiguous from element 0) with `IDENTITY X, c` until the next write to it or its
// FREE. An element-wise instruction whose inputs are all constants or views of uniform bases,
// and whose opcode this filter evaluates exactly as NumPy does for that dtype, becomes
// `IDENTITY OUT, value`. When only some inputs are uniform, they are replaced by their constant
// if the opcode is in the exact set (the engine then computes the same single operation, so
// not a bit changes; for others, e.g. SIN, a constant could be folded by LLVM with a different
// libm than the engine's vector code, so the view stays). Evaluated exactly:
//   bool:     ADD/MULTIPLY (or/and), MAXIMUM, MINIMUM, bitwise, logical, comparisons, INVERT;
//   integers: ADD, SUBTRACT, MULTIPLY, NEGATIVE (wrap-around), ABSOLUTE, SIGN, MAXIMUM,
//             MINIMUM, bitwise, logical, comparisons, INVERT, FLOOR_DIVIDE and MOD (non-zero
//             divisor, not MIN // -1), shifts by 0..bits-1;
//   floats:   ADD, SUBTRACT, MULTIPLY, DIVIDE, NEGATIVE, ABSOLUTE, SQRT (IEEE, correctly
//             rounded in the dtype), MAXIMUM/MINIMUM (NaN propagates; not a tie of -0 and +0),
//             comparisons, logical, FLOOR, CEIL, TRUNC, RINT, ISNAN, ISINF, ISFINITE;
//   IDENTITY casts from bool, integers and floats to bool, integers (floats: finite, in range)
//             and floats.
// An instruction whose inputs are all constant but that cannot be evaluated (a division by
// zero, a -0/+0 tie) is left as it was.
// Not evaluated (left to the engine, views kept): transcendental functions
// (libm and NumPy's SIMD code differ in the last bit), POWER, FMOD, float FLOOR_DIVIDE/MOD,
// everything complex. Reductions, scans and indexing keep their views.
// Complexity: O(operands).
#include <cmath>
#include <optional>
#include <unordered_map>

#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

namespace {

using O = Opcode;

std::optional<Scalar> eval_bool(Opcode op, bool a, bool b) {
  switch (op) {
  case O::ADD:
  case O::MAXIMUM:
  case O::BITWISE_OR:
  case O::LOGICAL_OR:
    return Scalar::of_bool(a || b);
  case O::MULTIPLY:
  case O::MINIMUM:
  case O::BITWISE_AND:
  case O::LOGICAL_AND:
    return Scalar::of_bool(a && b);
  case O::BITWISE_XOR:
  case O::LOGICAL_XOR:
  case O::NOT_EQUAL:
    return Scalar::of_bool(a != b);
  case O::EQUAL:
    return Scalar::of_bool(a == b);
  case O::GREATER:
    return Scalar::of_bool(a && !b);
  case O::GREATER_EQUAL:
    return Scalar::of_bool(a || !b);
  case O::LESS:
    return Scalar::of_bool(!a && b);
  case O::LESS_EQUAL:
    return Scalar::of_bool(!a || b);
  case O::INVERT:
  case O::LOGICAL_NOT:
    return Scalar::of_bool(!a);
  case O::IDENTITY:
    return Scalar::of_bool(a);
  default:
    return std::nullopt;
  }
}

// Integers: signed values sign-extended in int64, unsigned in uint64; results wrap by cast(t).
std::optional<Scalar> eval_int(Opcode op, DType t, const Scalar& x, const Scalar& y) {
  const bool sgn = is_signed_int(t);
  const int bits = dtype_size(t) * 8;
  const uint64_t a = x.as_uint(), b = y.as_uint();
  const int64_t sa = x.as_int(), sb = y.as_int();
  auto wrap = [&](uint64_t v) { return Scalar::of_uint(v).cast(t); };
  auto less = [&] { return sgn ? sa < sb : a < b; };
  auto eq = [&] { return a == b; };
  switch (op) {
  case O::ADD:
    return wrap(a + b);
  case O::SUBTRACT:
    return wrap(a - b);
  case O::MULTIPLY:
    return wrap(a * b);
  case O::NEGATIVE:
    return wrap(uint64_t(0) - a);
  case O::ABSOLUTE:
    return wrap(sgn && sa < 0 ? uint64_t(0) - a : a);
  case O::SIGN:
    return Scalar::of_int(sgn ? (sa > 0) - (sa < 0) : a > 0).cast(t);
  case O::MAXIMUM:
    return less() ? y : x;
  case O::MINIMUM:
    return less() ? x : y;
  case O::BITWISE_AND:
    return wrap(a & b);
  case O::BITWISE_OR:
    return wrap(a | b);
  case O::BITWISE_XOR:
    return wrap(a ^ b);
  case O::INVERT:
    return wrap(~a);
  case O::LOGICAL_AND:
    return Scalar::of_bool(a && b);
  case O::LOGICAL_OR:
    return Scalar::of_bool(a || b);
  case O::LOGICAL_XOR:
    return Scalar::of_bool((a != 0) != (b != 0));
  case O::LOGICAL_NOT:
    return Scalar::of_bool(a == 0);
  case O::EQUAL:
    return Scalar::of_bool(eq());
  case O::NOT_EQUAL:
    return Scalar::of_bool(!eq());
  case O::LESS:
    return Scalar::of_bool(less());
  case O::LESS_EQUAL:
    return Scalar::of_bool(less() || eq());
  case O::GREATER:
    return Scalar::of_bool(!less() && !eq());
  case O::GREATER_EQUAL:
    return Scalar::of_bool(!less());
  case O::FLOOR_DIVIDE:
  case O::MOD: {
    if (b == 0) return std::nullopt;
    if (!sgn) return wrap(op == O::MOD ? a % b : a / b);
    const int64_t smin = bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    if (sa == smin && sb == -1) return std::nullopt;
    int64_t q = sa / sb, r = sa % sb;
    if (r != 0 && ((r < 0) != (sb < 0))) {
      --q;
      r += sb;
    }
    return Scalar::of_int(op == O::MOD ? r : q).cast(t);
  }
  case O::LEFT_SHIFT:
  case O::RIGHT_SHIFT: {
    if (sgn ? (sb < 0 || sb >= bits) : b >= uint64_t(bits)) return std::nullopt;
    if (op == O::LEFT_SHIFT) return wrap(a << b);
    return sgn ? Scalar::of_int(sa >> sb).cast(t) : wrap(a >> b);
  }
  default:
    return std::nullopt;
  }
}

template <typename F> std::optional<Scalar> eval_float(Opcode op, DType t, F a, F b) {
  auto num = [&](F v) { return Scalar::of_float(double(v), t); };
  auto pred = [](bool v) { return Scalar::of_bool(v); };
  switch (op) {
  case O::ADD:
    return num(a + b);
  case O::SUBTRACT:
    return num(a - b);
  case O::MULTIPLY:
    return num(a * b);
  case O::DIVIDE:
    return num(a / b);
  case O::NEGATIVE:
    return num(-a);
  case O::ABSOLUTE:
    return num(std::fabs(a));
  case O::SQRT:
    return num(std::sqrt(a));
  case O::FLOOR:
    return num(std::floor(a));
  case O::CEIL:
    return num(std::ceil(a));
  case O::TRUNC:
    return num(std::trunc(a));
  case O::RINT:
    return num(std::nearbyint(a));
  case O::MAXIMUM:
  case O::MINIMUM:
    if (std::isnan(a)) return num(a);
    if (std::isnan(b)) return num(b);
    if (a == b && std::signbit(a) != std::signbit(b)) return std::nullopt;
    return num(op == O::MAXIMUM ? (a < b ? b : a) : (b < a ? b : a));
  case O::EQUAL:
    return pred(a == b);
  case O::NOT_EQUAL:
    return pred(a != b);
  case O::LESS:
    return pred(a < b);
  case O::LESS_EQUAL:
    return pred(a <= b);
  case O::GREATER:
    return pred(a > b);
  case O::GREATER_EQUAL:
    return pred(a >= b);
  case O::LOGICAL_AND:
    return pred(a != 0 && b != 0);
  case O::LOGICAL_OR:
    return pred(a != 0 || b != 0);
  case O::LOGICAL_XOR:
    return pred((a != 0) != (b != 0));
  case O::LOGICAL_NOT:
    return pred(a == 0);
  case O::ISNAN:
    return pred(std::isnan(a));
  case O::ISINF:
    return pred(std::isinf(a));
  case O::ISFINITE:
    return pred(std::isfinite(a));
  default:
    return std::nullopt;
  }
}

// IDENTITY x -> dtype `to`, where NumPy's cast equals the C++ conversion Scalar::cast does.
std::optional<Scalar> eval_cast(const Scalar& x, DType to) {
  if (is_complex(x.dtype) || is_complex(to)) return std::nullopt;
  if (is_float(x.dtype) && is_integer(to)) {
    double v = std::trunc(x.re);
    int bits = dtype_size(to) * 8;
    double lo = is_signed_int(to) ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = is_signed_int(to) ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
    if (!std::isfinite(v) || v < lo || v >= hi) return std::nullopt;
  }
  return x.cast(to);
}

// The value of an element-wise instruction whose inputs are all constants, or nullopt.
std::optional<Scalar> evaluate(const Instruction& ins) {
  DType out = ins.dtype(0);
  if (ins.op == O::IDENTITY) return eval_cast(ins.constant(1), out);
  const Scalar& x = ins.constant(1);
  const Scalar& y = ins.operands.size() > 2 ? ins.constant(2) : x;
  DType t = x.dtype;
  if (is_bool(t)) return eval_bool(ins.op, x.b, y.b);
  if (is_integer(t)) return eval_int(ins.op, t, x, y);
  if (t == DType::FLOAT64) return eval_float<double>(ins.op, t, x.re, y.re);
  if (t == DType::FLOAT32) return eval_float<float>(ins.op, t, float(x.re), float(y.re));
  return std::nullopt;
}

// The engine computes this opcode for these dtypes exactly as evaluate() would (one IEEE or
// integer operation), so a constant in place of a view input cannot change a bit. Tested by
// evaluating it on ones (no opcode of the exact set fails there).
bool exact_opcode(const Instruction& ins) {
  Instruction ones = ins;
  for (size_t k = 1; k < ones.operands.size(); ++k)
    ones.operands[k] = Scalar::of_int(1).cast(ins.dtype(k));
  return evaluate(ones).has_value();
}

} // namespace

Program fold_constants(Program p) {
  std::unordered_map<const Base*, Scalar> uniform;
  for (Instruction& ins : p.instrs) {
    if (ins.is_system()) {
      if (ins.op == O::FREE) uniform.erase(ins.out().base.get());
      continue;
    }
    const Base* out = ins.out().base.get();
    if (ins.info().family == Family::ELEMENTWISE) {
      Instruction c = ins;
      bool all_constant = true;
      for (size_t k = 1; k < c.operands.size(); ++k) {
        if (!c.is_view(k)) continue;
        auto it = uniform.find(c.view(k).base.get());
        if (it == uniform.end())
          all_constant = false;
        else
          c.operands[k] = it->second;
      }
      if (all_constant) {
        std::optional<Scalar> v = evaluate(c);
        if (v && v->dtype == ins.dtype(0)) ins = Instruction(O::IDENTITY, {ins.out(), *v});
      } else if (exact_opcode(c)) {
        ins = std::move(c);
      }
    }
    if (ins.op == O::IDENTITY && ins.is_constant(1) && ins.constant(1).dtype == ins.dtype(0) &&
        filters::covers_base(ins.out()))
      uniform[out] = ins.constant(1);
    else
      uniform.erase(out);
  }
  return p;
}

} // namespace hassium
