// generate_source: the kernel program of a block (see kernel_source.h for the grid mapping). Each
// array is loaded at most once and stored once per element; contracted arrays are only local
// variables; reductions accumulate in registers.
#include "ve/gpu/kernel_source.h"

#include <sstream>

#include "core/error.h"
#include "ve/gpu/ops_source.h"
#include "ve/gpu/prelude.h"
#include "ve/gpu/program_batch.h"

namespace hassium::gpu {

using plan::ArrayRole;
using plan::KernelPlan;
using plan::PlanArray;
using plan::PlanInstr;
using plan::PlanOperand;

namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

std::string param(size_t slot) {
  return "params[" + std::to_string(slot) + "]";
}

enum class Mode { ELEMENTS, ROWS, GROUPS, COMBINE };

class Generator {
public:
  Generator(const KernelPlan& plan, const Dialect& d, size_t max_param_bytes)
      : p_(plan), d_(d), count_(param_count(plan)) {
    // By value when the buffers' pointers and the params fit the device's argument space (CUDA:
    // the constant bank, read as instruction operands: no registers held for constants).
    by_value_ = (buffer_arrays(plan) + 2 + count_) * sizeof(int64_t) <= max_param_bytes;
  }

  KernelSource run() {
    KernelSource k;
    out_ << program_header(d_);
    if (by_value_)
      out_ << "typedef struct { hs_i64 v[" << count_ << "]; } " << kParamsType << ";\n#define "
           << kParamsMacro << " hs_P.v\n";
    if (!p_.has_reduction && !p_.has_scan) {
      entry(Mode::ELEMENTS);
      k.entries = {kElementsEntry};
    } else {
      entry(Mode::ROWS);
      k.entries = {kRowsEntry};
      if (p_.has_reduction) {
        entry(Mode::GROUPS);
        entry(Mode::COMBINE);
        k.entries.push_back(kGroupsEntry);
        k.entries.push_back(kCombineEntry);
        k.reduction = true;
      }
    }
    k.sequential = p_.writes_flat;
    k.params_by_value = by_value_;
    k.param_count = count_;
    k.source = out_.str();
    return k;
  }

private:
  const KernelPlan& p_;
  const Dialect& d_;
  const size_t count_; // int64 params
  bool by_value_ = false;
  std::ostringstream out_;
  // Per element: what each array holds (a variable name) and whether it was written.
  std::vector<std::string> value_;
  std::vector<bool> dirty_;
  std::vector<int> last_write_;     // per array: the last instruction writing it (-1: none)
  std::vector<std::string> offset_; // per array: "params[k] + " when its index adds the offset
  int tmp_ = 0;
  std::string body_; // statements of the element being generated

  size_t nd() const { return size_t(p_.ndim); }
  size_t axis() const { return size_t(p_.axis); }
  bool addressed(const PlanArray& a) const { return !a.contracted && a.role == ArrayRole::LOOP; }
  std::string fresh() { return "v" + str(tmp_++); }
  static std::string op(const PlanInstr& in) { return str(int64_t(in.op)); }
  bool is_reduction(const PlanInstr& in) const {
    return op_info(in.op).family == Family::REDUCTION;
  }
  bool is_scan(const PlanInstr& in) const { return op_info(in.op).family == Family::SCAN; }
  bool live_output(const PlanInstr& in) const {
    return !p_.arrays[size_t(in.operands[0].index)].contracted;
  }
  // The reductions' indices among the plan's reductions (their scratch slots).
  std::vector<size_t> reductions() const {
    std::vector<size_t> r;
    for (size_t j = 0; j < p_.instrs.size(); ++j)
      if (is_reduction(p_.instrs[j]) && live_output(p_.instrs[j])) r.push_back(j);
    return r;
  }

