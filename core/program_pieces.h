// Program pieces: where a long flush is cut so that it runs as consecutive pieces of bounded
// length (Runtime: [stack] piece_size).
//
// Every stage of a flush walks its program several times (filters, the merge-cache key, the
// access table, the partition search, planning, launch), and each keeps tables that grow with
// it. Their steps per instruction stay the same at any length, but past a few thousand
// instructions their working set leaves the caches and each step misses (a column sweep's
// runtime per instruction doubled from 10^3 to 10^5 instructions; shrinking views' fusion
// tripled). Running a long flush as pieces of at most a few thousand instructions keeps the
// time per instruction flat. It is what a lower flush threshold does, with the cuts chosen:
// each goes where the fewest bytes of arrays are used on both sides, so that few temporaries
// lose their contraction (a temporary created before a cut and freed after it is written to
// memory instead of living in registers) and few blocks lose a merge.
#pragma once

#include <cstddef>
#include <vector>

#include "core/program.h"

namespace hassium {

// The first instruction of each piece: 0, then each cut c, every piece at most `max_piece`
// instructions ({0} when max_piece is 0 or the program is not longer). A cut c lies in
// [start + max_piece / 2, start + max_piece], where `start` is the piece's first instruction,
// and is where the bytes of the bases used both before c and from c on are least (the latest
// such c on a tie).
std::vector<size_t> program_piece_starts(const Program& program, size_t max_piece);

} // namespace hassium
