// Element types of the bytecode: the name and size tables.
#include "core/dtype.h"

#include <array>
#include <string>

namespace hassium {

namespace {
constexpr std::array<std::string_view, kNumDTypes> kNames = {
#define HS_X(ENUM, name, ctype, size) #name,
    HS_DTYPES(HS_X)
#undef HS_X
};
} // namespace

std::string_view dtype_name(DType t) {
  return kNames[size_t(t)];
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return DType(i);
  return std::nullopt;
}

std::string_view dtype_names_list() {
  static const std::string list = [] {
    std::string s;
    for (auto n : kNames) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
  }();
  return list;
}

DType real_part_type(DType t) {
  if (t == DType::COMPLEX64) return DType::FLOAT32;
  if (t == DType::COMPLEX128) return DType::FLOAT64;
  return t;
}

} // namespace hassium
