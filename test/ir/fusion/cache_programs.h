// Programs of one structure (one merge-cache key) in several layouts: a loop body over fresh
// temporaries, moved views, a Gauss elimination step's shrinking views, a read whose overlap
// decides legality. For the tests of the caches keyed by structure (ir/fusion/merge_cache.h,
// vem/node/flush_plan_cache.h).
#pragma once

#include <string>

#include "fusion_programs.h"

namespace hassium::test {

// A loop body as a frontend would record it: fresh temporaries, the same shapes.
inline Program iteration(const std::string& prefix, double constant, int64_t offset = 0) {
  ProgramBuilder b;
  auto X = b.base(prefix + "X", 8), T = b.base(prefix + "T", 4), Y = b.base(prefix + "Y", 4);
  using P = ProgramBuilder;
  b.op(Opcode::MULTIPLY, {P::whole(T), P::view(X, offset, 4), P::f64(constant)});
  b.op(Opcode::ADD, {P::whole(Y), P::whole(T), P::view(X, 4, 4)});
  b.free(T);
  b.sync(Y);
  return std::move(b.p);
}

// The same program with `n` more SYNCs of its last base: another structure, another key.
inline Program with_syncs(Program p, int n) {
  for (int i = 0; i < n; ++i) p.instrs.push_back(p.instrs.back());
  return p;
}

// One step of Gauss elimination on an n x n matrix M at pivot k, as the Python frontend
// records `M[k+1:, k:] -= (M[k+1:, k] / M[k, k])[:, None] * M[k:k+1, k:]`.
inline Program gauss_step(const std::string& prefix, int64_t n, int64_t k) {
  static double storage[16 * 16];
  ProgramBuilder b;
  const int64_t r = n - k - 1, c = n - k;
  auto M = b.base(prefix + "M", n * n), F = b.base(prefix + "F", r),
       T = b.base(prefix + "T", r * c);
  M->data = storage;
  const int64_t below = (k + 1) * n + k, pivot = k * n + k;
  b.op(Opcode::DIVIDE, {ProgramBuilder::whole(F), ProgramBuilder::view(M, below, {r}, {n}),
                        ProgramBuilder::view(M, pivot, {r}, {0})});
  b.op(Opcode::MULTIPLY,
       {ProgramBuilder::view(T, 0, {r, c}, {c, 1}), ProgramBuilder::view(F, 0, {r, c}, {1, 0}),
        ProgramBuilder::view(M, pivot, {r, c}, {0, 1})});
  b.op(Opcode::SUBTRACT, {ProgramBuilder::view(M, below, {r, c}, {n, 1}),
                          ProgramBuilder::view(M, below, {r, c}, {n, 1}),
                          ProgramBuilder::view(T, 0, {r, c}, {c, 1})});
  b.free(T);
  b.free(F);
  b.sync(M);
  return std::move(b.p);
}

// B[0:4] = A * 2; C = B[s:s+4] + A: with s = 4 the two are fusible, with s = 2 not (B[2:6]
// overlaps B[0:4] without being identical to it). Same structure, same key.
inline Program shifted_read(int64_t s) {
  static double a[4], bdata[8];
  ProgramBuilder b;
  using P = ProgramBuilder;
  auto A = b.base("A", 4), B = b.base("B", 8), C = b.base("C", 4);
  A->data = a;
  B->data = bdata;
  b.op(Opcode::MULTIPLY, {P::view(B, 0, 4), P::whole(A), P::f64(2)});
  b.op(Opcode::ADD, {P::whole(C), P::view(B, s, 4), P::whole(A)});
  b.sync(B);
  b.sync(C);
  return std::move(b.p);
}

} // namespace hassium::test
