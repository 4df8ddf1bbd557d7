// Partition: the fuser's answer, a list of blocks of instruction indices in execution order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hassium {

// A partition of a Program's instructions into fused blocks.
// - blocks[b] lists 0-based instruction indices in ascending (program) order;
// - the blocks are listed in a legal execution order (a topological order of the block
//   dependency graph), so an engine runs blocks[0], blocks[1], ... one after the other;
// - every instruction index appears in exactly one block.
struct Partition {
  std::vector<std::vector<size_t>> blocks;
  int64_t cost = 0;            // under `cost_model`, in that model's unit
  bool proven_optimal = false; // true only when `optimal` finished within its budget
  std::string algorithm;
  std::string cost_model;
};

} // namespace hassium
