// ProgramKey: what identifies a flushed program to the caches that outlive it (the merge cache's
// partitions, a VEM's flush plans): its key under the fuser options in effect, its layout, its
// bases in the key's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/program.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/partition.h"

namespace hassium {

struct ProgramKey {
  // MergeCache::write_key under the options fuse() runs the program with (`linear` for a small
  // program of a searching algorithm), and its hash (MergeCache::hash_key).
  std::string text;
  uint64_t hash = 0;
  FlushLayout layout{};      // MergeCache::layout()
  std::vector<Base*> bases;  // the program's bases in the key's order (first appearance)
  bool overlap_free = false; // MergeCache::write_key's: no overlap between views decides legality
  // MergeCache::write_key's: the written bases (key numbers) whose views may overlap; empty when
  // overlap_free.
  std::vector<uint32_t> overlapping;
  bool small = false; // partitioned by linear: too few bytes per instruction for a search

  // Computes it for `program` (reusing this key's memory). The bases point into the program.
  void compute(const Program& program, const FuserOptions& options);
};

// The options fuse() runs `program` under: `options`, or `linear` in place of a searching
// algorithm when the program is small (FuserOptions::search_min_bytes). `small` tells which.
void options_in_effect(const Program& program, const FuserOptions& options, FuserOptions& out,
                       bool& small);

// Whether partition `p`, made (or last checked) for a program of `key.text` with layout
// `planned`, is legal for `program` (of `key`): without a check when the layouts are equal (the
// same program up to base names), when no overlap between views decides legality
// (key.overlap_free), or when every base's views moved together; else check_partition decides
// on the accesses of key.overlapping's bases alone (every other written base's views are
// identical or disjoint, as few constraints as a program of the key can have).
// `checked` (when given) says whether check_partition ran.
bool partition_holds(const Program& program, const ProgramKey& key, const FlushLayout& planned,
                     const Partition& p, bool* checked = nullptr);

} // namespace hassium
