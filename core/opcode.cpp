// Opcodes: the info table generated from core/opcodes.def, and signature checking.
#include "core/opcode.h"

#include <array>
#include <sstream>
#include <vector>

namespace hassium {

namespace {
using namespace types;
constexpr OpInfo kTable[] = {
#define HS_OPCODE(NAME, OPERANDS, FAMILY, RULE, TYPES)                                             \
  {Opcode::NAME, #NAME, OPERANDS, Family::FAMILY, SigRule::RULE, DTypeSet(TYPES)},
#include "core/opcodes.def"
#undef HS_OPCODE
};
constexpr size_t kNumOpcodes = sizeof(kTable) / sizeof(kTable[0]);

std::string type_set_text(DTypeSet s) {
  std::string out;
  for (int t = 0; t < kNumDTypes; ++t)
    if (dtype_in(DType(t), s)) out += (out.empty() ? "" : "|") + std::string(dtype_name(DType(t)));
  return out;
}

std::string sig_text(std::span<const DType> dtypes) {
  std::string s;
  for (auto t : dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s;
}

// The operand dtypes the rule requires, given T (the rule's free type) and, for CAST, the
// output's own dtype. Index 0 is the output.
std::vector<DType> signature_for(const OpInfo& info, DType t, DType out) {
  switch (info.rule) {
  case SigRule::SAME: return std::vector<DType>(size_t(info.operands), t);
  case SigRule::PRED: {
    std::vector<DType> v(size_t(info.operands), t);
    v[0] = DType::BOOL;
    return v;
  }
  case SigRule::TO_REAL: return {real_part_type(t), t};
  case SigRule::CAST: return {out, t};
  case SigRule::REDUCE: return {t, t, DType::INT64};
  case SigRule::GEN: return {t};
  case SigRule::RANDOM: return {DType::UINT64, DType::UINT64, DType::UINT64};
  case SigRule::GATHER: return {t, t, DType::INT64};
  case SigRule::SCATTER: return {t, t, DType::INT64};
  case SigRule::CSCATTER: return {t, t, DType::INT64, DType::BOOL};
  case SigRule::BASE: return {t};
  case SigRule::SELECT: return {t, DType::BOOL, t, t};
  case SigRule::ARG: return {DType::INT64, t, DType::INT64};
  case SigRule::SEARCH: return {DType::INT64, t, t};
  }
  return {};
}

// The position whose dtype is the rule's free type T.
int free_type_position(SigRule rule) {
  switch (rule) {
  case SigRule::PRED:
  case SigRule::TO_REAL:
  case SigRule::CAST:
  case SigRule::ARG:
  case SigRule::SEARCH: return 1;
  default: return 0;
  }
}
} // namespace

const OpInfo& op_info(Opcode op) { return kTable[size_t(op)]; }
std::span<const OpInfo> all_opcodes() { return {kTable, kNumOpcodes}; }

std::optional<Opcode> parse_opcode(std::string_view name) {
  for (const auto& info : kTable)
    if (info.name == name) return info.op;
  return std::nullopt;
}

std::string_view family_name(Family f) {
  static constexpr std::array<std::string_view, 7> names = {
      "element-wise", "reduction", "scan", "generator", "indexing", "system", "extension"};
  return names[size_t(f)];
}

std::optional<Opcode> at_combiner(Opcode op) {
  switch (op) {
  case Opcode::ADD_AT: return Opcode::ADD;
  case Opcode::SUBTRACT_AT: return Opcode::SUBTRACT;
  case Opcode::MULTIPLY_AT: return Opcode::MULTIPLY;
  case Opcode::MINIMUM_AT: return Opcode::MINIMUM;
  case Opcode::MAXIMUM_AT: return Opcode::MAXIMUM;
  default: return std::nullopt;
  }
}

std::optional<Opcode> at_accumulation(Opcode elementwise) {
  for (const OpInfo& info : all_opcodes())
    if (at_combiner(info.op) == elementwise) return info.op;
  return std::nullopt;
}

bool writes_indexed_only(Opcode op) {
  return op_info(op).family == Family::INDEXING && op != Opcode::GATHER;
}

std::string check_signature(Opcode op, std::span<const DType> dtypes) {
  const OpInfo& info = op_info(op);
  std::ostringstream err;
  if (info.operands >= 0 && int(dtypes.size()) != info.operands) {
    err << info.name << " takes " << info.operands << " operand" << (info.operands == 1 ? "" : "s")
        << ", got " << dtypes.size();
    return err.str();
  }
  if (dtypes.empty()) return "";
  DType t = dtypes[size_t(free_type_position(info.rule))];
  if (info.rule == SigRule::RANDOM) t = DType::UINT64;
  bool ok = dtype_in(t, info.types) && signature_for(info, t, dtypes[0]) ==
                                           std::vector<DType>(dtypes.begin(), dtypes.end());
  if (ok) return "";
  err << info.name << ": bad type signature (" << sig_text(dtypes) << ")";
  if (dtype_in(t, info.types)) {
    err << "; expected (" << sig_text(signature_for(info, t, dtypes[0])) << ")";
  } else {
    err << "; " << dtype_name(t) << " is not one of " << type_set_text(info.types);
  }
  return err.str();
}

std::optional<DType> expected_constant_dtype(Opcode op, int position,
                                             std::span<const std::optional<DType>> known) {
  const OpInfo& info = op_info(op);
  int fp = free_type_position(info.rule);
  std::optional<DType> t;
  switch (info.rule) {
  case SigRule::REDUCE:
  case SigRule::GATHER:
  case SigRule::SCATTER:
  case SigRule::CSCATTER:
  case SigRule::ARG:
    if (position >= 2) return signature_for(info, DType::BOOL, DType::BOOL)[size_t(position)];
    break;
  case SigRule::SEARCH:
    if (position == 0) return DType::INT64;
    break;
  case SigRule::RANDOM: return DType::UINT64;
  case SigRule::SELECT:
    if (position == 1) return DType::BOOL;
    break;
  default: break;
  }
  // Find the free type T from any known operand that carries it.
  for (size_t i = 0; i < known.size() && !t; ++i) {
    if (!known[i] || int(i) == position) continue;
    if (info.rule == SigRule::SAME || (info.rule == SigRule::PRED && i >= 1) ||
        (info.rule == SigRule::REDUCE && i <= 1) || (info.rule == SigRule::GATHER && i <= 1) ||
        ((info.rule == SigRule::SCATTER || info.rule == SigRule::CSCATTER) && i <= 1) ||
        (info.rule == SigRule::SELECT && i != 1) || (info.rule == SigRule::SEARCH && i >= 1) ||
        int(i) == fp)
      t = known[i];
  }
  if (info.rule == SigRule::CAST && position == 1 && !t && known.size() > 0 && known[0])
    return known[0]; // IDENTITY out, constant: a fill in the output's type
  if (!t) return std::nullopt;
  if (info.rule == SigRule::CAST && position == 0) return std::nullopt;
  return signature_for(info, *t, known.size() > 0 && known[0] ? *known[0] : *t)[size_t(position)];
}

std::vector<std::vector<DType>> all_signatures(Opcode op) {
  const OpInfo& info = op_info(op);
  std::vector<std::vector<DType>> sigs;
  for (int t = 0; t < kNumDTypes; ++t) {
    DType dt = DType(t);
    if (info.rule == SigRule::RANDOM && dt != DType::UINT64) continue;
    if (!dtype_in(dt, info.types)) continue;
    if (info.rule == SigRule::CAST) {
      for (int o = 0; o < kNumDTypes; ++o) sigs.push_back(signature_for(info, dt, DType(o)));
    } else {
      sigs.push_back(signature_for(info, dt, dt));
    }
  }
  return sigs;
}

} // namespace hassium
