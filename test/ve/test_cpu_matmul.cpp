// Tests of ve/cpu/matmul.cpp: MATMUL through BLAS for floats and complex on views of every
// layout (row-major, transposed, strided, reversed), and the integer loop with wrap-around.
#include <complex>

#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
enum class Kind { ROW_MAJOR, TRANSPOSED, STRIDED, REVERSED };

View matrix(DType t, int64_t rows, int64_t cols, Kind kind) {
  auto base = make_data_base("m", t, 2 * rows * cols + 4);
  switch (kind) {
  case Kind::ROW_MAJOR:
    return view(base, 1, {rows, cols}, {cols, 1});
  case Kind::TRANSPOSED:
    return view(base, 0, {rows, cols}, {1, rows});
  case Kind::STRIDED:
    return view(base, 0, {rows, cols}, {2 * cols, 2});
  case Kind::REVERSED:
    return view(base, (rows - 1) * cols, {rows, cols}, {-cols, 1});
  }
  return View();
}

template <typename T>
void check_matmul(DType t, int64_t m, int64_t k, int64_t n, Kind ka, Kind kb, Kind ko) {
  auto engine = test_engine();
  View a = matrix(t, m, k, ka), b = matrix(t, k, n, kb), out = matrix(t, m, n, ko);
  fill<T>(a, [](int64_t i) { return T(i % 7) - T(3); });
  fill<T>(b, [](int64_t i) { return T((i * 5) % 11) - T(4); });
  Program p;
  p.instrs.emplace_back(Opcode::MATMUL, std::vector<Operand>{out, a, b});
  run_all(*engine, p);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T want = T(0);
      for (int64_t q = 0; q < k; ++q) want += element<T>(a, i * k + q) * element<T>(b, q * n + j);
      HS_REQUIRE_ELEMENT(element<T>(out, i * n + j) == want,
                         dtype_name(t) << " (" << i << ", " << j << ") layouts " << int(ka)
                                       << int(kb) << int(ko));
    }
}
} // namespace

TEST_CASE("MATMUL: float and complex through BLAS on every layout", "[ve][cpu][matmul]") {
  const Kind kinds[] = {Kind::ROW_MAJOR, Kind::TRANSPOSED, Kind::STRIDED, Kind::REVERSED};
  for (Kind ka : kinds)
    for (Kind kb : kinds) {
      check_matmul<double>(DType::FLOAT64, 5, 7, 3, ka, kb, Kind::ROW_MAJOR);
      check_matmul<float>(DType::FLOAT32, 4, 6, 9, ka, kb, Kind::TRANSPOSED);
    }
  check_matmul<std::complex<double>>(DType::COMPLEX128, 3, 4, 5, Kind::ROW_MAJOR, Kind::TRANSPOSED,
                                     Kind::STRIDED);
  check_matmul<std::complex<float>>(DType::COMPLEX64, 6, 2, 3, Kind::STRIDED, Kind::ROW_MAJOR,
                                    Kind::ROW_MAJOR);
  check_matmul<double>(DType::FLOAT64, 64, 80, 48, Kind::ROW_MAJOR, Kind::ROW_MAJOR,
                       Kind::ROW_MAJOR);
  check_matmul<double>(DType::FLOAT64, 1, 5, 1, Kind::ROW_MAJOR, Kind::TRANSPOSED, Kind::ROW_MAJOR);
}

TEST_CASE("MATMUL: one row or one column (gemv) on every layout", "[ve][cpu][matmul]") {
  const Kind kinds[] = {Kind::ROW_MAJOR, Kind::TRANSPOSED, Kind::STRIDED, Kind::REVERSED};
  for (Kind ka : kinds)
    for (Kind kb : kinds)
      for (Kind ko : kinds) {
        check_matmul<double>(DType::FLOAT64, 1, 7, 5, ka, kb, ko); // x^T B
        check_matmul<double>(DType::FLOAT64, 6, 7, 1, ka, kb, ko); // A x
        check_matmul<float>(DType::FLOAT32, 1, 4, 1, ka, kb, ko);  // a dot product
      }
  check_matmul<std::complex<double>>(DType::COMPLEX128, 1, 4, 5, Kind::TRANSPOSED, Kind::STRIDED,
                                     Kind::ROW_MAJOR);
  check_matmul<std::complex<float>>(DType::COMPLEX64, 6, 3, 1, Kind::STRIDED, Kind::REVERSED,
                                    Kind::TRANSPOSED);
  check_matmul<double>(DType::FLOAT64, 1, 300, 200, Kind::ROW_MAJOR, Kind::TRANSPOSED,
                       Kind::ROW_MAJOR);
}

TEST_CASE("MATMUL: integers wrap around, an empty inner dimension gives zeros",
          "[ve][cpu][matmul]") {
  check_matmul<int64_t>(DType::INT64, 4, 5, 6, Kind::ROW_MAJOR, Kind::REVERSED, Kind::TRANSPOSED);
  check_matmul<int32_t>(DType::INT32, 3, 3, 3, Kind::STRIDED, Kind::ROW_MAJOR, Kind::ROW_MAJOR);
  auto engine = test_engine();
  auto a = make_data_base("a", DType::UINT8, 4), b = make_data_base("b", DType::UINT8, 4);
  auto r = make_data_base("r", DType::UINT8, 1);
  for (int i = 0; i < 4; ++i) data_of<uint8_t>(a)[i] = data_of<uint8_t>(b)[i] = 200;
  Program p;
  p.instrs.emplace_back(Opcode::MATMUL,
                        std::vector<Operand>{view(r, 0, {1, 1}, {1, 1}), view(a, 0, {1, 4}, {4, 1}),
                                             view(b, 0, {4, 1}, {1, 1})});
  run_all(*engine, p);
  CHECK(data_of<uint8_t>(r)[0] == uint8_t(4u * 200u * 200u));
  auto z = make_data_base("z", DType::FLOAT64, 6);
  fill<double>(View::whole(z), [](int64_t) { return 9.0; });
  auto zf = make_data_base("zf", DType::FLOAT64, 1);
  Program q2;
  q2.instrs.emplace_back(Opcode::MATMUL, std::vector<Operand>{view(z, 0, {2, 3}, {3, 1}),
                                                              view(zf, 0, {2, 0}, {1, 1}),
                                                              view(zf, 0, {0, 3}, {1, 1})});
  run_all(*engine, q2);
  for (int i = 0; i < 6; ++i) CHECK(data_of<double>(z)[i] == 0.0);
}
