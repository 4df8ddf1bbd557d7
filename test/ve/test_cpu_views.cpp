// Tests of ve/cpu/kernel_plan.cpp through the engine: views of every kind (0-d, empty, stride 0,
// negative strides, transposed, many dimensions), constants of every class, and random fused
// chains with contraction giving exactly what one-instruction blocks give.
#include <random>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "test/ve/cpu_fixture.h"
#include "ve/cpu/plan.h"

using namespace hassium;
using namespace hassium::test;

TEST_CASE("views: 0-d operands", "[ve][cpu][views]") {
  auto engine = test_engine();
  auto a = make_data_base("a", DType::FLOAT64, 3), r = make_data_base("r", DType::FLOAT64, 1);
  data_of<double>(a)[2] = 4.0;
  Program p;
  p.instrs.emplace_back(Opcode::SQRT, std::vector<Operand>{view(r, 0, {}, {}), view(a, 2, {}, {})});
  run_all(*engine, p);
  CHECK(data_of<double>(r)[0] == 2.0);
}

TEST_CASE("views: empty arrays do nothing", "[ve][cpu][views]") {
  auto engine = test_engine();
  auto a = make_base("a", DType::FLOAT64, 0); // never allocated
  auto r = make_base("r", DType::FLOAT64, 0);
  auto w = make_data_base("w", DType::FLOAT64, 6);
  Program p;
  p.instrs.emplace_back(Opcode::EXP, std::vector<Operand>{View::whole(r), View::whole(a)});
  p.instrs.emplace_back(Opcode::ADD,
                        std::vector<Operand>{view(w, 0, {3, 0}, {2, 1}), view(w, 1, {3, 0}, {2, 1}),
                                             Scalar::of_float(1)});
  run_singletons(*engine, p);
  for (int i = 0; i < 6; ++i) CHECK(data_of<double>(w)[i] == 0.0);
}

TEST_CASE("views: broadcasting with stride 0 along rows and columns", "[ve][cpu][views]") {
  auto engine = test_engine();
  const int64_t m = 37, n = 53;
  auto row = make_data_base("row", DType::INT32, n), col = make_data_base("col", DType::INT32, m);
  auto r = make_data_base("r", DType::INT32, m * n);
  fill<int32_t>(View::whole(row), [](int64_t j) { return j; });
  fill<int32_t>(View::whole(col), [](int64_t i) { return 1000 * i; });
  Program p;
  p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::contiguous(r, {m, n}),
                                                          view(row, 0, {m, n}, {0, 1}),
                                                          view(col, 0, {m, n}, {1, 0})});
  run_all(*engine, p);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      HS_REQUIRE_ELEMENT(data_of<int32_t>(r)[i * n + j] == 1000 * i + j, i << "," << j);
}

TEST_CASE("views: negative strides and transposed outputs", "[ve][cpu][views]") {
  auto engine = test_engine();
  const int64_t m = 64, n = 100;
  auto a = make_data_base("a", DType::FLOAT32, m * n),
       r = make_data_base("r", DType::FLOAT32, m * n);
  fill<float>(View::whole(a), [](int64_t i) { return float(i); });
  View rev = view(a, m * n - 1, {m, n}, {-n, -1}); // a[::-1, ::-1]
  View out_t = view(r, 0, {m, n}, {1, m});         // written column-major
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{out_t, rev, Scalar::of_float(2.0, DType::FLOAT32)});
  run_all(*engine, p);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      HS_REQUIRE_ELEMENT(data_of<float>(r)[j * m + i] ==
                             2.0f * float((m - 1 - i) * n + (n - 1 - j)),
                         i << "," << j);
}

TEST_CASE("views: five dimensions, partly mergeable", "[ve][cpu][views]") {
  auto engine = test_engine();
  const Dims shape = {2, 3, 4, 5, 6};
  auto a = make_data_base("a", DType::INT64, 720), b = make_data_base("b", DType::INT64, 2000);
  auto r = make_data_base("r", DType::INT64, 720);
  View av = View::contiguous(a, shape);
  View bv = view(b, 7, shape, {600, 200, 40, 6, 1}); // gaps around the 3rd dimension
  fill<int64_t>(av, [](int64_t i) { return i; });
  fill<int64_t>(bv, [](int64_t i) { return 3 * i; });
  Program p;
  p.instrs.emplace_back(Opcode::SUBTRACT, std::vector<Operand>{View::contiguous(r, shape), bv, av});
  KernelBlock block{&p, {0}, {}};
  CHECK(cpu::plan_block(block).ndim == 3); // (2*3, 4, 5*6)
  run_all(*engine, p);
  for (int64_t i = 0; i < 720; ++i) HS_REQUIRE_ELEMENT(data_of<int64_t>(r)[i] == 2 * i, i);
}

