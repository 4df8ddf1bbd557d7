// split_reduction: a long one-axis reduction with a small output -> rows, then the row results.
//
// Contract: `OP_REDUCE OUT, IN, AXIS` whose reduced axis has L >= min_length elements and whose
// OUT has at most max_output elements is rewritten, with C = floor(sqrt(L)), R = L / C and
// r = L - R*C, into
//   OP_REDUCE _sr{rows 0..R-1}, IN viewed with AXIS split into (R, C), AXIS+1   (R rows of C)
//   OP_REDUCE _sr{row R}, IN{the last r elements of AXIS}, AXIS                  (only if r > 0)
//   OP_REDUCE OUT, _sr, AXIS
//   FREE _sr
// so the first reduction has R independent outputs (parallel on any engine, and its inner loop
// is contiguous when IN is), and the rest is a reduction of about sqrt(L) values. One level is
// enough: L = 10^10 still gives rows of 10^5.
// Only where reassociation keeps the value NumPy computes, or is allowed:
//   bool, integers (wrap-around): every reduction opcode (all are associative and commutative);
//   floats: MINIMUM/MAXIMUM (NaN propagates either way; a tie of -0.0 and +0.0 may return the
//     other zero), ADD/MULTIPLY only with reassociate_floats ([filters] reassociate, default on:
//     NumPy's own sum is pairwise, not sequential, so no order is "the" order; results agree to
//     rounding, not bit for bit);
//   complex: ADD/MULTIPLY with reassociate_floats.
// With keep_fusion (default), a reduction whose input base is written earlier in the same
// program is left alone: its producer can fuse with it (same loop shape) and the input is then
// never stored; after a split the loop shapes differ and the input would be materialized.
// Complexity: O(instructions + views).
#include <cmath>
#include <unordered_set>

#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

namespace {

bool reassociable(Opcode op, DType t, bool floats) {
  if (is_bool(t) || is_integer(t)) return true;
  bool minmax = op == Opcode::MINIMUM_REDUCE || op == Opcode::MAXIMUM_REDUCE;
  bool addmul = op == Opcode::ADD_REDUCE || op == Opcode::MULTIPLY_REDUCE;
  if (is_float(t)) return minmax || (addmul && floats);
  if (is_complex(t)) return addmul && floats;
  return false;
}

// `v` with dimension k replaced by the given extents and strides.
View replace_dim(const View& v, size_t k, std::initializer_list<std::pair<int64_t, int64_t>> dims,
                 int64_t offset) {
  View r{v.base, offset, {}, {}};
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (d != k) {
      r.shape.push_back(v.shape[d]);
      r.stride.push_back(v.stride[d]);
      continue;
    }
    for (auto [extent, stride] : dims) {
      r.shape.push_back(extent);
      r.stride.push_back(stride);
    }
  }
  return r;
}

} // namespace

SplitReductionOptions SplitReductionOptions::from_config(const Config& config) {
  SplitReductionOptions o;
  o.min_length = std::max<int64_t>(4, config.get_int("filters", "split_min_length"));
  o.reassociate_floats = config.get_bool("filters", "reassociate");
  return o;
}

Program split_reduction(Program p, const SplitReductionOptions& options) {
  filters::TemporaryMaker temps(p, "sr");
  bool lines = p.source_lines.size() == p.instrs.size();
  std::vector<Instruction> instrs;
  std::vector<int> source_lines;
  std::unordered_set<const Base*> written;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    Instruction& ins = p.instrs[i];
    size_t before = instrs.size();
    bool split = false;
    if (ins.info().family == Family::REDUCTION && ins.is_view(1)) {
      const View& in = ins.view(1);
      size_t k = size_t(ins.axis());
      int64_t L = in.shape[k];
      split = reassociable(ins.op, in.dtype(), options.reassociate_floats) &&
              L >= std::max<int64_t>(4, options.min_length) && in.size() > 0 &&
              ins.out().size() <= options.max_output &&
              !(options.keep_fusion && written.count(in.base.get()));
      if (split) {
        int64_t C = int64_t(std::sqrt(double(L)));
        while (C * C > L) --C;
        while ((C + 1) * (C + 1) <= L) ++C;
        int64_t R = L / C, rem = L - R * C;
        int64_t s = in.stride[k];
        const View& out = ins.out();
        // The partial results: OUT's shape with R (+1) inserted at the axis, contiguous.
        Dims tshape = out.shape;
        tshape.insert(tshape.begin() + int64_t(k), R + (rem > 0 ? 1 : 0));
        BasePtr tb = temps.make(p, out.dtype(), out.size() * tshape[k]);
        View t = View::contiguous(tb, tshape);
        int64_t ts = t.stride[k];
        Scalar axis = ins.constant(2);
        Scalar inner = Scalar::of_int(int64_t(k) + 1, axis.dtype);
        View rows = replace_dim(t, k, {{R, ts}}, 0);
        instrs.emplace_back(
            ins.op,
            std::vector<Operand>{rows, replace_dim(in, k, {{R, s * C}, {C, s}}, in.offset), inner});
        if (rem > 0) {
          View slot = replace_dim(t, k, {}, R * ts);
          View tail = replace_dim(in, k, {{rem, s}}, in.offset + R * C * s);
          instrs.emplace_back(ins.op, std::vector<Operand>{slot, tail, axis});
        }
        instrs.emplace_back(ins.op, std::vector<Operand>{out, t, axis});
        instrs.push_back(filters::free_of(tb));
      }
    }
    if (!ins.is_system()) written.insert(ins.out().base.get());
    if (!split) instrs.push_back(std::move(ins));
    if (lines) source_lines.insert(source_lines.end(), instrs.size() - before, p.source_lines[i]);
  }
  p.instrs = std::move(instrs);
  p.source_lines = std::move(source_lines);
  return p;
}

} // namespace hassium
