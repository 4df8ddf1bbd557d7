// The bytecode filters: every pass declared once, with its contract (filters/NAME.cpp each).
//
// A filter is a Program -> Program rewrite that the Runtime applies at every flush, in the
// order of the [stack] filters key, before the VEM fuses and runs the program. Every filter
// keeps the program's meaning: the same values in every SYNC'd base and in every base that is
// not FREEd within the program (the frontend may read those later), the same FREEs. Its
// output passes verify_program (ir/text/verifier.h) when its input does. Bases a filter creates are
// temporaries named `_<filter><n>` (unique in the program), written and FREEd in the program,
// so that fusion can contract them.
//
// The registry (filters/registry.cpp) is the one list of names; linking hassium_filters
// registers them all with the core filter registry (core/filter_registry.h) at start-up.
#pragma once

#include <cstdint>
#include <string>

#include "core/config.h"
#include "core/program.h"

namespace hassium {

// expand_power: POWER by a small constant exponent -> multiplications (filters/expand_power.cpp).
// Only where the result is bit-identical to NumPy's np.power: integers by 0..max_int_exponent
// (wrap-around multiplication is exact in any order), floats by 2, 1, 0, -1 and 0.5 (x*x, copy,
// 1, 1/x, sqrt: each one correctly rounded operation, as NumPy 2.x computes them), complex by
// 1. Also x / c for a float constant c = +-2**k whose reciprocal is a normal number: x * (1/c),
// the same correctly rounded value.
struct ExpandPowerOptions {
  int64_t max_int_exponent = 16;
};
Program expand_power(Program p, const ExpandPowerOptions& options = {});

// split_reduction: a reduction over one long axis with a small output -> two reductions over a
// (rows, cols) reshape of that axis (filters/split_reduction.cpp).
struct SplitReductionOptions {
  int64_t min_length = int64_t(1) << 20; // the reduced axis has at least this many elements
  int64_t max_output = 16;               // and the output at most this many
  bool reassociate_floats = true;        // float/complex ADD and MULTIPLY may be reassociated
  bool keep_fusion = true;               // skip inputs written earlier in the program
  static SplitReductionOptions from_config(const Config& config);
};
Program split_reduction(Program p, const SplitReductionOptions& options = {});

// remove_identity: a copy IDENTITY B, A that only renames a temporary is dropped and the
// temporary's uses renamed; a temporary made by one element-wise instruction and copied into a
// view is written there directly (`x[1:-1] = expr`); no-op copies go
// (filters/remove_identity.cpp).
Program remove_identity(Program p);

// forward_copies: a temporary copy of a view that is only read, or updated in place and stored
// back (`A[i, j] -= x` on an element), is replaced by the view itself; a reduction's or
// MATMUL's temporary result copied into a view (`R[k, j] = np.dot(q, a)`) is written there
// directly (filters/forward_copies.cpp).
Program forward_copies(Program p);

// fold_constants: element-wise operations whose inputs are all constants (literally, or views
// of a base filled with one constant) become an IDENTITY fill of the computed value
// (filters/fold_constants.cpp).
Program fold_constants(Program p);

// remove_dead: instructions whose output base is FREEd in the program with no read or SYNC of
// it in between are removed (filters/remove_dead.cpp).
Program remove_dead(Program p);

// trace: appends the program's text to a file, `# flush N` before each (filters/trace.cpp).
// The program is returned unchanged.
struct TraceOptions {
  std::string file = "hassium-trace.hsb"; // `%p` is replaced by the process id
  static TraceOptions from_config(const Config& config);
};
Program trace(Program p, const TraceOptions& options);
// Forgets what the trace wrote so far (flush count, declared names): the next trace() call
// starts the file anew. Tests use it; a process starts fresh anyway.
void reset_trace();

// The registered name of every filter above, in the order of the one list.
std::vector<std::string> builtin_filter_names();
// Adds them to the core registry, filter_registry() (done at start-up; idempotent).
void register_builtin_filters();

} // namespace hassium
