// Verifier of bytecode: operand kinds, signatures, view bounds, shapes, axes, data-parallelism.
#include "ir/text/verifier.h"

#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "ir/text/printer.h"

namespace hassium {

namespace {

// A rule broken; verify_instruction / verify_program add which instruction broke it.
struct Reject {
  std::string message;
};
[[noreturn]] void reject(std::string msg) {
  throw Reject{std::move(msg)};
}

// What each operand position accepts.
enum class Kind { VIEW, CONSTANT, EITHER, BASE };
// How an input may meet the output: identical or disjoint (data-parallel), or only disjoint.
enum class Overlap { IDENTICAL_OK, DISJOINT };

struct Position {
  Kind kind;
  const char* role; // "the axis", or nullptr
  Overlap overlap = Overlap::IDENTICAL_OK;
};

// The operand positions of an opcode with n operands (index 0 = the output), from its family
// and rule.
std::vector<Position> positions(const OpInfo& info, size_t n) {
  const Position out{Kind::VIEW, "the output"};
  switch (info.rule) {
  case SigRule::BASE:
    // FREE ends a whole base; SYNC makes a view's elements visible (a bare name: all of them),
    // as a frontend's read of part of an array records it (and the trace filter writes it).
    if (info.op == Opcode::SYNC) return {{Kind::VIEW, "the synced view"}};
    return {{Kind::BASE, "the base"}};
  case SigRule::GEN:
    return {out};
  case SigRule::RANDOM:
    return {out, {Kind::CONSTANT, "the seed"}, {Kind::CONSTANT, "the counter"}};
  case SigRule::REDUCE: {
    Overlap o = info.family == Family::REDUCTION ? Overlap::DISJOINT : Overlap::IDENTICAL_OK;
    return {out, {Kind::VIEW, "the input", o}, {Kind::CONSTANT, "the axis"}};
  }
  case SigRule::GATHER:
    return {out, {Kind::VIEW, "the source", Overlap::DISJOINT}, {Kind::VIEW, "the index"}};
  case SigRule::SCATTER:
    return {out,
            {Kind::EITHER, "the input", Overlap::DISJOINT},
            {Kind::VIEW, "the index", Overlap::DISJOINT}};
  case SigRule::CSCATTER:
    return {out,
            {Kind::EITHER, "the input", Overlap::DISJOINT},
            {Kind::VIEW, "the index", Overlap::DISJOINT},
            {Kind::VIEW, "the mask", Overlap::DISJOINT}};
  case SigRule::ARG:
    return {out, {Kind::VIEW, "the input", Overlap::DISJOINT}, {Kind::CONSTANT, "the axis"}};
  case SigRule::SEARCH:
    return {out,
            {Kind::VIEW, "the sorted array", Overlap::DISJOINT},
            {Kind::VIEW, "the values", Overlap::DISJOINT}};
  default:
    break;
  }
  std::vector<Position> p(n, Position{Kind::EITHER, nullptr});
  if (info.family == Family::EXTENSION)
    for (auto& q : p) q = {Kind::VIEW, nullptr, Overlap::DISJOINT};
  if (n > 0) p[0] = out;
  return p;
}

std::string quoted(const std::string& s) {
  return "`" + s + "`";
}

std::string int128_text(__int128 v) {
  if (v < 0) return "-" + int128_text(-v);
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

std::string operand_text(const Instruction& ins, size_t i) {
  return ins.is_view(i) ? print_view(ins.view(i)) : ins.constant(i).value_text();
}

// "operand 3 (the axis)" or "operand 2".
std::string operand_name(const std::vector<Position>& pos, size_t i) {
  std::string s = "operand " + std::to_string(i + 1);
  if (i < pos.size() && pos[i].role) s += " (" + std::string(pos[i].role) + ")";
  return s;
}

// A view is well-formed and inside its base, with arithmetic that cannot overflow.
void check_view(const View& v, const std::string& name) {
  if (!v.base) reject(name + " is a view without a base");
  std::string text = quoted(print_view(v));
  if (v.shape.size() != v.stride.size())
    reject(name + " " + text + " has " + std::to_string(v.shape.size()) + " extent(s) but " +
           std::to_string(v.stride.size()) + " stride(s)");
  bool empty = false;
  __int128 count = 1;
  for (auto e : v.shape) {
    if (e < 0) reject(name + " " + text + " has a negative extent " + std::to_string(e));
    if (e == 0) empty = true;
    if (e > 0 && count <= std::numeric_limits<int64_t>::max()) count *= e;
  }
  if (!empty && count > std::numeric_limits<int64_t>::max())
    reject(name + " " + text + " has more than 2^63 elements");
  const __int128 limit = __int128(1) << 80;
  __int128 lo = v.offset, hi = v.offset;
  for (size_t k = 0; k < v.shape.size() && !empty; ++k) {
    __int128 reach = __int128(v.stride[k]) * (v.shape[k] - 1);
    (reach < 0 ? lo : hi) += reach;
    if (lo < -limit || hi > limit) break; // far outside already; stop before overflowing
  }
  std::string where =
      " outside its base `" + v.base->name + "` (" + std::to_string(v.base->nelem) + " elements)";
  if (empty) {
    if (v.offset < 0 || v.offset > v.base->nelem)
      reject(name + " " + text + " starts at offset " + std::to_string(v.offset) + where);
    return;
  }
  if (lo < 0 || hi >= v.base->nelem) {
    std::string range = lo < -limit || hi > limit
                            ? "elements far"
                            : "elements " + int128_text(lo) + ".." + int128_text(hi);
    reject(name + " " + text + " reaches " + range + where);
  }
}

void check_kinds(const Instruction& ins, const std::vector<Position>& pos) {
  const OpInfo& info = ins.info();
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    std::string name = operand_name(pos, i);
    std::string found = (ins.is_view(i) ? "view " : "constant ") + quoted(operand_text(ins, i));
    switch (pos[i].kind) {
    case Kind::BASE:
      if (ins.is_constant(i) || !ins.view(i).base || !ins.view(i).is_whole_base())
        reject(std::string(info.name) + " needs a bare base name, found " + found);
      break;
    case Kind::VIEW:
      if (ins.is_constant(i)) reject(name + " must be a view, found " + found);
      break;
    case Kind::CONSTANT:
      if (ins.is_view(i)) reject(name + " must be a constant, found " + found);
      break;
    case Kind::EITHER:
      break;
    }
    if (ins.is_view(i)) check_view(ins.view(i), name);
  }
}

void check_signature_of(const Instruction& ins) {
  std::vector<DType> dtypes;
  for (size_t i = 0; i < ins.operands.size(); ++i) dtypes.push_back(ins.dtype(i));
  std::string err = check_signature(ins.op, dtypes);
  if (!err.empty()) reject(err);
}

void require_shape(const Instruction& ins, const std::vector<Position>& pos, size_t i,
                   const Dims& want, const std::string& want_name) {
  if (!ins.is_view(i) || ins.view(i).shape == want) return;
  reject("shape mismatch: " + operand_name(pos, i) + " has shape " + dims_text(ins.view(i).shape) +
         ", " + want_name + " has shape " + dims_text(want));
}

int64_t checked_axis(const Instruction& ins) {
  int64_t axis = ins.constant(2).as_int();
  int nd = ins.view(1).ndim();
  if (nd == 0)
    reject("the input is 0-d: there is no axis to " +
           std::string(ins.info().family == Family::SCAN        ? "scan"
                       : ins.info().family == Family::EXTENSION ? "sort"
                                                                : "reduce"));
  if (axis < 0 || axis >= nd)
    reject("axis " + std::to_string(axis) + " is out of range for a " + std::to_string(nd) +
           "-d input (valid: 0.." + std::to_string(nd - 1) + ")");
  return axis;
}

void check_shapes(const Instruction& ins, const std::vector<Position>& pos) {
  const OpInfo& info = ins.info();
  const size_t n = ins.operands.size();
  switch (info.rule) {
  case SigRule::BASE:
  case SigRule::GEN:
  case SigRule::RANDOM:
    return;
  case SigRule::REDUCE: {
    int64_t axis = checked_axis(ins);
    const View& in = ins.view(1);
    if (info.family != Family::REDUCTION) // scans and SORT keep the shape
      return require_shape(ins, pos, 0, in.shape, "the input");
    Dims want = in.shape;
    want.erase(want.begin() + axis);
    if (ins.out().shape != want)
      reject("shape mismatch: reducing shape " + dims_text(in.shape) + " over axis " +
             std::to_string(axis) + " gives " + dims_text(want) + ", the output has shape " +
             dims_text(ins.out().shape));
    return;
  }
  case SigRule::GATHER:
    return require_shape(ins, pos, 2, ins.out().shape, "the output");
  case SigRule::ARG:
    checked_axis(ins);
    return require_shape(ins, pos, 0, ins.view(1).shape, "the input");
  case SigRule::SEARCH:
    if (ins.view(1).ndim() != 1)
      reject(std::string(info.name) + " needs a 1-d sorted array, " + operand_name(pos, 1) +
             " has shape " + dims_text(ins.view(1).shape));
    return require_shape(ins, pos, 0, ins.view(2).shape, "the values");
  case SigRule::SCATTER:
  case SigRule::CSCATTER:
    require_shape(ins, pos, 1, ins.view(2).shape, "the index");
    if (n > 3) require_shape(ins, pos, 3, ins.view(2).shape, "the index");
    return;
  default:
    break;
  }
  if (info.family == Family::EXTENSION) { // MATMUL: (m,k) x (k,n) -> (m,n)
    for (size_t i = 0; i < n; ++i)
      if (ins.view(i).ndim() != 2)
        reject(std::string(info.name) + " needs 2-d operands, " + operand_name(pos, i) +
               " has shape " + dims_text(ins.view(i).shape));
    const Dims &o = ins.out().shape, &a = ins.view(1).shape, &b = ins.view(2).shape;
    if (a[1] != b[0] || o[0] != a[0] || o[1] != b[1])
      reject("shape mismatch: " + std::string(info.name) + " of " + dims_text(a) + " and " +
             dims_text(b) + " into " + dims_text(o));
    return;
  }
  for (size_t i = 1; i < n; ++i) require_shape(ins, pos, i, ins.out().shape, "the output");
}

void check_data_parallel(const Instruction& ins, const std::vector<Position>& pos) {
  if (ins.is_system()) return;
  const View& out = ins.out();
  for (size_t k = 0; k < out.shape.size(); ++k)
    if (out.stride[k] == 0 && out.shape[k] > 1)
      reject("the output " + quoted(print_view(out)) + " has stride 0 in dimension " +
             std::to_string(k) + ": it would write its elements more than once");
  for (size_t i = 1; i < ins.operands.size(); ++i) {
    if (!ins.is_view(i)) continue;
    const View& in = ins.view(i);
    bool identical_ok = pos[i].overlap == Overlap::IDENTICAL_OK;
    if ((identical_ok && in.identical(out)) || !overlaps(in, out)) continue;
    std::string what = operand_name(pos, i) + " " + quoted(print_view(in)) +
                       " overlaps the output " + quoted(print_view(out));
    if (identical_ok)
      reject(what + " without being identical to it (not data-parallel: copy it first)");
    reject(what + " (" + std::string(ins.info().name) + " needs them disjoint)");
  }
}

// Every rule of verify_instruction; throws Reject.
void check_instruction(const Instruction& ins) {
  const OpInfo& info = ins.info();
  if (info.operands >= 0 && ins.operands.size() != size_t(info.operands))
    reject(std::string(info.name) + " takes " + std::to_string(info.operands) + " operand" +
           (info.operands == 1 ? "" : "s") + ", got " + std::to_string(ins.operands.size()));
  std::vector<Position> pos = positions(info, ins.operands.size());
  check_kinds(ins, pos);
  check_signature_of(ins);
  check_shapes(ins, pos);
  check_data_parallel(ins, pos);
}

std::string instruction_label(const Instruction& ins, size_t index) {
  return "instruction " + std::to_string(index + 1) + " " + quoted(print_instruction(ins)) + ": ";
}

} // namespace

void verify_instruction(const Instruction& ins, size_t index) {
  try {
    check_instruction(ins);
  } catch (const Reject& r) {
    throw UserError(instruction_label(ins, index) + r.message);
  }
}

void verify_program(const Program& prog) {
  const bool has_lines = prog.source_lines.size() == prog.instrs.size();
  auto where = [&](size_t index) {
    if (!has_lines) return std::string();
    return prog.source_name + ":" + std::to_string(prog.source_lines[index]) + ": ";
  };
  std::unordered_set<const Base*> declared;
  std::unordered_set<std::string_view> names;
  for (const auto& b : prog.bases) {
    if (!b) HS_USER_ERROR() << "the program lists a null base";
    if (!names.insert(b->name).second)
      HS_USER_ERROR() << "the program declares two bases named `" << b->name << "`";
    if (b->nelem < 0)
      HS_USER_ERROR() << "base `" << b->name << "` has a negative number of elements " << b->nelem;
    declared.insert(b.get());
  }
  std::unordered_map<const Base*, size_t> freed; // base -> index of its FREE
  for (size_t idx = 0; idx < prog.instrs.size(); ++idx) {
    const Instruction& ins = prog.instrs[idx];
    try {
      check_instruction(ins);
      for (size_t i = 0; i < ins.operands.size(); ++i) {
        if (!ins.is_view(i)) continue;
        const Base* b = ins.view(i).base.get();
        if (!declared.count(b))
          reject("operand " + std::to_string(i + 1) + ": base `" + b->name +
                 "` is not declared in the program");
        if (auto it = freed.find(b); it != freed.end()) {
          std::string at = "instruction " + std::to_string(it->second + 1);
          if (has_lines) at += " (line " + std::to_string(prog.source_lines[it->second]) + ")";
          reject("base `" + b->name + "` is used after its FREE at " + at);
        }
      }
      if (ins.op == Opcode::FREE) freed.emplace(ins.out().base.get(), idx);
    } catch (const Reject& r) {
      throw UserError(where(idx) + instruction_label(ins, idx) + r.message);
    }
  }
}

} // namespace hassium
