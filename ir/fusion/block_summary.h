// Block summary: what a cost model and the fusibility test need to know about a set of
// instructions, small and mergeable in linear time.
//
// Per view: the program position of its first read and first write inside the block and the
// number of accesses. Per base: whether the block creates it, FREEs it, SYNCs it. A read of a
// view is external to the block when no earlier instruction of the block wrote that view,
// i.e. when first_read <= first_write (the instruction that reads and writes the same view,
// `ADD A, A, 1`, reads it from memory). A base is contracted in the block when the block
// creates and FREEs it: it never needs memory. Legality guarantees that then every access of
// the base is in the block (FREE depends on every access of its base). kCreated is only set for
// bases the contraction rule allows (ir/fusion/contraction.h: never SYNCed, one per-element view,
// ...), so the cost models count exactly what the node VEM contracts. Contraction thus only depends
// on flags that merging ORs together, which makes every cost model monotonic on all
// partitions, legal or not.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/fusion/access_table.h"

namespace hassium {

inline constexpr uint32_t kNever = UINT32_MAX;

struct ViewStat {
  uint32_t view;
  uint32_t first_read = kNever;  // program position of the first read inside the block
  uint32_t first_write = kNever; // ... of the first write
  uint32_t count = 0;            // accesses (operands) of the view inside the block

  bool written() const { return first_write != kNever; }
  bool external_read() const { return first_read != kNever && first_read <= first_write; }
};

// kCreated: the block holds the base's creator and the base is contractible
// (ir/fusion/contraction.h).
enum BaseFlags : uint8_t { kCreated = 1, kFreed = 2, kSynced = 4 };

// A block with these flags for a base never needs the base in memory.
inline bool is_contracted(uint8_t flags) {
  return (flags & (kCreated | kFreed)) == (kCreated | kFreed);
}

struct BaseStat {
  uint32_t base;
  uint8_t flags = 0;
  uint32_t first_view = 0, end_view = 0; // the ids of its base's views (AccessTable::bases)

  bool contracted() const { return is_contracted(flags); }
};

struct BlockSummary {
  std::vector<ViewStat> views; // sorted by view id (hence grouped by base)
  std::vector<BaseStat> bases; // sorted by base id

  // The views of that base in the block (binary search, so merges need not re-index).
  std::span<const ViewStat> views_of(const BaseStat& b) const;
  const BaseStat* find_base(uint32_t base) const;
  const ViewStat* find_view(uint32_t view) const;
};

// The summary of one instruction.
BlockSummary summarize_instruction(const AccessTable& t, uint32_t instr);
// The summary of a set of instructions (any order).
BlockSummary summarize_block(const AccessTable& t, std::span<const uint32_t> instrs);
// The summary of the union of two disjoint blocks.
BlockSummary merge_summaries(const BlockSummary& a, const BlockSummary& b);
// The same in place: `into` becomes the union (no allocation when its capacity suffices; the
// work is in the elements of `into` at or after the first key of `other`).
void merge_into(BlockSummary& into, const BlockSummary& other);
// The views of one base in the union of two blocks, written to `out` (sorted by view id).
void merge_views(std::span<const ViewStat> a, std::span<const ViewStat> b,
                 std::vector<ViewStat>& out);

} // namespace hassium
