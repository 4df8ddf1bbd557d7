// Ufuncs: the table of NumPy ufuncs hassium records, calls with out/where/dtype, reductions.
#include "bridge/python/ufunc.h"

#include "bridge/python/numpy_api.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <boost/container/small_vector.hpp>
#include <boost/container/static_vector.hpp>

#include "bridge/python/errors.h"
#include "bridge/python/indexing.h"
#include "core/error.h"

namespace hassium::python {

namespace {

using O = Opcode;
using R = Recipe;

std::vector<UfuncDef> build_table() {
  constexpr double deg = std::numbers::pi / 180.0;
  std::vector<UfuncDef> t = {
      // binary arithmetic
      {.name = "add",
       .nin = 2,
       .nout = 1,
       .op = O::ADD,
       .reduce_op = O::ADD_REDUCE,
       .accumulate_op = O::ADD_ACCUMULATE},
      {.name = "subtract", .nin = 2, .nout = 1, .op = O::SUBTRACT},
      {.name = "multiply",
       .nin = 2,
       .nout = 1,
       .op = O::MULTIPLY,
       .reduce_op = O::MULTIPLY_REDUCE,
       .accumulate_op = O::MULTIPLY_ACCUMULATE},
      {.name = "divide", .nin = 2, .nout = 1, .op = O::DIVIDE},
      {.name = "floor_divide", .nin = 2, .nout = 1, .op = O::FLOOR_DIVIDE},
      {.name = "remainder", .nin = 2, .nout = 1, .op = O::MOD},
      {.name = "fmod", .nin = 2, .nout = 1, .op = O::FMOD},
      {.name = "divmod", .nin = 2, .nout = 2, .op = O::FLOOR_DIVIDE, .recipe = R::divmod},
      {.name = "power", .nin = 2, .nout = 1, .op = O::POWER},
      {.name = "float_power", .nin = 2, .nout = 1, .op = O::POWER},
      {.name = "maximum", .nin = 2, .nout = 1, .op = O::MAXIMUM, .reduce_op = O::MAXIMUM_REDUCE},
      {.name = "minimum", .nin = 2, .nout = 1, .op = O::MINIMUM, .reduce_op = O::MINIMUM_REDUCE},
      {.name = "arctan2", .nin = 2, .nout = 1, .op = O::ARCTAN2},
      {.name = "hypot", .nin = 2, .nout = 1, .op = O::HYPOT},
      {.name = "copysign", .nin = 2, .nout = 1, .op = O::COPYSIGN},
      {.name = "fmax", .nin = 2, .nout = 1, .op = O::FMAX},
      {.name = "fmin", .nin = 2, .nout = 1, .op = O::FMIN},
      {.name = "logaddexp", .nin = 2, .nout = 1, .op = O::LOGADDEXP},
      {.name = "logaddexp2", .nin = 2, .nout = 1, .op = O::LOGADDEXP2},
      {.name = "heaviside", .nin = 2, .nout = 1, .op = O::HEAVISIDE},
      {.name = "nextafter", .nin = 2, .nout = 1, .op = O::NEXTAFTER},
      {.name = "gcd", .nin = 2, .nout = 1, .op = O::GCD},
      {.name = "lcm", .nin = 2, .nout = 1, .op = O::LCM},
      // bitwise and logical
      {.name = "left_shift", .nin = 2, .nout = 1, .op = O::LEFT_SHIFT},
      {.name = "right_shift", .nin = 2, .nout = 1, .op = O::RIGHT_SHIFT},
      {.name = "bitwise_and",
       .nin = 2,
       .nout = 1,
       .op = O::BITWISE_AND,
       .reduce_op = O::BITWISE_AND_REDUCE},
      {.name = "bitwise_or",
       .nin = 2,
       .nout = 1,
       .op = O::BITWISE_OR,
       .reduce_op = O::BITWISE_OR_REDUCE},
      {.name = "bitwise_xor",
       .nin = 2,
       .nout = 1,
       .op = O::BITWISE_XOR,
       .reduce_op = O::BITWISE_XOR_REDUCE},
      {.name = "logical_and",
       .nin = 2,
       .nout = 1,
       .op = O::LOGICAL_AND,
       .reduce_op = O::LOGICAL_AND_REDUCE},
      {.name = "logical_or",
       .nin = 2,
       .nout = 1,
       .op = O::LOGICAL_OR,
       .reduce_op = O::LOGICAL_OR_REDUCE},
      {.name = "logical_xor",
       .nin = 2,
       .nout = 1,
       .op = O::LOGICAL_XOR,
       .reduce_op = O::LOGICAL_XOR_REDUCE},
      // comparisons
      {.name = "equal", .nin = 2, .nout = 1, .op = O::EQUAL, .comparison = true},
      {.name = "not_equal", .nin = 2, .nout = 1, .op = O::NOT_EQUAL, .comparison = true},
      {.name = "greater", .nin = 2, .nout = 1, .op = O::GREATER, .comparison = true},
      {.name = "greater_equal", .nin = 2, .nout = 1, .op = O::GREATER_EQUAL, .comparison = true},
      {.name = "less", .nin = 2, .nout = 1, .op = O::LESS, .comparison = true},
      {.name = "less_equal", .nin = 2, .nout = 1, .op = O::LESS_EQUAL, .comparison = true},
      // unary
      {.name = "negative", .nin = 1, .nout = 1, .op = O::NEGATIVE},
      {.name = "positive", .nin = 1, .nout = 1, .op = O::IDENTITY, .recipe = R::copy},
      {.name = "absolute", .nin = 1, .nout = 1, .op = O::ABSOLUTE},
      {.name = "fabs", .nin = 1, .nout = 1, .op = O::ABSOLUTE},
      {.name = "sign", .nin = 1, .nout = 1, .op = O::SIGN},
      {.name = "logical_not", .nin = 1, .nout = 1, .op = O::LOGICAL_NOT},
      {.name = "invert", .nin = 1, .nout = 1, .op = O::INVERT},
      {.name = "sqrt", .nin = 1, .nout = 1, .op = O::SQRT},
      {.name = "cbrt", .nin = 1, .nout = 1, .op = O::CBRT},
      {.name = "signbit", .nin = 1, .nout = 1, .op = O::SIGNBIT},
      {.name = "spacing", .nin = 1, .nout = 1, .op = O::SPACING},
      {.name = "square", .nin = 1, .nout = 1, .op = O::MULTIPLY, .recipe = R::square},
      {.name = "reciprocal", .nin = 1, .nout = 1, .op = O::DIVIDE, .recipe = R::reciprocal},
      {.name = "exp", .nin = 1, .nout = 1, .op = O::EXP},
      {.name = "exp2", .nin = 1, .nout = 1, .op = O::EXP2},
      {.name = "expm1", .nin = 1, .nout = 1, .op = O::EXPM1},
      {.name = "log", .nin = 1, .nout = 1, .op = O::LOG},
      {.name = "log2", .nin = 1, .nout = 1, .op = O::LOG2},
      {.name = "log10", .nin = 1, .nout = 1, .op = O::LOG10},
      {.name = "log1p", .nin = 1, .nout = 1, .op = O::LOG1P},
      {.name = "sin", .nin = 1, .nout = 1, .op = O::SIN},
      {.name = "cos", .nin = 1, .nout = 1, .op = O::COS},
      {.name = "tan", .nin = 1, .nout = 1, .op = O::TAN},
      {.name = "arcsin", .nin = 1, .nout = 1, .op = O::ARCSIN},
      {.name = "arccos", .nin = 1, .nout = 1, .op = O::ARCCOS},
      {.name = "arctan", .nin = 1, .nout = 1, .op = O::ARCTAN},
      {.name = "sinh", .nin = 1, .nout = 1, .op = O::SINH},
      {.name = "cosh", .nin = 1, .nout = 1, .op = O::COSH},
      {.name = "tanh", .nin = 1, .nout = 1, .op = O::TANH},
      {.name = "arcsinh", .nin = 1, .nout = 1, .op = O::ARCSINH},
      {.name = "arccosh", .nin = 1, .nout = 1, .op = O::ARCCOSH},
      {.name = "arctanh", .nin = 1, .nout = 1, .op = O::ARCTANH},
      {.name = "floor", .nin = 1, .nout = 1, .op = O::FLOOR, .on_integral = OnIntegral::copy},
      {.name = "ceil", .nin = 1, .nout = 1, .op = O::CEIL, .on_integral = OnIntegral::copy},
      {.name = "trunc", .nin = 1, .nout = 1, .op = O::TRUNC, .on_integral = OnIntegral::copy},
      {.name = "rint", .nin = 1, .nout = 1, .op = O::RINT, .on_integral = OnIntegral::copy},
      {.name = "isnan", .nin = 1, .nout = 1, .op = O::ISNAN, .on_integral = OnIntegral::all_false},
      {.name = "isinf", .nin = 1, .nout = 1, .op = O::ISINF, .on_integral = OnIntegral::all_false},
      {.name = "isfinite",
       .nin = 1,
       .nout = 1,
       .op = O::ISFINITE,
       .on_integral = OnIntegral::all_true},
      {.name = "conjugate", .nin = 1, .nout = 1, .op = O::CONJ, .on_integral = OnIntegral::copy},
      {.name = "deg2rad",
       .nin = 1,
       .nout = 1,
       .op = O::MULTIPLY,
       .recipe = R::scale,
       .factor = deg},
      {.name = "radians",
       .nin = 1,
       .nout = 1,
       .op = O::MULTIPLY,
       .recipe = R::scale,
       .factor = deg},
      {.name = "rad2deg",
       .nin = 1,
       .nout = 1,
       .op = O::MULTIPLY,
       .recipe = R::scale,
       .factor = 1.0 / deg},
      {.name = "degrees",
       .nin = 1,
       .nout = 1,
       .op = O::MULTIPLY,
       .recipe = R::scale,
       .factor = 1.0 / deg},
  };
  for (size_t i = 0; i < t.size(); ++i) t[i].id = int(i);
  return t;
}

PyObject* g_fallback = nullptr;

constexpr size_t kNumOps = 0
#define HS_OPCODE(NAME, OPERANDS, FAMILY, RULE, TYPES) +1
#include "core/opcodes.def"
#undef HS_OPCODE
    ;

// Whether the opcode takes these dtypes (output first; 2 or 3 of them), memoized: it runs
// several times per recorded operation, and check_signature builds a message each time.
bool sig_ok(Opcode op, std::initializer_list<DType> types) {
  constexpr size_t kT = size_t(kNumDTypes) + 1;                // + "no operand"
  static std::vector<int8_t> memo(kNumOps * kT * kT * kT, -1); // -1 unknown, 0 no, 1 yes
  HS_INTERNAL_ASSERT(types.size() <= 3 && size_t(op) < kNumOps) << "sig_ok: bad query";
  size_t idx[3] = {kT - 1, kT - 1, kT - 1}, k = 0;
  for (DType t : types) idx[k++] = size_t(t);
  int8_t& m = memo[((size_t(op) * kT + idx[0]) * kT + idx[1]) * kT + idx[2]];
  if (m < 0) {
    std::vector<DType> v(types);
    m = check_signature(op, v).empty() ? 1 : 0;
  }
  return m == 1;
}

bool is_real_or_integral(DType t) {
  return !is_float(t) && !is_complex(t);
}

// Whether hassium can record the ufunc on this loop.
bool supported(const UfuncDef& u, const Loop& l) {
  DType a = l.in[0], b = l.in[1], o = l.out[0];
  switch (u.recipe) {
  case Recipe::op:
    if (u.nin == 2 ? sig_ok(u.op, {o, a, b}) : sig_ok(u.op, {o, a})) return true;
    if (u.on_integral == OnIntegral::none) return false;
    if (u.op == Opcode::CONJ) return !is_complex(a) && o == a;
    return is_real_or_integral(a);
  case Recipe::copy:
    return o == a;
  case Recipe::square:
    return sig_ok(Opcode::MULTIPLY, {o, a, a});
  case Recipe::reciprocal:
    return (is_float(a) || is_complex(a)) && sig_ok(Opcode::DIVIDE, {o, a, a});
  case Recipe::scale:
    return is_float(a) && sig_ok(Opcode::MULTIPLY, {o, a, a});
  case Recipe::divmod:
    return sig_ok(Opcode::FLOOR_DIVIDE, {l.out[0], a, b}) && sig_ok(Opcode::MOD, {l.out[1], a, b});
  }
  return false;
}

// Records the ufunc into the targets (one per output) from `ops`: the first target's view, then
// the prepared inputs (a vector from operand_storage(), moved into the instruction when the
// ufunc is its opcode).
void emit(const UfuncDef& u, const Loop& l, std::span<const View* const> targets,
          std::vector<Operand>& ops) {
  const View& t = *targets[0];
  if (t.size() == 0) return;
  const Operand& in0 = ops[1];
  switch (u.recipe) {
  case Recipe::op:
    if (u.nin == 2 ? sig_ok(u.op, {l.out[0], l.in[0], l.in[1]})
                   : sig_ok(u.op, {l.out[0], l.in[0]})) {
      record(u.op, std::move(ops));
      return;
    }
    switch (u.on_integral) {
    case OnIntegral::copy:
      record(Opcode::IDENTITY, {t, in0});
      return;
    case OnIntegral::all_false:
      record_fill(t, Scalar::of_bool(false));
      return;
    case OnIntegral::all_true:
      record_fill(t, Scalar::of_bool(true));
      return;
    case OnIntegral::none:
      break;
    }
    break;
  case Recipe::copy:
    record(Opcode::IDENTITY, {t, in0});
    return;
  case Recipe::square:
    record(Opcode::MULTIPLY, {t, in0, in0});
    return;
  case Recipe::reciprocal:
    record(Opcode::DIVIDE, {t, Scalar::of_int(1).cast(l.in[0]), in0});
    return;
  case Recipe::scale:
    record(Opcode::MULTIPLY, {t, in0, Scalar::of_float(u.factor, l.in[0])});
    return;
  case Recipe::divmod:
    record(Opcode::FLOOR_DIVIDE, {t, in0, ops[2]});
    record(Opcode::MOD, {*targets[1], in0, ops[2]});
    return;
  }
  HS_INTERNAL_ASSERT(false) << "ufunc " << u.name << " has no recording for its loop";
}

// A call after its arguments are parsed (inline storage: ufuncs take at most 2 inputs and give at
// most 2 outputs, so a call allocates nothing of its own).
struct Call {
  boost::container::static_vector<Arg, 2> ins;
  // The given outputs' arrays (null: allocate), referred to: the caller keeps them alive.
  boost::container::static_vector<const Array*, 2> outs;
  std::optional<Arg> where;
  std::optional<DType> dtype;
  Casting casting = Casting::same_kind;
};
// What apply() gives, one per output: the fresh output's array, or an empty Array where the call
// gave the output (its caller holds that one).
using Results = boost::container::static_vector<Array, 2>;

// Appends the input operand for an instruction writing `target`: a constant (already in the
// loop's type t), or the array cast to t, broadcast, and copied when it overlaps the target
// without being identical to it.
void add_input(std::vector<Operand>& ops, const Arg& a, const Scalar& constant, DType t,
               const View& target, std::vector<Array>& temps) {
  if (!a.is_array) {
    ops.emplace_back(constant);
    return;
  }
  const View& own = a.array().view;
  // The common input: the loop's dtype and the target's shape, the target itself or apart from it.
  if (a.array().dtype() == t && own.shape == target.shape &&
      !frontend::must_copy_input(own, target)) {
    ops.emplace_back(own);
    return;
  }
  View v = own;
  if (a.array().dtype() != t) {
    temps.push_back(copy_as(v, t));
    v = temps.back().view;
  }
  View b = broadcast_view(v, target.shape);
  if (frontend::must_copy_input(b, target)) {
    temps.push_back(copy_as(v, t));
    b = broadcast_view(temps.back().view, target.shape);
  }
  ops.emplace_back(std::move(b));
}

// NumPy's own exception (numpy._core._exceptions._UFuncOutputCastingError, a TypeError), with
// NumPy's message; a plain TypeError if NumPy's private class cannot be found.
[[noreturn]] void raise_output_cast(const UfuncDef& u, DType from, DType to, Casting c) {
  static const char* names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
  try {
    py::object cls =
        py::module_::import("numpy._core._exceptions").attr("_UFuncOutputCastingError");
    py::object err = cls(py::module_::import("numpy").attr(u.name), names[size_t(c)],
                         numpy_dtype(from), numpy_dtype(to), 0);
    PyErr_SetObject(cls.ptr(), err.ptr());
  } catch (py::error_already_set&) {
    raise_type_error("Cannot cast ufunc '" + std::string(u.name) + "' output from " +
                     dtype_repr(from) + " to " + dtype_repr(to) + " with casting rule '" +
                     names[size_t(c)] + "'");
  }
  throw py::error_already_set();
}

// The shape the inputs broadcast to, and (with outputs given) every given output's shape exactly.
// Inputs and given outputs of one shape, the common call, compare shapes and copy one.
Dims call_shape(const Call& c) {
  const Dims* first = nullptr;
  bool same = true, any_out = false;
  for (const Arg& a : c.ins) {
    if (!a.is_array) continue;
    if (!first) first = &a.array().shape();
    same &= a.array().shape() == *first;
  }
  if (same) { // (no array at all: every input 0-d)
    static const Dims none;
    const Dims& shape = first ? *first : none;
    bool outs_same = true;
    for (const Array* o : c.outs) outs_same &= !o || o->shape() == shape;
    if (outs_same) return shape;
  }
  for (const Array* o : c.outs) any_out |= o != nullptr;
  boost::container::small_vector<Dims, 4> shapes;
  for (const Arg& a : c.ins) shapes.push_back(a.shape());
  Dims bshape = broadcast_shapes({shapes.data(), shapes.size()});
  if (!any_out) return bshape;
  for (const Array* o : c.outs)
    if (o) shapes.push_back(o->shape());
  Dims full = broadcast_shapes({shapes.data(), shapes.size()});
  for (const Array* o : c.outs)
    if (o && o->shape() != full)
      raise_value_error("non-broadcastable output operand with shape " + shape_text(o->shape()) +
                        " doesn't match the broadcast shape " + shape_text(full));
  return full;
}

// Runs the call into `results` (empty at the call): one per output, its fresh array, or an empty
// Array where the call gave the output. False when hassium cannot (the caller goes to NumPy). Every
// call of a ufunc or operator takes this path; the common one (no casts, no broadcasting, a fresh
// output) skips each step's work by finding it a no-op.
bool apply(const UfuncDef& u, Call& c, Results& results) {
  TypeCode codes[2] = {c.ins[0].code, u.nin > 1 ? c.ins[1].code : TypeCode(0)};
  auto loop = resolve_loop(u.id, u.name, u.nin, u.nout, {codes, size_t(u.nin)}, c.dtype);
  if (!loop || !supported(u, *loop)) return false;
  Scalar constants[2]; // the constant inputs in the loop's types
  for (int i = 0; i < u.nin; ++i) {
    // (NumPy's resolution already checked that the inputs cast to the loop.)
    const Arg& a = c.ins[size_t(i)];
    // A Python int into a bool loop (the logical ufuncs) goes through a C long in NumPy: one
    // above INT64_MAX is an OverflowError there (below INT64_MIN never gets here: fallback).
    if (!a.is_array && a.code == kWeakInt && loop->in[size_t(i)] == DType::BOOL &&
        a.value.dtype == DType::UINT64)
      raise(PyExc_OverflowError, "Python int too large to convert to C long");
    if (a.is_array) continue;
    auto k = constant_for_loop(a, loop->in[size_t(i)]);
    if (!k) {
      if (u.comparison) return false; // NumPy compares out-of-range ints exactly
      raise_int_out_of_bounds(a, loop->in[size_t(i)]);
    }
    constants[i] = *k;
  }
  // NumPy refuses integer powers with negative integer exponents. A constant exponent is
  // checked here, at the call, as NumPy does; an array exponent when the engine computes it.
  if (u.op == Opcode::POWER && u.recipe == Recipe::op && is_integer(loop->in[1]) &&
      !c.ins[1].is_array) {
    if (is_signed_int(loop->in[1]) && constants[1].as_int() < 0)
      raise_value_error("Integers to negative integer powers are not allowed.");
  }
  const Dims bshape = call_shape(c);
  std::optional<View> mask;
  std::vector<Array> temps;
  if (c.where) {
    const Arg& w = *c.where;
    Dims ws[2] = {w.shape(), bshape};
    Dims wb;
    if (!shapes_broadcast(ws, wb) || wb != bshape)
      raise_value_error("operands could not be broadcast together with shapes " +
                        shape_text(w.shape()) + " " + shape_text(bshape) + " ");
    if (w.is_array) {
      View mv = w.array().view;
      if (w.array().dtype() != DType::BOOL) {
        temps.push_back(copy_as(mv, DType::BOOL));
        mv = temps.back().view;
      }
      mask = broadcast_view(mv, bshape);
    } else if (!w.value.as_bool()) {
      // where=False: nothing is written.
      for (int k = 0; k < u.nout; ++k)
        results.push_back(c.outs[size_t(k)] ? Array{} : new_array(loop->out[size_t(k)], bshape));
      return true;
    }
  }
  // Targets: the outputs themselves when their dtype is the loop's and no mask applies, else
  // temporaries copied over afterwards. divmod always uses temporaries (two writes).
  Results scratch;
  const View* out_views[2] = {nullptr, nullptr};
  bool direct[2] = {false, false};
  for (int k = 0; k < u.nout; ++k) {
    DType lt = loop->out[size_t(k)];
    const Array* o = c.outs[size_t(k)];
    if (o) {
      if (o->dtype() != lt && !can_cast(lt, o->dtype(), c.casting))
        raise_output_cast(u, lt, o->dtype(), c.casting);
      direct[k] = o->dtype() == lt && !mask && u.nout == 1;
      results.emplace_back();
      out_views[k] = &o->view;
    } else {
      results.push_back(new_array(lt, bshape));
      out_views[k] = &results.back().view;
      direct[k] = !mask;
    }
  }
  const View* tviews[2] = {nullptr, nullptr};
  for (int k = 0; k < u.nout; ++k) {
    if (!direct[k]) scratch.push_back(new_array(loop->out[size_t(k)], bshape));
    tviews[k] = direct[k] ? out_views[k] : &scratch.back().view;
  }
  std::vector<Operand> ops = operand_storage(size_t(u.nin) + 1);
  ops.emplace_back(*tviews[0]);
  for (int i = 0; i < u.nin; ++i)
    add_input(ops, c.ins[size_t(i)], constants[i], loop->in[size_t(i)], *tviews[0], temps);
  emit(u, *loop, {tviews, size_t(u.nout)}, ops);
  for (int k = 0; k < u.nout; ++k) {
    if (direct[k]) continue;
    const View& dst = *out_views[k];
    View src = *tviews[k];
    if (!mask) {
      record_copy(dst, src);
      continue;
    }
    if (dst.size() == 0) continue;
    if (src.dtype() != dst.dtype()) {
      temps.push_back(copy_as(src, dst.dtype()));
      src = temps.back().view;
    }
    Array idx = new_array(DType::INT64, bshape);
    record(Opcode::RANGE, {idx.view});
    record(Opcode::COND_SCATTER, {dst, src, idx.view, *mask});
  }
  return true;
}

// The worse of two classifications: not_implemented, then fallback, then ok.
ArgStatus worse(ArgStatus x, ArgStatus y) {
  if (x == ArgStatus::not_implemented || y == ArgStatus::not_implemented)
    return ArgStatus::not_implemented;
  return x == ArgStatus::ok ? y : x;
}

// The inputs of a call without keywords (b ignored for a unary u), classified into c; fresh
// outputs. The worst status.
ArgStatus classify_inputs(const UfuncDef& u, py::handle a, py::handle b, Call& c) {
  c.ins.resize(size_t(u.nin));
  c.outs.resize(size_t(u.nout));
  ArgStatus s = classify(a, c.ins[0]);
  if (u.nin == 2) s = worse(s, classify(b, c.ins[1]));
  return s;
}

// The Python result of a call's fresh outputs: one array, or a tuple (divmod). A 0-d result is
// what NumPy would give as a scalar.
py::object fresh_results(const UfuncDef& u, Results& res) {
  for (Array& r : res) r.scalar = r.ndim() == 0;
  if (u.nout == 1) return wrap(std::move(res[0]));
  py::tuple t(size_t(u.nout));
  for (int k = 0; k < u.nout; ++k) t[size_t(k)] = wrap(std::move(res[size_t(k)]));
  return t;
}

// u(a, b) (u(a) for a unary u) without keywords, as operators, plain ufunc calls and NumPy's
// __array_ufunc__ make it: classified, then apply(). nullopt when an input is not ok (`status`
// says how) or hassium cannot apply the call.
std::optional<py::object> call_inputs(const UfuncDef& u, py::handle a, py::handle b,
                                      ArgStatus& status) {
  Call c;
  status = classify_inputs(u, a, b, c);
  if (status != ArgStatus::ok) return std::nullopt;
  Results res;
  if (!apply(u, c, res)) return std::nullopt;
  return fresh_results(u, res);
}

Call parse_call(const UfuncDef& u, py::args args, py::kwargs kwargs, bool& ok,
                std::vector<py::object>& out_objs) {
  Call c;
  ok = false;
  size_t nargs = args.size();
  if (nargs < size_t(u.nin) || nargs > size_t(u.nin + u.nout)) return c;
  for (int i = 0; i < u.nin; ++i) {
    Arg a;
    if (classify(args[size_t(i)], a) != ArgStatus::ok) return c;
    c.ins.push_back(std::move(a));
  }
  out_objs.assign(size_t(u.nout), py::none());
  for (size_t i = size_t(u.nin); i < nargs; ++i) out_objs[i - size_t(u.nin)] = args[i];
  for (auto item : kwargs) {
    std::string key = py::str(item.first);
    py::handle v = item.second;
    if (key == "out") {
      if (nargs > size_t(u.nin)) return c; // NumPy's error for out given twice
      if (py::isinstance<py::tuple>(v)) {
        auto t = py::reinterpret_borrow<py::tuple>(v);
        if (t.size() != size_t(u.nout)) return c;
        for (size_t k = 0; k < t.size(); ++k) out_objs[k] = t[k];
      } else {
        if (u.nout != 1) return c;
        out_objs[0] = py::reinterpret_borrow<py::object>(v);
      }
    } else if (key == "where") {
      if (v.ptr() == Py_True) continue;
      Arg w;
      if (classify(v, w) != ArgStatus::ok) return c;
      c.where = std::move(w);
    } else if (key == "dtype") {
      if (v.is_none()) continue;
      auto t = dtype_from_arg(v);
      if (!t) return c;
      c.dtype = t;
    } else if (key == "casting") {
      auto cs = parse_casting(py::str(v).cast<std::string>());
      if (!cs) return c;
      c.casting = *cs;
    } else if (key == "order") {
      std::string o = py::str(v);
      if (o != "K" && o != "C" && o != "A") return c;
    } else if (key == "subok") {
      continue;
    } else {
      return c; // signature, axes, ...: NumPy
    }
  }
  for (auto& o : out_objs) {
    if (o.is_none()) {
      c.outs.push_back(nullptr);
    } else if (is_ndarray(o)) {
      c.outs.push_back(&array_of(o));
    } else if (is_masked_selection(o)) { // x[mask] as out: the compressed array, updated
      o = materialize(o);
      c.outs.push_back(&array_of(o));
    } else {
      return c; // a NumPy array as out: NumPy writes it
    }
  }
  ok = true;
  return c;
}

py::object numpy_ufunc(const UfuncDef& u) {
  static auto* known = new std::vector<PyObject*>(ufunc_table().size(), nullptr); // (kept)
  PyObject*& f = (*known)[size_t(u.id)];
  if (!f) f = py::object(py::module_::import("numpy").attr(u.name)).release().ptr();
  return py::reinterpret_borrow<py::object>(f);
}

py::object results_object(const UfuncDef& u, Results& res,
                          const std::vector<py::object>& out_objs) {
  py::tuple t(size_t(u.nout));
  for (int k = 0; k < u.nout; ++k) {
    if (!out_objs[size_t(k)].is_none()) {
      t[size_t(k)] = out_objs[size_t(k)];
    } else {
      res[size_t(k)].scalar = res[size_t(k)].ndim() == 0;
      t[size_t(k)] = wrap(std::move(res[size_t(k)]));
    }
  }
  if (u.nout == 1) return t[0];
  return t;
}

} // namespace

const std::vector<UfuncDef>& ufunc_table() {
  static const std::vector<UfuncDef> t = build_table();
  return t;
}

const UfuncDef* find_ufunc(std::string_view name) {
  for (const auto& u : ufunc_table())
    if (name == u.name) return &u;
  return nullptr;
}

const UfuncDef& ufunc(std::string_view name) {
  const UfuncDef* u = find_ufunc(name);
  HS_INTERNAL_ASSERT(u) << "no ufunc " << name;
  return *u;
}

void set_fallback_hook(py::object fn) {
  Py_XDECREF(g_fallback);
  g_fallback = fn.release().ptr();
}

py::object call_fallback(const char* name, const char* method, py::tuple args, py::dict kwargs) {
  HS_INTERNAL_ASSERT(g_fallback) << "the hassium package did not install its fallback hook";
  return py::reinterpret_borrow<py::object>(g_fallback)(name, method, args, kwargs);
}

namespace {
// ufunc(*args, **kwargs) with keywords (out=, where=, dtype=, casting=, ...): parsed, applied,
// else NumPy.
py::object keyword_call(const UfuncDef& u, py::args args, py::kwargs kwargs) {
  bool ok = false;
  std::vector<py::object> out_objs;
  Call c = parse_call(u, args, kwargs, ok, out_objs);
  if (ok) {
    bool any_array = false;
    for (const auto& a : c.ins) any_array |= a.is_array;
    bool any_out = false;
    for (const Array* o : c.outs) any_out |= o != nullptr;
    // Scalars only: NumPy computes them exactly as NumPy does, returning NumPy scalars.
    if (!any_array && !any_out && !c.where) return numpy_ufunc(u)(*args, **kwargs);
    if (Results res; apply(u, c, res)) return results_object(u, res, out_objs);
  }
  return call_fallback(u.name, "__call__", args, kwargs);
}
} // namespace

py::object ufunc_call(const UfuncDef& u, py::args args, py::kwargs kwargs) {
  if (kwargs.empty()) return ufunc_call(u, std::move(args));
  return keyword_call(u, std::move(args), std::move(kwargs));
}

py::object ufunc_call(const UfuncDef& u, py::args args) {
  if (args.size() == size_t(u.nin)) {
    PyObject* t = args.ptr();
    Call c;
    if (classify_inputs(u, PyTuple_GET_ITEM(t, 0), u.nin > 1 ? PyTuple_GET_ITEM(t, 1) : nullptr,
                        c) == ArgStatus::ok) {
      bool any_array = false;
      for (const Arg& a : c.ins) any_array |= a.is_array;
      // Scalars only (np.tanh(a[i, i]) in an element loop): NumPy's own scalar, straight away.
      if (!any_array) {
        PyObject* r = PyObject_Call(numpy_ufunc(u).ptr(), t, nullptr);
        if (!r) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(r);
      }
      if (Results res; apply(u, c, res)) return fresh_results(u, res);
      return call_fallback(u.name, "__call__", args, py::dict());
    }
  }
  return keyword_call(u, std::move(args), py::kwargs());
}

namespace {
PyObject* g_array_ufunc_general = nullptr; // hassium._methods._array_ufunc_general (kept)

// The hassium ufunc of a NumPy ufunc object, by identity (cached with a reference to the key),
// or null when hassium records none of that name.
const UfuncDef* hassium_ufunc_of(PyObject* numpy_ufunc) {
  static auto* known = new std::vector<std::pair<PyObject*, const UfuncDef*>>;
  for (const auto& [k, u] : *known)
    if (k == numpy_ufunc) return u;
  py::object name = py::getattr(numpy_ufunc, "__name__", py::none());
  const UfuncDef* u = PyUnicode_Check(name.ptr()) ? find_ufunc(name.cast<std::string>()) : nullptr;
  Py_INCREF(numpy_ufunc);
  known->emplace_back(numpy_ufunc, u);
  return u;
}

// ndarray.__array_ufunc__(self, ufunc, method, *inputs, **kwargs) as a METH_FASTCALL method.
PyObject* array_ufunc_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames) {
  return call_in_slot<PyObject*>(nullptr, [&]() -> PyObject* {
    if (nargs >= 2 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) && PyUnicode_Check(args[1]) &&
        PyUnicode_CompareWithASCIIString(args[1], "__call__") == 0) {
      const UfuncDef* u = hassium_ufunc_of(args[0]);
      ArgStatus status;
      if (u && nargs - 2 == u->nin)
        if (auto r = call_inputs(*u, args[2], u->nin > 1 ? args[3] : nullptr, status))
          return r->release().ptr();
    }
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    std::vector<PyObject*> all(size_t(1 + nargs + nkw));
    all[0] = self;
    std::copy(args, args + nargs + nkw, all.begin() + 1);
    PyObject* r =
        PyObject_Vectorcall(g_array_ufunc_general, all.data(), size_t(1 + nargs), kwnames);
    if (!r) throw py::error_already_set();
    return r;
  });
}

