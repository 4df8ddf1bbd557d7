// Tests of core/flush_policy.cpp: signatures, cuts at one loop phase, the limit, re-anchoring.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "core/flush_policy.h"

using namespace hassium;

namespace {

// A stream of signatures fed to a policy like a frontend does; it keeps the flushed programs.
struct Feeder {
  FlushPolicy policy;
  int64_t threshold;
  std::vector<uint64_t> pending;
  std::vector<std::vector<uint64_t>> programs;
  std::vector<size_t> cut_at; // stream positions after which a flush happened
  std::vector<FlushPolicy::Cut> kinds;
  size_t position = 0;

  explicit Feeder(int64_t t) : threshold(t) {}
  void record(uint64_t sig) {
    pending.push_back(sig);
    ++position;
    FlushPolicy::Cut c = policy.decide(sig, int64_t(pending.size()), threshold);
    if (c == FlushPolicy::Cut::NONE) return;
    programs.push_back(std::move(pending));
    pending.clear();
    cut_at.push_back(position);
    kinds.push_back(c);
  }
  void note(uint64_t sig) { // a FREE from a destructor: never a flush point
    pending.push_back(sig);
    ++position;
    policy.note(sig);
  }
};

// One loop iteration of `period` instructions; positions 5..9 repeat positions 0..4 (a body
// with internal repetition) and every 10th position is followed by a noted FREE.
void iteration(Feeder& f, size_t period) {
  for (size_t i = 0; i < period; ++i) {
    f.record(1000 + (i >= 5 && i < 10 ? i - 5 : i));
    if (i % 10 == 3) f.note(7);
  }
}

size_t stream_per_iteration(size_t period) {
  return period + (period + 6) / 10; // the instructions plus the FREEs
}

} // namespace

TEST_CASE("a repeating stream after a prefix is cut at one phase", "[flush_policy]") {
  const size_t period = 70;
  Feeder f(1000);
  for (uint64_t i = 0; i < 137; ++i) f.record(5000 + i); // set-up code, never repeated
  const size_t prefix = 137;
  for (int it = 0; it < 200; ++it) iteration(f, period);

  REQUIRE(f.programs.size() > 5);
  CHECK(f.kinds[0] == FlushPolicy::Cut::FIRST);
  const size_t per = stream_per_iteration(period);
  // Every cut after the first falls at the first cut's phase of the loop.
  const size_t phase = (f.cut_at[0] - prefix) % per;
  for (size_t c = 1; c < f.cut_at.size(); ++c) {
    CHECK(f.kinds[c] == FlushPolicy::Cut::ALIGNED);
    CHECK((f.cut_at[c] - prefix) % per == phase);
  }
  // From the second on, every flushed program is the same whole number of iterations, the
  // smallest one that passes the threshold, and has the same signatures.
  for (size_t c = 1; c < f.programs.size(); ++c) {
    CHECK(f.programs[c].size() % per == 0);
    CHECK(f.programs[c].size() > 1000);
    CHECK(f.programs[c].size() <= 1000 + per);
    CHECK(f.programs[c] == f.programs[1]);
  }
  CHECK(f.policy.stats().forced == 0);
}

TEST_CASE("a body longer than the limit is cut into the same pieces every iteration",
          "[flush_policy]") {
  const size_t period = 2500; // limit = 2 x 1000
  Feeder f(1000);
  for (uint64_t i = 0; i < 300; ++i) f.record(9000 + i);
  for (int it = 0; it < 12; ++it) iteration(f, period);
  const size_t per = stream_per_iteration(period);
  REQUIRE(f.cut_at.size() > 8);
  // The phases of the cuts in one iteration, from the third iteration on (steady state).
  auto phases_of = [&](size_t it) {
    std::vector<size_t> p;
    for (size_t c : f.cut_at)
      if (c > 300 + it * per && c <= 300 + (it + 1) * per) p.push_back((c - 300) % per);
    return p;
  };
  const std::vector<size_t> steady = phases_of(3);
  CHECK(steady.size() == 2);
  for (size_t it = 4; it < 11; ++it) CHECK(phases_of(it) == steady);
  for (size_t c = 1; c < f.programs.size(); ++c) CHECK(f.programs[c].size() <= 2001 + per / 10);
}

TEST_CASE("a stream without repeats still flushes at the limit", "[flush_policy]") {
  Feeder f(1000);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) f.record(rng());
  REQUIRE(f.programs.size() >= 9);
  CHECK(f.programs[0].size() == 1001);
  for (size_t c = 1; c < f.programs.size(); ++c) CHECK(f.programs[c].size() == 2001);
  CHECK(f.policy.stats().aligned == 0);
  CHECK(f.policy.stats().reanchored > 0);
}