  // The buffers of the non-contracted arrays (a<i> keeps the plan's index i), scratch, the
  // error record, the params (by value or a buffer).
  void signature(const char* name) {
    out_ << "HS_KERNEL void " << name << "(";
    for (size_t i = 0; i < p_.arrays.size(); ++i)
      if (!p_.arrays[i].contracted)
        out_ << "HS_GLOBAL " << ctype(p_.arrays[i].dtype) << "* a" << i << ", ";
    out_ << "HS_GLOBAL hs_u8* scratch, HS_GLOBAL hs_i32* err, "
         << (by_value_ ? std::string("const ") + kParamsType + " hs_P"
                       : std::string("HS_GLOBAL const hs_i64* ") + kParamsMacro)
         << ") {\n";
  }

  // Extents, strides, constants and array bases into registers.
  void prologue() {
    for (size_t k = 0; k < nd(); ++k) out_ << "  const hs_i64 E" << k << " = " << param(k) << ";\n";
    size_t off = offset_slots(p_);
    offset_.assign(p_.arrays.size(), std::string());
    for (size_t i = 0; i < p_.arrays.size(); ++i) {
      const PlanArray& a = p_.arrays[i];
      if (a.contracted) continue;
      // By value, a loop-addressed array's offset joins each index (the pointer and the offset
      // stay in the argument space: no register holds a moved pointer across the loop).
      if (by_value_ && addressed(a))
        offset_[i] = param(off++) + " + ";
      else
        out_ << "  a" << i << " += " << param(off++) << ";\n";
      const size_t base = size_t(a.param);
      switch (a.role) {
      case ArrayRole::LOOP:
        for (size_t k = 0; k < nd(); ++k)
          out_ << "  const hs_i64 s" << i << "_" << k << " = " << param(base + k) << ";\n";
        break;
      case ArrayRole::REDUCED: // the real output's strides (0 along the axis)
        for (size_t k = 0; k < nd(); ++k)
          out_ << "  const hs_i64 s" << i << "_" << k << " = " << param(base + nd() + 1 + k)
               << ";\n";
        break;
      case ArrayRole::FLAT:
        for (int k = 0; k < 2 * a.flat_ndim; ++k)
          out_ << "  const hs_i64 f" << i << "_" << k << " = " << param(base + size_t(k)) << ";\n";
        out_ << "  const hs_i64 n" << i << " = " << param(base + size_t(2 * a.flat_ndim)) << ";\n";
        break;
      }
    }
    if (p_.position_param >= 0)
      for (size_t k = 0; k < nd(); ++k)
        out_ << "  const hs_i64 ps" << k << " = " << param(size_t(p_.position_param) + k) << ";\n";
    for (size_t c = 0; c < p_.constants.size(); ++c) {
      const DType t = p_.constants[c].dtype;
      const std::string lo = param(size_t(p_.constants[c].param));
      const std::string hi = param(size_t(p_.constants[c].param) + 1);
      std::string v;
      switch (t) {
      case DType::BOOL:
        v = "(hs_bool)(" + lo + " != 0)";
        break;
      case DType::FLOAT32:
        v = "hs_f32_of((hs_i32)" + lo + ")";
        break;
      case DType::FLOAT64:
        v = "hs_f64_of(" + lo + ")";
        break;
      case DType::COMPLEX64:
        v = "hs_make_hs_c64(hs_f32_of((hs_i32)" + lo + "), hs_f32_of((hs_i32)" + hi + "))";
        break;
      case DType::COMPLEX128:
        v = "hs_make_hs_c128(hs_f64_of(" + lo + "), hs_f64_of(" + hi + "))";
        break;
      default:
        v = "(" + ctype(t) + ")" + lo;
      }
      out_ << "  const " << ctype(t) << " k" << c << " = " << v << ";\n";
    }
    const size_t L = launch_slots(p_);
    out_ << "  const hs_i64 N = " << param(L + LAUNCH_N) << ", K = " << param(L + LAUNCH_K)
         << ", G = " << param(L + LAUNCH_CHUNKS) << ", CL = " << param(L + LAUNCH_CHUNK) << ";\n";
    out_ << "  (void)N; (void)K; (void)G; (void)CL; (void)err; (void)scratch;\n";
  }

