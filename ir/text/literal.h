// Constants of the .hsb text format: reading literals, their natural dtype, fitting a dtype.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/dtype.h"
#include "core/opcode.h"
#include "core/scalar.h"

namespace hassium {

// A constant as written, before it has a dtype.
struct Literal {
  enum class Kind { BOOL, INT, FLOAT, COMPLEX };
  Kind kind = Kind::INT;
  bool b = false;         // BOOL
  bool negative = false;  // INT: the sign and
  uint64_t magnitude = 0; //      the absolute value
  double re = 0, im = 0;  // FLOAT (re) and COMPLEX (re, im)
  std::string text;       // as written, for messages
};

// Reads a real number (`5`, `-3`, `2.5`, `1e-3`, `nan`, `-inf`) into `out`. Returns an empty
// string on success, else what is wrong ("bad number `1.2.3`").
std::string read_real_literal(std::string_view text, Literal& out);

// The dtype a literal has when nothing requires another: bool, int64 (uint64 for integers
// above the int64 range), float64, complex128.
DType natural_dtype(const Literal& lit);
// The natural dtype of the literal that Scalar::value_text() writes for `s`.
DType natural_dtype(const Scalar& s);

// The literal as a constant of dtype t. Returns an empty string on success, else why it does
// not fit ("constant `300` does not fit uint8 (range 0..255)").
std::string literal_to_scalar(const Literal& lit, DType t, Scalar& out);

// The dtype an untyped constant at `position` takes from its instruction's other operands
// (`known[i]`: the dtype of operand i, nullopt for untyped constants), or nullopt when the
// signature leaves it open or the operand count is not the opcode's.
std::optional<DType> context_dtype(Opcode op, size_t position,
                                   std::span<const std::optional<DType>> known);

} // namespace hassium
