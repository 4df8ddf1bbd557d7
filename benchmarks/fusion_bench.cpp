// Fusion benchmark: partition time, cost and merge-cache hit time of every algorithm on
// programs of 100, 1000 and 5000 instructions, plus the paper's Fig. 3 program.
//
// The programs are prefixes of real traces (benchmarks/traces: the C++ benchmarks of
// benchmarks/cxx recorded by the `trace` filter, every flush of a run one after the other) and
// of a synthetic trace shaped like the NumPy benchmarks' loops: a 5-point stencil on a 2-D grid
// with fresh temporaries, element-wise chains with temporaries, a reduction and a SYNC; and of
// a NumPy-loop trace (element-wise updates of long-lived arrays with temporaries freed at once
// and a running sum, as a Python loop under a large flush threshold makes). Every partition is
// checked for legality. Scaling of greedy: --only=greedy --sizes=1000,4000,16000,40000. Other
// traces can be given as arguments:
//   fusion_bench [--quick] [--only=ALGORITHM] [--sizes=100,1000] [TRACE.hsb ...]
// Times are medians of repeated runs, in CPU time of the thread (the machines are shared;
// everything measured is single-threaded).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/text/parser.h"
#include "ir/text/verifier.h"

using namespace hassium;

namespace {

View view2d(const BasePtr& b, int64_t n, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  View v;
  v.base = b;
  v.offset = r0 * n + c0;
  v.shape = {rows, cols};
  v.stride = {n, 1};
  return v;
}

class TraceBuilder {
public:
  Program p;

  BasePtr base(int64_t nelem) {
    auto b = make_base("t" + std::to_string(next_++), DType::FLOAT64, nelem);
    p.bases.push_back(b);
    return b;
  }
  void op(Opcode op, std::vector<Operand> operands) {
    p.instrs.emplace_back(op, std::move(operands));
  }
  void free(const BasePtr& b) { op(Opcode::FREE, {View::whole(b)}); }

  // One Jacobi step: G[1:-1,1:-1] = (up + down + left + right) / 4, delta = sum |new - old|.
  void stencil(const BasePtr& g, const BasePtr& delta, int64_t n) {
    const int64_t m = n - 2;
    auto t1 = base(m * m), t2 = base(m * m), t3 = base(m * m), t4 = base(m * m), t5 = base(m * m);
    auto whole = [&](const BasePtr& b) { return View::contiguous(b, {m, m}); };
    op(Opcode::ADD, {whole(t1), view2d(g, n, 0, 1, m, m), view2d(g, n, 2, 1, m, m)});
    op(Opcode::ADD, {whole(t2), view2d(g, n, 1, 0, m, m), view2d(g, n, 1, 2, m, m)});
    op(Opcode::ADD, {whole(t3), whole(t1), whole(t2)});
    op(Opcode::MULTIPLY, {whole(t4), whole(t3), Scalar::of_float(0.25)});
    op(Opcode::SUBTRACT, {whole(t5), whole(t4), view2d(g, n, 1, 1, m, m)});
    op(Opcode::ABSOLUTE, {whole(t5), whole(t5)});
    auto rows = base(m);
    op(Opcode::ADD_REDUCE, {View::contiguous(rows, {m}), whole(t5), Scalar::of_int(1)});
    op(Opcode::ADD_REDUCE,
       {View::contiguous(delta, {}), View::contiguous(rows, {m}), Scalar::of_int(0)});
    op(Opcode::IDENTITY, {view2d(g, n, 1, 1, m, m), whole(t4)});
    for (auto& t : {t1, t2, t3, t4, t5, rows}) free(t);
  }

  // d1 = (log(S/X) + (r + v*v/2)*T) / (v*sqrt(T)); d2 = d1 - v*sqrt(T); out = S*d1 - X*d2.
  void chain(const BasePtr& s, const BasePtr& out, int64_t n) {
    auto a = base(n), b = base(n), c = base(n), d = base(n);
    auto w = [&](const BasePtr& x) { return View::whole(x); };
    op(Opcode::DIVIDE, {w(a), w(s), Scalar::of_float(1.5)});
    op(Opcode::LOG, {w(a), w(a)});
    op(Opcode::ADD, {w(b), w(a), Scalar::of_float(0.07)});
    op(Opcode::MULTIPLY, {w(b), w(b), Scalar::of_float(2.0)});
    op(Opcode::SQRT, {w(c), w(s)});
    op(Opcode::DIVIDE, {w(d), w(b), w(c)});
    op(Opcode::SUBTRACT, {w(a), w(d), w(c)});
    op(Opcode::MULTIPLY, {w(b), w(s), w(d)});
    op(Opcode::MULTIPLY, {w(c), w(a), Scalar::of_float(1.5)});
    op(Opcode::SUBTRACT, {w(out), w(b), w(c)});
    for (auto& t : {a, b, c, d}) free(t);
  }

