// Regressions found by test/fuzz/fuzz_fuser, each program as .hsb text, checked as the fuzzer does.
#include <catch2/catch.hpp>

#include "ir/fusion/algorithms.h"
#include "ir/text/parser.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

// Every algorithm legal (reference), its cost the model's, optimal proven and exact.
void check_all(const Program& p, const std::string& model) {
  test::Reference ref(p);
  FusionContext ctx(p, model, 1'000'000);
  INFO("cost model " << model);
  Partition opt = optimal_partition(ctx);
  REQUIRE(opt.proven_optimal);
  for (const auto& entry : algorithm_registry().entries()) {
    Partition part = entry.value.run(ctx);
    INFO("algorithm " << entry.name);
    CHECK(ref.check(part.blocks) == "");
    CHECK(part.cost == partition_cost(ctx.model(), part.blocks));
    CHECK(part.cost >= opt.cost);
  }
  int64_t best = ref.exhaustive_optimum(
      [&](const std::vector<std::vector<size_t>>& b) { return partition_cost(ctx.model(), b); });
  CHECK(opt.cost == best);
}

} // namespace

TEST_CASE("identical empty views do not depend on each other (fuzz finding 1)") {
  // RANGE and the scan touch A only through views of 0 elements: no element conflicts, so only
  // the FREE orders them. The WSP graph used to add a dependency 1 -> 2 for the identical
  // (empty) view, so the unintrusive sink rule put the FREE with the scan and `optimal`
  // "proved" cost 1 under max_contract where [2] [1 3] was thought to contract A. (Under the
  // contraction rule of ir/fusion/contraction.h the scan's operand needs memory: cost 1 anyway.)
  Program p = parse_program(".base A int32 4\n"
                            "RANGE A{0;2,0;2,0}\n"
                            "ADD_ACCUMULATE A{4;2,0;1,1}, A{0;2,0;2,0}, 1\n"
                            "FREE A\n");
  FusionContext ctx(p, "max_contract");
  CHECK(ctx.graph().predecessors(1).empty());
  CHECK(optimal_partition(ctx).cost == 1);
  for (const auto& model : cost_model_registry().names()) check_all(p, model);
}
