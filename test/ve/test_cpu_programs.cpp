// Tests of the CPU engine on programs written in the .hsb text format (ir/text/parser.h): the whole
// program as one fused block (bases it FREEs are contracted) against the same program run one
// instruction per block, and against values worked out by hand.
#include <cstring>

#include <catch2/catch.hpp>

#include "ir/text/parser.h"
#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;

namespace {
// Gives memory to every base the fused run does not contract; runs the first instruction (the
// setup) alone, then the other non-system instructions as one block (fused) or one block each.
void run_program(Engine& engine, Program& p, bool fused) {
  std::vector<const Base*> freed;
  for (const Instruction& in : p.instrs)
    if (in.op == Opcode::FREE) freed.push_back(in.view(0).base.get());
  for (BasePtr& b : p.bases) {
    bool contracted = fused && std::find(freed.begin(), freed.end(), b.get()) != freed.end();
    if (contracted || b->data) continue;
    BasePtr mem = make_data_base(b->name, b->dtype, b->nelem);
    b->data = mem->data;
    b->external_owner = mem->external_owner;
  }
  run_block(engine, p, {0});
  std::vector<size_t> compute;
  for (size_t i = 1; i < p.instrs.size(); ++i)
    if (!p.instrs[i].is_system()) compute.push_back(i);
  if (fused) {
    run_block(engine, p, compute, freed);
  } else {
    for (size_t i : compute) run_block(engine, p, {i});
  }
}

template <typename T> std::vector<T> values(const Program& p, const char* name) {
  BasePtr b = p.find_base(name);
  REQUIRE(b);
  const T* d = data_of<T>(b);
  return std::vector<T>(d, d + b->nelem);
}

// Runs the text fused and unfused; the named output must agree bit for bit. Returns the fused run.
Program fused_equals_unfused(const std::string& text, const char* output) {
  auto engine = test_engine();
  Program fused = parse_program(text, "fused.hsb"), unfused = parse_program(text, "unfused.hsb");
  run_program(*engine, fused, true);
  run_program(*engine, unfused, false);
  BasePtr a = fused.find_base(output), b = unfused.find_base(output);
  CHECK(std::memcmp(a->data, b->data, size_t(a->nbytes())) == 0);
  return fused;
}
} // namespace

TEST_CASE("programs: a 5-point stencil step fused with its temporaries", "[ve][cpu][programs]") {
  // G is a 10x10 grid holding 0..99; N gets the mean of each interior point's 4 neighbours and
  // itself, over the 8x8 interior.
  Program p = fused_equals_unfused(R"(
.base G float64 100
.base T float64 64
.base N float64 64
RANGE G
ADD T{0;8,8;8,1}, G{11;8,8;10,1}, G{1;8,8;10,1}
ADD T{0;8,8;8,1}, T{0;8,8;8,1}, G{21;8,8;10,1}
ADD T{0;8,8;8,1}, T{0;8,8;8,1}, G{10;8,8;10,1}
ADD T{0;8,8;8,1}, T{0;8,8;8,1}, G{12;8,8;10,1}
MULTIPLY N{0;8,8;8,1}, T{0;8,8;8,1}, 0.2
FREE T
SYNC N
)",
                                   "N");
  std::vector<double> n = values<double>(p, "N");
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double c = (i + 1) * 10 + (j + 1); // the centre; the neighbours sum to 4 * c
      CHECK(n[size_t(i * 8 + j)] == 5 * c * 0.2);
    }
}

TEST_CASE("programs: row sums of a fused expression", "[ve][cpu][programs]") {
  // S[i] = sum_j (A[i,j] * 2 + 1) with A = 0..11 as 3x4: rows sum to 2*(6, 22, 38) + 4.
  Program p = fused_equals_unfused(R"(
.base A int64 12
.base T int64 12
.base S int64 3
RANGE A
MULTIPLY T{0;3,4;4,1}, A{0;3,4;4,1}, 2
ADD T{0;3,4;4,1}, T{0;3,4;4,1}, 1
ADD_REDUCE S, T{0;3,4;4,1}, 1
FREE T
SYNC S
)",
                                   "S");
  CHECK(values<int64_t>(p, "S") == std::vector<int64_t>{16, 48, 80});
}

TEST_CASE("programs: column maxima of a reversed view", "[ve][cpu][programs]") {
  // A = 0..11 as 3x4 read bottom-up, times -1: column maxima are the top row, -(0..3).
  Program p = fused_equals_unfused(R"(
.base A float32 12
.base T float32 12
.base M float32 4
RANGE A
MULTIPLY T{0;3,4;4,1}, A{8;3,4;-4,1}, -1.0
MAXIMUM_REDUCE M, T{0;3,4;4,1}, 0
FREE T
SYNC M
)",
                                   "M");
  CHECK(values<float>(p, "M") == std::vector<float>{-0.0f, -1, -2, -3});
}