PyMethodDef g_array_ufunc_def = {
    "__array_ufunc__",
    reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(array_ufunc_method)),
    METH_FASTCALL | METH_KEYWORDS, "NumPy's ufunc override: the call recorded by hassium."};
} // namespace

void install_array_ufunc(py::handle ndarray_type, py::object general) {
  Py_XDECREF(g_array_ufunc_general);
  g_array_ufunc_general = general.release().ptr();
  auto* type = reinterpret_cast<PyTypeObject*>(ndarray_type.ptr());
  py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &g_array_ufunc_def));
  if (!descr) throw py::error_already_set();
  if (PyObject_SetAttrString(ndarray_type.ptr(), "__array_ufunc__", descr.ptr()) < 0)
    throw py::error_already_set();
}

py::object binary_operator(const UfuncDef& u, py::handle a, py::handle b) {
  ArgStatus status;
  if (auto r = call_inputs(u, a, b, status)) return std::move(*r);
  if (status == ArgStatus::not_implemented)
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return call_fallback(u.name, "__call__", py::make_tuple(a, b), py::dict());
}

namespace {
// u(a, b) (u(a) for a unary u) written into a through apply(), else NumPy's u with out=a: the
// path of the in-place operators; NotImplemented for a b hassium and NumPy do not know.
py::object apply_in_place(const UfuncDef& u, py::handle a, py::handle b) {
  Call c;
  const ArgStatus status = classify_inputs(u, a, b, c);
  if (status == ArgStatus::not_implemented)
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  c.outs[0] = &array_of(a);
  Results ignored;
  if (status == ArgStatus::ok && apply(u, c, ignored)) return py::reinterpret_borrow<py::object>(a);
  py::dict kw;
  kw["out"] = py::make_tuple(a);
  py::tuple args = u.nin == 2 ? py::tuple(py::make_tuple(a, b)) : py::tuple(py::make_tuple(a));
  call_fallback(u.name, "__call__", args, kw);
  return py::reinterpret_borrow<py::object>(a);
}

// s op= b for s a NumPy-scalar-like 0-d array that only the interpreter's stack holds, alone on
// its base (the temporary of a[i, j] -= b): written in place when s op b would be a 0-d array of
// s's dtype (no one can see the difference, and it saves a base and its FREE). False: not done.
bool scalar_in_place(const UfuncDef& u, py::handle s, py::handle b) {
  const Array& sa = array_of(s);
  if (Py_REFCNT(s.ptr()) != 1 || sa.owner.use_count() != 1 || u.nin != 2 || u.nout != 1)
    return false;
  Call c;
  if (classify_inputs(u, s, b, c) != ArgStatus::ok) return false;
  if (c.ins[1].is_array && c.ins[1].array().ndim() != 0) return false;
  const TypeCode codes[2] = {c.ins[0].code, c.ins[1].code};
  auto loop = resolve_loop(u.id, u.name, 2, 1, codes, std::nullopt);
  if (!loop || loop->out[0] != sa.dtype()) return false;
  c.outs[0] = &sa;
  Results ignored;
  return apply(u, c, ignored);
}
} // namespace

