// expand_power: POWER by a small constant exponent -> multiplications, and x / c by a
// constant power of two c -> x * (1/c) (x * c**-1); bit-identical to NumPy.
//
// Contract: `POWER OUT, X, E` with X a view and E a constant is rewritten when NumPy 2.x's
// np.power gives exactly the rewritten result (checked against NumPy 2.4 on millions of values,
// including +-0, +-inf, NaN and subnormals):
//   integers, E = 0..max_int_exponent  binary powering through one temporary: wrap-around
//                                      multiplication is exact, so any order gives NumPy's value
//   floats, E = 2 / 1 / 0 / -1 / 0.5   MULTIPLY X, X / copy / fill 1 / DIVIDE 1, X / SQRT X: one
//                                      correctly rounded operation each (NumPy special-cases
//                                      exactly these exponents)
//   complex, E = 1                     copy (NumPy's complex x**2 is not x*x bit for bit)
//   floats, DIVIDE X, C with C = +-2**k   MULTIPLY X, 1/C when 1/C is a normal number of the
//                                      dtype: both are the correctly rounded X * 2**-k (zeros,
//                                      infinities, NaN and subnormal results alike), and a
//                                      multiply is ~10x a divide's throughput
// Not rewritten: float E = 3, 4, ... (x*x*x rounds twice; NumPy's pow once), negative integer
// exponents of integers (an error in NumPy), non-constant exponents.
// The temporary `_pw<n>` has OUT's shape, is written then FREEd right after the last step, so
// fusion contracts it into a register. Steps are data-parallel even when OUT is X.
// Complexity: O(instructions + log(max_int_exponent) per rewritten POWER).
#include <cmath>
#include <optional>

#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

namespace {

enum class Kind { KEEP, FILL_ONE, COPY, SQUARE, RECIPROCAL, SQRT, INT_POWER, SCALE };

// 1/c when c = +-2**k and 1/c is a normal number of float dtype t (then x / c == x * (1/c)).
std::optional<double> exact_reciprocal(double c, DType t) {
  int exp = 0;
  const double m = std::frexp(c, &exp);
  if (m != 0.5 && m != -0.5) return std::nullopt; // not a power of two (or 0, inf, NaN)
  const double r = 1.0 / c;
  if (t == DType::FLOAT32 ? !std::isnormal(float(r)) : !std::isnormal(r)) return std::nullopt;
  return r;
}

Kind classify(const Instruction& ins, const ExpandPowerOptions& options, int64_t& n,
              double& scale) {
  if (ins.op == Opcode::DIVIDE && ins.is_view(1) && ins.is_constant(2) && is_float(ins.dtype(0)) &&
      ins.dtype(1) == ins.dtype(0)) {
    auto r = exact_reciprocal(ins.constant(2).as_double(), ins.dtype(0));
    if (!r) return Kind::KEEP;
    scale = *r;
    return Kind::SCALE;
  }
  if (ins.op != Opcode::POWER || !ins.is_view(1) || !ins.is_constant(2)) return Kind::KEEP;
  if (ins.out().size() == 0) return Kind::KEEP;
  DType t = ins.dtype(0);
  const Scalar& e = ins.constant(2);
  if (is_integer(t)) {
    if (is_signed_int(t) && e.as_int() < 0) return Kind::KEEP;
    uint64_t u = e.as_uint();
    if (u > uint64_t(options.max_int_exponent)) return Kind::KEEP;
    n = int64_t(u);
    return n == 0 ? Kind::FILL_ONE : n == 1 ? Kind::COPY : Kind::INT_POWER;
  }
  if (is_float(t)) {
    double v = e.as_double();
    if (v == 2) return Kind::SQUARE;
    if (v == 1) return Kind::COPY;
    if (v == 0) return Kind::FILL_ONE;
    if (v == -1) return Kind::RECIPROCAL;
    if (v == 0.5) return Kind::SQRT;
    return Kind::KEEP;
  }
  if (is_complex(t) && e.im == 0 && e.re == 1) return Kind::COPY;
  return Kind::KEEP;
}

Scalar one_of(DType t) {
  return Scalar::of_int(1).cast(t);
}

// x**n for n >= 2, left-to-right binary powering: r = x; per following bit: r = r*r, r = r*x.
// Every step but the last writes the temporary; the last writes OUT.
void emit_int_power(Program& p, filters::TemporaryMaker& temps, const Instruction& ins, int64_t n,
                    std::vector<Instruction>& out) {
  const View& dst = ins.out();
  const View& x = ins.view(1);
  std::vector<bool> steps; // true = multiply by x, false = square
  int top = 62;
  while (!((n >> top) & 1)) --top;
  for (int bit = top - 1; bit >= 0; --bit) {
    steps.push_back(false);
    if ((n >> bit) & 1) steps.push_back(true);
  }
  BasePtr tb = temps.make(p, dst.dtype(), dst.size());
  View t = View::contiguous(tb, dst.shape);
  bool first = true;
  for (size_t s = 0; s < steps.size(); ++s) {
    const View& target = s + 1 == steps.size() ? dst : t;
    const View& r = first ? x : t;
    out.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{target, r, steps[s] ? x : r});
    first = false;
  }
  out.push_back(filters::free_of(tb));
}

} // namespace

Program expand_power(Program p, const ExpandPowerOptions& options) {
  // Most programs have nothing to rewrite: one scan, and they go on untouched (no copy of the
  // instruction list, no temporary names gathered).
  bool any = false;
  for (const Instruction& ins : p.instrs) {
    int64_t n = 0;
    double scale = 0;
    if (classify(ins, options, n, scale) != Kind::KEEP) {
      any = true;
      break;
    }
  }
  if (!any) return p;
  filters::TemporaryMaker temps(p, "pw");
  bool lines = p.source_lines.size() == p.instrs.size();
  std::vector<Instruction> instrs;
  std::vector<int> source_lines;
  instrs.reserve(p.instrs.size());
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    Instruction& ins = p.instrs[i];
    int64_t n = 0;
    double scale = 0;
    size_t before = instrs.size();
    const View& dst = ins.out();
    switch (classify(ins, options, n, scale)) {
    case Kind::KEEP:
      instrs.push_back(std::move(ins));
      break;
    case Kind::FILL_ONE:
      instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{dst, one_of(dst.dtype())});
      break;
    case Kind::COPY:
      instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{dst, ins.view(1)});
      break;
    case Kind::SQUARE:
      instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{dst, ins.view(1), ins.view(1)});
      break;
    case Kind::RECIPROCAL:
      instrs.emplace_back(Opcode::DIVIDE,
                          std::vector<Operand>{dst, one_of(dst.dtype()), ins.view(1)});
      break;
    case Kind::SQRT:
      instrs.emplace_back(Opcode::SQRT, std::vector<Operand>{dst, ins.view(1)});
      break;
    case Kind::INT_POWER:
      emit_int_power(p, temps, ins, n, instrs);
      break;
    case Kind::SCALE:
      instrs.emplace_back(
          Opcode::MULTIPLY,
          std::vector<Operand>{dst, ins.view(1), Scalar::of_float(scale, dst.dtype())});
      break;
    }
    if (lines) source_lines.insert(source_lines.end(), instrs.size() - before, p.source_lines[i]);
  }
  p.instrs = std::move(instrs);
  p.source_lines = std::move(source_lines);
  return p;
}

} // namespace hassium
