// defer_writes: finds writes that allocate a big base far ahead of its use, moves them later.
#include "vem/node/defer_writes.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace hassium {

namespace {
constexpr size_t kNone = size_t(-1);

struct Move {
  size_t instr;
  size_t before; // the block it goes in front of (an index of the original partition)
  std::vector<size_t> frees;
};

// The first check of the header: compute instruction `ins` writes a base without data of
// `min_bytes` or more (the write that would allocate it).
bool writes_big_new_base(const Instruction& ins, int64_t min_bytes) {
  const Base* out = ins.out().base.get();
  return !out->data && out->nbytes() >= min_bytes;
}

// The checks of the header on instruction i; fills `move` when i can go.
bool plan_move(const Program& program, const std::vector<size_t>& block_of,
               const std::unordered_map<const Base*, std::vector<size_t>>& accesses, size_t i,
               int64_t min_bytes, Move& move) {
  const Instruction& ins = program.instrs[i];
  const Base* out = ins.out().base.get();
  if (!writes_big_new_base(ins, min_bytes)) return false;
  size_t b = block_of[i], c = kNone;
  for (size_t j : accesses.at(out)) {
    if (j == i) continue;
    if (block_of[j] <= b) return false;
    c = std::min(c, block_of[j]);
  }
  if (c == kNone || c < b + 2) return false;
  int64_t extended = 0;
  std::unordered_set<const Base*> done;
  move = {i, c, {}};
  for (const View* in : ins.inputs()) {
    const Base* x = in->base.get();
    if (x == out) return false;
    if (!done.insert(x).second) continue;
    bool written_in_b = false, others_between = false;
    size_t free_at = kNone;
    for (size_t j : accesses.at(x)) {
      if (j == i) continue;
      const Instruction& other = program.instrs[j];
      bool writes = !other.is_system() && other.out().base.get() == x;
      size_t bj = block_of[j];
      if (bj == b && j < i && writes) written_in_b = true;
      bool between = (bj == b && j > i) || (bj > b && bj < c);
      if (!between) continue;
      if (other.op == Opcode::FREE) {
        free_at = j;
      } else if (writes) {
        return false; // reading later would see a newer value
      } else {
        others_between = true;
      }
    }
    if (free_at != kNone) {
      if (others_between) return false; // keep it simple: the FREE moves only with its last use
      move.frees.push_back(free_at);
    }
    // Kept longer by the move: bases B computes for i (no longer contracted) and bases whose
    // last use is i (let go after the new block instead of after B).
    if (written_in_b || free_at != kNone) extended += x->nbytes();
  }
  return extended * 8 <= out->nbytes();
}
} // namespace

size_t defer_early_writes(const Program& program, Partition& partition, int64_t min_bytes) {
  // Most flushes write no big base without data (a loop's temporaries are small): nothing to
  // look at, and no tables built.
  if (std::none_of(program.instrs.begin(), program.instrs.end(), [&](const Instruction& ins) {
        return !ins.is_system() && writes_big_new_base(ins, min_bytes);
      }))
    return 0;
  std::vector<size_t> block_of(program.instrs.size(), kNone);
  for (size_t b = 0; b < partition.blocks.size(); ++b)
    for (size_t i : partition.blocks[b]) block_of[i] = b;
  std::unordered_map<const Base*, std::vector<size_t>> accesses; // base -> instrs, in order
  for (size_t i = 0; i < program.instrs.size(); ++i)
    for (const auto& opnd : program.instrs[i].operands)
      if (const View* v = std::get_if<View>(&opnd)) {
        auto& list = accesses[v->base.get()];
        if (list.empty() || list.back() != i) list.push_back(i);
      }

  std::vector<Move> moves;
  std::unordered_set<size_t> moved; // instruction indices taken out of their blocks
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    if (program.instrs[i].is_system()) continue;
    Move m;
    if (!plan_move(program, block_of, accesses, i, min_bytes, m)) continue;
    if (std::any_of(m.frees.begin(), m.frees.end(), [&](size_t f) { return moved.count(f); }))
      continue;
    moved.insert(m.instr);
    moved.insert(m.frees.begin(), m.frees.end());
    moves.push_back(std::move(m));
  }
  if (moves.empty()) return 0;

  std::map<size_t, std::vector<std::vector<size_t>>> inserted; // before block -> new blocks
  for (Move& m : moves) { // in instruction order, so blocks before one C keep program order
    std::vector<size_t> block{m.instr};
    block.insert(block.end(), m.frees.begin(), m.frees.end());
    std::sort(block.begin(), block.end());
    inserted[m.before].push_back(std::move(block));
  }
  std::vector<std::vector<size_t>> blocks;
  for (size_t b = 0; b < partition.blocks.size(); ++b) {
    if (auto it = inserted.find(b); it != inserted.end())
      for (auto& block : it->second) blocks.push_back(std::move(block));
    std::vector<size_t> kept;
    for (size_t i : partition.blocks[b])
      if (!moved.count(i)) kept.push_back(i);
    if (!kept.empty()) blocks.push_back(std::move(kept));
  }
  partition.blocks = std::move(blocks);
  return moves.size();
}

} // namespace hassium