py::object inplace_operator(const UfuncDef& u, py::handle a, py::handle b) {
  // NumPy's scalars are immutable: s += 1 makes a new scalar (of the promoted type), and other
  // names for the old one keep its value (but see scalar_in_place).
  if (is_ndarray(a) && array_of(a).scalar) {
    if (scalar_in_place(u, a, b)) return py::reinterpret_borrow<py::object>(a);
    return binary_operator(u, a, b);
  }
  return apply_in_place(u, a, b);
}

namespace {
// The ufunc NumPy's array_power calls for a ** b (see power_operator).
const UfuncDef& power_ufunc_for(py::handle a, py::handle b) {
  static const UfuncDef &power = ufunc("power"), &square = ufunc("square"),
                        &reciprocal = ufunc("reciprocal"), &sqrt = ufunc("sqrt");
  if (!is_ndarray(a)) return power;
  const DType t = array_of(a).dtype();
  if (!is_float(t) && !is_complex(t)) return power;
  PyObject* p = b.ptr();
  if (PyLong_CheckExact(p)) {
    int overflow = 0;
    const long e = PyLong_AsLongAndOverflow(p, &overflow);
    if (overflow == 0 && e == 2) return square;
    if (overflow == 0 && e == -1) return reciprocal;
  } else if (PyFloat_CheckExact(p) && PyFloat_AS_DOUBLE(p) == 0.5) {
    return sqrt;
  }
  return power;
}
} // namespace

