// Heat equation: Jacobi iteration of the 5-point stencil on a plate heated on one edge, with a
// convergence check (the sum of |change| of an iteration, as in Bohrium's heat equation);
// hassium::array vs plain loops.
//
// --size H*W*I: interior rows, columns, most iterations; --check-every K: the change is measured
// every K-th iteration (default 10; 1 = every iteration), and the run stops when it falls below
// 1e-9. Both versions print the iterations run, the last change measured and a checksum.
// (The plain loop adds the changes in order; hassium's reduction may add them in another
// order, as NumPy's pairwise sum does, so the change agrees to rounding.)
//
// Why K: in hassium a check reads data, so each one ends a flush (the only sync of the loop).
// The change's array |new - old| is a reduction input fused into the stencil's kernel and
// contracted (the node VEM keeps it in registers, as the plain loop does), so checking every
// iteration costs hassium little more than not checking.
#include <cmath>
#include <numbers>
#include <utility>

#include <hassium/hassium.h>

#include "bench.h"

namespace {
constexpr double kEpsilon = 1e-9;

struct Result {
  long iterations = 0;
  double delta = 0;
  double checksum = 0;
};

// The initial grid: zeros, the top edge 100 sin(pi j / (W + 1)).
std::vector<double> initial_grid(long rows, long cols) {
  std::vector<double> g(size_t((rows + 2) * (cols + 2)), 0.0);
  for (long j = 0; j < cols + 2; ++j)
    g[size_t(j)] = 100.0 * std::sin(std::numbers::pi / double(cols + 1) * double(j));
  return g;
}

Result plain(long rows, long cols, long max_iterations, long check_every) {
  const long w = cols + 2;
  std::vector<double> a = initial_grid(rows, cols), b = a;
  Result r;
  for (long it = 0; it < max_iterations; ++it) {
    const bool check = (it + 1) % check_every == 0;
    double delta = 0;
    for (long i = 1; i <= rows; ++i)
      for (long j = 1; j <= cols; ++j) {
        const long c = i * w + j;
        double v = 0.2 * (a[size_t(c)] + a[size_t(c - w)] + a[size_t(c + w)] + a[size_t(c - 1)] +
                          a[size_t(c + 1)]);
        if (check) delta += std::abs(v - a[size_t(c)]);
        b[size_t(c)] = v;
      }
    std::swap(a, b);
    r.iterations = it + 1;
    if (!check) continue;
    r.delta = delta;
    if (delta < kEpsilon) break;
  }
  for (double x : a) r.checksum += x;
  return r;
}

Result with_hassium(long rows, long cols, long max_iterations, long check_every) {
  using hassium::_;
  using hassium::slice;
  hassium::array<double> grid({rows + 2, cols + 2}, initial_grid(rows, cols));
  hassium::array<double> next = grid.copy();
  const slice in(1, -1), lo(_, -2), hi(2, _);
  Result r;
  for (long it = 0; it < max_iterations; ++it) {
    next(in, in) = 0.2 * (grid(in, in) + grid(lo, in) + grid(hi, in) + grid(in, lo) + grid(in, hi));
    const bool check = (it + 1) % check_every == 0;
    hassium::array<double> change;
    if (check) change = hassium::sum(hassium::abs(next(in, in) - grid(in, in)));
    std::swap(grid, next);
    r.iterations = it + 1;
    if (!check) continue;
    r.delta = change.item(); // reading the change runs the iterations recorded so far
    if (r.delta < kEpsilon) break;
  }
  r.checksum = hassium::sum(grid).item();
  return r;
}

void print(const char* who, const Result& r) {
  std::printf("%-8s iterations %ld, last change %.10e, checksum %.10f\n", who, r.iterations,
              r.delta, r.checksum);
}
} // namespace

int main(int argc, char** argv) {
  std::vector<long> size = bench::parse_size(argc, argv, "H*W*I", "2000*2000*100");
  const long rows = size[0], cols = size[1], iterations = size[2];
  const long check_every = bench::option(argc, argv, "--check-every", 10);
  with_hassium(rows, cols, 2, 1); // warm-up: compiles (or loads) the kernels
  Result p, h;
  bench::Times t = bench::best_times(
      argc, argv, [&] { p = plain(rows, cols, iterations, check_every); },
      [&] { h = with_hassium(rows, cols, iterations, check_every); });
  std::printf("convergence check every %ld iterations\n", check_every);
  print("plain", p);
  print("hassium", h);
  bench::report("heat_equation", t);
  return p.iterations == h.iterations &&
                 std::abs(p.checksum - h.checksum) <= 1e-9 * std::abs(p.checksum)
             ? 0
             : 1;
}
