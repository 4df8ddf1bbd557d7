// The type-erased layer under hassium::array<T>: a view of a base, and the library calls that
// record bytecode for it (implemented in bridge/cxx/*.cpp, compiled into libhassium).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/opcode.h"
#include "core/scalar.h"
#include "hassium/index.h"

namespace hassium {

using shape_type = std::vector<int64_t>;

namespace detail {

// Owns one runtime Base; records FREE when the last node referring to it dies (if the base was
// ever named by a recorded instruction). Defined in bridge/cxx/session.h.
class base_ref;

// A view (base, offset, shape, stride in elements): core/view.h's View, in types the public
// headers may use (no Boost). Its arithmetic is bridge/common's (session.h: to_view, with_view).
struct node {
  std::shared_ptr<base_ref> base;
  DType dtype = DType::FLOAT64;
  int64_t offset = 0;
  shape_type shape;
  shape_type stride;

  int64_t size() const;
  int ndim() const { return int(shape.size()); }
};

// An input of an element-wise operation: a view or a constant (converted to the compute
// dtype; `weak` integer constants must fit it, as NumPy requires of Python ints).
struct operand {
  operand(const node& n) : value(&n) {}
  operand(const Scalar& s) : value(s) {}
  std::variant<const node*, Scalar> value;
};

// --- creation ---------------------------------------------------------------------------------
// A fresh contiguous array (no instruction; it reads as zeros until written).
node make(DType t, const shape_type& shape);
// A fresh contiguous array holding a copy of `count` elements at `data` (row-major).
node from_memory(DType t, const shape_type& shape, const void* data, int64_t count);
node full(DType t, const shape_type& shape, const Scalar& value);
node arange(DType t, const Scalar& start, const Scalar& stop, const Scalar& step);
node linspace(DType t, double start, double stop, int64_t num, bool endpoint);
// Uniform [0, 1) floats of dtype t from Philox bits (seed, counter).
node random_uniform(DType t, const shape_type& shape, uint64_t seed, uint64_t counter);
// Integers uniform in [low, high) of dtype t.
node random_integers(DType t, const shape_type& shape, int64_t low, int64_t high, uint64_t seed,
                     uint64_t counter);
// The process-wide stream of the seedless random calls: returns (seed, counter) and advances.
std::pair<uint64_t, uint64_t> next_random_stream(int64_t count);
void set_random_seed(uint64_t seed);

// --- element-wise -----------------------------------------------------------------------------
// op over the inputs broadcast together, computing in `compute`; a new array of the op's
// result dtype.
node elementwise(Opcode op, DType compute, std::span<const operand> inputs);
// The same, written into `out` (inputs broadcast to out's shape, the result cast to out's
// dtype). An input that overlaps `out` without being identical to it is copied first.
void elementwise_into(const node& out, Opcode op, DType compute, std::span<const operand> inputs);
// out = value (cast, broadcast). A source overlapping `out` is copied first.
void assign(const node& out, const operand& value);
node cast(const node& in, DType t);
node copy(const node& in);
// where(cond, a, b) computing in `compute` (see where.cpp).
node where(const operand& cond, const operand& a, const operand& b, DType compute);

// --- reductions and scans ---------------------------------------------------------------------
// op is a *_REDUCE opcode; the input is first cast to `compute`. axis nullopt: every axis
// (a 0-d result). Negative axes count from the end.
node reduce(Opcode op, const node& in, std::optional<int> axis, DType compute);
node any_all(bool all, const node& in, std::optional<int> axis);
node mean(const node& in, std::optional<int> axis, DType compute);
// op is ADD_ACCUMULATE or MULTIPLY_ACCUMULATE; nullopt: over the flattened array.
node accumulate(Opcode op, const node& in, std::optional<int> axis, DType compute);

// --- views ------------------------------------------------------------------------------------
node view(const node& in, std::span<const index> indices);
node transpose(const node& in);
node transpose(const node& in, std::span<const int> axes);
node reshape(const node& in, const shape_type& shape); // a view when contiguous, else a copy
node broadcast_to(const node& in, const shape_type& shape);
shape_type broadcast_shapes(const shape_type& a, const shape_type& b);
bool is_contiguous(const node& in);

// --- data -------------------------------------------------------------------------------------
// Runs what is pending for the base and returns its memory (element 0 of the base). For a
// write, everything pending runs first (a pending instruction may read the base).
void* sync(const node& in, bool for_write = false);
// The base element index of the element at `idx` (one index per axis, negative from the end).
int64_t element_index(const node& in, std::span<const int64_t> idx);
void flush();
// Instructions waiting in the runtime.
size_t pending();

// --- start-up ---------------------------------------------------------------------------------
// Under `mpirun -np P` with the cluster VEM, ranks > 0 serve rank 0's flushes and end there
// (vem/stack.h serve_cluster_ranks); elsewhere it returns 0 at once. A program that includes
// this header calls it during its static initialization, which comes after that of every
// library it links (libhassium's, LLVM's inside it), so those ranks never run main. Not inside
// a Python process: there `import hassium` serves.
int serve_cluster_ranks() noexcept;
#ifndef HASSIUM_BUILDING_LIBRARY
inline const int cluster_ranks_served = serve_cluster_ranks();
#endif

} // namespace detail
} // namespace hassium
