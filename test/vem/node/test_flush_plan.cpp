// Tests of vem/node/flush_plan: an exact repeat runs its kept plan and does exactly what a
// fresh plan does (blocks, contraction, allocation, SYNC, FREE, releases), on random programs.
#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "core/error.h"
#include "ir/fusion/merge_cache.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "test/ir/fusion/cache_programs.h"
#include "test/ir/fusion/random_programs.h"
#include "vem/node/node_vem.h"

using namespace hassium;

namespace {
// Records each block (instructions, contracted base names) and checks that exactly the
// non-contracted bases have data; NEGATIVE stands in for bad data (UserError).
// A plan that counts the blocks it ran.
struct RecordingPlan : EnginePlan {
  std::vector<int> runs; // per block
};

struct RecordingEngine : Engine {
  std::vector<std::pair<std::vector<size_t>, std::vector<std::string>>> blocks;
  int64_t replayed = 0; // blocks launched in a plan slot that ran before
  int64_t prepared = 0; // prepare() calls
  std::string_view name() const override { return "recording"; }
  std::unique_ptr<EnginePlan> make_plan(size_t n) override {
    auto plan = std::make_unique<RecordingPlan>();
    plan->runs.resize(n);
    return plan;
  }
  void prepare(EnginePlan& plan, size_t b, const KernelBlock&) override {
    REQUIRE(b < static_cast<RecordingPlan&>(plan).runs.size());
    ++prepared;
  }
  void launch(EnginePlan& plan, size_t b, const KernelBlock& block) override {
    std::vector<std::string> contracted;
    for (const Base* c : block.contracted) contracted.push_back(c->name);
    blocks.emplace_back(block.instrs, contracted);
    auto& runs = static_cast<RecordingPlan&>(plan).runs;
    REQUIRE(b < runs.size());
    if (runs[b] > 0) ++replayed;
    for (size_t i : block.instrs) {
      const Instruction& ins = block.program->instrs[i];
      for (const auto& opnd : ins.operands)
        if (const View* v = std::get_if<View>(&opnd)) {
          bool c = std::count(block.contracted.begin(), block.contracted.end(), v->base.get());
          REQUIRE((v->base->data == nullptr) == c);
        }
      if (ins.op == Opcode::NEGATIVE) HS_USER_ERROR() << "bad data";
    }
    ++runs[b];
  }
  EngineStats stats() const override { return {}; }
};

struct Vem {
  RecordingEngine* engine;
  std::unique_ptr<NodeVem> vem;
  explicit Vem(bool cache) {
    auto e = std::make_unique<RecordingEngine>();
    engine = e.get();
    vem = std::make_unique<NodeVem>(std::move(e), FuserOptions{},
                                    cache ? std::make_unique<MergeCache>() : nullptr);
  }
  ProfileCounters counters() const {
    ProfileCounters c;
    vem->add_counters(c);
    return c;
  }
};

// What a flush left behind: per base name, whether it has data and is synced.
std::map<std::string, std::pair<bool, bool>> state_of(const Program& p) {
  std::map<std::string, std::pair<bool, bool>> s;
  for (const auto& ins : p.instrs)
    for (const auto& opnd : ins.operands)
      if (const View* v = std::get_if<View>(&opnd))
        s[v->base->name] = {v->base->data != nullptr, v->base->synced};
  return s;
}
} // namespace

