// Tests of vem/node/flush_plan_cache: a kept plan serves exact repeats, moved views where its
// partition stays legal, reshaped views (taking their layout), and nothing else; LRU bounds (plans, instructions).
#include <catch2/catch.hpp>

#include <algorithm>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/wsp_graph.h"
#include "test/ir/fusion/cache_programs.h"
#include "vem/node/flush_plan_cache.h"

using namespace hassium;
using test::gauss_step;
using test::iteration;
using test::shifted_read;
using test::with_syncs;
using Fit = FlushPlanCache::Fit;

namespace {
FuserOptions options() {
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  return o;
}

ProgramKey key_of(const Program& p) {
  ProgramKey k;
  k.compute(p, options());
  return k;
}

// A plan of the program's partition (the cache only looks at the partition).
std::unique_ptr<FlushPlan> plan_of(const Program& p) {
  auto plan = std::make_unique<FlushPlan>();
  plan->partition = fuse(p, options());
  return plan;
}
} // namespace

TEST_CASE("plan cache: exact repeats, then moved views while the partition holds", "[vem][plan]") {
  FlushPlanCache cache;
  Program a = iteration("a", 1.0);
  FlushPlan& kept = cache.insert(key_of(a), plan_of(a));
  // Another constant, other bases, the same layout: exact.
  Program b = iteration("b", 2.0);
  auto found = cache.find(b, key_of(b));
  CHECK(found.plan == &kept);
  CHECK(found.fit == Fit::EXACT);
  // The multiplication reads X one element further: the same geometry, still legal.
  Program c = iteration("c", 2.0, 1);
  found = cache.find(c, key_of(c));
  CHECK(found.plan == &kept);
  CHECK(found.fit == Fit::SHIFTED);
  // The entry keeps its layout: the first layout is still an exact repeat.
  Program d = iteration("d", 3.0);
  CHECK(cache.find(d, key_of(d)).fit == Fit::EXACT);
  // Another structure: nothing.
  Program e = with_syncs(iteration("e", 1.0), 1);
  CHECK(cache.find(e, key_of(e)).plan == nullptr);
}

TEST_CASE("plan cache: moved views that make the partition illegal find nothing", "[vem][plan]") {
  // B[0:4] = A * 2 then C = B[s:s+4] + A: with s = 4 the two are one block; moved to s = 2 the
  // read overlaps the write and that block is illegal.
  Program apart = shifted_read(4);
  auto plan = plan_of(apart);
  const auto& blocks = plan->partition.blocks;
  REQUIRE(std::any_of(blocks.begin(), blocks.end(), [](const auto& b) {
    return std::count(b.begin(), b.end(), 0) && std::count(b.begin(), b.end(), 1);
  }));
  FlushPlanCache cache;
  cache.insert(key_of(apart), std::move(plan));
  Program overlapping = shifted_read(2);
  ProgramKey k = key_of(overlapping);
  REQUIRE(k.text == key_of(apart).text);
  REQUIRE(MergeCache::same_geometry(k.layout, key_of(apart).layout));
  CHECK(cache.find(overlapping, k).plan == nullptr);
  // A fresh partition for it, kept in the plan's place, serves its repeats.
  cache.insert(k, plan_of(overlapping));
  CHECK(cache.size() == 1);
  Program again = shifted_read(2);
  CHECK(cache.find(again, key_of(again)).fit == Fit::EXACT);
}

TEST_CASE("plan cache: reshaped views run the plan and the entry takes their layout",
          "[vem][plan]") {
  FlushPlanCache cache;
  Program a = gauss_step("a", 8, 1);
  FlushPlan& kept = cache.insert(key_of(a), plan_of(a));
  // The next pivot: the same key, smaller views.
  Program b = gauss_step("b", 8, 2);
  REQUIRE(key_of(b).text == key_of(a).text);
  REQUIRE_FALSE(MergeCache::same_geometry(key_of(a).layout, key_of(b).layout));
  auto found = cache.find(b, key_of(b));
  CHECK(found.plan == &kept);
  CHECK(found.fit == Fit::RESHAPED);
  FusionContext ctx(b, options().cost_model);
  CHECK(check_partition(ctx.table(), kept.partition.blocks) == "");
  // The entry holds the second layout now: its repeat is exact, the first layout reshaped.
  Program c = gauss_step("c", 8, 2);
  CHECK(cache.find(c, key_of(c)).fit == Fit::EXACT);
  Program d = gauss_step("d", 8, 1);
  CHECK(cache.find(d, key_of(d)).fit == Fit::RESHAPED);
}

TEST_CASE("plan cache: past its capacity the least recently used plan goes", "[vem][plan]") {
  FlushPlanCache cache(2);
  std::vector<Program> programs; // three keys: 0, 1 or 2 extra SYNCs
  for (int n = 0; n < 3; ++n) programs.push_back(with_syncs(iteration("a", 1.0), n));
  cache.insert(key_of(programs[0]), plan_of(programs[0]));
  cache.insert(key_of(programs[1]), plan_of(programs[1]));
  CHECK(cache.find(programs[0], key_of(programs[0])).plan); // 0 used last: 1 goes next
  cache.insert(key_of(programs[2]), plan_of(programs[2]));
  CHECK(cache.size() == 2);
  CHECK(cache.find(programs[0], key_of(programs[0])).plan);
  CHECK_FALSE(cache.find(programs[1], key_of(programs[1])).plan);
  CHECK(cache.find(programs[2], key_of(programs[2])).plan);
  cache.clear();
  CHECK(cache.size() == 0);
  CHECK_FALSE(cache.find(programs[0], key_of(programs[0])).plan);
}

TEST_CASE("plan cache: past its instruction capacity the least recently used plans go",
          "[vem][plan]") {
  std::vector<Program> programs; // four keys: 0..3 extra SYNCs, so 0..3 more instructions
  for (int n = 0; n < 4; ++n) programs.push_back(with_syncs(iteration("a", 1.0), n));
  const size_t base = programs[0].instrs.size();
  // Room for the first three programs' instructions, not all four's; any number of plans.
  FlushPlanCache cache(100, 3 * base + 3);
  for (int n = 0; n < 3; ++n) cache.insert(key_of(programs[n]), plan_of(programs[n]));
  CHECK(cache.size() == 3);
  CHECK(cache.instructions() == 3 * base + 3);
  CHECK(cache.find(programs[0], key_of(programs[0])).plan); // 0 used last: 1 goes next
  cache.insert(key_of(programs[3]), plan_of(programs[3]));
  CHECK(cache.size() == 2); // 1 and then 2 went (0 and 3 alone are 2 * base + 3)
  CHECK(cache.instructions() == 2 * base + 3);
  CHECK(cache.find(programs[0], key_of(programs[0])).plan);
  CHECK_FALSE(cache.find(programs[1], key_of(programs[1])).plan);
  CHECK_FALSE(cache.find(programs[2], key_of(programs[2])).plan);
  CHECK(cache.find(programs[3], key_of(programs[3])).plan);
  // A plan larger than the whole capacity is still kept, alone: the newest always stays.
  FlushPlanCache tiny(100, 1);
  tiny.insert(key_of(programs[0]), plan_of(programs[0]));
  tiny.insert(key_of(programs[1]), plan_of(programs[1]));
  CHECK(tiny.size() == 1);
  CHECK(tiny.find(programs[1], key_of(programs[1])).plan);
  // Replacing a kept plan counts the new one's instructions only.
  tiny.insert(key_of(programs[1]), plan_of(programs[1]));
  CHECK(tiny.instructions() == base + 1);
  tiny.clear();
  CHECK(tiny.instructions() == 0);
}
