// Tests of ve/cpu/cpu_engine.cpp: fused element-wise blocks with contraction, in-place updates,
// engine counters, errors leaving the engine usable.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

TEST_CASE("cpu engine: triad fused with a contracted temporary", "[ve][cpu]") {
  const int64_t n = 100003;
  auto a = make_data_base("a", DType::FLOAT64, n);
  auto b = make_data_base("b", DType::FLOAT64, n);
  auto c = make_data_base("c", DType::FLOAT64, n);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  for (int64_t i = 0; i < n; ++i) {
    data_of<double>(b)[i] = double(i);
    data_of<double>(c)[i] = 0.5 * double(i % 17);
  }
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(t), View::whole(c),
                                                               Scalar::of_float(3.0)});
  p.instrs.emplace_back(Opcode::ADD,
                        std::vector<Operand>{View::whole(a), View::whole(b), View::whole(t)});
  auto engine = test_engine();
  run_all(*engine, p, {t.get()});
  CHECK(t->data == nullptr);
  for (int64_t i = 0; i < n; ++i)
    HS_REQUIRE_ELEMENT(data_of<double>(a)[i] == double(i) + 3.0 * (0.5 * double(i % 17)),
                       "element " << i);
  EngineStats s = engine->stats();
  CHECK(s.blocks_executed == 1);
  CHECK(s.kernels_compiled == 1);
  run_all(*engine, p, {t.get()});
  CHECK(engine->stats().memory_cache_hits == 1);
  CHECK(engine->stats().kernels_compiled == 1);
}

TEST_CASE("cpu engine: in-place update reads the old value", "[ve][cpu]") {
  const int64_t n = 1000;
  auto a = make_data_base("a", DType::INT32, n);
  for (int64_t i = 0; i < n; ++i) data_of<int32_t>(a)[i] = int32_t(i);
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(a), View::whole(a),
                                                               Scalar::of_int(2, DType::INT32)});
  p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a),
                                                          Scalar::of_int(1, DType::INT32)});
  auto engine = test_engine();
  run_all(*engine, p);
  for (int64_t i = 0; i < n; ++i)
    HS_REQUIRE_ELEMENT(data_of<int32_t>(a)[i] == int32_t(2 * i + 1), "element " << i);
}

TEST_CASE("cpu engine: every optimization level computes the same", "[ve][cpu]") {
  const int64_t n = 5000;
  auto a = make_data_base("a", DType::FLOAT32, n), r = make_data_base("r", DType::FLOAT32, n);
  auto s = make_data_base("s", DType::FLOAT64, 1);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  fill<float>(View::whole(a), [](int64_t i) { return float(i % 100) * 0.25f; });
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(r), View::whole(a), View::whole(a)});
  p.instrs.emplace_back(Opcode::IDENTITY, std::vector<Operand>{View::whole(t), View::whole(r)});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{view(s, 0, {}, {}), View::whole(t), axis_const(0)});
  double want = 0;
  for (int64_t i = 0; i < n; ++i)
    want += double(float(i % 100) * 0.25f) * double(float(i % 100) * 0.25f);
  for (int level = 0; level <= 3; ++level) {
    CpuOptions o;
    o.opt_level = level;
    auto engine = make_cpu_engine(o);
    run_all(*engine, p, {t.get()});
    INFO("opt_level " << level);
    CHECK(std::fabs(data_of<double>(s)[0] - want) <= 1e-12 * want);
    CHECK(data_of<float>(r)[4999] == 99 * 0.25f * 99 * 0.25f);
  }
}

TEST_CASE("cpu engine: options are checked", "[ve][cpu]") {
  CHECK(kernel_cache_registry().find("disk").value == KernelCacheMode::DISK);
  CHECK_THROWS_WITH(
      kernel_cache_registry().find("sometimes"),
      Catch::Contains("unknown kernel cache mode 'sometimes'; valid: none, memory, disk"));
  CpuOptions o;
  o.cache = KernelCacheMode::DISK; // without a directory
  CHECK_THROWS_AS(make_cpu_engine(o), UserError);
}