TEST_CASE("flush plan: an exact repeat runs the kept plan and does what a fresh plan does",
          "[vem][plan]") {
  std::mt19937 seeds(20261122);
  int reused_somewhere = 0;
  for (int n = 0; n < 300; ++n) {
    const uint32_t seed = seeds();
    Vem cached(true), fresh(false);
    for (int round = 0; round < 3; ++round) {
      // The same structure over fresh bases every round (a loop's flushes).
      std::mt19937 rng_a(seed), rng_b(seed);
      Program a = test::random_program(rng_a), b = test::random_program(rng_b);
      cached.vem->execute(a);
      fresh.vem->execute(b);
      INFO("program " << n << ", round " << round << ":\n" << print_program(a));
      REQUIRE(state_of(a) == state_of(b));
    }
    REQUIRE(cached.engine->blocks == fresh.engine->blocks);
    CHECK(cached.vem->pool().stats().peak_bytes_in_use ==
          fresh.vem->pool().stats().peak_bytes_in_use);
    CHECK(cached.vem->pool().stats().reuses == fresh.vem->pool().stats().reuses);
    const ProfileCounters c = cached.counters();
    CHECK(c.plans_reused == 2); // rounds 2 and 3
    CHECK(c.blocks == fresh.counters().blocks);
    CHECK(c.partition_cost == fresh.counters().partition_cost);
    CHECK(fresh.counters().plans_reused == 0);
    // The repeats launched every compute block in the slot of the engine plan that ran it,
    // prepared once (the first round).
    int64_t compute_blocks = int64_t(cached.engine->blocks.size()) / 3;
    CHECK(cached.engine->replayed == 2 * compute_blocks);
    CHECK(cached.engine->prepared == compute_blocks);
    reused_somewhere += compute_blocks > 0;
  }
  CHECK(reused_somewhere > 250);
}

TEST_CASE("flush plan: a base with data in one flush and none in the next is no exact repeat",
          "[vem][plan]") {
  const char* text = R"(
.base T float64 4
.base O float64 4
IDENTITY T, 1.5
ADD O, T, 2
FREE T
SYNC O
)";
  Vem v(true);
  Program first = parse_program(text);
  v.vem->execute(first);
  Program second = parse_program(text);
  double outside[4] = {};
  second.find_base("O")->data = outside; // the frontend's memory: a different program
  v.vem->execute(second);
  CHECK(v.counters().plans_reused == 0);
  Program third = parse_program(text);
  v.vem->execute(third);
  CHECK(v.counters().plans_reused == 1);
}

TEST_CASE("flush plan: a failed flush keeps no plan, the next repeat plans afresh", "[vem][plan]") {
  const char* text = R"(
.base A float64 4
.base B float64 4
IDENTITY A, 1
NEGATIVE B, A
FREE A
SYNC B
)";
  Vem v(true);
  Program first = parse_program(text);
  CHECK_THROWS_AS(v.vem->execute(first), UserError);
  Program second = parse_program(text);
  CHECK_THROWS_AS(v.vem->execute(second), UserError);
  CHECK(v.counters().plans_reused == 0);
  CHECK(v.engine->replayed == 0);
}

TEST_CASE("flush plan: the profile counts replays planned again and replays checked",
          "[vem][plan]") {
  Vem v(true);
  // B[0:4] = A * 2; C = B[s:s+4] + A with B's two views meeting: the plan made for s = 3 (they
  // overlap: not fused) holds for s = 2 only after a check; an exact repeat needs none.
  for (int64_t s : {3, 3, 2}) {
    Program p = test::shifted_read(s);
    v.vem->execute(p);
  }
  ProfileCounters c = v.counters();
  CHECK(c.plans_reused == 2);
  CHECK(c.plan_checks == 1);
  CHECK(c.plans_reshaped == 0);
  // The next pivot of a Gauss step: other extents, its blocks planned again.
  Program first = test::gauss_step("a", 8, 1), next = test::gauss_step("b", 8, 2);
  v.vem->execute(first);
  v.vem->execute(next);
  c = v.counters();
  CHECK(c.plans_reused == 3);
  CHECK(c.plans_reshaped == 1);
}

TEST_CASE("flush plan: bases in key order are MergeCache::write_key's", "[vem][plan]") {
  std::mt19937 rng(7);
  for (int n = 0; n < 200; ++n) {
    Program p = test::random_program(rng);
    std::vector<Base*> mine, key_order;
    bases_in_key_order(p, mine);
    std::string key;
    MergeCache::write_key(p, FuserOptions{}, key, nullptr, &key_order);
    REQUIRE(mine == key_order);
  }
}
