// Property test of the partition algorithms on 1000+ random programs of up to 10 instructions:
// legal partitions (Def. 5, checked independently), nobody beats optimal, optimal equals an
// exhaustive search, and the search gives the same optimum from the unintrusive partition and
// from the singletons.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ir/fusion/algorithms.h"
#include "ir/text/parser.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

std::string describe(const Program& p) {
  std::string s;
  for (size_t i = 0; i < p.size(); ++i)
    s += std::to_string(i + 1) + ": " + test::describe(p.instrs[i]) + "\n";
  return s;
}

void check_program(const Program& p, const std::string& model, bool exhaustive) {
  test::Reference ref(p);
  INFO("cost model " << model << ", program:\n" << describe(p));
  FusionContext ctx(p, model, 1'000'000'000);
  Partition opt = optimal_partition(ctx);
  REQUIRE(opt.proven_optimal);
  for (const auto& entry : algorithm_registry().entries()) {
    Partition part = entry.value.run(ctx);
    INFO("algorithm " << entry.name);
    REQUIRE(ref.check(part.blocks) == "");
    REQUIRE(part.cost == partition_cost(ctx.model(), part.blocks));
    REQUIRE(part.cost >= opt.cost);
    if (model == "bohrium") REQUIRE(part.cost == ref.bohrium_cost(part.blocks));
  }
  Blocks singletons;
  for (uint32_t i = 0; i < p.size(); ++i) singletons.push_back({i});
  Partition from_bottom = optimal_partition(ctx, singletons, singleton_partition(ctx));
  REQUIRE(from_bottom.proven_optimal);
  REQUIRE(from_bottom.cost == opt.cost);
  if (exhaustive) {
    int64_t best = ref.exhaustive_optimum(
        [&](const std::vector<std::vector<size_t>>& b) { return partition_cost(ctx.model(), b); });
    REQUIRE(opt.cost == best);
  }
}

} // namespace

TEST_CASE("every algorithm is legal and optimal is exact (bohrium, 1000 programs)") {
  std::mt19937 rng(20240611);
  for (int k = 0; k < test::random_rounds(1000); ++k) {
    test::RandomProgramOptions o;
    o.aligned = k % 3 == 0; // identical views: temporaries the contraction rule allows
    check_program(test::random_program(rng, o), "bohrium", true);
  }
}

TEST_CASE("every algorithm is legal and optimal is exact (other cost models)") {
  std::mt19937 rng(777);
  for (int k = 0; k < test::random_rounds(300); ++k) {
    Program p = test::random_program(rng);
    for (const char* model : {"max_contract", "max_locality", "robinson"})
      check_program(p, model, true);
  }
}

TEST_CASE("the same on windows of real traces (benchmarks/traces)") {
  // Every window of 8 consecutive instructions is a valid program (no use after FREE in the
  // whole trace). These have 2-D views, reductions, broadcasts and many temporaries.
  int windows = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(HASSIUM_SOURCE_DIR "/benchmarks/traces")) {
    if (e.path().extension() != ".hsb") continue;
    Program whole = parse_file(e.path().string());
    INFO("trace " << e.path().filename().string());
    for (size_t start = 0; start + 8 <= whole.size(); start += 37) {
      Program w;
      w.bases = whole.bases;
      w.instrs.assign(whole.instrs.begin() + long(start), whole.instrs.begin() + long(start + 8));
      check_program(w, "bohrium", true);
      ++windows;
    }
  }
  CHECK(windows > 250);
}
