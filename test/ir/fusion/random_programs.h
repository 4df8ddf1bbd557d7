// Random programs for the fusion property tests: shifted (and strided) 1-D views, FREEs, SYNCs.
#pragma once

#include <random>

#include "fusion_programs.h"
#include "test/sanitizer_share.h"

namespace hassium::test {

struct RandomProgramOptions {
  int max_instrs = 10;
  bool reductions = true; // sometimes ADD_REDUCE a view into a 0-d view
  bool strided = false;   // views of stride 1..3 (bases of 12..16 elements): interleaved views
  bool aligned = false; // every view starts at its base's first element (contractible temporaries)
};

// A random program that the verifier accepts: views inside their bases, inputs that overlap
// the output are identical to it, no use after FREE. Bases have 6..8 float64 elements; most
// programs loop over one length, some mix two (different loop shapes). Some bases start
// with data (so they are not created by the program).
inline Program random_program(std::mt19937& rng, const RandomProgramOptions& o = {}) {
  static double dummy[16];
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ProgramBuilder b;
  std::vector<BasePtr> live;
  int nbases = pick(2, 4);
  for (int i = 0; i < nbases; ++i) {
    auto base = b.base(std::string(1, char('A' + i)), o.strided ? pick(12, 16) : pick(6, 8));
    if (pick(0, 4) == 0) base->data = dummy;
    live.push_back(base);
  }
  const bool mixed = pick(0, 3) == 0;
  auto length = [&] { return mixed ? pick(3, 4) : 4; };
  auto random_view = [&](const BasePtr& base, int64_t len) {
    const int64_t stride = o.strided ? pick(1, 3) : 1;
    // Half the views start at the base's first element, so that identical views (the ones a
    // base can be contracted through) recur.
    const int last = int(base->nelem - 1 - (len - 1) * stride);
    return ProgramBuilder::view(base, o.aligned || pick(0, 1) ? 0 : pick(0, last), len, stride);
  };
  const int n = pick(1, o.max_instrs);
  for (int i = 0; i < n; ++i) {
    int kind = pick(0, 19);
    if (kind >= 18 && live.size() >= 2) { // FREE
      size_t k = size_t(pick(0, int(live.size()) - 1));
      b.free(live[k]);
      live.erase(live.begin() + long(k));
      continue;
    }
    if (kind >= 16) { // SYNC
      b.sync(live[size_t(pick(0, int(live.size()) - 1))]);
      continue;
    }
    const BasePtr& ob = live[size_t(pick(0, int(live.size()) - 1))];
    if (kind == 15 && o.reductions) { // ADD_REDUCE of a 1-D view into a 0-d view
      View out;
      out.base = ob;
      out.offset = pick(0, int(ob->nelem - 1));
      View in = random_view(live[size_t(pick(0, int(live.size()) - 1))], length());
      if (overlaps(in, out)) continue;
      b.op(Opcode::ADD_REDUCE, {out, in, Scalar::of_int(0)});
      continue;
    }
    const int64_t len = length();
    View out = random_view(ob, len);
    auto input = [&]() -> Operand {
      if (pick(0, 5) == 0) return ProgramBuilder::f64(pick(0, 9));
      View in = random_view(live[size_t(pick(0, int(live.size()) - 1))], len);
      if (overlaps(in, out) && !in.identical(out)) return out; // data parallel
      return in;
    };
    if (kind >= 12)
      b.op(Opcode::IDENTITY, {out, input()});
    else
      b.op(kind % 2 ? Opcode::ADD : Opcode::MULTIPLY, {out, input(), input()});
  }
  return std::move(b.p);
}

} // namespace hassium::test