TEST_CASE("a new loop takes over the anchor", "[flush_policy]") {
  Feeder f(1000);
  for (int it = 0; it < 100; ++it) iteration(f, 60);
  const size_t first_loop_cuts = f.cut_at.size();
  const size_t start = f.position;
  for (int it = 0; it < 300; ++it)
    for (uint64_t i = 0; i < 45; ++i) f.record(77000 + i);
  // The first loop's anchor recurred every iteration and stops: the program ends two of its
  // periods after its last occurrence (rule 4), the next is cut past the threshold and anchors
  // there, then the second loop's programs are whole iterations, all equal.
  REQUIRE(f.programs.size() > first_loop_cuts + 4);
  CHECK(f.kinds[first_loop_cuts] == FlushPolicy::Cut::ENDED);
  CHECK(f.cut_at[first_loop_cuts] - start < 2 * stream_per_iteration(60));
  CHECK(f.kinds[first_loop_cuts + 1] == FlushPolicy::Cut::FIRST);
  CHECK(f.policy.stats().forced == 0);
  CHECK(f.policy.stats().ended == 1);
  const size_t from = first_loop_cuts + 2;
  for (size_t c = from; c < f.programs.size(); ++c) {
    CHECK(f.kinds[c] == FlushPolicy::Cut::ALIGNED);
    CHECK((f.cut_at[c] - start) % 45 == (f.cut_at[first_loop_cuts + 1] - start) % 45);
    if (c > from) CHECK(f.programs[c] == f.programs[from + 1]);
  }
}

TEST_CASE("time steps of several loops repeat their programs", "[flush_policy]") {
  // NPBench's adi: per time step four loops of 498 iterations over columns and rows, bodies of
  // 28 and 7 instructions. Whatever phase one loop ends at, the next loop's programs start at
  // the same place in it, so from the second time step on no program is new.
  Feeder f(1000);
  std::vector<size_t> step_start;
  for (int t = 0; t < 8; ++t) {
    step_start.push_back(f.position);
    for (uint64_t loop = 0; loop < 4; ++loop) {
      const uint64_t body = loop % 2 ? 7 : 28;
      for (int it = 0; it < 498; ++it)
        for (uint64_t i = 0; i < body; ++i) f.record(100 * (loop + 1) + i);
    }
  }
  std::set<std::vector<uint64_t>> seen_before_step_2, new_later;
  size_t from = 0;
  for (size_t c = 0; c < f.programs.size(); ++c) {
    const size_t start = from;
    from = f.cut_at[c];
    if (start < step_start[2]) {
      seen_before_step_2.insert(f.programs[c]);
    } else if (!seen_before_step_2.count(f.programs[c])) {
      new_later.insert(f.programs[c]);
    }
  }
  CHECK(new_later.empty());
  CHECK(f.policy.stats().ended >= 8 * 4 - 1);
  for (const auto& p : f.programs) CHECK(p.size() <= 2000); // within the limit
}

TEST_CASE("other flushes restart the program but keep the phase", "[flush_policy]") {
  Feeder f(100);
  for (int it = 0; it < 20; ++it)
    for (uint64_t i = 0; i < 30; ++i) f.record(300 + i);
  const size_t phase = f.cut_at.back() % 30;
  // A sync in the middle of an iteration: the frontend flushed by itself.
  for (uint64_t i = 0; i < 7; ++i) f.record(300 + i);
  f.programs.push_back(std::move(f.pending));
  f.pending.clear();
  f.policy.flushed_elsewhere();
  const size_t cuts = f.cut_at.size();
  for (int it = 0; it < 20; ++it)
    for (uint64_t i = (it == 0 ? 7 : 0); i < 30; ++i) f.record(300 + i);
  REQUIRE(f.cut_at.size() > cuts + 2);
  for (size_t c = cuts; c < f.cut_at.size(); ++c) CHECK(f.cut_at[c] % 30 == phase);
}

TEST_CASE("without alignment the cut is right past the threshold", "[flush_policy]") {
  Feeder f(50);
  f.policy.set_align(false);
  for (int it = 0; it < 40; ++it) iteration(f, 23);
  REQUIRE(f.programs.size() > 3);
  for (const auto& p : f.programs) { // the first record past 50 (a noted FREE may come before)
    CHECK(p.size() > 50);
    CHECK(p.size() <= 52);
  }
  Feeder zero(0); // threshold 0: a flush after every instruction, aligned or not
  for (int i = 0; i < 5; ++i) zero.record(uint64_t(i % 2));
  CHECK(zero.programs.size() == 5);
}

