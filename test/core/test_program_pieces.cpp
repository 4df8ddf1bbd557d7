// Tests for core/program_pieces: the cuts of a long flush, against a brute-force count of the
// bytes each cut separates.
#include <catch2/catch.hpp>

#include <random>

#include "core/program_pieces.h"

using namespace hassium;

namespace {

Instruction use(const BasePtr& out, const BasePtr& in) {
  return Instruction(Opcode::ADD, {View::whole(out), View::whole(in), Scalar::of_float(1)});
}

// The bytes of the bases used both before instruction c and at or after it, counted directly.
int64_t crossing(const Program& p, size_t c) {
  int64_t bytes = 0;
  std::vector<const Base*> counted;
  for (size_t i = 0; i < c; ++i)
    for (const Operand& before : p.instrs[i].operands) {
      const View* v = std::get_if<View>(&before);
      if (!v || std::find(counted.begin(), counted.end(), v->base.get()) != counted.end()) continue;
      bool later = false;
      for (size_t j = c; j < p.size() && !later; ++j)
        for (const Operand& after : p.instrs[j].operands)
          if (const View* w = std::get_if<View>(&after); w && w->base == v->base) later = true;
      if (later) {
        counted.push_back(v->base.get());
        bytes += v->base->nbytes();
      }
    }
  return bytes;
}

} // namespace

TEST_CASE("a flush no longer than a piece, or with pieces off, is one piece") {
  auto a = make_base("a", DType::FLOAT64, 8);
  Program p;
  for (int i = 0; i < 10; ++i) p.instrs.push_back(use(a, a));
  CHECK(program_piece_starts(p, 10) == std::vector<size_t>{0});
  CHECK(program_piece_starts(p, 64) == std::vector<size_t>{0});
  CHECK(program_piece_starts(p, 0) == std::vector<size_t>{0});
  CHECK(program_piece_starts(Program(), 4) == std::vector<size_t>{0});
}

TEST_CASE("a cut goes where the fewest bytes are used on both sides, the latest such place") {
  // Instruction i writes t_i (8 bytes) from t_(i-1), so every cut separates one temporary's
  // uses; instructions first..last also read big (8 KiB). Pieces of at most 16 cut in [8, 16].
  std::vector<BasePtr> t;
  for (int i = 0; i < 40; ++i) t.push_back(make_base("t" + std::to_string(i), DType::FLOAT64, 1));
  auto big = make_base("big", DType::FLOAT64, 1024);
  auto program = [&](int first, int last) {
    Program p;
    for (int i = 0; i < 40; ++i) {
      const BasePtr& prev = t[size_t(i > 0 ? i - 1 : 0)];
      p.instrs.push_back(
          Instruction(Opcode::ADD, {View::whole(t[size_t(i)]), View::whole(prev),
                                    View::whole(i >= first && i <= last ? big : prev)}));
    }
    return p;
  };
  // big used in 9..13: cuts 10..13 separate its uses; 16 is the latest of the others.
  auto starts = program_piece_starts(program(9, 13), 16);
  REQUIRE(starts.size() >= 3);
  CHECK(starts[0] == 0);
  CHECK(starts[1] == 16);
  // big used in 9..30, past the piece's room: the cut goes before its life, at 9.
  starts = program_piece_starts(program(9, 30), 16);
  REQUIRE(starts.size() >= 2);
  CHECK(starts[1] == 9);
}

TEST_CASE("cuts of random programs: bounded pieces, each cut the latest least crossing") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t nbases = 1 + rng() % 12, n = 1 + rng() % 60, max_piece = 1 + rng() % 12;
    std::vector<BasePtr> bases;
    for (size_t b = 0; b < nbases; ++b)
      bases.push_back(make_base("b" + std::to_string(b), DType::FLOAT64, 1 + int64_t(rng() % 5)));
    Program p;
    for (size_t i = 0; i < n; ++i)
      p.instrs.push_back(use(bases[rng() % nbases], bases[rng() % nbases]));
    const auto starts = program_piece_starts(p, max_piece);
    INFO("trial " << trial << ", " << n << " instructions, pieces of at most " << max_piece);
    REQUIRE(!starts.empty());
    CHECK(starts[0] == 0);
    for (size_t k = 0; k < starts.size(); ++k) {
      const size_t end = k + 1 < starts.size() ? starts[k + 1] : n;
      CHECK(end > starts[k]);
      CHECK(end - starts[k] <= max_piece);
      if (k + 1 == starts.size()) continue;
      // The chosen cut: least crossing in [start + max/2, start + max], the latest on a tie.
      const size_t lo = starts[k] + std::max<size_t>(max_piece / 2, 1), hi = starts[k] + max_piece;
      size_t best = hi;
      for (size_t c = hi; c-- > lo;)
        if (crossing(p, c) < crossing(p, best)) best = c;
      CHECK(starts[k + 1] == best);
    }
  }
}
