// Legality (the paper's Def. 5): the dependencies between a flushed program's instructions and
// the check of a partition against them and fusibility; the one definition the WSP graph, the
// fuser's merge-cache hits, the flush-plan cache and the tests use.
//
// A dependency f -> g (f first): g reads or writes a view overlapping a view f writes, or writes
// a view overlapping one f reads (RAW, WAW, WAR), or one of them FREEs/SYNCs a base the other
// touches. An empty view (an extent 0) has no elements, so it conflicts with nothing, not even
// an identical view; only the FREE/SYNC of its base orders it. find_dependencies() lists only
// edges not implied by a path: for each access the search stops at the last write of the
// identical view or the last FREE/SYNC of the base, which already depend on everything earlier.
// Reachability is exactly that of the full relation, and the work is linear in the accesses for
// the usual programs (accesses are bucketed by view; only views that overlap are compared).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/fusion/access_table.h"

namespace hassium {

// The dependency edges of a program, as each instruction's predecessors (ascending).
struct Dependencies {
  std::vector<uint32_t> offsets; // size n + 1
  std::vector<uint32_t> preds;

  size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::span<const uint32_t> of(uint32_t g) const {
    return {preds.data() + offsets[g], offsets[g + 1] - offsets[g]};
  }
};

Dependencies find_dependencies(const AccessTable& t);

// Def. 5 for blocks listed in execution order: every instruction in exactly one block, every
// block fusible (ir/fusion/fusibility.h, rules 1-5), and every dependency going to the same or a
// later block (so the block graph has no cycle and the listed order runs it). Empty when legal,
// else what is wrong. `deps`, when given, are find_dependencies(t).
std::string check_partition(const AccessTable& t, const std::vector<std::vector<size_t>>& blocks,
                            const Dependencies* deps = nullptr);

} // namespace hassium
