// Printer of the .hsb text format: canonical, stable, and read back by ir/parser.
#include "ir/text/printer.h"

#include <unordered_set>

#include "ir/text/literal.h"

namespace hassium {

namespace {

std::string dims_list(const Dims& d) {
  std::string s;
  for (size_t k = 0; k < d.size(); ++k) s += (k ? "," : "") + std::to_string(d[k]);
  return s;
}

// Which constants need a `:dtype` suffix so that the parser gives each its dtype back.
// The parser types an untyped constant from the suffixed operands (ir/text/literal.h
// context_dtype); starting from "all suffixed", drop each suffix whose removal keeps every
// constant's dtype. Instructions have at most a few constants.
std::vector<bool> needs_suffix(const Instruction& ins) {
  size_t n = ins.operands.size();
  std::vector<bool> suffix(n, false);
  for (size_t i = 0; i < n; ++i) suffix[i] = ins.is_constant(i);
  auto parses_back = [&] {
    std::vector<std::optional<DType>> known(n);
    for (size_t i = 0; i < n; ++i)
      if (ins.is_view(i) ? bool(ins.view(i).base) : bool(suffix[i])) known[i] = ins.dtype(i);
    for (size_t i = 0; i < n; ++i) {
      if (!ins.is_constant(i) || suffix[i]) continue;
      const Scalar& c = ins.constant(i);
      if (context_dtype(ins.op, i, known).value_or(natural_dtype(c)) != c.dtype) return false;
    }
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!suffix[i]) continue;
    suffix[i] = false;
    if (!parses_back()) suffix[i] = true;
  }
  return suffix;
}

} // namespace

std::string print_view(const View& v) {
  if (!v.base) return "<no base>";
  if (v.is_whole_base() && v.stride.size() == 1) return v.base->name;
  return v.base->name + "{" + std::to_string(v.offset) + ";" + dims_list(v.shape) + ";" +
         dims_list(v.stride) + "}";
}

std::string print_instruction(const Instruction& ins) {
  std::string s(op_name(ins.op));
  std::vector<bool> suffix = needs_suffix(ins);
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    s += i ? ", " : " ";
    if (ins.is_view(i)) {
      s += print_view(ins.view(i));
    } else {
      const Scalar& c = ins.constant(i);
      s += c.value_text();
      if (suffix[i]) s += ":" + std::string(dtype_name(c.dtype));
    }
  }
  return s;
}

std::string print_program(const Program& prog) {
  std::string s;
  std::unordered_set<const Base*> printed;
  auto declare = [&](const BasePtr& b) {
    if (!b || !printed.insert(b.get()).second) return;
    s += ".base " + b->name + " " + std::string(dtype_name(b->dtype)) + " " +
         std::to_string(b->nelem) + "\n";
  };
  for (const auto& b : prog.bases) declare(b);
  for (const auto& ins : prog.instrs)
    for (const auto& opnd : ins.operands)
      if (auto* v = std::get_if<View>(&opnd)) declare(v->base);
  for (const auto& ins : prog.instrs) s += print_instruction(ins) + "\n";
  return s;
}

} // namespace hassium
