// Program pieces: the cuts of a long flush, from each base's first and last use.
#include "core/program_pieces.h"

#include <algorithm>

#include "core/pointer_index.h"

namespace hassium {

std::vector<size_t> program_piece_starts(const Program& program, size_t max_piece) {
  const size_t n = program.size();
  std::vector<size_t> starts{0};
  if (max_piece == 0 || n <= max_piece) return starts;
  // crossing[c]: the bytes of the bases used before c and at or after c, as a difference array
  // over the cuts from each base's first and last use.
  PointerIndex ids;
  ids.reset(n);
  std::vector<size_t> first, last;
  std::vector<int64_t> bytes;
  for (size_t i = 0; i < n; ++i)
    for (const Operand& opnd : program.instrs[i].operands)
      if (const View* v = std::get_if<View>(&opnd)) {
        bool fresh;
        const uint32_t id = ids.insert(v->base.get(), fresh);
        if (fresh) {
          first.push_back(i);
          last.push_back(i);
          bytes.push_back(v->base->nbytes());
        }
        last[id] = i;
      }
  std::vector<int64_t> crossing(n + 1, 0);
  for (size_t b = 0; b < first.size(); ++b)
    if (first[b] != last[b]) {
      crossing[first[b] + 1] += bytes[b];
      crossing[last[b] + 1] -= bytes[b];
    }
  for (size_t c = 1; c <= n; ++c) crossing[c] += crossing[c - 1];
  const size_t least = std::max<size_t>(max_piece / 2, 1);
  for (size_t start = 0; n - start > max_piece;) {
    size_t cut = start + max_piece;
    for (size_t c = cut; c-- > start + least;)
      if (crossing[c] < crossing[cut]) cut = c;
    starts.push_back(cut);
    start = cut;
  }
  return starts;
}

} // namespace hassium
