// Tests that a float sum's or product's bits are those of its definition (Codegen::lanes_of: a
// 64-byte line of lanes, element i in lane i mod lanes, a pairwise fold), whatever the block around it,
// the code generator or the vector width: alone, fused with a long chain, at opt_level 0, at the
// fast tier and the optimized one, and split into chunks.
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
// 64 bytes of lanes: 8 float64 (complex128: 8 of each part), 16 float32 (complex64).
template <typename T> constexpr int lanes_of() {
  if constexpr (std::is_floating_point_v<T>)
    return 64 / int(sizeof(T));
  else
    return 64 / int(sizeof(typename T::value_type));
}
// A block this long keeps its lanes in memory (codegen.cpp, kLanesInRegistersMaxOps), a shorter
// one in registers: both placements are checked. In registers, a sum alone takes a range's rest
// as a window (codegen.cpp, window_inputs), after a stored chain by the chain of steps before the
// groups, beside an int64 sum (the last test) by that chain after them.
constexpr int kChainInMemory = 30;

template <typename T> T apply(Opcode op, T a, T b) {
  return op == Opcode::ADD_REDUCE ? T(a + b) : T(a * b);
}

// The definition: one row of n elements.
template <typename T> T by_definition(Opcode op, const std::vector<T>& row) {
  const T id = op == Opcode::ADD_REDUCE ? T(0) : T(1);
  constexpr size_t kLanes = lanes_of<T>();
  T lanes[kLanes];
  for (T& l : lanes) l = id;
  for (size_t i = 0; i < row.size(); ++i) lanes[i % kLanes] = apply(op, lanes[i % kLanes], row[i]);
  for (int s = int(kLanes) / 2; s >= 1; s /= 2)
    for (int l = 0; l < s; ++l) lanes[l] = apply(op, lanes[l], lanes[l + s]);
  return lanes[0];
}

// The same row summed in order: the test's inputs must tell the two apart.
template <typename T> T in_order(Opcode op, const std::vector<T>& row) {
  T acc = op == Opcode::ADD_REDUCE ? T(0) : T(1);
  for (const T& x : row) acc = apply(op, acc, x);
  return acc;
}

template <typename T> bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T> T random_value(std::mt19937_64& rng, Opcode op) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (op == Opcode::MULTIPLY_REDUCE) {
    if constexpr (std::is_floating_point_v<T>)
      return T(1.0 + 0.01 * u(rng));
    else
      return T(1.0 + 0.01 * u(rng), 0.01 * u(rng));
  }
  // Magnitudes over 12 decades: every order of summation rounds differently.
  auto one = [&] { return u(rng) * std::pow(10.0, 6.0 * u(rng)); };
  if constexpr (std::is_floating_point_v<T>)
    return T(one());
  else
    return T(one(), one());
}

// rows x n values reduced along the last axis, alone or after `chain` element-wise operations
// on another array in the same block, by an engine with the given options.
template <typename T>
std::vector<T> run_rows(Opcode op, DType t, const std::vector<T>& values, int64_t rows, int64_t n,
                        int chain, const CpuOptions& o) {
  auto a = make_data_base("a", t, rows * n);
  std::memcpy(data_of<T>(a), values.data(), values.size() * sizeof(T));
  auto s = make_data_base("s", t, rows);
  Program p;
  if (chain > 0) { // c = ((b + 1) * 1.5 - 2) ..., c stored: a block of chain + 1 operations
    auto b = make_data_base("b", DType::FLOAT64, rows * n),
         c = make_data_base("c", DType::FLOAT64, rows * n);
    fill<double>(View::whole(b), [](int64_t i) { return double(i % 11); });
    View bv = View::contiguous(b, {rows, n}), cv = View::contiguous(c, {rows, n});
    p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{cv, bv, Scalar::of_float(1.0)});
    for (int k = 1; k < chain; ++k)
      p.instrs.emplace_back(k % 2 ? Opcode::MULTIPLY : Opcode::SUBTRACT,
                            std::vector<Operand>{cv, cv, Scalar::of_float(k % 2 ? 1.5 : 2.0)});
  }
  p.instrs.emplace_back(
      op, std::vector<Operand>{View::whole(s), View::contiguous(a, {rows, n}), axis_const(1)});
  CpuOptions opts = o;
  opts.threads = 2;
  auto engine = make_cpu_engine(opts);
  run_all(*engine, p);
  return std::vector<T>(data_of<T>(s), data_of<T>(s) + rows);
}

std::vector<std::pair<const char*, CpuOptions>> engines() {
  CpuOptions optimized, fast, none;
  optimized.tiered_compile = false;
  fast.large_kernel = 1; // every kernel only gets the fast code generator
  none.opt_level = 0;
  return {{"optimized", optimized}, {"fast", fast}, {"opt_level 0", none}};
}

