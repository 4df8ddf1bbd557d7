// Tests of core/pointer_index.h: ids in first-insertion order, lookups, reset and growth,
// against std::unordered_map as the reference.
#include <catch2/catch.hpp>

#include <random>
#include <unordered_map>
#include <vector>

#include "core/pointer_index.h"

using hassium::PointerIndex;

TEST_CASE("PointerIndex: dense ids in first-insertion order", "[core][pointer_index]") {
  std::vector<int> objects(10);
  PointerIndex index;
  bool fresh = false;
  CHECK(index.find(&objects[0]) == PointerIndex::kAbsent);
  CHECK(index.insert(&objects[3], fresh) == 0);
  CHECK(fresh);
  CHECK(index.insert(&objects[1], fresh) == 1);
  CHECK(fresh);
  CHECK(index.insert(&objects[3], fresh) == 0);
  CHECK_FALSE(fresh);
  CHECK(index.find(&objects[1]) == 1);
  CHECK_FALSE(index.contains(&objects[2]));
  CHECK(index.size() == 2);
  index.reset();
  CHECK(index.size() == 0);
  CHECK_FALSE(index.contains(&objects[3]));
  CHECK(index.insert(&objects[1], fresh) == 0);
  CHECK(fresh);
}

TEST_CASE("PointerIndex: agrees with unordered_map over growth and many resets",
          "[core][pointer_index]") {
  std::vector<double> pool(20000);
  std::mt19937 rng(7);
  PointerIndex index;
  for (int round = 0; round < 40; ++round) {
    // Rounds of different sizes: some reset() calls shrink nothing, others grow the table.
    const size_t n = size_t(1) << (round % 15);
    index.reset(round % 3 == 0 ? n : 0);
    std::unordered_map<const void*, uint32_t> ref;
    std::uniform_int_distribution<size_t> pick(0, std::min(pool.size() - 1, 2 * n));
    for (size_t k = 0; k < 2 * n; ++k) {
      const void* p = &pool[pick(rng)];
      bool fresh;
      uint32_t id = index.insert(p, fresh);
      auto [it, added] = ref.try_emplace(p, uint32_t(ref.size()));
      REQUIRE(fresh == added);
      REQUIRE(id == it->second);
    }
    REQUIRE(index.size() == ref.size());
    for (size_t k = 0; k < std::min(pool.size(), 4 * n); ++k) {
      auto it = ref.find(&pool[k]);
      REQUIRE(index.find(&pool[k]) == (it == ref.end() ? PointerIndex::kAbsent : it->second));
    }
  }
}
