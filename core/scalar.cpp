// A typed constant operand: construction, casts, comparison and text form.
#include "core/scalar.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "core/error.h"

namespace hassium {

Scalar Scalar::of_bool(bool v) {
  Scalar s;
  s.dtype = DType::BOOL;
  s.b = v;
  return s;
}
Scalar Scalar::of_int(int64_t v, DType t) {
  return Scalar{DType::INT64, false, v}.cast(t);
}
Scalar Scalar::of_uint(uint64_t v, DType t) {
  Scalar s;
  s.dtype = DType::UINT64;
  s.u = v;
  return s.cast(t);
}
Scalar Scalar::of_float(double v, DType t) {
  Scalar s;
  s.dtype = DType::FLOAT64;
  s.re = v;
  return s.cast(t);
}
Scalar Scalar::of_complex(std::complex<double> v, DType t) {
  Scalar s;
  s.dtype = DType::COMPLEX128;
  s.re = v.real();
  s.im = v.imag();
  return s.cast(t);
}

namespace {
template <typename C> struct IsComplex : std::false_type {};
template <typename R> struct IsComplex<std::complex<R>> : std::true_type {};

template <typename C> void store_as(const Scalar& s, void* dst) {
  C v;
  if constexpr (std::is_same_v<C, bool>)
    v = s.b;
  else if constexpr (IsComplex<C>::value)
    v = C(typename C::value_type(s.re), typename C::value_type(s.im));
  else if constexpr (std::is_floating_point_v<C>)
    v = C(s.re);
  else if constexpr (std::is_signed_v<C>)
    v = C(s.i);
  else
    v = C(s.u);
  std::memcpy(dst, &v, sizeof v);
}

template <typename C> void load_as(const void* src, Scalar& s) {
  C v;
  std::memcpy(&v, src, sizeof v);
  if constexpr (std::is_same_v<C, bool>) {
    s.b = v;
  } else if constexpr (IsComplex<C>::value) {
    s.re = double(v.real());
    s.im = double(v.imag());
  } else if constexpr (std::is_floating_point_v<C>) {
    s.re = double(v);
  } else if constexpr (std::is_signed_v<C>) {
    s.i = int64_t(v);
  } else {
    s.u = uint64_t(v);
  }
}
} // namespace

void Scalar::store(void* dst) const {
  switch (dtype) {
#define HS_X(ENUM, name, ctype, size)                                                              \
  case DType::ENUM:                                                                                \
    return store_as<ctype>(*this, dst);
    HS_DTYPES(HS_X)
#undef HS_X
  }
}

Scalar Scalar::load(const void* src, DType t) {
  Scalar s;
  s.dtype = t;
  switch (t) {
#define HS_X(ENUM, name, ctype, size)                                                              \
  case DType::ENUM:                                                                                \
    load_as<ctype>(src, s);                                                                        \
    break;
    HS_DTYPES(HS_X)
#undef HS_X
  }
  return s;
}

double Scalar::as_double() const {
  if (is_bool(dtype)) return b ? 1.0 : 0.0;
  if (is_signed_int(dtype)) return double(i);
  if (is_unsigned_int(dtype)) return double(u);
  return re;
}
std::complex<double> Scalar::as_complex() const {
  return is_complex(dtype) ? std::complex<double>(re, im) : std::complex<double>(as_double(), 0);
}
int64_t Scalar::as_int() const {
  if (is_bool(dtype)) return b;
  if (is_signed_int(dtype)) return i;
  if (is_unsigned_int(dtype)) return int64_t(u);
  if (!std::isfinite(re) || re >= 9.2233720368547758e18 || re < -9.2233720368547758e18)
    return INT64_MIN; // what x86 cvttsd2si gives, and so NumPy
  return int64_t(re);
}
uint64_t Scalar::as_uint() const {
  if (is_bool(dtype)) return b;
  if (is_signed_int(dtype)) return uint64_t(i);
  if (is_unsigned_int(dtype)) return u;
  if (re >= 0 && re < 1.8446744073709552e19) return uint64_t(re);
  return uint64_t(as_int());
}
bool Scalar::as_bool() const {
  if (is_bool(dtype)) return b;
  if (is_signed_int(dtype)) return i != 0;
  if (is_unsigned_int(dtype)) return u != 0;
  return re != 0 || im != 0;
}

namespace {
template <typename T> int64_t wrap_signed(int64_t v) {
  return int64_t(T(v));
}
template <typename T> uint64_t wrap_unsigned(uint64_t v) {
  return uint64_t(T(v));
}
} // namespace

Scalar Scalar::cast(DType t) const {
  Scalar s;
  s.dtype = t;
  switch (t) {
  case DType::BOOL:
    s.b = as_bool();
    break;
  case DType::INT8:
    s.i = wrap_signed<int8_t>(as_int());
    break;
  case DType::INT16:
    s.i = wrap_signed<int16_t>(as_int());
    break;
  case DType::INT32:
    s.i = wrap_signed<int32_t>(as_int());
    break;
  case DType::INT64:
    s.i = as_int();
    break;
  case DType::UINT8:
    s.u = wrap_unsigned<uint8_t>(as_uint());
    break;
  case DType::UINT16:
    s.u = wrap_unsigned<uint16_t>(as_uint());
    break;
  case DType::UINT32:
    s.u = wrap_unsigned<uint32_t>(as_uint());
    break;
  case DType::UINT64:
    s.u = as_uint();
    break;
  case DType::FLOAT32:
    s.re = double(float(as_double()));
    break;
  case DType::FLOAT64:
    s.re = as_double();
    break;
  case DType::COMPLEX64:
    s.re = double(float(as_complex().real()));
    s.im = double(float(as_complex().imag()));
    break;
  case DType::COMPLEX128:
    s.re = as_complex().real();
    s.im = as_complex().imag();
    break;
  }
  return s;
}

bool Scalar::operator==(const Scalar& o) const {
  if (dtype != o.dtype) return false;
  if (is_bool(dtype)) return b == o.b;
  if (is_signed_int(dtype)) return i == o.i;
  if (is_unsigned_int(dtype)) return u == o.u;
  return std::memcmp(&re, &o.re, sizeof re) == 0 && std::memcmp(&im, &o.im, sizeof im) == 0;
}

namespace {
std::string float_text(double v, bool single) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(single ? 9 : 17);
  os << v;
  std::string s = os.str();
  // Keep a float looking like a float, so that "2.0" is not read back as an integer.
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}
} // namespace

std::string Scalar::value_text() const {
  bool single = dtype == DType::FLOAT32 || dtype == DType::COMPLEX64;
  if (is_bool(dtype)) return b ? "true" : "false";
  if (is_signed_int(dtype)) return std::to_string(i);
  if (is_unsigned_int(dtype)) return std::to_string(u);
  if (is_float(dtype)) return float_text(re, single);
  return "(" + float_text(re, single) + "," + float_text(im, single) + ")";
}

} // namespace hassium
