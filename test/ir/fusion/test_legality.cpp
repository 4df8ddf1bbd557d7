// Legality (ir/fusion/legality.h) against the independent reference: the dependency edges' closure
// is the full dependency relation, and check_partition agrees with the definition on every ordered
// partition of small random programs.
#include <catch2/catch.hpp>

#include <random>

#include "ir/fusion/access_table.h"
#include "ir/fusion/legality.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

using Relation = std::vector<std::vector<bool>>;

void close(Relation& r) {
  const size_t n = r.size();
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      if (r[i][k])
        for (size_t j = 0; j < n; ++j)
          if (r[k][j]) r[i][j] = true;
}

std::string describe(const Program& p) {
  std::string s;
  for (size_t i = 0; i < p.size(); ++i)
    s += std::to_string(i + 1) + ": " + test::describe(p.instrs[i]) + "\n";
  return s;
}

} // namespace

TEST_CASE("the dependency edges reach exactly the reference's dependencies") {
  std::mt19937 rng(1301);
  for (int k = 0; k < 400; ++k) {
    test::RandomProgramOptions o;
    o.strided = k % 2 == 1;
    Program p = test::random_program(rng, o);
    test::Reference ref(p);
    AccessTable t = build_access_table(p);
    Dependencies deps = find_dependencies(t);
    const size_t n = p.size();
    REQUIRE(deps.size() == n);
    Relation edges(n, std::vector<bool>(n, false)), full(n, std::vector<bool>(n, false));
    for (uint32_t g = 0; g < n; ++g)
      for (uint32_t f : deps.of(g)) {
        REQUIRE(f < g);
        REQUIRE(ref.dependency(f, g)); // every edge is a real dependency
        edges[f][g] = true;
      }
    for (size_t f = 0; f < n; ++f)
      for (size_t g = f + 1; g < n; ++g) full[f][g] = ref.dependency(f, g);
    close(edges);
    close(full);
    INFO("program:\n" << describe(p));
    CHECK(edges == full);
  }
}

TEST_CASE("check_partition agrees with the definition on every ordered partition") {
  std::mt19937 rng(1302);
  int legal = 0, illegal = 0;
  for (int k = 0; k < 60; ++k) {
    test::RandomProgramOptions o;
    o.max_instrs = 5;
    o.strided = k % 3 == 2;
    Program p = test::random_program(rng, o);
    test::Reference ref(p);
    AccessTable t = build_access_table(p);
    Dependencies deps = find_dependencies(t);
    const size_t n = p.size();
    // Block of instruction i = digit i of `code` in base n; blocks listed by label.
    size_t codes = 1;
    for (size_t i = 0; i < n; ++i) codes *= n;
    for (size_t code = 0; code < codes; ++code) {
      std::vector<std::vector<size_t>> blocks(n);
      for (size_t i = 0, c = code; i < n; ++i, c /= n) blocks[c % n].push_back(i);
      std::erase_if(blocks, [](const auto& b) { return b.empty(); });
      const bool expected = ref.check(blocks).empty();
      INFO("program:\n" << describe(p) << "code " << code);
      REQUIRE(check_partition(t, blocks).empty() == expected);
      REQUIRE(check_partition(t, blocks, &deps).empty() == expected);
      ++(expected ? legal : illegal);
    }
  }
  CHECK(legal > 1000);
  CHECK(illegal > 1000);
}

TEST_CASE("check_partition says what is wrong") {
  Program p = test::paper_fig3();
  AccessTable t = build_access_table(p);
  std::vector<std::vector<size_t>> all;
  for (size_t i = 0; i < p.size(); ++i) all.push_back({i});
  CHECK(check_partition(t, all) == "");
  auto missing = all;
  missing.pop_back();
  CHECK(check_partition(t, missing).find("is in no block") != std::string::npos);
  auto twice = all;
  twice[0].push_back(1);
  CHECK(check_partition(t, twice).find("is in two blocks") != std::string::npos);
  auto out_of_range = all;
  out_of_range[0] = {p.size()};
  CHECK(check_partition(t, out_of_range).find("names instruction") != std::string::npos);
  auto reversed = all;
  std::reverse(reversed.begin(), reversed.end());
  CHECK(check_partition(t, reversed).find("depends on instruction") != std::string::npos);
}
