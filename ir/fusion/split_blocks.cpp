// split_blocks: long fused blocks cut into pieces along the period of their instructions.
#include "ir/fusion/split_blocks.h"

#include <cstdint>
#include <span>

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

// Appends where pieces of sig[lo, hi) start (ascending, after lo). Without a period: every
// max_size. With one: what comes before and after the loop cut the same way (other loops);
// the loop's partial period before its canonical phase one instruction a piece; then whole
// pieces of the largest multiple of the period that fits; the rest's whole periods in pieces
// of 2^k periods (its binary digits); the partial period at the end one instruction a piece.
// So a loop cut anywhere by a flush needs the same few kernels, and single instructions'
// kernels, which every program shares.
void piece_starts(std::span<const uint64_t> sig, size_t lo, size_t hi, size_t max_size,
                  size_t min_size, std::vector<size_t>& cuts) {
  auto cut = [&](size_t at) {
    if (at > lo && at < hi && (cuts.empty() || cuts.back() < at)) cuts.push_back(at);
  };
  if (hi - lo <= min_size) return;
  const Periodic loop = sequence_period(sig.subspan(lo, hi - lo), max_size);
  if (!loop.period) {
    for (size_t at = lo + max_size; at < hi; at += max_size) cut(at);
    return;
  }
  const size_t begin = lo + loop.begin, start = lo + loop.start, end = lo + loop.end;
  piece_starts(sig, lo, begin, max_size, min_size, cuts);
  const size_t p = loop.period, per_piece = max_size / p;
  size_t at = begin;
  for (; at <= start; ++at) cut(at);
  at = start;
  size_t periods = (end - at) / p;
  for (; periods >= per_piece; periods -= per_piece) cut(at += per_piece * p);
  size_t k = 1;
  while (2 * k <= per_piece) k *= 2;
  for (; k > 0; k /= 2)
    if (periods & k) cut(at += k * p);
  for (; at <= end; ++at) cut(at);
  piece_starts(sig, end, hi, max_size, min_size, cuts);
}

} // namespace

Periodic sequence_period(std::span<const uint64_t> sig, size_t max_period) {
  const size_t n = sig.size();
  Periodic best;
  for (size_t p = 1; p <= max_period && 2 * p <= n; ++p) {
    // Maximal runs of i with sig[i] == sig[i + p]: each run [b, e) makes [b, e + p) periodic.
    for (size_t i = 0; i + p < n;) {
      if (sig[i] != sig[i + p]) {
        ++i;
        continue;
      }
      size_t b = i;
      while (i + p < n && sig[i] == sig[i + p]) ++i;
      const size_t e = i + p;
      if (e - b >= 2 * p && e - b > best.end - best.begin) {
        best.period = p;
        best.begin = b;
        best.end = e;
      }
    }
  }
  if (!best.period) return best;
  // The canonical phase: the rotation of one period that is smallest, compared element by
  // element (the same for every run of the loop, wherever it starts).
  const size_t p = best.period;
  auto less = [&](size_t a, size_t b) { // rotation starting at a < rotation starting at b
    for (size_t k = 0; k < p; ++k) {
      uint64_t x = sig[best.begin + (a + k) % p], y = sig[best.begin + (b + k) % p];
      if (x != y) return x < y;
    }
    return false;
  };
  size_t phase = 0;
  for (size_t r = 1; r < p; ++r)
    if (less(r, phase)) phase = r;
  best.start = best.begin + phase;
  return best;
}

std::vector<std::vector<size_t>> split_long_blocks(const Program& program,
                                                   std::vector<std::vector<size_t>> blocks,
                                                   size_t max_size, double max_bytes) {
  if (max_size == 0) return blocks;
  std::vector<std::vector<size_t>> out;
  out.reserve(blocks.size());
  std::vector<uint64_t> sig;
  for (auto& block : blocks) {
    sig.clear();
    double bytes = 0;
    for (size_t i : block) {
      const Instruction& ins = program.instrs[i];
      if (ins.is_system()) continue;
      sig.push_back(signature(ins));
      bytes += ins.operand_bytes();
    }
    if (sig.size() <= max_size / 4 || bytes >= max_bytes * double(sig.size())) {
      out.push_back(std::move(block));
      continue;
    }
    std::vector<size_t> cuts;
    piece_starts(sig, 0, sig.size(), max_size, max_size / 4, cuts);
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