  // Level indices i<k> of `levels` (outermost first) from the linear index `lin`.
  void decompose(const std::vector<size_t>& levels, const std::string& lin,
                 const std::string& indent) {
    if (levels.empty()) return;
    out_ << indent << "hs_i64 r_ = " << lin << ";\n";
    for (size_t n = levels.size(); n-- > 1;) {
      const size_t k = levels[n];
      out_ << indent << "const hs_i64 i" << k << " = r_ % E" << k << "; r_ /= E" << k << ";\n";
    }
    out_ << indent << "const hs_i64 i" << levels[0] << " = r_;\n";
  }

  std::vector<size_t> non_axis_levels() const {
    std::vector<size_t> v;
    for (size_t k = 0; k < nd(); ++k)
      if (int(k) != p_.axis) v.push_back(k);
    return v;
  }

  // sum over `levels` of i<k> * <prefix><k>
  static std::string dot(const std::vector<size_t>& levels, const std::string& prefix) {
    std::string s = "0";
    for (size_t k : levels) s += " + i" + str(int64_t(k)) + " * " + prefix + str(int64_t(k));
    return s;
  }

  // Output offsets of the reductions (their final strides; the axis stride is 0).
  void reduced_offsets(const std::string& indent) {
    const std::vector<size_t> levels = non_axis_levels();
    for (size_t i = 0; i < p_.arrays.size(); ++i) {
      const PlanArray& a = p_.arrays[i];
      if (a.contracted || a.role != ArrayRole::REDUCED) continue;
      out_ << indent << "const hs_i64 ro" << i << " = " << dot(levels, "s" + str(int64_t(i)) + "_")
           << ";\n";
    }
  }

  // --- one element ---------------------------------------------------------------------------
  std::string get(const PlanOperand& o) {
    if (!o.is_array) return "k" + str(o.index);
    const size_t i = size_t(o.index);
    if (!value_[i].empty()) return value_[i];
    const PlanArray& a = p_.arrays[i];
    const std::string v = fresh();
    std::string init;
    if (a.contracted) // read before the block writes it: no defined value
      init = literal(a.dtype, 0);
    else if (a.dtype == DType::BOOL)
      init = "(hs_bool)(" + element_of(i) + " != 0)";
    else
      init = element_of(i);
    body_ += ctype(a.dtype) + " " + v + " = " + init + ";\n";
    value_[i] = v;
    return v;
  }

  // Array i's element of the loop position (i0, i1, ...): computed where used, so no offset
  // stays live across the element.
  std::string element_of(size_t i) const {
    std::vector<size_t> all(nd());
    for (size_t k = 0; k < nd(); ++k) all[k] = k;
    return "a" + str(int64_t(i)) + "[" + offset_[i] + dot(all, "s" + str(int64_t(i)) + "_") + "]";
  }

  // Stores array i's value once its last writer has run (its value then lives no longer).
  void store_if_final(size_t i, size_t j) {
    if (!dirty_[i] || !addressed(p_.arrays[i]) || last_write_[i] != int(j)) return;
    body_ += element_of(i) + " = " + value_[i] + ";\n";
    dirty_[i] = false;
  }

  void set(const PlanOperand& o, DType t, const std::string& expr) {
    const std::string v = fresh();
    body_ += ctype(t) + " " + v + " = " + expr + ";\n";
    value_[size_t(o.index)] = v;
    dirty_[size_t(o.index)] = true;
  }

