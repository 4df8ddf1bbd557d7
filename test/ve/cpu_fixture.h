// Test helpers for the CPU engine: programs built in C++ with memory the test owns, blocks run
// directly on an engine, values read back typed.
#pragma once

#include <complex>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/program.h"
#include "ve/cpu/cpu_engine.h"

namespace hassium::test {

// A base with zeroed memory it owns (through external_owner).
inline BasePtr make_data_base(const std::string& name, DType t, int64_t n) {
  BasePtr b = make_base(name, t, n);
  size_t bytes = size_t(std::max<int64_t>(n, 1) * dtype_size(t));
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  std::memset(p, 0, bytes);
  b->data = p;
  b->external_owner = std::shared_ptr<void>(p, std::free);
  return b;
}

// A base without memory: contracted inside a block.
inline BasePtr make_temp_base(const std::string& name, DType t, int64_t n) {
  return make_base(name, t, n);
}

template <typename T> T* data_of(const BasePtr& b) {
  return static_cast<T*>(b->data);
}

inline View view(const BasePtr& b, int64_t offset, Dims shape, Dims stride) {
  View v;
  v.base = b;
  v.offset = offset;
  v.shape = std::move(shape);
  v.stride = std::move(stride);
  return v;
}

inline Scalar axis_const(int64_t axis) {
  return Scalar::of_int(axis, DType::INT64);
}

// The default engine of the tests: two threads, memory cache, no interpreter.
inline std::unique_ptr<Engine> test_engine(int threads = 2) {
  CpuOptions o;
  o.threads = threads;
  // The blocks' own kernels (what these tests count and inspect); test_interpreter.cpp checks
  // the interpreter against them.
  o.interpreter = cpu::InterpreterMode::NONE;
  return make_cpu_engine(o);
}

// Runs instructions [first, last) of the program as one block with the given contracted bases.
inline void run_block(Engine& engine, const Program& prog, std::vector<size_t> instrs,
                      std::vector<const Base*> contracted = {}) {
  KernelBlock block;
  block.program = &prog;
  block.instrs = std::move(instrs);
  block.contracted = std::move(contracted);
  engine.execute(block);
}

// Runs every instruction of the program as one block, contracting `contracted`.
inline void run_all(Engine& engine, const Program& prog, std::vector<const Base*> contracted = {}) {
  std::vector<size_t> all(prog.instrs.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  run_block(engine, prog, all, std::move(contracted));
}

// Runs each instruction as its own block (the reference for fused results).
inline void run_singletons(Engine& engine, const Program& prog) {
  for (size_t i = 0; i < prog.instrs.size(); ++i) run_block(engine, prog, {i});
}

} // namespace hassium::test

namespace hassium::test {

// Element at row-major position `pos` of a view.
template <typename T> T& element(const View& v, int64_t pos) {
  return static_cast<T*>(v.base->data)[v.index_of_flat(pos)];
}

// Sets every element of a view to f(row-major position).
template <typename T, typename F> void fill(const View& v, F f) {
  for (int64_t i = 0; i < v.size(); ++i) element<T>(v, i) = T(f(i));
}

// The row-major multi-index of a position in a shape.
inline Dims unflatten(const Dims& shape, int64_t pos) {
  Dims idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = pos % shape[k];
    pos /= shape[k];
  }
  return idx;
}

// The row-major position of a multi-index with dimension `skip` removed (a reduction's output).
inline int64_t flatten_without(const Dims& shape, const Dims& idx, int skip) {
  int64_t pos = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (int(k) == skip) continue;
    pos = pos * shape[k] + idx[k];
  }
  return pos;
}

inline Dims without(const Dims& shape, int axis) {
  Dims d = shape;
  d.erase(d.begin() + axis);
  return d;
}

} // namespace hassium::test

// Checks one element of a large result: Catch only sees (and reports, with `what`) a failure,
// so loops over millions of elements stay fast.
#define HS_REQUIRE_ELEMENT(cond, what)                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      INFO(what);                                                                                  \
      REQUIRE((cond));                                                                             \
    }                                                                                              \
  } while (false)
