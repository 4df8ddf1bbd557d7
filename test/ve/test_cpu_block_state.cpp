// Tests of the CPU engine's plans (Engine::make_plan): a plan's slot that ran one block runs a
// block of the same structure from another program with that program's pointers and constants,
// without planning or compiling again (a replay).
#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
constexpr int64_t kRows = 64, kCols = 2048; // 131072 elements: the sum splits into partials

// out = a * c + b[::-1] over a (kRows, kCols) view; t = out * 0.5 contracted; s = sum(t) along
// axis 1 (a per-row result), then total = sum(b). Fresh bases every call, so two calls give
// the same structure over other memory.
struct Case {
  Program p;
  BasePtr a, b, out, t, s, total;

  explicit Case(double c, double shift) {
    a = make_data_base("a", DType::FLOAT64, kRows * kCols);
    b = make_data_base("b", DType::FLOAT64, kRows * kCols);
    out = make_data_base("out", DType::FLOAT64, kRows * kCols);
    t = make_temp_base("t", DType::FLOAT64, kRows * kCols);
    s = make_data_base("s", DType::FLOAT64, kRows);
    total = make_data_base("total", DType::FLOAT64, 1);
    for (int64_t i = 0; i < kRows * kCols; ++i) {
      data_of<double>(a)[i] = double(i % 97) + shift;
      data_of<double>(b)[i] = double(i % 13) - shift;
    }
    View va = view(a, 0, {kRows, kCols}, {kCols, 1});
    View vb = view(b, kRows * kCols - 1, {kRows, kCols}, {-kCols, -1});
    View vo = view(out, 0, {kRows, kCols}, {kCols, 1});
    View vt = view(t, 0, {kRows, kCols}, {kCols, 1});
    p.instrs.push_back(Instruction(Opcode::MULTIPLY, {vo, va, Scalar::of_float(c)}));
    p.instrs.push_back(Instruction(Opcode::ADD, {vo, vo, vb}));
    p.instrs.push_back(Instruction(Opcode::MULTIPLY, {vt, vo, Scalar::of_float(0.5)}));
    p.instrs.push_back(
        Instruction(Opcode::ADD_REDUCE, {view(s, 0, {kRows}, {1}), vt, axis_const(1)}));
    p.instrs.push_back(
        Instruction(Opcode::ADD_REDUCE,
                    {view(total, 0, {}, {}), view(b, 0, {kRows * kCols}, {1}), axis_const(0)}));
  }

  // Runs the fused block (instructions 0-3, t contracted) in slot 0 of `plan` and the full sum
  // in slot 1.
  void run(Engine& e, EnginePlan& plan) {
    KernelBlock k;
    k.program = &p;
    k.instrs = {0, 1, 2, 3};
    k.contracted = {t.get()};
    e.launch(plan, 0, k);
    KernelBlock k2;
    k2.program = &p;
    k2.instrs = {4};
    e.launch(plan, 1, k2);
    e.end_flush();
  }

  // The values the program defines, computed here.
  void check(double c, double shift) const {
    for (int64_t r = 0; r < kRows; r += 7) {
      double row = 0;
      for (int64_t j = 0; j < kCols; ++j) {
        int64_t i = r * kCols + j;
        double expect =
            (double(i % 97) + shift) * c + (double((kRows * kCols - 1 - i) % 13) - shift);
        REQUIRE(data_of<double>(out)[i] == expect);
        row += expect * 0.5;
      }
      CHECK(data_of<double>(s)[r] == Approx(row).epsilon(1e-12));
    }
    double all = 0;
    for (int64_t i = 0; i < kRows * kCols; ++i) all += double(i % 13) - shift;
    CHECK(data_of<double>(total)[0] == Approx(all).epsilon(1e-12));
  }
};
} // namespace

