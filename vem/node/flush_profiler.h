// FlushProfiler: the figures HASSIUM_PROFILE adds to the node VEM's plain counters.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/profile.h"
#include "core/program.h"
#include "ir/fusion/partition.h"

namespace hassium {

// The bytecode of some instructions of a program as a small .hsb program: `.base` lines and
// the instructions, bases renamed a0, a1, ... in order of first use, so that a loop that runs
// the same block on fresh temporaries every iteration prints the same text.
std::string canonical_bytecode(const Program& program, const std::vector<size_t>& instrs);

// Bytes the instructions read and write in memory: each distinct view (identical base, offset,
// shape, stride) of a base not in `contracted` counted once, at its element size.
int64_t bytes_moved(const Program& program, const std::vector<size_t>& instrs,
                    const std::vector<const Base*>& contracted);

// Only the node VEM's execute() calls it, and only while profiling is on (its costs: an access
// table per flush for the singleton cost, a canonical text per block).
class FlushProfiler {
public:
  explicit FlushProfiler(std::string cost_model) : cost_model_(std::move(cost_model)) {}

  // After fusing: the singleton partition's cost under the same cost model.
  void on_partition(const Program& program);
  // After the engine ran a block: `seconds` of execution, compilation excluded.
  void on_block(const Program& program, const std::vector<size_t>& instrs,
                const std::vector<const Base*>& contracted, double seconds);
  // Adds singleton_cost, bytes_moved and the slowest kernels.
  void add_counters(ProfileCounters& c) const;

private:
  std::string cost_model_;
  int64_t singleton_cost_ = 0;
  int64_t bytes_moved_ = 0;
  std::unordered_map<std::string, KernelTime> kernels_; // by bytecode
};

} // namespace hassium
