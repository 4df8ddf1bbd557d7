// Element-wise ops, casts and reductions as C expressions (see ops_source.h); each case names the
// CPU emitter whose semantics it reproduces.
#include "ve/gpu/ops_source.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace hassium::gpu {

namespace {
using Args = std::vector<std::string>;

int bits(DType t) {
  return dtype_size(t) * 8;
}
// The unsigned type integer arithmetic wraps in (no signed overflow, no promotion to int).
std::string wide(DType t) {
  return dtype_size(t) == 8 ? "hs_u64" : "hs_u32";
}
// The unsigned type of the same width.
std::string unsigned_of(DType t) {
  switch (dtype_size(t)) {
  case 1:
    return "hs_u8";
  case 2:
    return "hs_u16";
  case 4:
    return "hs_u32";
  default:
    return "hs_u64";
  }
}
std::string complex_suffix(DType t) {
  return t == DType::COMPLEX64 ? "hs_c64" : "hs_c128";
}
std::string wrap(DType t, const std::string& a, const char* op, const std::string& b) {
  return "((" + ctype(t) + ")((" + wide(t) + ")(" + a + ") " + op + " (" + wide(t) + ")(" + b +
         ")))";
}
std::string call(const std::string& fn, const Args& a) {
  std::string s = fn + "(";
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
  return s + ")";
}
std::string make_complex(DType t, const std::string& re, const std::string& im) {
  return "hs_make_" + complex_suffix(t) + "(" + re + ", " + im + ")";
}
std::string int_literal(DType t, int64_t v) {
  if (v == INT64_MIN) return "((" + ctype(t) + ")HS_I64_MIN)";
  return "((" + ctype(t) + ")" + std::to_string(v) + (dtype_size(t) == 8 ? "L" : "") + ")";
}
std::string unsigned_max(DType t) {
  return "((" + ctype(t) + ")~(" + ctype(t) + ")0)";
}
std::string signed_max(DType t) {
  return int_literal(t, int64_t((uint64_t(1) << (bits(t) - 1)) - 1));
}
std::string signed_min(DType t) {
  if (bits(t) == 64) return "HS_I64_MIN";
  return int_literal(t, -int64_t((uint64_t(1) << (bits(t) - 1))));
}
std::string infinity(DType t) {
  return t == DType::FLOAT32 ? "hs_f32_of(0x7F800000)" : "hs_f64_of(0x7FF0000000000000)";
}

std::string min_max(DType t, const std::string& x, const std::string& y, bool is_max) {
  if (t == DType::BOOL) return "((hs_bool)(" + x + (is_max ? " | " : " & ") + y + "))";
  if (is_float(t)) return call((is_max ? "hs_max_" : "hs_min_") + ctype(t), {x, y});
  return "((" + x + (is_max ? " > " : " < ") + y + ") ? " + x + " : " + y + ")";
}

// Integer magnitude as NumPy's gcd/lcm take it: the two's-complement negation in the type's
// width (the minimum stays itself), zero-extended to 64 bits.
std::string magnitude(DType t, const std::string& v) {
  if (!is_signed_int(t)) return "((hs_u64)" + v + ")";
  return "((hs_u64)(" + unsigned_of(t) + ")(" + v + " < 0 ? " + wrap(t, "0", "-", v) + " : " + v +
         "))";
}

std::string compare(const Args& a, const char* op) {
  return "((hs_bool)(" + a[0] + " " + op + " " + a[1] + "))";
}

bool is_complex_transcendental(Opcode op) {
  return op == Opcode::SQRT || op == Opcode::EXP || op == Opcode::LOG || op == Opcode::POWER;
}
} // namespace

std::string ctype(DType t) {
  switch (t) {
  case DType::BOOL:
    return "hs_bool";
  case DType::INT8:
    return "hs_i8";
  case DType::INT16:
    return "hs_i16";
  case DType::INT32:
    return "hs_i32";
  case DType::INT64:
    return "hs_i64";
  case DType::UINT8:
    return "hs_u8";
  case DType::UINT16:
    return "hs_u16";
  case DType::UINT32:
    return "hs_u32";
  case DType::UINT64:
    return "hs_u64";
  case DType::FLOAT32:
    return "hs_f32";
  case DType::FLOAT64:
    return "hs_f64";
  case DType::COMPLEX64:
    return "hs_c64";
  case DType::COMPLEX128:
    return "hs_c128";
  }
  return "?";
}