template <typename T> void check_definition(Opcode op, DType t) {
  std::mt19937_64 rng(7);
  bool order_matters = false;
  for (int64_t n : {1, 3, 15, 16, 17, 31, 32, 47, 100, 1000}) {
    const int64_t rows = 5;
    std::vector<T> values(static_cast<size_t>(rows * n));
    for (T& v : values) v = random_value<T>(rng, op);
    std::vector<T> want(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<T> row(values.begin() + r * n, values.begin() + (r + 1) * n);
      want[size_t(r)] = by_definition(op, row);
      order_matters = order_matters || !same_bits(want[size_t(r)], in_order(op, row));
    }
    for (const auto& [name, o] : engines())
      for (int chain : {0, 12, kChainInMemory}) {
        std::vector<T> got = run_rows<T>(op, t, values, rows, n, chain, o);
        for (int64_t r = 0; r < rows; ++r)
          HS_REQUIRE_ELEMENT(same_bits(got[size_t(r)], want[size_t(r)]),
                             op_name(op) << " " << dtype_name(t) << " n " << n << " row " << r
                                         << " " << name << " chain " << chain);
      }
  }
  CHECK(order_matters); // else the test could not tell the definition from a plain loop
}
} // namespace

TEST_CASE("reduction order: float sums and products are their definition's bits",
          "[ve][cpu][reduce]") {
  check_definition<double>(Opcode::ADD_REDUCE, DType::FLOAT64);
  check_definition<float>(Opcode::ADD_REDUCE, DType::FLOAT32);
  check_definition<double>(Opcode::MULTIPLY_REDUCE, DType::FLOAT64);
  check_definition<std::complex<double>>(Opcode::ADD_REDUCE, DType::COMPLEX128);
  check_definition<std::complex<float>>(Opcode::ADD_REDUCE, DType::COMPLEX64);
}

TEST_CASE("reduction order: a split sum gives the same bits alone, fused and at every tier",
          "[ve][cpu][reduce]") {
  // Large enough that the axis is cut into chunks (partial results folded in chunk order).
  const int64_t n = (int64_t(1) << 20) + 13;
  std::mt19937_64 rng(11);
  std::vector<double> values(static_cast<size_t>(n));
  for (double& v : values) v = random_value<double>(rng, Opcode::ADD_REDUCE);
  std::vector<double> first;
  for (const auto& [name, o] : engines())
    for (int chain : {0, 12, kChainInMemory}) {
      std::vector<double> got =
          run_rows<double>(Opcode::ADD_REDUCE, DType::FLOAT64, values, 1, n, chain, o);
      if (first.empty()) first = got;
      INFO(name << " chain " << chain);
      CHECK(same_bits(got[0], first[0]));
    }
}

TEST_CASE("reduction order: float32, float64 and int64 sums in one block keep their own lanes",
          "[ve][cpu][reduce]") {
  // The block's lane loop runs 16 elements a group (float32's lanes); the float64 sum's 8 lanes
  // take two elements a group each, the int64 sum one accumulator: each its definition's bits.
  std::mt19937_64 rng(5);
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 23, 40, 1001}) {
    const int64_t rows = 4;
    auto a32 = make_data_base("a32", DType::FLOAT32, rows * n);
    auto a64 = make_data_base("a64", DType::FLOAT64, rows * n);
    auto ai = make_data_base("ai", DType::INT64, rows * n);
    auto s32 = make_data_base("s32", DType::FLOAT32, rows);
    auto s64 = make_data_base("s64", DType::FLOAT64, rows);
    auto si = make_data_base("si", DType::INT64, rows);
    for (int64_t i = 0; i < rows * n; ++i) {
      data_of<float>(a32)[i] = random_value<float>(rng, Opcode::ADD_REDUCE);
      data_of<double>(a64)[i] = random_value<double>(rng, Opcode::ADD_REDUCE);
      data_of<int64_t>(ai)[i] = int64_t(rng() % 1000) - 500;
    }
    Program p;
    for (auto [s, a] : {std::pair{s32, a32}, {s64, a64}, {si, ai}})
      p.instrs.emplace_back(Opcode::ADD_REDUCE, std::vector<Operand>{View::whole(s),
                                                                     View::contiguous(a, {rows, n}),
                                                                     axis_const(1)});
    for (const auto& [name, o] : engines()) {
      CpuOptions opts = o;
      opts.threads = 2;
      auto engine = make_cpu_engine(opts);
      run_all(*engine, p);
      for (int64_t r = 0; r < rows; ++r) {
        INFO(name << " n " << n << " row " << r);
        std::vector<float> row32(data_of<float>(a32) + r * n, data_of<float>(a32) + (r + 1) * n);
        std::vector<double> row64(data_of<double>(a64) + r * n,
                                  data_of<double>(a64) + (r + 1) * n);
        int64_t want_i = 0;
        for (int64_t i = 0; i < n; ++i) want_i += data_of<int64_t>(ai)[r * n + i];
        CHECK(same_bits(data_of<float>(s32)[r], by_definition(Opcode::ADD_REDUCE, row32)));
        CHECK(same_bits(data_of<double>(s64)[r], by_definition(Opcode::ADD_REDUCE, row64)));
        CHECK(data_of<int64_t>(si)[r] == want_i);
      }
    }
  }
}