py::object power_operator(py::handle a, py::handle b) {
  const UfuncDef& u = power_ufunc_for(a, b);
  return u.nin == 1 ? unary_operator(u, a) : binary_operator(u, a, b);
}

py::object inplace_power_operator(py::handle a, py::handle b) {
  const UfuncDef& u = power_ufunc_for(a, b);
  if (u.nin == 2) return inplace_operator(u, a, b);
  if (array_of(a).scalar) return unary_operator(u, a); // NumPy's scalars are immutable
  return apply_in_place(u, a, py::handle());
}

py::object unary_operator(const UfuncDef& u, py::handle a) {
  ArgStatus status;
  if (auto r = call_inputs(u, a, py::handle(), status)) return std::move(*r);
  return call_fallback(u.name, "__call__", py::make_tuple(a), py::dict());
}

namespace {

std::optional<Scalar> reduce_identity(Opcode op, DType t) {
  switch (op) {
  case Opcode::ADD_REDUCE:
  case Opcode::BITWISE_OR_REDUCE:
  case Opcode::BITWISE_XOR_REDUCE:
  case Opcode::LOGICAL_OR_REDUCE:
  case Opcode::LOGICAL_XOR_REDUCE:
    return Scalar::of_int(0).cast(t);
  case Opcode::MULTIPLY_REDUCE:
    return Scalar::of_int(1).cast(t);
  case Opcode::LOGICAL_AND_REDUCE:
    return Scalar::of_bool(true).cast(t);
  case Opcode::BITWISE_AND_REDUCE:
    return Scalar::of_int(-1).cast(t);
  default:
    return std::nullopt;
  }
}

Dims without(const Dims& d, int axis) {
  Dims r;
  for (int k = 0; k < int(d.size()); ++k)
    if (k != axis) r.push_back(d[size_t(k)]);
  return r;
}

// Axes from None / int / tuple of ints, normalized; raises AxisError and NumPy's duplicate error.
std::vector<int> parse_axes(py::handle axis, int ndim) {
  std::vector<int> axes;
  if (axis.is_none()) {
    for (int k = 0; k < ndim; ++k) axes.push_back(k);
    return axes;
  }
  if (py::isinstance<py::tuple>(axis) || py::isinstance<py::list>(axis)) {
    for (auto a : axis) axes.push_back(normalize_axis(index_value(a), ndim));
  } else {
    axes.push_back(normalize_axis(index_value(axis), ndim));
  }
  std::vector<int> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    raise_value_error("duplicate value in 'axis'");
  return axes;
}

// The operand as an Array (a constant becomes a 0-d array).
std::optional<Array> as_array(py::handle obj) {
  Arg a;
  if (classify(obj, a) != ArgStatus::ok) return std::nullopt;
  if (a.is_array) return a.array();
  DType t = dtype_of_code(a.code);
  Array r = new_array(t, {});
  record_fill(r.view, a.value.cast(t));
  return r;
}

bool is_no_value(py::handle h) {
  return h.is_none() || std::string(Py_TYPE(h.ptr())->tp_name) == "_NoValueType";
}

} // namespace

