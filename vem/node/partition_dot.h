// Graphviz picture of one flush: the WSP graph with the partition's blocks as clusters.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "core/program.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/partition.h"

namespace hassium {

// A `digraph`: one box per instruction (its .hsb text), inside one cluster per block (in
// execution order, labelled with the block's position); dependency edges solid, weight edges
// (merge savings under `cost_model`) dashed and labelled. For [profile] dot_dir.
std::string partition_dot(const Program& program, const Partition& partition,
                          std::string_view cost_model);

// [profile] dot_dir (alias HASSIUM_DOT_DIR): each distinct partition once, as
// DIR/partition-<hash>.dot, and DIR/partition-<hash>.png made by Graphviz (`dot -Tpng`, run as
// a subprocess) when `dot` is on PATH and the program has at most kMaxPngInstructions
// instructions (layout time grows fast). Distinct: the program's merge-cache key (structure,
// not constant values or base names; ir/fusion/merge_cache.h) with the blocks; a file already in
// the directory (an earlier process) is not written again. Problems (an unwritable directory, a
// failing `dot`) are warnings on stderr, once each; the flush goes on.
class PartitionDotWriter {
public:
  static constexpr size_t kMaxPngInstructions = 2000;

  explicit PartitionDotWriter(std::string dir);
  // The .dot path written, or empty when this partition was written before (or could not be).
  std::string write(const Program& program, const Partition& partition,
                    const FuserOptions& options);
  // Graphviz's `dot` found on PATH when the writer was made; empty if none.
  const std::string& dot_program() const { return dot_program_; }

private:
  std::string dir_;
  std::string dot_program_;
  std::unordered_set<std::string> seen_; // keys written by this process
  bool warned_write_ = false;
  bool warned_png_ = false;
};

// The first executable `name` in the directories of $PATH, or empty.
std::string find_on_path(std::string_view name);

} // namespace hassium