std::string literal(DType t, double v) {
  if (is_complex(t))
    return make_complex(t, literal(real_part_type(t), v), literal(real_part_type(t), 0));
  if (is_float(t)) {
    if (std::isinf(v)) return std::string(v < 0 ? "(-" : "(") + infinity(t) + ")";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return "((" + ctype(t) + ")" + s + ")";
  }
  return int_literal(t, int64_t(v));
}

std::string truthy(DType t, const std::string& v) {
  if (t == DType::BOOL) return v;
  if (is_complex(t)) return "((hs_bool)(" + v + ".re != 0 || " + v + ".im != 0))";
  return "((hs_bool)(" + v + " != 0))";
}

std::string convert(const std::string& v, DType from, DType to) {
  if (from == to) return v;
  if (to == DType::BOOL) return truthy(from, v);
  if (is_complex(from)) {
    DType rf = real_part_type(from);
    if (is_complex(to)) {
      DType rt = real_part_type(to);
      return make_complex(to, convert(v + ".re", rf, rt), convert(v + ".im", rf, rt));
    }
    return convert(v + ".re", rf, to);
  }
  if (is_complex(to))
    return make_complex(to, convert(v, from, real_part_type(to)), literal(real_part_type(to), 0));
  if (!is_float(from) || is_float(to)) return "((" + ctype(to) + ")(" + v + "))";
  // float -> integer (ve/cpu/ops_cast.cpp float_to_int)
  const std::string x = "(hs_f64)(" + v + ")";
  switch (to) {
  case DType::INT64:
    return "hs_cvt_i64(" + x + ")";
  case DType::UINT32:
    return "((hs_u32)hs_cvt_i64(" + x + "))";
  case DType::UINT64:
    return "hs_cvt_u64(" + x + ")";
  default:
    return "((" + ctype(to) + ")hs_cvt_i32(" + x + "))";
  }
}

bool elementwise_supported(Opcode op, DType in, DType, std::string* why) {
  if (op_info(op).family != Family::ELEMENTWISE) {
    if (why) *why = std::string(op_name(op)) + " is not element-wise";
    return false;
  }
  if (is_complex(in) && is_complex_transcendental(op)) {
    if (why)
      *why = std::string(op_name(op)) + " of " + std::string(dtype_name(in)) +
             " (complex sqrt/exp/log/power run on the CPU engine)";
    return false;
  }
  return true;
}