py::object ufunc_at(const UfuncDef& u, py::handle a, py::handle indices, py::handle b) {
  auto through_numpy = [&] {
    py::tuple args = b.is_none() ? py::tuple(py::make_tuple(a, indices))
                                 : py::tuple(py::make_tuple(a, indices, b));
    return call_fallback(u.name, "at", args, py::dict());
  };
  if (is_masked_selection(a)) return ufunc_at(u, materialize(a), indices, b); // (x[mask])
  const std::optional<Opcode> at = at_accumulation(u.op);
  if (!at || u.recipe != Recipe::op || u.nin != 2 || !is_ndarray(a) || b.is_none())
    return through_numpy();
  const Array& arr = array_of(a);
  const DType t = arr.dtype();
  Arg x, y;
  if (classify(a, x) != ArgStatus::ok || classify(b, y) != ArgStatus::ok) return through_numpy();
  // NumPy's at() makes the value an array first: a Python scalar is not weak there (a float
  // into float32 computes in float64, an int into uint64 in float64). An int that fits an
  // integer array's dtype other than uint64 gives the same values in that dtype (NumPy's int64
  // loop, cast back: add, subtract and multiply wrap alike; minimum and maximum see the same
  // number); other Python scalars take the dtype of their array.
  TypeCode ycode = y.code;
  const bool fitting_int =
      y.code == kWeakInt && is_integer(t) && t != DType::UINT64 && constant_for_loop(y, t);
  if (fitting_int)
    ycode = code_of(t);
  else if (y.code == kWeakInt)
    ycode = code_of(DType::INT64);
  else if (y.code == kWeakFloat)
    ycode = code_of(DType::FLOAT64);
  else if (y.code == kWeakComplex)
    ycode = code_of(DType::COMPLEX128);
  TypeCode codes[2] = {x.code, ycode};
  auto loop = resolve_loop(u.id, u.name, 2, 1, {codes, 2}, std::nullopt);
  if (!loop || loop->in[0] != t || loop->in[1] != t || loop->out[0] != t ||
      !sig_ok(*at, {t, t, DType::INT64}) || (!y.is_array && !constant_for_loop(y, t)))
    return through_numpy();
  accumulate_at(arr, indices, *at, b);
  return py::none();
}

