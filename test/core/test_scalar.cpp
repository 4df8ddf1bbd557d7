// Tests for core/scalar: casts and text.
#include <catch2/catch.hpp>

#include "core/scalar.h"

using namespace hassium;

TEST_CASE("scalar casts wrap like C++ integer conversions") {
  CHECK(Scalar::of_int(300, DType::UINT8).u == 44);
  CHECK(Scalar::of_int(-1, DType::UINT16).u == 65535);
  CHECK(Scalar::of_int(200, DType::INT8).i == -56);
  CHECK(Scalar::of_float(-2.7, DType::INT32).i == -2);
  CHECK(Scalar::of_float(0.5, DType::BOOL).b);
  CHECK(Scalar::of_float(1.1, DType::FLOAT32).re == double(1.1f));
}

TEST_CASE("scalar text round-trips the value") {
  CHECK(Scalar::of_bool(true).value_text() == "true");
  CHECK(Scalar::of_int(-3).value_text() == "-3");
  CHECK(Scalar::of_float(2.0).value_text() == "2.0");
  CHECK(Scalar::of_float(0.1).value_text() == "0.10000000000000001");
  CHECK(Scalar::of_float(0.1, DType::FLOAT32).value_text() == "0.100000001");
  CHECK(Scalar::of_complex({1, -2}).value_text() == "(1.0,-2.0)");
  CHECK(Scalar::of_float(1.0 / 0.0).value_text() == "inf");
}

TEST_CASE("scalar equality compares dtype and value") {
  CHECK(Scalar::of_int(3) == Scalar::of_int(3));
  CHECK_FALSE(Scalar::of_int(3) == Scalar::of_int(3, DType::INT32));
  CHECK_FALSE(Scalar::of_float(3) == Scalar::of_float(3.5));
}