  // Offset within FLAT array i of the row-major position `flat` (an unsigned variable).
  std::string flat_offset(size_t i, const std::string& flat) {
    const int n = p_.arrays[i].flat_ndim;
    const std::string I = str(int64_t(i));
    if (n == 0) return "0";
    const std::string f = fresh(), off = fresh();
    body_ += "hs_u64 " + f + " = " + flat + ";\nhs_i64 " + off + " = 0;\n";
    for (int k = n - 1; k >= 1; --k) {
      const std::string e = "(hs_u64)f" + I + "_" + str(k), s = "f" + I + "_" + str(n + k);
      body_ += off + " += (hs_i64)(" + f + " % " + e + ") * " + s + "; " + f + " /= " + e + ";\n";
    }
    body_ += off + " += (hs_i64)" + f + " * f" + I + "_" + str(n) + ";\n";
    return off;
  }

  void gather(const PlanInstr& in) {
    const std::string idx = get(in.operands[2]);
    const PlanOperand& src = in.operands[1];
    const DType t = in.out;
    const std::string v = fresh();
    body_ += ctype(t) + " " + v + " = " + literal(t, 0) + ";\n";
    if (!src.is_array) {
      body_ += "if ((hs_u64)" + idx + " >= 1) hs_error(err, " + str(kErrorIndex) + ", " + op(in) +
               ", " + idx + ", 1); else " + v + " = " + get(src) + ";\n";
    } else {
      const size_t a = size_t(src.index);
      const std::string n = "n" + str(int64_t(a));
      body_ += "if ((hs_u64)" + idx + " >= (hs_u64)" + n + ") hs_error(err, " + str(kErrorIndex) +
               ", " + op(in) + ", " + idx + ", " + n + ");\nelse {\n";
      const std::string off = flat_offset(a, "(hs_u64)" + idx);
      const std::string load = "a" + str(int64_t(a)) + "[" + off + "]";
      body_ += v + " = " + (t == DType::BOOL ? "(hs_bool)(" + load + " != 0)" : load) + ";\n}\n";
    }
    value_[size_t(in.operands[0].index)] = v;
    dirty_[size_t(in.operands[0].index)] = true;
  }

  // SCATTER / COND_SCATTER: out.flat[index] = in (where mask); *_AT: out.flat[index] op= in.
  void scatter(const PlanInstr& in) {
    const size_t a = size_t(in.operands[0].index);
    const std::string v = get(in.operands[1]);
    const std::string idx = get(in.operands[2]);
    const std::string n = "n" + str(int64_t(a));
    std::string close;
    if (in.op == Opcode::COND_SCATTER) {
      body_ += "if (" + get(in.operands[3]) + ") {\n";
      close = "}\n";
    }
    body_ += "if ((hs_u64)" + idx + " >= (hs_u64)" + n + ") hs_error(err, " + str(kErrorIndex) +
             ", " + op(in) + ", " + idx + ", " + n + ");\nelse {\n";
    if (!p_.arrays[a].contracted) {
      const std::string off = flat_offset(a, "(hs_u64)" + idx);
      const std::string at = "a" + str(int64_t(a)) + "[" + off + "]";
      if (at_combiner(in.op)) {
        std::string cur = at;
        if (in.in == DType::BOOL) cur = "(hs_bool)(" + at + " != 0)";
        body_ += at + " = " + at_expr(in.op, in.in, cur, v) + ";\n";
      } else {
        body_ += at + " = " + v + ";\n";
      }
    }
    body_ += "}\n" + close;
  }