TEST_CASE("signatures ignore bases, offsets and extents", "[flush_policy]") {
  BasePtr a = make_base("a", DType::FLOAT64, 100);
  BasePtr b = make_base("b", DType::FLOAT64, 400);
  BasePtr c = make_base("c", DType::FLOAT32, 100);
  auto view = [](BasePtr base, int64_t offset, Dims shape, Dims stride) {
    View v;
    v.base = std::move(base);
    v.offset = offset;
    v.shape = std::move(shape);
    v.stride = std::move(stride);
    return v;
  };
  auto add = [&](View out, View in, Scalar k) {
    return FlushPolicy::signature(Instruction(Opcode::ADD, {out, in, k}));
  };
  const uint64_t s = add(view(a, 0, {10, 10}, {10, 1}), view(a, 11, {9, 9}, {10, 1}),
                         Scalar::of_float(1.0, DType::FLOAT64));
  // Other bases, offsets, extents and constant values: the same signature.
  CHECK(s == add(view(b, 21, {5, 7}, {20, 1}), view(b, 3, {5, 7}, {40, 1}),
                 Scalar::of_float(2.5, DType::FLOAT64)));
  // Another stride class, dtype, ndim, constant dtype or opcode: another signature.
  CHECK(s != add(view(a, 0, {10, 10}, {1, 10}), view(a, 11, {9, 9}, {10, 1}),
                 Scalar::of_float(1.0, DType::FLOAT64)));
  CHECK(s != add(view(c, 0, {10, 10}, {10, 1}), view(c, 11, {9, 9}, {10, 1}),
                 Scalar::of_float(1.0, DType::FLOAT32)));
  CHECK(s !=
        add(view(a, 0, {100}, {1}), view(a, 0, {100}, {1}), Scalar::of_float(1.0, DType::FLOAT64)));
  CHECK(s != add(view(a, 0, {10, 10}, {10, 1}), view(a, 11, {9, 9}, {10, 1}), Scalar::of_int(1)));
  CHECK(s != FlushPolicy::signature(Instruction(
                 Opcode::SUBTRACT, {view(a, 0, {10, 10}, {10, 1}), view(a, 11, {9, 9}, {10, 1}),
                                    Scalar::of_float(1.0, DType::FLOAT64)})));
}

TEST_CASE("a row loop around an inner loop is cut at the row's phase, a row per program",
          "[flush_policy]") {
  // for i: C[i] *= beta (signature 1); for k in 500: t = s * A[:, k]; C[i] += t; free t.
  auto row = [](Feeder& f, size_t inner) {
    f.record(1);
    for (size_t k = 0; k < inner; ++k) {
      f.record(2);
      f.record(3);
      f.record(4);
    }
  };
  Feeder f(1000);
  for (int i = 0; i < 40; ++i) row(f, 500); // 1501 per row: past the threshold, within the limit
  REQUIRE(f.programs.size() > 30);
  CHECK(f.policy.stats().lengthened >= 1);
  // After the first row or two, every program is one whole row, all alike.
  size_t first_whole = 0;
  while (first_whole < f.programs.size() && f.programs[first_whole].size() != 1501) ++first_whole;
  REQUIRE(first_whole <= 3);
  for (size_t c = first_whole; c < f.programs.size(); ++c) {
    CHECK(f.programs[c] == f.programs[first_whole]);
    CHECK(f.kinds[c] == FlushPolicy::Cut::ALIGNED);
  }
  CHECK(f.policy.stats().forced <= 1); // while the row's phase takes over from the inner loop's

  // Rows whose inner loop grows (a triangular sweep): once rows are longer than the threshold,
  // every cut falls at one phase of a row's start, a row per program.
  Feeder g(1000);
  for (size_t i = 0; i < 600; ++i) row(g, i);
  std::vector<size_t> row_start; // stream position of each row's first record
  for (size_t i = 0, position = 0; i < 600; position += 1 + 3 * i, ++i)
    row_start.push_back(position);
  std::vector<size_t> phases;
  for (size_t c = 0; c < g.cut_at.size(); ++c) {
    if (g.cut_at[c] < row_start[400]) continue; // rows past 333 are longer than the threshold
    auto next = std::upper_bound(row_start.begin(), row_start.end(), g.cut_at[c]);
    phases.push_back(g.cut_at[c] - *(next - 1));
    CHECK(g.kinds[c] == FlushPolicy::Cut::ALIGNED);
  }
  REQUIRE(phases.size() >= 190);
  CHECK(std::count(phases.begin(), phases.end(), phases.front()) == long(phases.size()));
  CHECK(phases.front() < FlushPolicy::kWindow);
}
