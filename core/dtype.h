// Element types of the bytecode: names, sizes, classes and sets of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hassium {

// The order is part of the bytecode: it indexes tables and bitmask sets.
#define HS_DTYPES(X)                                                                               \
  X(BOOL, bool, bool, 1)                                                                           \
  X(INT8, int8, int8_t, 1)                                                                         \
  X(INT16, int16, int16_t, 2)                                                                      \
  X(INT32, int32, int32_t, 4)                                                                      \
  X(INT64, int64, int64_t, 8)                                                                      \
  X(UINT8, uint8, uint8_t, 1)                                                                      \
  X(UINT16, uint16, uint16_t, 2)                                                                   \
  X(UINT32, uint32, uint32_t, 4)                                                                   \
  X(UINT64, uint64, uint64_t, 8)                                                                   \
  X(FLOAT32, float32, float, 4)                                                                    \
  X(FLOAT64, float64, double, 8)                                                                   \
  X(COMPLEX64, complex64, std::complex<float>, 8)                                                  \
  X(COMPLEX128, complex128, std::complex<double>, 16)

enum class DType : uint8_t {
#define HS_X(ENUM, name, ctype, size) ENUM,
  HS_DTYPES(HS_X)
#undef HS_X
};
inline constexpr int kNumDTypes = 13;

std::string_view dtype_name(DType t); // "float64"
std::optional<DType> parse_dtype(std::string_view name);
// Bytes per element (inline: element reads and stores ask it for every access).
constexpr int dtype_size(DType t) {
  constexpr int sizes[] = {
#define HS_X(ENUM, name, ctype, size) size,
      HS_DTYPES(HS_X)
#undef HS_X
  };
  return sizes[size_t(t)];
}
std::string_view dtype_names_list(); // "bool, int8, ..., complex128"

constexpr bool is_bool(DType t) {
  return t == DType::BOOL;
}
constexpr bool is_signed_int(DType t) {
  return t >= DType::INT8 && t <= DType::INT64;
}
constexpr bool is_unsigned_int(DType t) {
  return t >= DType::UINT8 && t <= DType::UINT64;
}
constexpr bool is_integer(DType t) {
  return is_signed_int(t) || is_unsigned_int(t);
}
constexpr bool is_float(DType t) {
  return t == DType::FLOAT32 || t == DType::FLOAT64;
}
constexpr bool is_complex(DType t) {
  return t == DType::COMPLEX64 || t == DType::COMPLEX128;
}
constexpr bool is_inexact(DType t) {
  return is_float(t) || is_complex(t);
}
// The real type of a complex one (complex64 -> float32); other types map to themselves.
DType real_part_type(DType t);

// A set of dtypes as a bitmask (bit i = DType i). Used by the opcode signatures.
using DTypeSet = uint16_t;
inline constexpr DTypeSet dtype_bit(DType t) {
  return DTypeSet(1u << unsigned(t));
}
inline constexpr bool dtype_in(DType t, DTypeSet s) {
  return (s & dtype_bit(t)) != 0;
}
namespace types {
inline constexpr DTypeSet B = dtype_bit(DType::BOOL);
inline constexpr DTypeSet I = dtype_bit(DType::INT8) | dtype_bit(DType::INT16) |
                              dtype_bit(DType::INT32) | dtype_bit(DType::INT64);
inline constexpr DTypeSet U = dtype_bit(DType::UINT8) | dtype_bit(DType::UINT16) |
                              dtype_bit(DType::UINT32) | dtype_bit(DType::UINT64);
inline constexpr DTypeSet F = dtype_bit(DType::FLOAT32) | dtype_bit(DType::FLOAT64);
inline constexpr DTypeSet C = dtype_bit(DType::COMPLEX64) | dtype_bit(DType::COMPLEX128);
inline constexpr DTypeSet ALL = B | I | U | F | C;
} // namespace types

} // namespace hassium