  // The statements of one element. ROWS/GROUPS: reductions fold into acc<j>; scans set their
  // output to acc<j> (first element of the axis: the value itself).
  std::string element(Mode mode) {
    const size_t na = p_.arrays.size();
    value_.assign(na, std::string());
    dirty_.assign(na, false);
    last_write_.assign(na, -1);
    body_.clear();
    std::vector<size_t> all(nd());
    for (size_t k = 0; k < nd(); ++k) all[k] = k;
    for (size_t j = 0; j < p_.instrs.size(); ++j)
      if (op_info(p_.instrs[j].op).family != Family::REDUCTION)
        last_write_[size_t(p_.instrs[j].operands[0].index)] = int(j);
    if (p_.position_param >= 0) body_ += "const hs_i64 pos = " + dot(all, "ps") + ";\n";
    for (size_t j = 0; j < p_.instrs.size(); ++j) {
      const PlanInstr& in = p_.instrs[j];
      switch (op_info(in.op).family) {
      case Family::ELEMENTWISE: {
        std::vector<std::string> args;
        for (size_t k = 1; k < in.operands.size(); ++k) args.push_back(get(in.operands[k]));
        std::string pre;
        std::string e = elementwise_expr(in.op, in.in, in.out, args, pre);
        body_ += pre;
        set(in.operands[0], in.out, e);
        break;
      }
      case Family::GENERATOR:
        if (in.op == Opcode::RANGE)
          set(in.operands[0], in.out, convert("pos", DType::INT64, in.out));
        else
          set(in.operands[0], in.out,
              "hs_philox((hs_u64)" + get(in.operands[2]) + " + (hs_u64)pos, (hs_u64)" +
                  get(in.operands[1]) + ")");
        break;
      case Family::REDUCTION: {
        const std::string x = get(in.operands[1]);
        HS_INTERNAL_ASSERT(mode == Mode::ROWS || mode == Mode::GROUPS) << "a reduction per element";
        if (live_output(in))
          body_ += "acc" + str(int64_t(j)) + " = " +
                   reduce_combine(in.op, in.in, "acc" + str(int64_t(j)), x) + ";\n";
        break;
      }
      case Family::SCAN: {
        const std::string x = get(in.operands[1]);
        const std::string acc = "acc" + str(int64_t(j));
        body_ += acc + " = (k == 0) ? " + x + " : " + reduce_combine(in.op, in.in, acc, x) + ";\n";
        value_[size_t(in.operands[0].index)] = acc;
        dirty_[size_t(in.operands[0].index)] = true;
        break;
      }
      case Family::INDEXING:
        if (in.op == Opcode::GATHER)
          gather(in);
        else
          scatter(in);
        break;
      default:
        HS_INTERNAL_ASSERT(false) << op_name(in.op) << " cannot be in a GPU kernel";
      }
      if (in.operands[0].is_array) store_if_final(size_t(in.operands[0].index), j);
    }
    return body_;
  }

