// Opcodes: the enum and the info table, both generated from core/opcodes.def.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"

namespace hassium {

enum class Opcode : uint16_t {
#define HS_OPCODE(NAME, OPERANDS, FAMILY, RULE, TYPES) NAME,
#include "core/opcodes.def"
#undef HS_OPCODE
};

enum class Family : uint8_t { ELEMENTWISE, REDUCTION, SCAN, GENERATOR, INDEXING, SYSTEM, EXTENSION };

// How operand dtypes relate; the meaning of each is written in core/opcodes.def.
enum class SigRule : uint8_t { SAME, PRED, TO_REAL, CAST, REDUCE, GEN, RANDOM, GATHER, SCATTER, CSCATTER, BASE, SELECT, ARG, SEARCH };

struct OpInfo {
  Opcode op;
  std::string_view name;
  int operands; // including the output
  Family family;
  SigRule rule;
  DTypeSet types;
};

const OpInfo& op_info(Opcode op);
std::span<const OpInfo> all_opcodes();
inline std::string_view op_name(Opcode op) { return op_info(op).name; }
std::optional<Opcode> parse_opcode(std::string_view name);
std::string_view family_name(Family f);

// The element-wise opcode an unbuffered accumulation applies (ADD for ADD_AT, ...); nullopt
// for every other opcode.
std::optional<Opcode> at_combiner(Opcode op);
// The other way: the *_AT accumulation of an element-wise opcode (ADD_AT for ADD), if any.
std::optional<Opcode> at_accumulation(Opcode elementwise);
// Whether the output is written only at indexed positions (SCATTER, COND_SCATTER, the *_AT
// accumulations): its other elements, and for *_AT the written ones too, keep earlier values.
bool writes_indexed_only(Opcode op);

// A signature is the dtype of every operand, output first. `is_constant[i]` tells whether
// operand i is a constant. Returns an empty string when the signature is allowed, else a
// message saying what is wrong ("ADD: operands have dtypes float64, int32; expected ...").
std::string check_signature(Opcode op, std::span<const DType> dtypes);

// The dtype a constant at `position` must have, given the dtypes of the other operands
// (known[i] is nullopt for operands not yet known, e.g. other constants). nullopt when the
// signature leaves it open.
std::optional<DType> expected_constant_dtype(Opcode op, int position,
                                             std::span<const std::optional<DType>> known);

// Every allowed signature of an opcode, for tests and documentation (output first).
std::vector<std::vector<DType>> all_signatures(Opcode op);

} // namespace hassium
