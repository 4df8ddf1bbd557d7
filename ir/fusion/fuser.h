// Fuser: the one call a VEM makes per flush, Program -> Partition, through the merge cache.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/program.h"
#include "ir/fusion/partition.h"

namespace hassium {

class MergeCache;

// What a merge-cache key leaves out, hashed (MergeCache::layout()): words 0-1 each distinct
// view's base size, offset, extents and strides; words 2-3 the same without the offsets (the
// geometry); words 4-5 the geometry and each view's offset relative to its base's first view's
// (equal: every base's views moved together). All zero = unknown.
using FlushLayout = std::array<uint64_t, 6>;

struct FuserOptions {
  std::string algorithm = "greedy";   // a name of algorithm_registry() (ir/fusion/algorithms.h)
  std::string cost_model = "bohrium"; // a name of cost_model_registry() (ir/fusion/cost_model.h)
  int64_t optimal_budget = 100000;    // search nodes of `optimal`
  // A flush whose instructions move fewer bytes than this on average (the bytes of their array
  // operands) is partitioned by `linear` instead of an algorithm that searches the WSP graph
  // (unintrusive, greedy, optimal): however good its partition, the search would cost more
  // time (~1-2 us per instruction) than the memory traffic it could save. 0 = never.
  int64_t search_min_bytes = 8192;
  // A block of more than this many instructions, and fewer than kSplitMaxBytes bytes per
  // instruction (where compiling its kernel costs far more than running it, and a cut next to
  // nothing: at 1 MiB, lbm_d3q19's 32^3 blocks ran 15% slower cut), is cut into pieces of at
  // most this many along the period of its instructions (split_blocks.h), so the pieces of a
  // loop share a few kernels and no kernel takes long to compile. 0 = never.
  int64_t split_block_size = 128;
  static constexpr int64_t kSplitMaxBytes = int64_t(1) << 16;

  // The [fuser] section of a config; names are checked against the registries (UserError
  // naming the key, where its value came from, and the valid names).
  static FuserOptions from_config(const Config& config);
};

struct ProgramKey; // ir/fusion/program_key.h

// What fuse() learned about the program.
struct FuseInfo {
  // The cache held this program's key with this layout: the same program up to base names and
  // constant values as the one its partition was made for (returned as stored).
  bool exact = false;
  bool small = false; // partitioned by linear: too few bytes per instruction for the search
  bool split = false; // some long block cut (split_block_size); a cache hit says nothing
};

// Partitions the program into fused blocks with the chosen algorithm and cost model (`linear`
// for a program of too few bytes per instruction, see search_min_bytes). With a cache, an
// identical program (up to base names and constant values) is answered from it; `key`, when
// given, is the program's (ProgramKey::compute under `options`), else fuse() computes it.
// UserError when the algorithm or cost model is unknown (listing the valid names).
Partition fuse(const Program& program, const FuserOptions& options, MergeCache* cache = nullptr,
               FuseInfo* info = nullptr, const ProgramKey* key = nullptr);

// Whether the program moves fewer than `min_bytes` bytes per instruction on average (its
// instructions' array operands, FREE and SYNC left out); false for min_bytes <= 0.
bool small_program(const Program& program, int64_t min_bytes);

} // namespace hassium
