// Tests for vem/node/defer_writes: which early writes move, where, and which stay.
#include <catch2/catch.hpp>

#include "ir/text/parser.h"
#include "vem/node/defer_writes.h"

using namespace hassium;

namespace {
using Blocks = std::vector<std::vector<size_t>>;

// S: a small row; P: a big padded array whose row 0 is written from S far before the rest.
const char* kPadded = R"(
.base S float64 4
.base P float64 4096
.base Q float64 4096
.base R float64 4096
IDENTITY S, 1.5
IDENTITY P{0;4;1}, S
FREE S
IDENTITY Q, 2
ADD R, Q, 1
IDENTITY P{4;4092;1}, R{0;4092;1}
FREE Q
FREE R
SYNC P
)";

Partition partition_of(Blocks blocks) {
  Partition p;
  p.blocks = std::move(blocks);
  return p;
}
} // namespace

TEST_CASE("a write that allocates a big base far before its next use moves in front of it") {
  Program p = parse_program(kPadded);
  Partition part = partition_of({{0, 1, 2}, {3}, {4}, {5, 6, 7}, {8}});
  CHECK(defer_early_writes(p, part, 0) == 1);
  // P's row write (1) and S's FREE (2) go right before block {5, 6, 7}, P's next use.
  CHECK(part.blocks == Blocks{{0}, {3}, {4}, {1, 2}, {5, 6, 7}, {8}});
}

TEST_CASE("writes stay where moving them would not help or would be wrong") {
  Program p = parse_program(kPadded);
  SECTION("the next use is the very next block") {
    Partition part = partition_of({{0, 1, 2}, {3, 4, 5, 6, 7}, {8}});
    CHECK(defer_early_writes(p, part, 0) == 0);
    CHECK(part.blocks == Blocks{{0, 1, 2}, {3, 4, 5, 6, 7}, {8}});
  }
  SECTION("the base is smaller than min_bytes") {
    Partition part = partition_of({{0, 1, 2}, {3}, {4}, {5, 6, 7}, {8}});
    CHECK(defer_early_writes(p, part, 4096 * 8 + 1) == 0);
  }
  SECTION("the base already has data") {
    std::vector<double> mem(4096);
    p.find_base("P")->data = mem.data();
    Partition part = partition_of({{0, 1, 2}, {3}, {4}, {5, 6, 7}, {8}});
    CHECK(defer_early_writes(p, part, 0) == 0);
  }
}

TEST_CASE("a write whose input is overwritten before the next use stays") {
  Program p = parse_program(R"(
.base S float64 4
.base P float64 4096
.base Q float64 4096
IDENTITY S, 1.5
IDENTITY P{0;4;1}, S
IDENTITY Q, 2
IDENTITY S, 3
IDENTITY P{4;4092;1}, Q{0;4092;1}
FREE S
FREE Q
SYNC P
)");
  Partition part = partition_of({{0, 1}, {2}, {3}, {4, 5, 6}, {7}});
  defer_early_writes(p, part, 0); // Q's write (2) may move; P's row write (1) must not
  CHECK(part.blocks.front() == std::vector<size_t>{0, 1});
}

TEST_CASE("a write whose inputs B computes and would have to keep is not moved") {
  // T is as big as P: moving P's write would materialize T from block 0 on, no gain.
  Program p = parse_program(R"(
.base T float64 4096
.base P float64 4096
.base Q float64 4096
IDENTITY T, 1.5
IDENTITY P, T
FREE T
IDENTITY Q, 2
ADD P, P, Q
FREE Q
SYNC P
)");
  Partition part = partition_of({{0, 1, 2}, {3}, {4, 5}, {6}});
  CHECK(defer_early_writes(p, part, 0) == 0);
}