  // A NumPy loop body on long-lived x, y, z and a running total, with fresh temporaries freed
  // at once: t1 = x*y; t2 = t1+z; t3 = sqrt(t2); x += t3; acc += x.sum().
  void numpy_step(const BasePtr& x, const BasePtr& y, const BasePtr& z, const BasePtr& acc,
                  int64_t n) {
    auto t1 = base(n), t2 = base(n), t3 = base(n), r = base(1);
    auto w = [&](const BasePtr& b) { return View::whole(b); };
    op(Opcode::MULTIPLY, {w(t1), w(x), w(y)});
    op(Opcode::ADD, {w(t2), w(t1), w(z)});
    free(t1);
    op(Opcode::SQRT, {w(t3), w(t2)});
    free(t2);
    op(Opcode::ADD, {w(x), w(x), w(t3)});
    free(t3);
    op(Opcode::ADD_REDUCE, {View::contiguous(r, {}), w(x), Scalar::of_int(0)});
    op(Opcode::ADD,
       {View::contiguous(acc, {}), View::contiguous(acc, {}), View::contiguous(r, {})});
    free(r);
  }

private:
  int next_ = 0;
};

// A synthetic trace of about `size` instructions (cut to exactly `size`).
Program synthetic(size_t size) {
  TraceBuilder tb;
  const int64_t n = 66, len = 4096;
  auto grid = tb.base(n * n), delta = tb.base(1), s = tb.base(len), out = tb.base(len);
  tb.op(Opcode::IDENTITY, {View::whole(grid), Scalar::of_float(1.0)});
  tb.op(Opcode::RANGE, {View::whole(s)});
  for (int k = 0; tb.p.instrs.size() < size; ++k) {
    if (k % 3 == 2) {
      tb.chain(s, out, len);
      tb.op(Opcode::SYNC, {View::whole(out)});
    } else {
      tb.stencil(grid, delta, n);
    }
  }
  tb.p.instrs.resize(size); // a prefix is a valid program
  return std::move(tb.p);
}

// A trace of `size` instructions shaped like a Python loop of element-wise operations flushed
// rarely (a large flush threshold): numpy_step over and over, a SYNC of the total every 100.
Program numpy_loop(size_t size) {
  TraceBuilder tb;
  const int64_t n = 1000000;
  auto x = tb.base(n), y = tb.base(n), z = tb.base(n), acc = tb.base(1);
  for (const auto& b : {x, y, z, acc})
    tb.op(Opcode::IDENTITY, {View::whole(b), Scalar::of_float(1.0)});
  for (int k = 1; tb.p.instrs.size() < size; ++k) {
    tb.numpy_step(x, y, z, acc, n);
    if (k % 100 == 0) tb.op(Opcode::SYNC, {View::whole(acc)});
  }
  tb.p.instrs.resize(size);
  return std::move(tb.p);
}

// This thread's CPU time: the machine is shared, and the code under test is single-threaded.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The first n instructions of a program (a prefix of a valid program is valid).
Program prefix(const Program& p, size_t n) {
  Program q;
  q.bases = p.bases;
  q.instrs.assign(p.instrs.begin(), p.instrs.begin() + long(std::min(n, p.size())));
  return q;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of f, repeated until ~min_total seconds (at least 3, at most max_reps runs).
double time_it(const std::function<void()>& f, double min_total, int max_reps) {
  std::vector<double> runs;
  double total = 0;
  while (runs.size() < 3 || (total < min_total && int(runs.size()) < max_reps)) {
    double s = cpu_seconds();
    f();
    s = cpu_seconds() - s;
    runs.push_back(s);
    total += s;
    if (s > 2.0) break; // slow: one run says enough
  }
  return median(runs);
}

std::string g_only; // --only: one algorithm

void bench(const std::string& name, const Program& p, double min_total) {
  verify_program(p);
  std::printf("\n%s: %zu instructions\n", name.c_str(), p.size());
  std::printf("  %-12s %12s %14s %8s %9s %14s\n", "algorithm", "time", "cost (bytes)", "blocks",
              "proven", "cache hit");
  // Every partition is checked for legality (Def. 5) against this graph.
  AccessTable table_for_check = build_access_table(p);
  auto model_for_check = make_cost_model("bohrium", table_for_check);
  WspGraph graph(table_for_check, *model_for_check);
  {
    double table = time_it([&] { build_access_table(p); }, min_total / 4, 1000);
    AccessTable t = build_access_table(p);
    auto model = make_cost_model("bohrium", t);
    double graph = time_it([&] { WspGraph g(t, *model); }, min_total / 4, 1000);
    WspGraph g(t, *model);
    FusionContext ctx(p, "bohrium");
    ctx.graph();
    double greedy = time_it([&] { greedy_partition(ctx); }, min_total / 4, 1000);
    std::printf("  phases: access table %.3f ms, WSP graph %.3f ms (%zu dependency, %zu weight "
                "edges), greedy on a built graph %.3f ms\n",
                table * 1e3, graph * 1e3, g.num_dependencies(), g.weight_edges().size(),
                greedy * 1e3);
  }
  for (const auto& alg : algorithm_registry().names()) {
    if (!g_only.empty() && alg != g_only) continue;
    FuserOptions o;
    o.algorithm = alg;
    Partition part;
    double t = time_it([&] { part = fuse(p, o); }, min_total, 1000);
    std::string illegal = check_partition(graph.table(), part.blocks, &graph.dependencies());
    if (!illegal.empty()) {
      std::printf("  %-12s ILLEGAL PARTITION: %s\n", alg.c_str(), illegal.c_str());
      std::exit(1);
    }
    MergeCache cache;
    fuse(p, o, &cache); // miss: fills the cache
    double hit = time_it([&] { part = fuse(p, o, &cache); }, 0.05, 100000);
    std::printf("  %-12s %9.3f ms %14lld %8zu %9s %11.2f us\n", alg.c_str(), t * 1e3,
                static_cast<long long>(part.cost), part.blocks.size(),
                alg == "optimal" ? (part.proven_optimal ? "yes" : "no") : "-", hit * 1e6);
  }
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::vector<std::string> files;
  std::vector<size_t> sizes = {100, 1000, 5000};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a.rfind("--only=", 0) == 0) {
      g_only = a.substr(7);
    } else if (a.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      for (size_t pos = 8; pos < a.size();) {
        size_t comma = a.find(',', pos);
        if (comma == std::string::npos) comma = a.size();
        sizes.push_back(std::stoul(a.substr(pos, comma - pos)));
        pos = comma + 1;
      }
    } else {
      files.emplace_back(a);
    }
  }
  const double min_total = quick ? 0.05 : 0.5;
  std::printf("fusion_bench: median CPU time of fuse() without cache (access table, WSP graph "
              "and algorithm), cost under `bohrium`, median time of a merge-cache hit "
              "(canonical key, hash, lookup, copy). optimal_budget = %lld.\n",
              static_cast<long long>(FuserOptions().optimal_budget));
  bench("paper Fig. 3",
        parse_program(R"(.base A float64 4
.base B float64 4
.base D float64 5
.base E float64 5
.base T float64 4
IDENTITY A, 0
IDENTITY B, 0
IDENTITY D, 0
IDENTITY E, 0
ADD A, A, D{0;4;1}
IDENTITY A, D{0;4;1}
ADD B, B, E{0;4;1}
IDENTITY B, E{0;4;1}
MULTIPLY T, A, B
MAXIMUM D{1;4;1}, T, E{1;4;1}
MINIMUM E{1;4;1}, T, D{1;4;1}
FREE A
FREE B
FREE E
FREE T
SYNC D
FREE D
)",
                      "fig3"),
        min_total);
  for (size_t size : sizes) bench("synthetic trace", synthetic(size), min_total);
  for (size_t size : sizes) bench("NumPy-loop trace", numpy_loop(size), min_total);
  std::vector<std::string> traces = files;
  if (traces.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(HASSIUM_TRACE_DIR))
      if (e.path().extension() == ".hsb") traces.push_back(e.path().string());
    std::sort(traces.begin(), traces.end());
  }
  for (const auto& f : traces) {
    Program whole = parse_file(f);
    const std::string name = std::filesystem::path(f).stem().string() + " trace";
    for (size_t size : sizes)
      if (size <= whole.size()) bench(name + " (prefix)", prefix(whole, size), min_total);
    if (!files.empty()) bench(name, whole, min_total);
  }
  return 0;
}