TEST_CASE("engine plan: a slot's plan and kernel run another program of the same structure",
          "[ve][cpu][state]") {
  auto engine = test_engine();
  auto plan = engine->make_plan(2);
  Case first(2.0, 0.0);
  first.run(*engine, *plan);
  first.check(2.0, 0.0);
  const EngineStats after_first = engine->stats();
  CHECK(after_first.kernels_compiled == 2);

  for (auto [c, shift] : {std::pair{-3.0, 1.5}, std::pair{0.25, -7.0}}) {
    Case next(c, shift); // other memory, other constants
    next.run(*engine, *plan);
    next.check(c, shift);
  }
  const EngineStats after = engine->stats();
  CHECK(after.kernels_compiled == after_first.kernels_compiled);
  CHECK(after.memory_cache_hits == after_first.memory_cache_hits + 4);
  CHECK(after.blocks_executed == after_first.blocks_executed + 4);
}

TEST_CASE("engine plan: prepared slots run without compiling, reshaped ones plan again",
          "[ve][cpu][state]") {
  auto engine = test_engine();
  auto plan = engine->make_plan(2);
  {
    Case first(2.0, 0.0);
    KernelBlock k{&first.p, {0, 1, 2, 3}, {first.t.get()}}, k2{&first.p, {4}, {}};
    engine->prepare(*plan, 0, k);
    engine->prepare(*plan, 1, k2);
    engine->end_prepare(*plan);
    CHECK(engine->stats().kernels_compiled == 2);
    first.run(*engine, *plan);
    first.check(2.0, 0.0);
  }
  CHECK(engine->stats().memory_cache_hits == 0); // counted as compiled by the prepare
  engine->reshape(*plan);
  Case next(0.75, 2.0);
  next.run(*engine, *plan); // planned again at the launch, the kernels from the memory cache
  next.check(0.75, 2.0);
  CHECK(engine->stats().kernels_compiled == 2);
  CHECK(engine->stats().memory_cache_hits == 2);
}

TEST_CASE("engine plan: nothing is kept without a kernel cache", "[ve][cpu][state]") {
  CpuOptions o;
  o.threads = 2;
  o.cache = KernelCacheMode::NONE;
  auto uncached = make_cpu_engine(o);
  auto plan = uncached->make_plan(2);
  Case a(2.0, 0.0);
  a.run(*uncached, *plan);
  a.check(2.0, 0.0);
  Case b(1.0, 3.0);
  b.run(*uncached, *plan);
  b.check(1.0, 3.0);
  CHECK(uncached->stats().kernels_compiled == 4);
  CHECK(uncached->stats().memory_cache_hits == 0);
}

TEST_CASE("engine plan: a slot whose constants no longer share a value is planned again",
          "[ve][cpu][state]") {
  // Case(0.5, ...) multiplies by 0.5 twice: its kernel has one constant for both. A replay of
  // the slot with another c cannot run that kernel: the block is planned again (a kernel with
  // two constants), and that one serves every c after it, 0.5 included. Through a launch (an
  // exact repeat of a flush) and through prepare (a replay planned again for other extents).
  for (bool prepared : {false, true}) {
    INFO((prepared ? "prepared" : "launched"));
    auto engine = test_engine();
    auto plan = engine->make_plan(2);
    auto run = [&](Case& c) {
      if (prepared) {
        engine->prepare(*plan, 0, KernelBlock{&c.p, {0, 1, 2, 3}, {c.t.get()}});
        engine->prepare(*plan, 1, KernelBlock{&c.p, {4}, {}});
        engine->end_prepare(*plan);
      }
      c.run(*engine, *plan);
    };
    Case first(0.5, 0.0);
    run(first);
    first.check(0.5, 0.0);
    CHECK(engine->stats().kernels_compiled == 2);
    for (auto [c, shift] : {std::pair{2.0, 1.0}, std::pair{0.5, 3.0}, std::pair{-4.0, 0.5}}) {
      Case next(c, shift);
      run(next);
      next.check(c, shift);
    }
    CHECK(engine->stats().kernels_compiled == 3);
  }
}
