// Tests for core/dtype: names, sizes, classes.
#include <catch2/catch.hpp>

#include "core/dtype.h"

using namespace hassium;

TEST_CASE("dtype names round-trip and sizes are right") {
  for (int t = 0; t < kNumDTypes; ++t) {
    auto parsed = parse_dtype(dtype_name(DType(t)));
    REQUIRE(parsed);
    CHECK(*parsed == DType(t));
  }
  CHECK(dtype_size(DType::BOOL) == 1);
  CHECK(dtype_size(DType::UINT16) == 2);
  CHECK(dtype_size(DType::FLOAT32) == 4);
  CHECK(dtype_size(DType::COMPLEX128) == 16);
  CHECK_FALSE(parse_dtype("float16"));
  CHECK(dtype_names_list().find("complex64") != std::string_view::npos);
}

TEST_CASE("dtype classes") {
  CHECK(is_signed_int(DType::INT8));
  CHECK_FALSE(is_signed_int(DType::UINT8));
  CHECK(is_unsigned_int(DType::UINT64));
  CHECK(is_float(DType::FLOAT32));
  CHECK(is_complex(DType::COMPLEX64));
  CHECK(real_part_type(DType::COMPLEX64) == DType::FLOAT32);
  CHECK(real_part_type(DType::INT32) == DType::INT32);
  CHECK(dtype_in(DType::FLOAT64, types::F));
  CHECK_FALSE(dtype_in(DType::FLOAT64, types::I | types::U));
}
