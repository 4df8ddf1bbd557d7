// Tests of GATHER, SCATTER and COND_SCATTER on the CPU engine (codegen.cpp's flat addressing):
// flat positions into views of any layout, out-of-range indices reported as IndexOutOfBounds
// (a UserError with the index and the bound).
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/index_error.h"
#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

TEST_CASE("GATHER reads row-major positions of a strided view", "[ve][cpu][index]") {
  auto engine = test_engine();
  auto src = make_data_base("src", DType::FLOAT32, 64);
  fill<float>(View::whole(src), [](int64_t i) { return float(i) * 1.5f; });
  View in = view(src, 50, {3, 4}, {-20, 3}); // reversed rows of every third element
  auto idx = make_data_base("idx", DType::INT64, 1000);
  fill<int64_t>(View::whole(idx), [](int64_t i) { return (i * 7) % 12; });
  auto out = make_data_base("out", DType::FLOAT32, 1000);
  View ov = View::contiguous(out, {10, 100}), iv = View::contiguous(idx, {10, 100});
  Program p;
  p.instrs.emplace_back(Opcode::GATHER, std::vector<Operand>{ov, in, iv});
  run_all(*engine, p);
  for (int64_t i = 0; i < 1000; ++i)
    HS_REQUIRE_ELEMENT(data_of<float>(out)[i] == element<float>(in, (i * 7) % 12),
                       "position " << i);
}

TEST_CASE("GATHER of complex values from a contiguous source, large", "[ve][cpu][index]") {
  auto engine = test_engine();
  const int64_t n = 1 << 18, m = 1000;
  auto src = make_data_base("src", DType::COMPLEX128, m);
  fill<std::complex<double>>(View::whole(src),
                             [](int64_t i) { return std::complex<double>(double(i), -double(i)); });
  auto idx = make_data_base("idx", DType::INT64, n);
  fill<int64_t>(View::whole(idx), [&](int64_t i) { return (i * 31) % m; });
  auto out = make_data_base("out", DType::COMPLEX128, n);
  Program p;
  p.instrs.emplace_back(Opcode::GATHER,
                        std::vector<Operand>{View::whole(out), View::whole(src), View::whole(idx)});
  run_all(*engine, p);
  for (int64_t i = 0; i < n; ++i)
    HS_REQUIRE_ELEMENT(data_of<std::complex<double>>(out)[i] ==
                           data_of<std::complex<double>>(src)[(i * 31) % m],
                       "position " << i);
}

TEST_CASE("GATHER with an index out of range is a UserError naming index and bound",
          "[ve][cpu][index]") {
  auto engine = test_engine();
  auto src = make_data_base("src", DType::INT32, 10);
  auto idx = make_data_base("idx", DType::INT64, 100000);
  auto out = make_data_base("out", DType::INT32, 100000);
  Program p;
  p.instrs.emplace_back(Opcode::GATHER,
                        std::vector<Operand>{View::whole(out), View::whole(src), View::whole(idx)});
  data_of<int64_t>(idx)[77777] = 12;
  CHECK_THROWS_WITH(run_all(*engine, p), Catch::Contains("index 12") && Catch::Contains("size 10"));
  data_of<int64_t>(idx)[77777] = -1;
  CHECK_THROWS_WITH(run_all(*engine, p), Catch::Contains("index -1"));
  try {
    run_all(*engine, p);
    FAIL("no error");
  } catch (const IndexOutOfBounds& e) {
    CHECK(e.index == -1);
    CHECK(e.bound == 10);
  }
  data_of<int64_t>(idx)[77777] = 9;
  data_of<int32_t>(src)[9] = 5;
  run_all(*engine, p); // the engine stays usable
  CHECK(data_of<int32_t>(out)[77777] == 5);
}

TEST_CASE("SCATTER writes row-major positions, the last duplicate wins", "[ve][cpu][index]") {
  auto engine = test_engine();
  auto dst = make_data_base("dst", DType::INT16, 40);
  View out = view(dst, 1, {4, 5}, {10, 2}); // every other element of 4 rows
  auto vals = make_data_base("vals", DType::INT16, 6);
  auto idx = make_data_base("idx", DType::INT64, 6);
  const int64_t positions[6] = {0, 19, 7, 7, 12, 3};
  for (int i = 0; i < 6; ++i) {
    data_of<int16_t>(vals)[i] = int16_t(100 + i);
    data_of<int64_t>(idx)[i] = positions[i];
  }
  Program p;
  p.instrs.emplace_back(Opcode::SCATTER,
                        std::vector<Operand>{out, View::whole(vals), View::whole(idx)});
  run_all(*engine, p);
  CHECK(element<int16_t>(out, 0) == 100);
  CHECK(element<int16_t>(out, 19) == 101);
  CHECK(element<int16_t>(out, 7) == 103);
  CHECK(element<int16_t>(out, 12) == 104);
  CHECK(element<int16_t>(out, 3) == 105);
  CHECK(element<int16_t>(out, 1) == 0);
  CHECK(data_of<int16_t>(dst)[0] == 0); // outside the view: untouched
}

TEST_CASE("SCATTER of a constant and COND_SCATTER under a mask", "[ve][cpu][index]") {
  auto engine = test_engine();
  auto dst = make_data_base("dst", DType::FLOAT64, 10);
  auto idx = make_data_base("idx", DType::INT64, 5);
  auto vals = make_data_base("vals", DType::FLOAT64, 5);
  auto mask = make_data_base("mask", DType::BOOL, 5);
  for (int i = 0; i < 5; ++i) {
    data_of<int64_t>(idx)[i] = 2 * i;
    data_of<double>(vals)[i] = 1.0 + i;
    data_of<bool>(mask)[i] = i % 2 == 1;
  }
  Program p;
  p.instrs.emplace_back(
      Opcode::SCATTER,
      std::vector<Operand>{View::whole(dst), Scalar::of_float(-1.0), View::whole(idx)});
  p.instrs.emplace_back(Opcode::COND_SCATTER,
                        std::vector<Operand>{View::whole(dst), View::whole(vals), View::whole(idx),
                                             View::whole(mask)});
  run_singletons(*engine, p);
  const double want[10] = {-1, 0, 2, 0, -1, 0, 4, 0, -1, 0};
  for (int i = 0; i < 10; ++i) CHECK(data_of<double>(dst)[i] == want[i]);
  // An out-of-range index under a false mask is not an error; under a true one it is.
  data_of<int64_t>(idx)[0] = 10;
  run_block(*engine, p, {1});
  data_of<bool>(mask)[0] = true;
  CHECK_THROWS_WITH(run_block(*engine, p, {1}),
                    Catch::Contains("COND_SCATTER") && Catch::Contains("index 10"));
  CHECK_THROWS_AS(run_block(*engine, p, {0}), UserError);
}

TEST_CASE("An index error is named after the block's indexing instruction", "[ve][cpu][index]") {
  auto engine = test_engine();
  auto src = make_data_base("src", DType::INT64, 4);
  auto idx = make_data_base("idx", DType::INT64, 8);
  auto out = make_data_base("out", DType::INT64, 8);
  Program p; // idx = idx + 3, then a GATHER with it: one fused block that starts with the ADD
  p.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(idx), View::whole(idx), Scalar::of_int(3)});
  p.instrs.emplace_back(Opcode::GATHER,
                        std::vector<Operand>{View::whole(out), View::whole(src), View::whole(idx)});
  data_of<int64_t>(idx)[5] = 2; // 5 after the ADD
  CHECK_THROWS_WITH(run_all(*engine, p),
                    Catch::StartsWith("GATHER: index 5 is out of bounds for size 4"));
}