TEST_CASE("views: constants of every dtype class", "[ve][cpu][views]") {
  auto engine = test_engine();
  auto b8 = make_data_base("b8", DType::BOOL, 3), i8 = make_data_base("i8", DType::INT8, 3);
  auto u16 = make_data_base("u16", DType::UINT16, 3),
       f32 = make_data_base("f32", DType::FLOAT32, 3);
  auto c64 = make_data_base("c64", DType::COMPLEX64, 3);
  Program p;
  p.instrs.emplace_back(Opcode::IDENTITY,
                        std::vector<Operand>{View::whole(b8), Scalar::of_bool(true)});
  p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::whole(i8), View::whole(i8),
                                                          Scalar::of_int(-5, DType::INT8)});
  p.instrs.emplace_back(
      Opcode::IDENTITY,
      std::vector<Operand>{View::whole(u16), Scalar::of_uint(65535, DType::UINT16)});
  p.instrs.emplace_back(
      Opcode::IDENTITY,
      std::vector<Operand>{View::whole(f32), Scalar::of_float(0.1, DType::FLOAT32)});
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(c64),
                                             Scalar::of_complex({1, 2}, DType::COMPLEX64),
                                             Scalar::of_complex({3, -1}, DType::COMPLEX64)});
  run_singletons(*engine, p);
  for (int i = 0; i < 3; ++i) {
    CHECK(data_of<bool>(b8)[i]);
    CHECK(data_of<int8_t>(i8)[i] == -5);
    CHECK(data_of<uint16_t>(u16)[i] == 65535);
    CHECK(data_of<float>(f32)[i] == 0.1f);
    CHECK(data_of<std::complex<float>>(c64)[i] == std::complex<float>(5, 5));
  }
}

namespace {
// A random element-wise program over three inputs, eight temporaries and one output, built
// twice: with temporaries that have memory (run one instruction per block) and without
// (run as one block that contracts them).
struct RandomChain {
  Program program;
  std::vector<BasePtr> temps;
  BasePtr out;
};

RandomChain random_chain(uint32_t seed, bool contracted, const std::vector<View>& inputs,
                         const Dims& shape) {
  std::mt19937 rng(seed);
  RandomChain c;
  int64_t n = 1;
  for (auto e : shape) n *= e;
  for (int t = 0; t < 8; ++t)
    c.temps.push_back(contracted ? make_temp_base("t" + std::to_string(t), DType::FLOAT64, n)
                                 : make_data_base("t" + std::to_string(t), DType::FLOAT64, n));
  c.out = make_data_base("out", DType::FLOAT64, n);
  std::vector<View> values = inputs;
  const Opcode binary[] = {Opcode::ADD,     Opcode::SUBTRACT, Opcode::MULTIPLY,
                           Opcode::MAXIMUM, Opcode::MINIMUM,  Opcode::DIVIDE};
  // Exact or correctly rounded ops only: libmvec's vector functions (sin, tanh, hypot, ...) may
  // differ from the scalar C library in the last bit, and the vectorizer decides which one runs.
  const Opcode unary[] = {Opcode::ABSOLUTE, Opcode::NEGATIVE, Opcode::SQRT, Opcode::CEIL,
                          Opcode::FLOOR};
  for (int step = 0; step < 10; ++step) {
    View dst =
        step < 8 ? View::contiguous(c.temps[size_t(step)], shape) : View::contiguous(c.out, shape);
    const View& x = values[rng() % values.size()];
    const View& y = values[rng() % values.size()];
    if (rng() % 3 == 0)
      c.program.instrs.emplace_back(unary[rng() % 5], std::vector<Operand>{dst, x});
    else if (rng() % 4 == 0)
      c.program.instrs.emplace_back(
          binary[rng() % 6], std::vector<Operand>{dst, x, Scalar::of_float(0.25 * (rng() % 9))});
    else
      c.program.instrs.emplace_back(binary[rng() % 6], std::vector<Operand>{dst, x, y});
    if (step < 8) values.push_back(dst);
  }
  return c;
}
} // namespace

TEST_CASE("views: random fused chains equal their unfused execution bit for bit",
          "[ve][cpu][views]") {
  auto engine = test_engine();
  const Dims shape = {33, 257};
  auto a = make_data_base("a", DType::FLOAT64, 33 * 257);
  auto b = make_data_base("b", DType::FLOAT64, 2 * 33 * 257);
  auto c = make_data_base("c", DType::FLOAT64, 257);
  std::vector<View> inputs = {View::contiguous(a, shape),
                              view(b, 2 * 33 * 257 - 1, shape, {-2 * 257, -2}),
                              view(c, 0, shape, {0, 1})};
  fill<double>(View::whole(a), [](int64_t i) { return std::sin(double(i)); });
  fill<double>(View::whole(b), [](int64_t i) { return std::cos(double(i) * 0.1) * 3; });
  fill<double>(View::whole(c), [](int64_t i) { return double(i % 7) - 3; });
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    RandomChain fused = random_chain(seed, true, inputs, shape);
    RandomChain unfused = random_chain(seed, false, inputs, shape);
    std::vector<const Base*> contracted;
    for (auto& t : fused.temps) contracted.push_back(t.get());
    run_all(*engine, fused.program, contracted);
    run_singletons(*engine, unfused.program);
    for (int64_t i = 0; i < 33 * 257; ++i) {
      double x = data_of<double>(fused.out)[i], y = data_of<double>(unfused.out)[i];
      HS_REQUIRE_ELEMENT(std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y)),
                         "seed " << seed << " element " << i << ": " << x << " vs " << y);
    }
  }
}
