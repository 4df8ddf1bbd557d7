// Fuser: the one call a VEM makes per flush, Program -> Partition, through the merge cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/program.h"
#include "ir/partition.h"

namespace hassium {

class MergeCache;

struct FuserOptions {
  std::string algorithm = "greedy";   // a name of algorithm_names()
  std::string cost_model = "bohrium"; // a name of cost_model_names()
  int64_t optimal_budget = 100000;    // search nodes of `optimal`

  // The [fuser] section of a config; names are checked against the registries (UserError
  // naming the key, where its value came from, and the valid names).
  static FuserOptions from_config(const Config& config);
};

// Partitions the program into fused blocks with the chosen algorithm and cost model. With a
// cache, an identical program (up to base names and constant values) is answered from it.
// UserError when the algorithm or cost model is unknown (listing the valid names).
Partition fuse(const Program& program, const FuserOptions& options, MergeCache* cache = nullptr);

// The registries, in their listed order (ir/algorithms.cpp, ir/cost_model.cpp).
std::vector<std::string> algorithm_names();
std::vector<std::string> cost_model_names();

} // namespace hassium
