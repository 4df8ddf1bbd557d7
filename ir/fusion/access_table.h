// Access table: a Program reduced to what fusion needs (who touches which view, loop classes).
//
// Everything the WSP graph, the cost models and the partition algorithms look at is computed
// here once per program, in O(accesses + overlapping view pairs):
// - identical views (same base, offset, shape, stride) share one view id; the ids of one base
//   are consecutive, so a list sorted by view id is also grouped by base;
// - for every view, the other views of its base that overlap it (exact test) where one of the
//   two is written by the program (two reads never order or split anything), found by a sweep
//   over boxes of the base seen as rows (a matrix's rows, columns and blocks are boxes), so
//   views whose boxes do not meet cost no exact test and pairs of reads no work at all;
// - for every instruction, its accesses (reads, the write, or the FREE/SYNC of a base) and its
//   loop class (see ir/fusion/fusibility.h);
// - for every base, the instruction that creates it (the paper's new[f]): the base has no data
//   yet and the first instruction that touches it writes it without reading it; and whether
//   the program SYNCs it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/program.h"

namespace hassium {

inline constexpr uint32_t kNoView = UINT32_MAX;

enum class AccessMode : uint8_t { READ, WRITE, FREE, SYNC };

struct Access {
  uint32_t view; // kNoView for FREE and SYNC
  uint32_t base;
  AccessMode mode;
};

// How an instruction takes part in fusion (ir/fusion/fusibility.h has the rules).
enum class InstrKind : uint8_t {
  SYSTEM,      // FREE, SYNC: fuse with anything
  ELEMENTWISE, // element-wise and generators
  REDUCTION,   // loop shape = its input's shape; carries an axis
  SOLO,        // GATHER/SCATTER/COND_SCATTER, scans, extension methods: never fuse
};

struct InstrEntry {
  uint32_t first_access = 0; // into AccessTable::accesses
  uint32_t num_access = 0;
  InstrKind kind = InstrKind::SYSTEM;
  int32_t shape = -1; // loop shape id (index into AccessTable::shapes); -1 for SYSTEM
  int32_t axis = -1;  // REDUCTION: the reduced axis; else -1
};

struct ViewEntry {
  uint32_t base = 0;
  int64_t bytes = 0;          // number of elements * element size
  const View* view = nullptr; // one of the identical operands (owned by the Program)
  bool written = false;       // some instruction writes it
  // Other views of the same base that overlap it, where this one or that one is written;
  // sorted.
  std::vector<uint32_t> overlaps;
};

struct BaseEntry {
  const Base* base = nullptr;
  uint32_t first_view = 0, end_view = 0; // its view ids are [first_view, end_view)
  int32_t creator = -1;                  // the instruction that creates it (new[f]), or -1
  // It may live in registers only when one block holds its accesses (ir/fusion/contraction.h): then
  // the block of its creator and FREE contracts it.
  bool contractible = false;
  bool viewed = false; // some instruction accesses one of its views (not only FREE/SYNC)
};

struct AccessTable {
  const Program* program = nullptr;
  std::vector<InstrEntry> instrs;
  std::vector<Access> accesses;
  std::vector<ViewEntry> views;
  std::vector<BaseEntry> bases;
  std::vector<Dims> shapes; // distinct loop shapes

  size_t size() const { return instrs.size(); }
  std::span<const Access> accesses_of(size_t instr) const {
    const InstrEntry& e = instrs[instr];
    return {accesses.data() + e.first_access, e.num_access};
  }
  // Distinct views v and u overlap and one of them is written (exact; never true for v == u).
  bool overlapping(uint32_t v, uint32_t u) const;
};

// Builds the table. The Program must outlive it (views are referenced, not copied). With
// `only` non-empty, the accesses (views, FREE, SYNC) of those bases alone: every instruction's
// loop class, and what decides legality where only those bases' views may overlap (the
// restricted check of ir/fusion/program_key.h).
AccessTable build_access_table(const Program& program, std::span<const Base* const> only = {});

} // namespace hassium