  void emit_body(const std::string& body, const std::string& indent) {
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);) out_ << indent << line << "\n";
  }

  void accumulators(const std::string& indent) {
    for (size_t j = 0; j < p_.instrs.size(); ++j) {
      const PlanInstr& in = p_.instrs[j];
      if ((is_reduction(in) && live_output(in)) || is_scan(in))
        out_ << indent << ctype(in.in) << " acc" << j << " = " << reduce_identity(in.op, in.in)
             << ";\n";
    }
  }

  // Per reduction, the group's HS_L values in local memory.
  void local_values(const std::vector<size_t>& reds) {
    for (size_t j : reds)
      out_ << "  HS_LOCAL " << ctype(p_.instrs[j].in) << " loc" << j << "[HS_L];\n";
  }

  // Folds each reduction's loc<j>[0 .. HS_L) into loc<j>[0] in a fixed tree, item t taking
  // t + s while `takes` holds (barriers around each level).
  void tree_fold(const std::vector<size_t>& reds, const char* takes) {
    out_ << "    HS_BARRIER();\n";
    out_ << "    for (int s = HS_L / 2; s > 0; s >>= 1) {\n";
    out_ << "      if (" << takes << ") {\n";
    for (size_t j : reds)
      out_ << "        loc" << j << "[t] = "
           << reduce_combine(p_.instrs[j].op, p_.instrs[j].in, "loc" + str(int64_t(j)) + "[t]",
                             "loc" + str(int64_t(j)) + "[t + s]")
           << ";\n";
    out_ << "      }\n      HS_BARRIER();\n    }\n";
  }

  void entry(Mode mode) {
    const char* names[] = {kElementsEntry, kRowsEntry, kGroupsEntry, kCombineEntry};
    signature(names[int(mode)]);
    prologue();
    const std::string gid = "HS_GROUP_ID * HS_LOCAL_SIZE + HS_LOCAL_ID";
    const std::string gsize = "HS_NUM_GROUPS * HS_LOCAL_SIZE";
    const std::vector<size_t> rows = non_axis_levels();
    const size_t L = launch_slots(p_);
    switch (mode) {
    case Mode::ELEMENTS: {
      std::vector<size_t> all(nd());
      for (size_t k = 0; k < nd(); ++k) all[k] = k;
      out_ << "  for (hs_i64 e_ = " << gid << "; e_ < N; e_ += " << gsize << ") {\n";
      decompose(all, "e_", "    ");
      emit_body(element(mode), "    ");
      out_ << "  }\n";
      break;
    }
    case Mode::ROWS: {
      // Work item w: row w % N (consecutive items, consecutive rows), chunk w / N of the axis.
      const std::vector<size_t> reds = reductions();
      out_ << "  for (hs_i64 w = " << gid << "; w < N * G; w += " << gsize << ") {\n";
      out_ << "    const hs_i64 row = w % N, c = w / N;\n";
      decompose(rows, "row", "    ");
      reduced_offsets("    ");
      accumulators("    ");
      out_ << "    const hs_i64 lo = c * CL, hi = (lo + CL < K) ? lo + CL : K;\n";
      out_ << "    for (hs_i64 k = lo; k < hi; ++k) {\n";
      out_ << "      const hs_i64 i" << axis() << " = k;\n";
      emit_body(element(mode), "      ");
      out_ << "    }\n";
      for (size_t r = 0; r < reds.size(); ++r) {
        const size_t j = reds[r];
        const int a = p_.instrs[j].operands[0].index;
        out_ << "    if (G == 1) a" << a << "[ro" << a << "] = acc" << j << ";\n";
        out_ << "    else ((HS_GLOBAL " << ctype(p_.instrs[j].in) << "*)(scratch + "
             << param(L + LAUNCH_SCRATCH + r) << "))[row * G + c] = acc" << j << ";\n";
      }
      out_ << "  }\n";
      break;
    }
    case Mode::GROUPS: {
      const std::vector<size_t> reds = reductions();
      local_values(reds);
      out_ << "  const hs_i64 t = HS_LOCAL_ID;\n";
      out_ << "  for (hs_i64 g = HS_GROUP_ID; g < N * G; g += HS_NUM_GROUPS) {\n";
      out_ << "    const hs_i64 row = g / G, c = g % G;\n";
      decompose(rows, "row", "    ");
      reduced_offsets("    ");
      accumulators("    ");
      out_ << "    const hs_i64 lo = c * CL, hi = (lo + CL < K) ? lo + CL : K;\n";
      out_ << "    for (hs_i64 k = lo + t; k < hi; k += HS_L) {\n";
      out_ << "      const hs_i64 i" << axis() << " = k;\n";
      emit_body(element(mode), "      ");
      out_ << "    }\n";
      for (size_t j : reds) out_ << "    loc" << j << "[t] = acc" << j << ";\n";
      tree_fold(reds, "t < s");
      out_ << "    if (t == 0) {\n";
      for (size_t r = 0; r < reds.size(); ++r) {
        const size_t j = reds[r];
        const int a = p_.instrs[j].operands[0].index;
        const std::string T = ctype(p_.instrs[j].in);
        out_ << "      if (G == 1) a" << a << "[ro" << a << "] = loc" << j << "[0];\n";
        out_ << "      else ((HS_GLOBAL " << T << "*)(scratch + " << param(L + LAUNCH_SCRATCH + r)
             << "))[g] = loc" << j << "[0];\n";
      }
      out_ << "    }\n    HS_BARRIER();\n  }\n";
      break;
    }
    case Mode::COMBINE: {
      // A group per row: item t folds partials t, t + HS_L, ... in order, then the group folds
      // the HS_L values in a fixed tree (the result depends on the sizes only).
      const std::vector<size_t> reds = reductions();
      local_values(reds);
      out_ << "  const hs_i64 t = HS_LOCAL_ID, n = (G < HS_L) ? G : HS_L;\n";
      out_ << "  for (hs_i64 row = HS_GROUP_ID; row < N; row += HS_NUM_GROUPS) {\n";
      decompose(rows, "row", "    ");
      reduced_offsets("    ");
      for (size_t r = 0; r < reds.size(); ++r) {
        const size_t j = reds[r];
        const std::string T = ctype(p_.instrs[j].in), J = str(int64_t(j));
        out_ << "    if (t < n) {\n      HS_GLOBAL " << T << "* part = (HS_GLOBAL " << T
             << "*)(scratch + " << param(L + LAUNCH_SCRATCH + r) << ") + row * G;\n";
        out_ << "      " << T << " acc = part[t];\n";
        out_ << "      for (hs_i64 c = t + HS_L; c < G; c += HS_L) acc = "
             << reduce_combine(p_.instrs[j].op, p_.instrs[j].in, "acc", "part[c]") << ";\n";
        out_ << "      loc" << J << "[t] = acc;\n    }\n";
      }
      tree_fold(reds, "t < s && t + s < n");
      out_ << "    if (t == 0) {\n";
      for (size_t j : reds) {
        const int a = p_.instrs[j].operands[0].index;
        out_ << "      a" << a << "[ro" << a << "] = loc" << j << "[0];\n";
      }
      out_ << "    }\n    HS_BARRIER();\n  }\n";
      break;
    }
    }
    out_ << "}\n";
  }
};

} // namespace

