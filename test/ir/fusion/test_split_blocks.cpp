// Tests of ir/split_blocks: the period of a loop body, legal pieces, pieces a loop shares, and
// fuse()'s use of it for flushes of little data.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/split_blocks.h"
#include "ir/text/parser.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;

TEST_CASE("sequence_period finds a loop body, after a prologue, at its canonical phase") {
  using V = std::vector<uint64_t>;
  CHECK(sequence_period(V{5, 6, 7, 8}, 4).period == 0);
  CHECK(sequence_period(V{1, 1, 1, 1}, 4).period == 1);
  Periodic whole = sequence_period(V{3, 1, 2, 3, 1, 2, 3, 1, 2}, 4);
  CHECK(whole.period == 3);
  CHECK(whole.start == 1); // the rotation 1 2 3 is the smallest
  Periodic after = sequence_period(V{9, 9, 7, 2, 3, 1, 2, 3, 1, 2, 3, 1}, 4);
  CHECK(after.period == 3);
  CHECK(after.start == 5); // loop from 3, canonical phase at the next 1
  // The longest repeating stretch, wherever it is.
  Periodic middle = sequence_period(V{9, 1, 2, 1, 2, 1, 2, 1, 2, 8, 7, 1, 2}, 4);
  CHECK(middle.period == 2);
  CHECK(middle.begin == 1);
  CHECK(middle.start == 1);
  CHECK(middle.end == 9);
  // Not two whole periods within max_period: none.
  CHECK(sequence_period(V{1, 2, 3, 4, 1, 2, 3}, 4).period == 0);
  CHECK(sequence_period(V{1, 2, 3, 1, 2, 3}, 2).period == 0);
}

namespace {
// A loop of `iters` iterations of x[j] = x[j-1] * 2 + 1 over rows of `len` float64 elements,
// through two temporaries (5 instructions and 2 FREEs an iteration), after a 1-instruction
// prologue.
Program row_loop(int iters, int64_t len) {
  std::string text = ".base X float64 " + std::to_string(len * (iters + 1)) + "\n";
  for (int j = 1; j <= iters; ++j)
    text += ".base T" + std::to_string(j) + " float64 " + std::to_string(len) + "\n.base U" +
            std::to_string(j) + " float64 " + std::to_string(len) + "\n";
  auto row = [&](int j) {
    return "X{" + std::to_string(j * len) + ";" + std::to_string(len) + ";1}";
  };
  text += "RANGE " + row(0) + "\n";
  for (int j = 1; j <= iters; ++j) {
    std::string t = "T" + std::to_string(j), u = "U" + std::to_string(j);
    text += "MULTIPLY " + t + ", " + row(j - 1) + ", 2\nADD " + u + ", " + t + ", 1\nFREE " + t +
            "\nIDENTITY " + row(j) + ", " + u + "\nFREE " + u + "\n";
  }
  return parse_program(text + "SYNC X\n");
}

size_t compute_count(const Program& p, const std::vector<size_t>& block) {
  size_t n = 0;
  for (size_t i : block) n += !p.instrs[i].is_system();
  return n;
}
} // namespace

TEST_CASE("every piece of every algorithm's blocks is legal (random programs)") {
  std::mt19937 rng(4242);
  for (int k = 0; k < 400; ++k) {
    Program p = test::random_program(rng);
    test::Reference ref(p);
    FusionContext ctx(p, "bohrium");
    for (const auto& entry : algorithm_registry().entries()) {
      Partition part = entry.value.run(ctx);
      for (size_t max : {1, 2, 3}) {
        auto pieces = split_long_blocks(p, part.blocks, max, 1e30);
        INFO("program " << k << ", " << entry.name << ", pieces of " << max);
        REQUIRE(ref.check(pieces) == "");
        for (const auto& b : pieces) REQUIRE(compute_count(p, b) <= max);
      }
    }
  }
}

TEST_CASE("a loop's pieces are whole iterations, few kinds however long the loop") {
  for (int iters : {37, 50, 64}) {
    Program p = row_loop(iters, 100);
    FusionContext ctx(p, "bohrium");
    Partition whole = linear_partition(ctx);
    REQUIRE(whole.blocks.size() == 1);
    auto pieces = split_long_blocks(p, whole.blocks, 32, 1e30);
    test::Reference ref(p);
    REQUIRE(ref.check(pieces) == "");
    // The prologue's RANGE and the loop's first, partial body; then whole bodies (3 compute
    // instructions): 10 per piece, then the rest's binary digits.
    std::multiset<size_t> sizes;
    for (const auto& b : pieces) sizes.insert(compute_count(p, b));
    INFO("iterations " << iters);
    CHECK(sizes.count(30) == size_t(3 * iters - 3) / 30);
    std::set<size_t> kinds(sizes.begin(), sizes.end());
    CHECK(kinds.size() <= 6);
    for (size_t s : kinds) CHECK(s <= 32);
  }
}

TEST_CASE("two loops in one block are each cut along their own period") {
  // Loop A (3-instruction body) 50 times, two other instructions, loop A's body again 50 times
  // over another array: one block of 302 compute instructions.
  std::string text = ".base X float64 5100\n.base Y float64 5100\n.base Z float64 100\n";
  auto loop = [&](const std::string& a) {
    for (int j = 1; j <= 50; ++j) {
      auto row = [&](int r) { return a + "{" + std::to_string(r * 100) + ";100;1}"; };
      text += "MULTIPLY Z, " + row(j - 1) + ", 2\nADD Z, Z, 1\nIDENTITY " + row(j) + ", Z\n";
    }
  };
  loop("X");
  text += "SQRT Z, X{0;100;1}\nNEGATIVE Y{0;100;1}, Z\n";
  loop("Y");
  Program p = parse_program(text + "SYNC X\nSYNC Y\n");
  std::vector<size_t> all(p.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto pieces = split_long_blocks(p, {all}, 32, 1e30);
  std::multiset<size_t> sizes;
  for (const auto& b : pieces) sizes.insert(compute_count(p, b));
  // Each loop: its canonical start within the first body, then pieces of 10 bodies: at least
  // four per loop; nothing longer than 32.
  CHECK(sizes.count(30) >= 8);
  CHECK(*sizes.rbegin() <= 32);
}

TEST_CASE("fuse cuts long blocks only in flushes of little data") {
  FuserOptions o; // split_block_size 128
  FuseInfo info;
  Partition small = fuse(row_loop(100, 100), o, nullptr, &info);
  CHECK(info.split);
  for (const auto& b : small.blocks) CHECK(b.size() <= 2 * 128);
  Partition large = fuse(row_loop(100, 100000), o, nullptr, &info);
  CHECK_FALSE(info.split);
  size_t longest = 0;
  for (const auto& b : large.blocks) longest = std::max(longest, b.size());
  CHECK(longest > 128);
  o.split_block_size = 0;
  fuse(row_loop(100, 100), o, nullptr, &info);
  CHECK_FALSE(info.split);
  // The cut partition is cached under its own key: a large program of the same structure
  // misses.
  o.split_block_size = 128;
  MergeCache cache;
  fuse(row_loop(100, 100), o, &cache);
  fuse(row_loop(100, 100000), o, &cache);
  CHECK(cache.stats().misses == 2);
}
