// Tests of the cost models (ir/cost_*.cpp): values worked out by hand, the registry, and the
// monotonicity property (merging never costs more) with exact merge savings.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "fusion_programs.h"
#include "ir/fusion/cost_model.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;
using test::ProgramBuilder;

namespace {

using Blocks = std::vector<std::vector<size_t>>;

int64_t cost(const Program& p, const std::string& model, const Blocks& blocks) {
  AccessTable t = build_access_table(p);
  return partition_cost(*make_cost_model(model, t), blocks);
}

Blocks singletons(size_t n) {
  Blocks b;
  for (size_t i = 0; i < n; ++i) b.push_back({i});
  return b;
}

// T = A*A; B = T + A; FREE T  (A and B hold data, T is created by the program).
Program small_program() {
  static double data[8];
  ProgramBuilder b;
  auto A = b.base("A", 4), B = b.base("B", 4), T = b.base("T", 4);
  A->data = data;
  B->data = data;
  b.op(Opcode::MULTIPLY,
       {ProgramBuilder::whole(T), ProgramBuilder::whole(A), ProgramBuilder::whole(A)});
  b.op(Opcode::ADD, {ProgramBuilder::whole(B), ProgramBuilder::whole(T), ProgramBuilder::whole(A)});
  b.free(T);
  return std::move(b.p);
}

} // namespace

TEST_CASE("bohrium on the paper's Fig. 3: 94 and 38 elements of float64") {
  Program p = test::paper_fig3();
  CHECK(cost(p, "bohrium", singletons(p.size())) == 94 * 8);
  // The paper's optimal partition (Fig. 12).
  Blocks optimum = {{2}, {3}, {0, 1, 4, 5, 6, 7, 8, 11, 12}, {9, 10, 13, 14, 15, 16}};
  CHECK(cost(p, "bohrium", optimum) == 38 * 8);
  // T is contracted when 9, 10, 11 and FREE T share a block: {9,10,11,15} reads A, B, E[1:]
  // (12 elements; D[1:] is written before 11 reads it) and writes D[1:], E[1:] (8); the rest
  // stay singletons.
  Blocks contracted = {{0},  {1},  {2},  {3},  {4}, {5}, {6}, {7}, {8, 9, 10, 14},
                       {11}, {12}, {13}, {15}, {16}};
  CHECK(cost(p, "bohrium", contracted) == (4 + 4 + 5 + 5 + 12 + 8 + 12 + 8 + 20) * 8);
}

TEST_CASE("the four models on a small program, by hand") {
  Program p = small_program();
  const Blocks single = singletons(3), all = {{0, 1, 2}};
  // bohrium: 1 reads A, writes T (32 + 32); 2 reads T, A, writes B (96). Together T is
  // created and FREEd in the block: only A read and B written (64).
  CHECK(cost(p, "bohrium", single) == 160);
  CHECK(cost(p, "bohrium", all) == 64);
  // max_contract: A, B, T have views; T contracted only when all three are together.
  CHECK(cost(p, "max_contract", single) == 3);
  CHECK(cost(p, "max_contract", all) == 2);
  CHECK(cost(p, "max_contract", Blocks{{0, 1}, {2}}) == 3);
  // max_locality: A is accessed 3 times (twice by 1), T twice: pairs split across blocks are
  // A: 2 of 3 (64 bytes), T: 1 (32) for singletons; none when merged.
  CHECK(cost(p, "max_locality", single) == 96);
  CHECK(cost(p, "max_locality", all) == 0);
  // robinson: W_con = n + 1 = 4, W_loc = (3 bases + 1) * 4 = 16.
  CHECK(cost(p, "robinson", single) == 16 * 96 + 4 * 3 + 3);
  CHECK(cost(p, "robinson", all) == 0 + 4 * 2 + 1);
}

TEST_CASE("a SYNCed base is never contracted") {
  ProgramBuilder b;
  auto T = b.base("T", 4);
  b.op(Opcode::IDENTITY, {ProgramBuilder::whole(T), ProgramBuilder::f64(1)});
  b.sync(T);
  b.free(T);
  CHECK(cost(b.p, "bohrium", Blocks{{0, 1, 2}}) == 32);
  CHECK(cost(b.p, "max_contract", Blocks{{0, 1, 2}}) == 1);
}

TEST_CASE("cost model registry") {
  CHECK(cost_model_registry().names() ==
        std::vector<std::string>{"bohrium", "max_contract", "max_locality", "robinson"});
  AccessTable t = build_access_table(test::paper_fig3());
  for (const auto& name : cost_model_registry().names())
    CHECK(make_cost_model(name, t)->name() == name);
  CHECK(make_cost_model("bohrium", t)->unit() == "bytes");
  try {
    make_cost_model("fastest", t);
    FAIL("no error");
  } catch (const UserError& e) {
    std::string msg = e.what();
    CHECK(msg.find("fastest") != std::string::npos);
    CHECK(msg.find("bohrium, max_contract, max_locality, robinson") != std::string::npos);
  }
}

TEST_CASE("every model is monotonic and its merge savings are exact") {
  std::mt19937 rng(42);
  for (int k = 0; k < 300; ++k) {
    Program p = test::random_program(rng, {.max_instrs = 10});
    AccessTable t = build_access_table(p);
    for (const auto& name : cost_model_registry().names()) {
      auto model = make_cost_model(name, t);
      INFO("model " << name << " program " << k);
      // Random merge sequences from the singletons down to one block, legal or not: Def. 6
      // asks monotonicity of every partition.
      std::vector<std::vector<uint32_t>> blocks;
      for (uint32_t i = 0; i < p.size(); ++i) blocks.push_back({i});
      auto as_blocks = [&] {
        Blocks out;
        for (const auto& b : blocks) out.emplace_back(b.begin(), b.end());
        return out;
      };
      int64_t before = partition_cost(*model, as_blocks());
      while (blocks.size() > 1) {
        size_t a = std::uniform_int_distribution<size_t>(0, blocks.size() - 1)(rng);
        size_t b = std::uniform_int_distribution<size_t>(0, blocks.size() - 2)(rng);
        if (b >= a) ++b;
        int64_t saved =
            merge_savings(*model, summarize_block(t, blocks[a]), summarize_block(t, blocks[b]));
        blocks[a].insert(blocks[a].end(), blocks[b].begin(), blocks[b].end());
        blocks.erase(blocks.begin() + long(b));
        int64_t after = partition_cost(*model, as_blocks());
        REQUIRE(after <= before);
        REQUIRE(saved == before - after);
        before = after;
      }
    }
  }
}

TEST_CASE("bohrium agrees with the reference on random partitions") {
  std::mt19937 rng(8);
  for (int k = 0; k < 300; ++k) {
    Program p = test::random_program(rng);
    test::Reference ref(p);
    Blocks blocks;
    for (size_t i = 0; i < p.size(); ++i) {
      size_t b = std::uniform_int_distribution<size_t>(0, blocks.size())(rng);
      if (b == blocks.size()) blocks.emplace_back();
      blocks[b].push_back(i);
    }
    REQUIRE(cost(p, "bohrium", blocks) == ref.bohrium_cost(blocks));
  }
}
