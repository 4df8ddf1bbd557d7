// Paired matrix-vector products: two float64 MATMULs of one vector each with the same matrix
// (x1 = A y1 and x2 = y2 A, as in NPBench's mvt and bicg, or A u beside A v) computed in one
// pass over the matrix instead of two BLAS gemv calls that each stream it from memory.
//
// The CPU engine pairs two MATMUL blocks of a flush when both are such products of an identical
// matrix view and no block from the first up to the second writes the second's inputs (its
// matrix or its vector): then the second product may be computed when the first runs. The
// first block runs the pass and writes its own output; the second block's result waits in the
// engine's plan until that block runs and writes it (so its output's earlier readers still see
// the old values). A matrix whose rows are not contiguous, or views that do not pair when the
// block runs, take BLAS as before.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/instruction.h"

namespace hassium::cpu {

// One matrix-vector product of a MATMUL instruction, as the paired pass sees it.
struct Matvec {
  enum class Kind : uint8_t {
    ROW_DOTS,    // out (m, 1) = M (m, k) x v (k, 1): one dot product per row of M
    COLUMN_SUMS, // out (1, n) = u (1, m) x M (m, n): the rows of M summed, weighted by u
  };
  Kind kind = Kind::ROW_DOTS;
  const View* matrix = nullptr; // M
  const View* vector = nullptr; // v or u
  const View* out = nullptr;
};

// The product the instruction computes, when it is a float64 MATMUL of a matrix (more than one
// row and column) with a vector.
std::optional<Matvec> matvec_of(const Instruction& in);

// Whether the two products can run as one pass: identical matrix views (base, offset, shape,
// strides) whose rows are contiguous (unit column stride), every input in memory already, and
// neither output sharing memory with an input of either product.
bool pairable(const Matvec& first, const Matvec& second);

// Runs both products in one pass over the matrix on up to `threads` threads: writes the first's
// output, and leaves the second's result (its m or n elements, in order) in `second_result`.
// Each product's sums run in one order for a given thread count: its dot products along the
// row in blocks of four lanes, its column sums per contiguous run of rows, then over the runs in
// order (the same bits as BLAS only where BLAS happens to sum so).
void run_paired(const Matvec& first, const Matvec& second, int threads,
                std::vector<double>& second_result);

// Writes a product's result (as run_paired() left it) into its output view.
void write_result(const Matvec& product, const std::vector<double>& result);

} // namespace hassium::cpu
