// Tests of ve/cpu/ops_generate.cpp: RANGE on every dtype it allows and on views; RANDOM
// bit-exact against Random123's philox2x32 (the word order documented in ve/cpu/README.md).
#include <cstring>

#include <Random123/philox.h>
#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
// Random123's philox2x32-10 for the 64-bit counter c and the seed's low 32 bits, its two output
// words read as one little-endian 64-bit value.
uint64_t philox_reference(uint64_t seed, uint64_t c) {
  r123::Philox2x32 rng;
  r123::Philox2x32::ctr_type ctr = {{uint32_t(c), uint32_t(c >> 32)}};
  r123::Philox2x32::key_type key = {{uint32_t(seed)}};
  r123::Philox2x32::ctr_type r = rng(ctr, key);
  uint64_t out;
  static_assert(sizeof(r.v) == sizeof out);
  std::memcpy(&out, r.v, sizeof out); // the bytes of Random123's result
  return out;
}
} // namespace

TEST_CASE("RANDOM matches Random123 philox2x32-10 bit for bit", "[ve][cpu][generate]") {
  auto engine = test_engine();
  const int64_t n = 100000;
  for (uint64_t seed : {uint64_t(0), uint64_t(42), uint64_t(0xdeadbeefcafef00dull)}) {
    for (uint64_t counter :
         {uint64_t(0), uint64_t(7), uint64_t(0xffffffffull - 10), ~uint64_t(0) - 5}) {
      auto r = make_data_base("r", DType::UINT64, n);
      Program p;
      p.instrs.emplace_back(
          Opcode::RANDOM,
          std::vector<Operand>{View::whole(r), Scalar::of_uint(seed), Scalar::of_uint(counter)});
      run_all(*engine, p);
      for (int64_t i = 0; i < n; ++i)
        HS_REQUIRE_ELEMENT(data_of<uint64_t>(r)[i] == philox_reference(seed, counter + uint64_t(i)),
                           "seed " << seed << " counter " << counter << " position " << i);
    }
  }
  // One kernel for every seed and counter (they are parameters), and one for seed 0 at counter
  // 0: equal constants are one parameter (plan_block).
  CHECK(engine->stats().kernels_compiled == 2);
}

TEST_CASE("RANDOM on a strided 2-D view counts row-major positions", "[ve][cpu][generate]") {
  auto engine = test_engine();
  auto r = make_data_base("r", DType::UINT64, 200);
  Program p;
  View v = view(r, 190, {10, 5}, {-20, 2}); // reversed rows, every other column
  p.instrs.emplace_back(Opcode::RANDOM,
                        std::vector<Operand>{v, Scalar::of_uint(5), Scalar::of_uint(1000)});
  run_all(*engine, p);
  for (int64_t pos = 0; pos < 50; ++pos)
    CHECK(element<uint64_t>(v, pos) == philox_reference(5, 1000 + uint64_t(pos)));
}

namespace {
template <typename T> void check_range(Engine& engine, DType t, const View& v) {
  Program p;
  p.instrs.emplace_back(Opcode::RANGE, std::vector<Operand>{v});
  run_all(engine, p);
  for (int64_t pos = 0; pos < v.size(); ++pos)
    HS_REQUIRE_ELEMENT(element<T>(v, pos) == T(pos), dtype_name(t) << " position " << pos);
}
} // namespace

TEST_CASE("RANGE on every integer and float dtype, any view", "[ve][cpu][generate]") {
  auto engine = test_engine();
  const int64_t n = 300;
  auto run = [&](DType t, auto tag) {
    using T = decltype(tag);
    check_range<T>(*engine, t, View::whole(make_data_base("r", t, n)));
    check_range<T>(*engine, t, view(make_data_base("r", t, 2 * n), 2 * n - 1, {12, 25}, {-50, -2}));
    check_range<T>(*engine, t, view(make_data_base("r", t, n), 0, {15, 20}, {1, 15})); // transposed
  };
  run(DType::INT8, int8_t{});
  run(DType::INT16, int16_t{});
  run(DType::INT32, int32_t{});
  run(DType::INT64, int64_t{});
  run(DType::UINT8, uint8_t{});
  run(DType::UINT16, uint16_t{});
  run(DType::UINT32, uint32_t{});
  run(DType::UINT64, uint64_t{});
  run(DType::FLOAT32, float{});
  run(DType::FLOAT64, double{});
}

TEST_CASE("RANGE fused with arithmetic and a large split", "[ve][cpu][generate]") {
  auto engine = test_engine();
  const int64_t n = 1 << 20;
  auto r = make_temp_base("r", DType::FLOAT64, n);
  auto y = make_data_base("y", DType::FLOAT64, n);
  Program p;
  p.instrs.emplace_back(Opcode::RANGE, std::vector<Operand>{View::whole(r)});
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(y), View::whole(r),
                                                               Scalar::of_float(0.5)});
  run_all(*engine, p, {r.get()});
  for (int64_t i = 0; i < n; ++i)
    HS_REQUIRE_ELEMENT(data_of<double>(y)[i] == 0.5 * double(i), "position " << i);
}