std::string elementwise_expr(Opcode op, DType in, DType out, const Args& a, std::string& pre) {
  const std::string T = ctype(in);
  const bool cx = is_complex(in), fl = is_float(in), sg = is_signed_int(in);
  const bool integer = is_integer(in);
  const std::string C = cx ? complex_suffix(in) : std::string();
  auto fn1 = [&](const char* f) { return call(f, {a[0]}); };
  // f(x) = x for tiny x (f(x) = x + O(x^2)): the correctly rounded value, which some OpenCL
  // libraries (PoCL's log1p) flush to 0 for subnormal x.
  auto near_identity = [&](const char* f) {
    const std::string tiny = in == DType::FLOAT32 ? "(hs_f32)1e-10" : "(hs_f64)1e-20";
    return "(fabs(" + a[0] + ") < " + tiny + " ? " + a[0] + " : " + call(f, {a[0]}) + ")";
  };
  switch (op) {
  case Opcode::ADD:
    if (in == DType::BOOL) return "((hs_bool)(" + a[0] + " | " + a[1] + "))";
    if (integer) return wrap(in, a[0], "+", a[1]);
    if (cx) return call("hs_add_" + C, a);
    return "(" + a[0] + " + " + a[1] + ")";
  case Opcode::SUBTRACT:
    if (integer) return wrap(in, a[0], "-", a[1]);
    if (cx) return call("hs_sub_" + C, a);
    return "(" + a[0] + " - " + a[1] + ")";
  case Opcode::MULTIPLY:
    if (in == DType::BOOL) return "((hs_bool)(" + a[0] + " & " + a[1] + "))";
    if (integer) return wrap(in, a[0], "*", a[1]);
    if (cx) return call("hs_mul_" + C, a);
    return "(" + a[0] + " * " + a[1] + ")";
  case Opcode::DIVIDE:
    if (cx) return call("hs_div_" + C, a);
    return "(" + a[0] + " / " + a[1] + ")";
  case Opcode::FLOOR_DIVIDE:
    return call("hs_floordiv_" + T, a);
  case Opcode::MOD:
    return call("hs_mod_" + T, a);
  case Opcode::FMOD:
    return fl ? call("fmod", a) : call("hs_fmod_" + T, a);
  case Opcode::POWER:
    if (fl) return call("pow", a);
    if (sg)
      pre += "if (" + a[1] + " < 0) hs_error(err, 2, " +
             std::to_string(int(Opcode::POWER) | (int(in) << 16)) + ", (hs_i64)" + a[1] + ", 0);\n";
    return call("hs_pow_" + T, a);
  case Opcode::MAXIMUM:
    return min_max(in, a[0], a[1], true);
  case Opcode::MINIMUM:
    return min_max(in, a[0], a[1], false);
  case Opcode::FMAX:
    return fl ? call("fmax", a) : min_max(in, a[0], a[1], true);
  case Opcode::FMIN:
    return fl ? call("fmin", a) : min_max(in, a[0], a[1], false);
  case Opcode::ARCTAN2:
    return call("atan2", a);
  case Opcode::HYPOT:
    return call("hypot", a);
  case Opcode::COPYSIGN:
    return call("copysign", a);
  case Opcode::NEXTAFTER: // a NaN operand propagates itself (glibc: x + y)
    return "((" + a[0] + " != " + a[0] + " || " + a[1] + " != " + a[1] + ") ? " + a[0] + " + " +
           a[1] + " : nextafter(" + a[0] + ", " + a[1] + "))";
  case Opcode::LOGADDEXP:
    return call("hs_logaddexp_" + T, {a[0], a[1], "0"});
  case Opcode::LOGADDEXP2:
    return call("hs_logaddexp_" + T, {a[0], a[1], "1"});
  case Opcode::HEAVISIDE:
    return call("hs_heaviside_" + T, a);
  case Opcode::GCD:
    return "((" + T + ")hs_gcd_u64(" + magnitude(in, a[0]) + ", " + magnitude(in, a[1]) + "))";
  case Opcode::LCM:
    return "((" + T + ")hs_lcm_u64(" + magnitude(in, a[0]) + ", " + magnitude(in, a[1]) + "))";
  case Opcode::LEFT_SHIFT:
  case Opcode::RIGHT_SHIFT: {
    const std::string n = "((hs_u64)(" + unsigned_of(in) + ")" + a[1] + ")";
    const std::string in_range = "(" + n + " < " + std::to_string(bits(in)) + ")";
    if (op == Opcode::LEFT_SHIFT)
      return "(" + in_range + " ? (" + T + ")((" + wide(in) + ")" + a[0] + " << " + n + ") : (" +
             T + ")0)";
    const std::string fill =
        sg ? "(" + a[0] + " < 0 ? (" + T + ")-1 : (" + T + ")0)" : "(" + T + ")0";
    return "(" + in_range + " ? (" + T + ")(" + a[0] + " >> " + n + ") : " + fill + ")";
  }
  case Opcode::BITWISE_AND:
    return "((" + T + ")(" + a[0] + " & " + a[1] + "))";
  case Opcode::BITWISE_OR:
    return "((" + T + ")(" + a[0] + " | " + a[1] + "))";
  case Opcode::BITWISE_XOR:
    return "((" + T + ")(" + a[0] + " ^ " + a[1] + "))";
  case Opcode::INVERT:
    if (in == DType::BOOL) return "((hs_bool)!" + a[0] + ")";
    return "((" + T + ")~" + a[0] + ")";
  case Opcode::LOGICAL_AND:
    return "((hs_bool)(" + truthy(in, a[0]) + " && " + truthy(in, a[1]) + "))";
  case Opcode::LOGICAL_OR:
    return "((hs_bool)(" + truthy(in, a[0]) + " || " + truthy(in, a[1]) + "))";
  case Opcode::LOGICAL_XOR:
    return "((hs_bool)(" + truthy(in, a[0]) + " != " + truthy(in, a[1]) + "))";
  case Opcode::LOGICAL_NOT:
    return "((hs_bool)!" + truthy(in, a[0]) + ")";
  case Opcode::EQUAL:
    if (cx)
      return "((hs_bool)(" + a[0] + ".re == " + a[1] + ".re && " + a[0] + ".im == " + a[1] +
             ".im))";
    return compare(a, "==");
  case Opcode::NOT_EQUAL:
    if (cx)
      return "((hs_bool)(" + a[0] + ".re != " + a[1] + ".re || " + a[0] + ".im != " + a[1] +
             ".im))";
    return compare(a, "!=");
  case Opcode::GREATER:
    return compare(a, ">");
  case Opcode::GREATER_EQUAL:
    return compare(a, ">=");
  case Opcode::LESS:
    return compare(a, "<");
  case Opcode::LESS_EQUAL:
    return compare(a, "<=");
  case Opcode::IDENTITY:
    return convert(a[0], in, out);
  case Opcode::NEGATIVE:
    if (integer) return wrap(in, "0", "-", a[0]);
    if (cx) return make_complex(in, "-" + a[0] + ".re", "-" + a[0] + ".im");
    return "(-" + a[0] + ")";
  case Opcode::ABSOLUTE:
    if (in == DType::BOOL || is_unsigned_int(in)) return a[0];
    if (sg) return "(" + a[0] + " < 0 ? " + wrap(in, "0", "-", a[0]) + " : " + a[0] + ")";
    if (cx) return call("hypot", {a[0] + ".re", a[0] + ".im"});
    return fn1("fabs");
  case Opcode::SIGN:
    if (is_unsigned_int(in)) return "((" + T + ")(" + a[0] + " != 0))";
    if (sg) return "((" + T + ")((" + a[0] + " > 0) - (" + a[0] + " < 0)))";
    return call("hs_sign_" + T, a);
  case Opcode::SQRT:
    return fn1("sqrt");
  case Opcode::CBRT:
    return fn1("cbrt");
  case Opcode::EXP:
    return fn1("exp");
  case Opcode::EXP2:
    return fn1("exp2");
  case Opcode::EXPM1:
    return near_identity("expm1");
  case Opcode::LOG:
    return fn1("log");
  case Opcode::LOG2:
    return fn1("log2");
  case Opcode::LOG10:
    return fn1("log10");
  case Opcode::LOG1P:
    return near_identity("log1p");
  case Opcode::SIN:
    return near_identity("sin");
  case Opcode::COS:
    return fn1("cos");
  case Opcode::TAN:
    return near_identity("tan");
  case Opcode::ARCSIN:
    return near_identity("asin");
  case Opcode::ARCCOS:
    return fn1("acos");
  case Opcode::ARCTAN:
    return near_identity("atan");
  case Opcode::SINH:
    return near_identity("sinh");
  case Opcode::COSH:
    return fn1("cosh");
  case Opcode::TANH:
    return near_identity("tanh");
  case Opcode::ARCSINH:
    return near_identity("asinh");
  case Opcode::ARCCOSH:
    return fn1("acosh");
  case Opcode::ARCTANH:
    return near_identity("atanh");
  case Opcode::FLOOR:
    return fn1("floor");
  case Opcode::CEIL:
    return fn1("ceil");
  case Opcode::TRUNC:
    return fn1("trunc");
  case Opcode::RINT:
    return fn1("rint");
  case Opcode::ISNAN:
    if (cx)
      return "((hs_bool)(" + a[0] + ".re != " + a[0] + ".re || " + a[0] + ".im != " + a[0] +
             ".im))";
    return "((hs_bool)(" + a[0] + " != " + a[0] + "))";
  case Opcode::ISINF: {
    const DType r = real_part_type(in);
    if (cx)
      return "((hs_bool)(fabs(" + a[0] + ".re) == " + infinity(r) + " || fabs(" + a[0] +
             ".im) == " + infinity(r) + "))";
    return "((hs_bool)(fabs(" + a[0] + ") == " + infinity(r) + "))";
  }
  case Opcode::ISFINITE: {
    const DType r = real_part_type(in);
    if (cx)
      return "((hs_bool)(fabs(" + a[0] + ".re) < " + infinity(r) + " && fabs(" + a[0] + ".im) < " +
             infinity(r) + "))";
    return "((hs_bool)(fabs(" + a[0] + ") < " + infinity(r) + "))";
  }
  case Opcode::SIGNBIT:
    return "((hs_bool)(" + std::string(in == DType::FLOAT32 ? "hs_bits_f32(" : "hs_bits_f64(") +
           a[0] + ") < 0))";
  case Opcode::SPACING:
    return call("hs_spacing_" + T, a);
  case Opcode::REAL:
    return a[0] + ".re";
  case Opcode::IMAG:
    return a[0] + ".im";
  case Opcode::CONJ:
    return make_complex(in, a[0] + ".re", "-" + a[0] + ".im");
  case Opcode::WHERE:
    return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << "no GPU expression for " << op_name(op);
  return {};
}

std::string at_expr(Opcode at_op, DType t, const std::string& cur, const std::string& v) {
  const std::optional<Opcode> op = at_combiner(at_op);
  HS_INTERNAL_ASSERT(op) << op_name(at_op) << " is not an accumulation";
  if (*op == Opcode::MULTIPLY && is_complex(t))
    return call("hs_mulplain_" + complex_suffix(t), {cur, v});
  std::string pre;
  return elementwise_expr(*op, t, t, {cur, v}, pre);
}

std::string reduce_identity(Opcode op, DType t) {
  switch (op) {
  case Opcode::ADD_REDUCE:
  case Opcode::ADD_ACCUMULATE:
  case Opcode::LOGICAL_OR_REDUCE:
  case Opcode::BITWISE_OR_REDUCE:
  case Opcode::LOGICAL_XOR_REDUCE:
  case Opcode::BITWISE_XOR_REDUCE:
    return literal(t, 0);
  case Opcode::MULTIPLY_REDUCE:
  case Opcode::MULTIPLY_ACCUMULATE:
    return literal(t, 1);
  case Opcode::LOGICAL_AND_REDUCE:
  case Opcode::BITWISE_AND_REDUCE:
    return t == DType::BOOL ? literal(t, 1) : unsigned_max(t);
  case Opcode::MINIMUM_REDUCE:
  case Opcode::MAXIMUM_REDUCE: {
    const bool largest = op == Opcode::MINIMUM_REDUCE;
    if (t == DType::BOOL) return literal(t, largest ? 1 : 0);
    if (is_float(t)) return literal(t, largest ? INFINITY : -INFINITY);
    if (is_unsigned_int(t)) return largest ? unsigned_max(t) : literal(t, 0);
    return largest ? signed_max(t) : signed_min(t);
  }
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << op_name(op) << " is not a reduction or scan";
  return {};
}

std::string reduce_combine(Opcode op, DType t, const std::string& acc, const std::string& x) {
  std::string pre;
  switch (op) {
  case Opcode::ADD_REDUCE:
  case Opcode::ADD_ACCUMULATE:
    return elementwise_expr(Opcode::ADD, t, t, {acc, x}, pre);
  case Opcode::MULTIPLY_REDUCE:
  case Opcode::MULTIPLY_ACCUMULATE:
    return elementwise_expr(Opcode::MULTIPLY, t, t, {acc, x}, pre);
  case Opcode::MINIMUM_REDUCE:
    return min_max(t, acc, x, false);
  case Opcode::MAXIMUM_REDUCE:
    return min_max(t, acc, x, true);
  case Opcode::LOGICAL_AND_REDUCE:
  case Opcode::BITWISE_AND_REDUCE:
    return "((" + ctype(t) + ")(" + acc + " & " + x + "))";
  case Opcode::LOGICAL_OR_REDUCE:
  case Opcode::BITWISE_OR_REDUCE:
    return "((" + ctype(t) + ")(" + acc + " | " + x + "))";
  case Opcode::LOGICAL_XOR_REDUCE:
  case Opcode::BITWISE_XOR_REDUCE:
    return "((" + ctype(t) + ")(" + acc + " ^ " + x + "))";
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << op_name(op) << " is not a reduction or scan";
  return {};
}

} // namespace hassium::gpu