bool supported(const KernelPlan& plan, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (plan.has_scan && plan.has_reduction) return no("a scan and a reduction in one block");
  if (plan.writes_flat && (plan.has_scan || plan.has_reduction))
    return no("indexed writes with a reduction or scan in one block");
  // A block reading a base it reduces into would see partial results.
  for (const PlanArray& r : plan.arrays) {
    if (r.role != ArrayRole::REDUCED || r.contracted || !r.view) continue;
    for (const PlanArray& a : plan.arrays)
      if (&a != &r && a.view && a.view->base == r.view->base)
        return no("the block reads a base it reduces into");
  }
  for (const PlanInstr& in : plan.instrs) {
    const OpInfo& info = op_info(in.op);
    switch (info.family) {
    case Family::ELEMENTWISE:
      if (!elementwise_supported(in.op, in.in, in.out, why)) return false;
      break;
    case Family::REDUCTION:
    case Family::SCAN:
    case Family::GENERATOR:
    case Family::INDEXING:
      break;
    default:
      return no(std::string(info.name) + " has no GPU kernel");
    }
  }
  return true;
}

KernelSource generate_source(const KernelPlan& plan, const Dialect& dialect,
                             size_t max_param_bytes) {
  std::string why;
  HS_INTERNAL_ASSERT(supported(plan, &why)) << "an unsupported block: " << why;
  return Generator(plan, dialect, max_param_bytes).run();
}

size_t buffer_arrays(const KernelPlan& plan) {
  size_t n = 0;
  for (const PlanArray& a : plan.arrays) n += !a.contracted;
  return n;
}

size_t param_count(const KernelPlan& plan) {
  size_t reductions = 0;
  for (const PlanInstr& in : plan.instrs)
    reductions += op_info(in.op).family == Family::REDUCTION &&
                  !plan.arrays[size_t(in.operands[0].index)].contracted;
  return launch_slots(plan) + LAUNCH_SCRATCH + reductions;
}

} // namespace hassium::gpu
