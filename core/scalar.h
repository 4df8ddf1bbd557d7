// A typed constant operand of an instruction (the bytecode's immediate value).
#pragma once

#include <complex>
#include <cstdint>
#include <string>

#include "core/dtype.h"

namespace hassium {

// The value is held in the widest member of its class: bool in b, signed ints in i,
// unsigned ints in u, floats in re, complex in (re, im). Conversions follow C++ casts,
// except that the float->int conversions are done by the caller when it needs NumPy's rules.
struct Scalar {
  DType dtype = DType::FLOAT64;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0;
  double im = 0;

  static Scalar of_bool(bool v);
  static Scalar of_int(int64_t v, DType t = DType::INT64);
  static Scalar of_uint(uint64_t v, DType t = DType::UINT64);
  static Scalar of_float(double v, DType t = DType::FLOAT64);
  static Scalar of_complex(std::complex<double> v, DType t = DType::COMPLEX128);

  // The same value converted to dtype t (C++ conversion semantics, wrapping for ints,
  // float32 rounding for float32/complex64).
  Scalar cast(DType t) const;
  double as_double() const;
  std::complex<double> as_complex() const;
  int64_t as_int() const;
  uint64_t as_uint() const;
  bool as_bool() const;

  // The value in its dtype's memory layout (the element type of HS_DTYPES) at dst / read from src.
  void store(void* dst) const;
  static Scalar load(const void* src, DType t);

  bool operator==(const Scalar& o) const; // same dtype and same value (NaNs equal bitwise)
  // The value as bytecode text without the dtype suffix: "true", "-3", "2.5", "(1,-2)".
  // Floats print with enough digits to round-trip (17 for float64, 9 for float32).
  std::string value_text() const;
};

} // namespace hassium
