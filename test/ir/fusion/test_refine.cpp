// Tests of ir/fusion/refine.cpp: moves of a temporary's creator into its consumer's block.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/refine.h"
#include "ir/text/parser.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

// One red-black sweep of benchmarks/python/sor.py's relax() on an (n+2) x (n+2) grid, as the
// Python frontend records it: three ADDs of the four neighbours, (1-w)*centre, (w/4)*sum,
// their sum written back to the centre, each temporary FREEd after its last use.
std::string sor_sweep(int n) {
  const int w = n + 2, h = n / 2;
  std::string q = std::to_string(h) + "," + std::to_string(h);
  std::string s = ".base G float64 " + std::to_string(w * w) + "\n";
  std::string prog = "IDENTITY G, 1.0\n";
  int temp = 0;
  auto grid = [&](int off) {
    return "G{" + std::to_string(off) + ";" + q + ";" + std::to_string(2 * w) + ",2}";
  };
  auto tmp = [&](int k) {
    return "t" + std::to_string(k) + "{0;" + q + ";" + std::to_string(h) + ",1}";
  };
  for (auto [r, c] : {std::pair{1, 1}, {2, 2}, {1, 2}, {2, 1}}) {
    int t = temp;
    temp += 6;
    for (int k = t; k < t + 6; ++k)
      s += ".base t" + std::to_string(k) + " float64 " + std::to_string(h * h) + "\n";
    int centre = r * w + c;
    prog += "ADD " + tmp(t) + ", " + grid(centre - w) + ", " + grid(centre + w) + "\n";
    prog += "ADD " + tmp(t + 1) + ", " + tmp(t) + ", " + grid(centre - 1) + "\nFREE t" +
            std::to_string(t) + "\n";
    prog += "ADD " + tmp(t + 2) + ", " + tmp(t + 1) + ", " + grid(centre + 1) + "\nFREE t" +
            std::to_string(t + 1) + "\n";
    prog += "MULTIPLY " + tmp(t + 3) + ", -0.5, " + grid(centre) + "\n";
    prog += "MULTIPLY " + tmp(t + 4) + ", 0.4, " + tmp(t + 2) + "\n";
    prog += "ADD " + tmp(t + 5) + ", " + tmp(t + 3) + ", " + tmp(t + 4) + "\n";
    prog += "FREE t" + std::to_string(t + 3) + "\nFREE t" + std::to_string(t + 4) + "\n";
    prog += "IDENTITY " + grid(centre) + ", " + tmp(t + 5) + "\n";
    prog += "FREE t" + std::to_string(t + 5) + "\nFREE t" + std::to_string(t + 2) + "\n";
  }
  return s + prog + "SYNC G\n";
}

// Every base created and FREEd by the program has its creator and FREE in one block.
bool all_temporaries_contracted(const Program& p, const AccessTable& t,
                                const std::vector<std::vector<size_t>>& blocks) {
  std::vector<int> of(p.size());
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t i : blocks[b]) of[i] = int(b);
  for (size_t i = 0; i < p.size(); ++i)
    for (const Access& a : t.accesses_of(i))
      if (a.mode == AccessMode::FREE && t.bases[a.base].creator >= 0 &&
          of[size_t(t.bases[a.base].creator)] != of[i])
        return false;
  return true;
}

} // namespace

TEST_CASE("greedy on a SOR sweep reaches the optimum, every temporary contracted") {
  for (int n : {4, 6}) {
    Program p = parse_program(sor_sweep(n));
    FusionContext ctx(p, "bohrium", 10'000'000);
    Partition opt = optimal_partition(ctx);
    REQUIRE(opt.proven_optimal);
    Partition g = greedy_partition(ctx);
    CHECK(check_partition(ctx.table(), g.blocks) == "");
    CHECK(g.cost == opt.cost);
    CHECK(all_temporaries_contracted(p, ctx.table(), g.blocks));
  }
}

TEST_CASE("refine_by_moves keeps partitions legal, never raises the cost, keeps pinned blocks") {
  std::mt19937 rng(4242);
  int improved = 0;
  for (int k = 0; k < 600; ++k) {
    test::RandomProgramOptions o;
    o.aligned = k % 2 == 0; // identical views: temporaries the contraction rule allows
    Program p = test::random_program(rng, o);
    test::Reference ref(p);
    FusionContext ctx(p, "bohrium");
    const WspGraph& g = ctx.graph();
    // Start from linear's blocks, which often leave a temporary split from its consumer.
    Blocks start;
    for (const auto& b : linear_partition(ctx).blocks) start.emplace_back(b.begin(), b.end());
    auto as_sizes = [](const Blocks& b) {
      std::vector<std::vector<size_t>> out;
      for (const auto& x : b) out.emplace_back(x.begin(), x.end());
      return out;
    };
    int64_t before = partition_cost(ctx.model(), as_sizes(start));
    auto refined = order_blocks(g, refine_by_moves(g, start));
    INFO("program " << k);
    REQUIRE(ref.check(refined) == "");
    int64_t after = partition_cost(ctx.model(), refined);
    REQUIRE(after <= before);
    improved += after < before;
    int64_t best = ref.exhaustive_optimum(
        [&](const std::vector<std::vector<size_t>>& b) { return partition_cost(ctx.model(), b); });
    REQUIRE(after >= best);
    // Nothing movable: the same blocks.
    auto pinned = order_blocks(g, refine_by_moves(g, start, std::vector<bool>(p.size(), false)));
    REQUIRE(pinned == order_blocks(g, start));
  }
  CHECK(improved > 0); // the move does happen on some of these programs
}
