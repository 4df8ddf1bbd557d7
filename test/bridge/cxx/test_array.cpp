// Tests of include/hassium/array.h over all 13 element types: construction, shape, arithmetic
// that each type supports, comparison, reduction, views, casts and element access, each checked
// against a plain loop over the same values.
#include "helpers.h"

using namespace hassium;
using hstest::check_values;

TEMPLATE_TEST_CASE("every element type records, runs and reads back", "[cxx][array]", bool, int8_t,
                   int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, float, double,
                   std::complex<float>, std::complex<double>) {
  using T = TestType;
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_complex = is_std_complex<T>::value;
  const shape_type shape = {3, 5};
  auto va = hstest::sample<T>(15, 51), vb = hstest::sample<T>(15, 52);
  array<T> a(shape, va), b(shape, vb);
  CHECK(a.shape() == shape);
  CHECK(a.size() == 15);
  CHECK(a.ndim() == 2);
  CHECK(a.strides() == shape_type{5, 1});
  check_values(a, va);
  check_values(zeros<T>(shape), std::vector<T>(15, T(0)));
  check_values(ones<T>({4}), std::vector<T>(4, T(1)));
  check_values(full<T>({2}, va[3]), {va[3], va[3]});

  // Arithmetic in the type itself (bool: + is or, * is and).
  std::vector<T> sum_ab, prod_ab;
  for (size_t i = 0; i < 15; ++i) {
    if constexpr (is_bool) {
      sum_ab.push_back(va[i] || vb[i]);
      prod_ab.push_back(va[i] && vb[i]);
    } else {
      sum_ab.push_back(T(va[i] + vb[i]));
      prod_ab.push_back(T(va[i] * vb[i]));
    }
  }
  double tol = std::is_integral_v<T> ? 0 : 1e-6;
  check_values(a + b, sum_ab, tol);
  check_values(a * b, prod_ab, tol);
  if constexpr (!is_bool) {
    std::vector<T> diff;
    for (size_t i = 0; i < 15; ++i) diff.push_back(T(va[i] - vb[i]));
    check_values(a - b, diff, tol);
  }
  std::vector<bool> eq;
  for (size_t i = 0; i < 15; ++i) eq.push_back(va[i] == vb[i]);
  check_values(a == b, eq);
  check_values(a == a, std::vector<bool>(15, true));

  // Whole sum in NumPy's accumulator type.
  using S = typename decltype(sum(a))::value_type;
  S total = S(0);
  for (const T& x : va) total = S(total + S(x));
  CHECK(hstest::close(sum(a).item(), total, 1e-5));

  // Views and element access.
  array<T> col = a(_, 2);
  check_values(col, {va[2], va[7], va[12]});
  CHECK(a(1, 4) == va[9]);
  a(0, 0) = vb[0];
  CHECK(a(0, 0) == vb[0]);
  array<T> rev = a(slice(_, _, -1), 0);
  check_values(rev, {va[10], va[5], vb[0]});

  // Casts to double / from double (complex: the real part is kept through complex<double>).
  if constexpr (!is_complex) {
    std::vector<double> as_double;
    for (size_t i = 0; i < 15; ++i) as_double.push_back(double(i == 0 ? vb[0] : va[i]));
    check_values(a.template astype<double>(), as_double);
  } else {
    std::vector<std::complex<double>> as_c;
    for (size_t i = 0; i < 15; ++i) as_c.push_back(std::complex<double>(i == 0 ? vb[0] : va[i]));
    check_values(a.template astype<std::complex<double>>(), as_c, 1e-7);
  }
}