Array reduce_array(const UfuncDef& u, const Array& a, std::vector<int> axes, DType t,
                   bool keepdims) {
  Opcode op = *u.reduce_op;
  View v = a.view;
  std::vector<Array> keep;
  if (a.dtype() != t) {
    keep.push_back(copy_as(v, t));
    v = keep.back().view;
  }
  std::sort(axes.begin(), axes.end());
  std::vector<int> original = axes;
  // Several axes (all of them included) are reduced one at a time, the last first, over the
  // array's own shape: that first reduction has the loop shape of the instructions that
  // produced the array, so the fuser can put it in their block and contract the array (a
  // flattened 1-D reduction could not fuse with a 2-D producer).
  Array cur;
  bool have = false;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    int ax = *it;
    Array r = new_array(t, without(v.shape, ax));
    if (v.size() == 0) {
      if (r.size() > 0) {
        auto id = reduce_identity(op, t);
        if (!id) {
          std::string name = u.name;
          raise_value_error("zero-size array to reduction operation " + name +
                            " which has no identity");
        }
        record_fill(r.view, *id);
      }
    } else {
      record(op, {r.view, v, Scalar::of_int(ax)});
    }
    cur = r;
    v = r.view;
    have = true;
  }
  if (!have) cur = copy_as(v, t);
  if (keepdims) {
    Dims shape, stride;
    size_t j = 0;
    for (int k = 0; k < a.ndim(); ++k) {
      if (std::binary_search(original.begin(), original.end(), k)) {
        shape.push_back(1);
        stride.push_back(0);
      } else {
        shape.push_back(cur.view.shape[j]);
        stride.push_back(cur.view.stride[j]);
        ++j;
      }
    }
    cur.view.shape = shape;
    cur.view.stride = stride;
  }
  return cur;
}

