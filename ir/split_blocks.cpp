// split_blocks: long fused blocks cut into pieces along the period of their instructions.
#include "ir/split_blocks.h"

#include <cstdint>

namespace hassium {

namespace {

// What makes two instructions of a loop body alike for the kernel: the opcode and each
// operand's kind and dtype.
uint64_t signature(const Instruction& ins) {
  uint64_t h = uint64_t(ins.op) * 0x9E3779B97F4A7C15ull;
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    uint64_t x = ins.is_view(k) ? 2 * uint64_t(ins.view(k).dtype()) + 1
                                : 2 * uint64_t(std::get<Scalar>(ins.operands[k]).dtype);
    h = (h ^ (x + 0x7F4A7C15ull + (h << 6) + (h >> 2))) * 0xBF58476D1CE4E5B9ull;
  }
  return h;
}

} // namespace

Periodic sequence_period(const std::vector<uint64_t>& sig, size_t max_period) {
  const size_t n = sig.size();
  Periodic best;
  for (size_t p = 1; p <= max_period && 2 * p <= n; ++p) {
    // The longest suffix [start, n) in which every element repeats p later.
    size_t start = n - p;
    while (start > 0 && sig[start - 1] == sig[start - 1 + p]) --start;
    if (n - start < 2 * p || (best.period && start >= best.start)) continue;
    best.period = p;
    best.start = start;
    if (start == 0) break; // the whole sequence: no longer period can do better
  }
  if (!best.period) return best;
  // The canonical phase: the rotation of one period that is smallest, compared element by
  // element (the same for every run of the loop, wherever it starts).
  const size_t p = best.period;
  auto less = [&](size_t a, size_t b) { // rotation starting at a < rotation starting at b
    for (size_t k = 0; k < p; ++k) {
      uint64_t x = sig[best.start + (a + k) % p], y = sig[best.start + (b + k) % p];
      if (x != y) return x < y;
    }
    return false;
  };
  size_t phase = 0;
  for (size_t r = 1; r < p; ++r)
    if (less(r, phase)) phase = r;
  best.start += phase;
  return best;
}

std::vector<std::vector<size_t>> split_long_blocks(const Program& program,
                                                   std::vector<std::vector<size_t>> blocks,
                                                   size_t max_size) {
  if (max_size == 0) return blocks;
  std::vector<std::vector<size_t>> out;
  out.reserve(blocks.size());
  std::vector<uint64_t> sig;
  for (auto& block : blocks) {
    sig.clear();
    for (size_t i : block)
      if (!program.instrs[i].is_system()) sig.push_back(signature(program.instrs[i]));
    if (sig.size() <= max_size) {
      out.push_back(std::move(block));
      continue;
    }
    // Where pieces start, as positions in the compute instructions: max_size apart up to the
    // loop's canonical start; from there whole pieces of the largest multiple of the period
    // that fits, then the rest's whole periods in pieces of 8, 4, 2, 1 periods (its binary
    // digits: the same few kernels for every remainder), then the partial period left.
    const size_t n = sig.size();
    const Periodic loop = sequence_period(sig, max_size);
    std::vector<size_t> cuts;
    const size_t head = loop.period ? loop.start : n;
    for (size_t at = max_size; at < head; at += max_size) cuts.push_back(at);
    if (loop.period) {
      const size_t p = loop.period, per_piece = max_size / p;
      size_t at = loop.start;
      if (at > 0) cuts.push_back(at);
      size_t periods = (n - at) / p;
      for (; periods >= per_piece; periods -= per_piece) cuts.push_back(at += per_piece * p);
      for (size_t k = per_piece; k > 0; k /= 2)
        if (periods & k) cuts.push_back(at += k * p);
      // (the last cut may be n: no piece starts there)
    }
    std::vector<size_t> cur;
    size_t at = 0, next = 0; // compute instructions so far; the next cut to make
    for (size_t i : block) {
      const bool system = program.instrs[i].is_system();
      // a FREE after a piece's last instruction stays with it
      if (!system && next < cuts.size() && at == cuts[next]) {
        if (!cur.empty()) out.push_back(std::move(cur));
        cur.clear();
        ++next;
      }
      cur.push_back(i);
      at += !system;
    }
    out.push_back(std::move(cur));
  }
  return out;
}

} // namespace hassium
