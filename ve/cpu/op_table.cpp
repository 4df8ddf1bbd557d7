// The one list of element-wise emitters, by opcode (reductions: ops_reduce.cpp).
#include <array>

#include "core/error.h"
#include "ve/cpu/ops.h"

namespace hassium::cpu {

namespace {
struct Entry {
  Opcode op;
  ElementwiseFn fn;
};

constexpr Entry kElementwise[] = {
    {Opcode::ADD, emit_add},
    {Opcode::SUBTRACT, emit_subtract},
    {Opcode::MULTIPLY, emit_multiply},
    {Opcode::DIVIDE, emit_divide},
    {Opcode::FLOOR_DIVIDE, emit_floor_divide},
    {Opcode::MOD, emit_mod},
    {Opcode::FMOD, emit_fmod},
    {Opcode::POWER, emit_power},
    {Opcode::MAXIMUM, emit_maximum},
    {Opcode::MINIMUM, emit_minimum},
    {Opcode::ARCTAN2, emit_arctan2},
    {Opcode::COPYSIGN, emit_copysign},
    {Opcode::FMAX, emit_fmax},
    {Opcode::FMIN, emit_fmin},
    {Opcode::LOGADDEXP, emit_logaddexp},
    {Opcode::LOGADDEXP2, emit_logaddexp2},
    {Opcode::HEAVISIDE, emit_heaviside},
    {Opcode::NEXTAFTER, emit_nextafter},
    {Opcode::GCD, emit_gcd},
    {Opcode::LCM, emit_lcm},
    {Opcode::CBRT, emit_cbrt},
    {Opcode::SIGNBIT, emit_signbit},
    {Opcode::SPACING, emit_spacing},
    {Opcode::HYPOT, emit_hypot},
    {Opcode::LEFT_SHIFT, emit_left_shift},
    {Opcode::RIGHT_SHIFT, emit_right_shift},
    {Opcode::BITWISE_AND, emit_bitwise_and},
    {Opcode::BITWISE_OR, emit_bitwise_or},
    {Opcode::BITWISE_XOR, emit_bitwise_xor},
    {Opcode::LOGICAL_AND, emit_logical_and},
    {Opcode::LOGICAL_OR, emit_logical_or},
    {Opcode::LOGICAL_XOR, emit_logical_xor},
    {Opcode::EQUAL, emit_equal},
    {Opcode::NOT_EQUAL, emit_not_equal},
    {Opcode::GREATER, emit_greater},
    {Opcode::GREATER_EQUAL, emit_greater_equal},
    {Opcode::LESS, emit_less},
    {Opcode::LESS_EQUAL, emit_less_equal},
    {Opcode::IDENTITY, emit_identity},
    {Opcode::NEGATIVE, emit_negative},
    {Opcode::ABSOLUTE, emit_absolute},
    {Opcode::SIGN, emit_sign},
    {Opcode::LOGICAL_NOT, emit_logical_not},
    {Opcode::INVERT, emit_invert},
    {Opcode::SQRT, emit_sqrt},
    {Opcode::EXP, emit_exp},
    {Opcode::EXP2, emit_exp2},
    {Opcode::EXPM1, emit_expm1},
    {Opcode::LOG, emit_log},
    {Opcode::LOG2, emit_log2},
    {Opcode::LOG10, emit_log10},
    {Opcode::LOG1P, emit_log1p},
    {Opcode::SIN, emit_sin},
    {Opcode::COS, emit_cos},
    {Opcode::TAN, emit_tan},
    {Opcode::ARCSIN, emit_arcsin},
    {Opcode::ARCCOS, emit_arccos},
    {Opcode::ARCTAN, emit_arctan},
    {Opcode::SINH, emit_sinh},
    {Opcode::COSH, emit_cosh},
    {Opcode::TANH, emit_tanh},
    {Opcode::ARCSINH, emit_arcsinh},
    {Opcode::ARCCOSH, emit_arccosh},
    {Opcode::ARCTANH, emit_arctanh},
    {Opcode::FLOOR, emit_floor},
    {Opcode::CEIL, emit_ceil},
    {Opcode::TRUNC, emit_trunc},
    {Opcode::RINT, emit_rint},
    {Opcode::ISNAN, emit_isnan},
    {Opcode::ISINF, emit_isinf},
    {Opcode::ISFINITE, emit_isfinite},
    {Opcode::REAL, emit_real},
    {Opcode::IMAG, emit_imag},
    {Opcode::CONJ, emit_conj},
    {Opcode::WHERE, emit_where},
};

// Indexed by opcode, built once from the list above.
const std::array<ElementwiseFn, 256>& table() {
  static const std::array<ElementwiseFn, 256> t = [] {
    std::array<ElementwiseFn, 256> a{};
    for (const Entry& entry : kElementwise) a[size_t(entry.op)] = entry.fn;
    return a;
  }();
  return t;
}
} // namespace

ElementwiseFn elementwise_emitter(Opcode op) {
  ElementwiseFn f = size_t(op) < table().size() ? table()[size_t(op)] : nullptr;
  HS_INTERNAL_ASSERT(f) << "no CPU emitter for " << op_name(op);
  return f;
}

namespace {
Val emit_multiply_at(Emitter& e, OpTypes t, std::span<const Val> a) {
  if (is_complex(t.in)) return complex_multiply_plain(e, t.in, a[0], a[1]);
  return emit_multiply(e, t, a);
}
} // namespace

ElementwiseFn at_emitter(Opcode at_op) {
  const std::optional<Opcode> op = at_combiner(at_op);
  HS_INTERNAL_ASSERT(op) << op_name(at_op) << " is not an accumulation";
  return *op == Opcode::MULTIPLY ? emit_multiply_at : elementwise_emitter(*op);
}

} // namespace hassium::cpu