py::object ufunc_reduce(const UfuncDef& u, py::handle a_obj, py::handle axis, py::handle dtype,
                        py::handle out, bool keepdims, py::handle initial, py::handle where) {
  auto fallback = [&] {
    py::dict kw;
    kw["axis"] = axis;
    kw["dtype"] = dtype;
    kw["out"] = out;
    kw["keepdims"] = keepdims;
    if (!is_no_value(initial)) kw["initial"] = initial;
    if (where.ptr() != Py_True) kw["where"] = where;
    return call_fallback(u.name, "reduce", py::make_tuple(a_obj), kw);
  };
  if (!u.reduce_op || !is_no_value(initial) || where.ptr() != Py_True) return fallback();
  if (!out.is_none() && !is_ndarray(out)) return fallback();
  auto a = as_array(a_obj);
  if (!a) return fallback();
  std::optional<DType> forced;
  if (!dtype.is_none()) {
    forced = dtype_from_arg(dtype);
    if (!forced) return fallback();
  }
  auto loop = resolve_reduce_loop(u.id, u.name, a->dtype(), forced);
  if (!loop || loop->in[0] != loop->out[0] ||
      !sig_ok(*u.reduce_op, {loop->out[0], loop->out[0], DType::INT64}))
    return fallback();
  if (a->ndim() == 0 && !axis.is_none()) {
    // NumPy reduces a 0-d array over axis 0 or -1 too.
    int64_t ax = py::isinstance<py::int_>(axis) ? axis.cast<int64_t>() : 1;
    if (ax != 0 && ax != -1) raise_axis_error(ax, 0);
  }
  std::vector<int> axes = a->ndim() == 0 ? std::vector<int>{} : parse_axes(axis, a->ndim());
  Array r = reduce_array(u, *a, axes, loop->out[0], keepdims);
  if (!out.is_none()) {
    Array& o = array_of(out);
    if (o.shape() != r.shape())
      raise_value_error("output parameter for reduction operation " + std::string(u.name) +
                        " has the wrong shape: " + shape_text(o.shape()) + ", expected " +
                        shape_text(r.shape()));
    record_copy(o.view, r.view);
    return py::reinterpret_borrow<py::object>(out);
  }
  r.scalar = r.ndim() == 0;
  return wrap(std::move(r));
}

py::object ufunc_accumulate(const UfuncDef& u, py::handle a_obj, py::handle axis, py::handle dtype,
                            py::handle out) {
  auto fallback = [&] {
    py::dict kw;
    kw["axis"] =
        axis.is_none() ? py::object(py::int_(0)) : py::reinterpret_borrow<py::object>(axis);
    kw["dtype"] = dtype;
    kw["out"] = out;
    py::object arg = py::reinterpret_borrow<py::object>(a_obj);
    if (axis.is_none()) arg = arg.attr("ravel")();
    return call_fallback(u.name, "accumulate", py::make_tuple(arg), kw);
  };
  if (!u.accumulate_op) return fallback();
  if (!out.is_none() && !is_ndarray(out)) return fallback();
  auto a = as_array(a_obj);
  if (!a) return fallback();
  std::optional<DType> forced;
  if (!dtype.is_none()) {
    forced = dtype_from_arg(dtype);
    if (!forced) return fallback();
  }
  auto loop = resolve_reduce_loop(u.id, u.name, a->dtype(), forced);
  if (!loop || loop->in[0] != loop->out[0] ||
      !sig_ok(*u.accumulate_op, {loop->out[0], loop->out[0], DType::INT64}))
    return fallback();
  DType t = loop->out[0];
  View v = a->view;
  std::vector<Array> keep;
  if (axis.is_none() || v.ndim() == 0) {
    Dims flat{v.size()}, st;
    if (!reshape_strides(v, flat, st)) {
      keep.push_back(copy_as(v, v.dtype()));
      v = keep.back().view;
      reshape_strides(v, flat, st);
    }
    v.shape = flat;
    v.stride = st;
  }
  int ax = axis.is_none() ? 0 : normalize_axis(axis.cast<int64_t>(), v.ndim());
  if (v.dtype() != t) {
    keep.push_back(copy_as(v, t));
    v = keep.back().view;
  }
  Array r = new_array(t, v.shape);
  if (r.size() > 0) record(*u.accumulate_op, {r.view, v, Scalar::of_int(ax)});
  if (!out.is_none()) {
    Array& o = array_of(out);
    if (o.shape() != r.shape())
      raise_value_error("output parameter for accumulation has the wrong shape: " +
                        shape_text(o.shape()) + ", expected " + shape_text(r.shape()));
    record_copy(o.view, r.view);
    return py::reinterpret_borrow<py::object>(out);
  }
  return wrap(std::move(r));
}

} // namespace hassium::python
