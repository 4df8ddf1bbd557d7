// cpu_engine_bench: the CPU engine against a STREAM triad in C++ (OpenMP, -O3 -march=native):
// (a) C++ triad, (b) the triad as bytecode, (c) a fused chain of 10 ops with 8 contracted
// temporaries over 3 inputs, (d) sum(exp(a) * b) as one fused kernel; GB/s of the unique bytes
// each kernel must move, ratios to (a); threads 1 vs 2 on (c); cold compile time per kernel,
// disk-cache load time and memory-cache hit time.
//
// (d) is also run in NumPy (a subprocess of the venv's Python, same values, same run) for the
// speedup over NumPy. The goals of issue 4 are checked at the end; the load average is printed
// before and after (the machine may be shared).
//
// Usage: cpu_engine_bench [log2_elements=25] [repetitions=10]
// Threads: HASSIUM_CPU_THREADS (default: all cores). Python: HASSIUM_BENCH_PYTHON (default: the
// one CMake found). OpenMP waits passively, as the engine sets it, unless OMP_WAIT_POLICY or
// GOMP_SPINCOUNT is set.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <omp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/program.h"
#include "ve/cpu/cpu_engine.h"

using namespace hassium;
using Clock = std::chrono::steady_clock;

namespace {
double now() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// CPU time of this thread: compile times without the waiting a loaded machine adds.
double thread_cpu_time() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

struct Timing {
  double best = 0, median = 0;
};

// Runs f `reps` times after one warm-up call; best and median wall time.
Timing time_it(int reps, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// A float64 base with memory first touched in parallel (static schedule, as the kernels run).
BasePtr data_base(const std::string& name, int64_t n, double value) {
  BasePtr b = make_base(name, DType::FLOAT64, n);
  void* p = std::aligned_alloc(2 << 20, size_t((n * 8 + (2 << 20) - 1) / (2 << 20) * (2 << 20)));
  double* d = static_cast<double*>(p);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) d[i] = value + 1e-9 * double(i % 1000);
  b->data = p;
  b->external_owner = std::shared_ptr<void>(p, std::free);
  return b;
}

// prefix + number (built by appending: GCC 12 warns falsely on "literal" + std::string at -O3).
std::string numbered(const char* prefix, size_t i) {
  std::string s(prefix);
  s.append(std::to_string(i));
  return s;
}

Instruction instr(Opcode op, std::vector<Operand> operands) {
  return Instruction(op, std::move(operands));
}
View whole(const BasePtr& b) {
  return View::whole(b);
}

void run(Engine& e, const Program& p, std::vector<const Base*> contracted) {
  KernelBlock block;
  block.program = &p;
  for (size_t i = 0; i < p.instrs.size(); ++i) block.instrs.push_back(i);
  block.contracted = std::move(contracted);
  e.execute(block);
}

std::unique_ptr<Engine> engine(int threads, KernelCacheMode cache = KernelCacheMode::MEMORY,
                               const std::string& dir = "") {
  CpuOptions o;
  o.threads = threads;
  o.cache = cache;
  o.cache_dir = dir;
  return make_cpu_engine(o);
}

// (c): t0..t7 temporaries over x, y, z; out written twice (10 ops); 3 reads + 1 write per element.
struct Chain {
  Program program;
  std::vector<BasePtr> temps;
  std::vector<const Base*> contracted;
};

Chain make_chain(const BasePtr& x, const BasePtr& y, const BasePtr& z, const BasePtr& out,
                 int64_t n) {
  Chain c;
  for (int i = 0; i < 8; ++i) {
    c.temps.push_back(make_base(numbered("t", size_t(i)), DType::FLOAT64, n));
    c.contracted.push_back(c.temps.back().get());
  }
  auto t = [&](int i) { return whole(c.temps[size_t(i)]); };
  auto k = [](double v) { return Scalar::of_float(v); };
  auto& I = c.program.instrs;
  I.push_back(instr(Opcode::MULTIPLY, {t(0), whole(x), whole(y)}));
  I.push_back(instr(Opcode::ADD, {t(1), t(0), whole(z)}));
  I.push_back(instr(Opcode::MULTIPLY, {t(2), t(1), k(0.5)}));
  I.push_back(instr(Opcode::SUBTRACT, {t(3), t(2), whole(x)}));
  I.push_back(instr(Opcode::MULTIPLY, {t(4), t(3), t(3)}));
  I.push_back(instr(Opcode::ADD, {t(5), t(4), whole(y)}));
  I.push_back(instr(Opcode::MAXIMUM, {t(6), t(5), whole(z)}));
  I.push_back(instr(Opcode::SUBTRACT, {t(7), t(6), k(1.0)}));
  I.push_back(instr(Opcode::MULTIPLY, {whole(out), t(7), whole(x)}));
  I.push_back(instr(Opcode::ADD, {whole(out), whole(out), t(3)}));
  return c;
}

// Distinct blocks for the compile-time figures: one per family and dtype class.
std::vector<Program> kernel_zoo(std::vector<BasePtr>& keep) {
  std::vector<Program> zoo;
  auto base = [&](DType t, int64_t n) {
    BasePtr b = make_base(numbered("b", keep.size()), t, n);
    void* p = std::calloc(size_t(n), size_t(dtype_size(t)));
    b->data = p;
    b->external_owner = std::shared_ptr<void>(p, std::free);
    keep.push_back(b);
    return b;
  };
  const int64_t n = 4096;
  const DType types[] = {DType::FLOAT64, DType::FLOAT32, DType::INT64,
                         DType::INT32,   DType::UINT8,   DType::COMPLEX128};
  const Opcode binary[] = {Opcode::ADD, Opcode::MULTIPLY, Opcode::DIVIDE, Opcode::FLOOR_DIVIDE,
                           Opcode::MAXIMUM};
  for (DType t : types)
    for (Opcode op : binary) {
      std::vector<DType> sig = {t, t, t};
      if (!check_signature(op, sig).empty()) continue;
      Program p;
      p.instrs.push_back(instr(op, {whole(base(t, n)), whole(base(t, n)), whole(base(t, n))}));
      zoo.push_back(std::move(p));
    }
  const Opcode unary[] = {Opcode::EXP, Opcode::SIN, Opcode::SQRT, Opcode::TANH, Opcode::RINT};
  for (Opcode op : unary) {
    Program p;
    p.instrs.push_back(instr(op, {whole(base(DType::FLOAT64, n)), whole(base(DType::FLOAT64, n))}));
    zoo.push_back(std::move(p));
  }
  for (int axis = 0; axis < 2; ++axis) {
    Program p;
    BasePtr in = base(DType::FLOAT64, n);
    p.instrs.push_back(
        instr(Opcode::ADD_REDUCE, {View::contiguous(base(DType::FLOAT64, 64), {64}),
                                   View::contiguous(in, {64, 64}), Scalar::of_int(axis)}));
    zoo.push_back(std::move(p));
  }
  {
    Program p;
    p.instrs.push_back(instr(
        Opcode::RANDOM, {whole(base(DType::UINT64, n)), Scalar::of_uint(1), Scalar::of_uint(2)}));
    zoo.push_back(std::move(p));
  }
  {
    Program p;
    BasePtr x = base(DType::FLOAT64, n * 4);
    p.instrs.push_back(
        instr(Opcode::ADD_ACCUMULATE, {View::contiguous(base(DType::FLOAT64, n * 4), {64, 256}),
                                       View::contiguous(x, {64, 256}), Scalar::of_int(1)}));
    zoo.push_back(std::move(p));
  }
  return zoo;
}

// The 1, 5 and 15 minute load averages.
std::string load_average() {
  char buf[128] = {};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string s(buf);
  size_t cut = 0;
  for (int k = 0; k < 3 && cut != std::string::npos; ++k) cut = s.find(' ', cut + 1);
  return s.substr(0, cut);
}

// (d) in NumPy: a Python subprocess holding the same values as x and y; each line "run" on
// its stdin times one np.sum(np.exp(a) * b) and answers "SECONDS SUM". Kept alive so that its
// runs interleave with hassium's: both sides see the same load (the machine may be shared).
#ifndef HASSIUM_BENCH_PYTHON
#define HASSIUM_BENCH_PYTHON "python3"
#endif

class NumpyPeer {
public:
  explicit NumpyPeer(int log2n) {
    const char* py = std::getenv("HASSIUM_BENCH_PYTHON");
    std::string python = py ? py : HASSIUM_BENCH_PYTHON;
    std::string n = std::to_string(log2n);
    const char* script = "import sys, time\n"
                         "import numpy as np\n"
                         "n = 1 << int(sys.argv[1])\n"
                         "i = np.arange(n) % 1000\n"
                         "a, b = 0.25 + 1e-9 * i, 0.5 + 1e-9 * i\n"
                         "del i\n"
                         "print(np.__version__, flush=True)\n"
                         "for line in sys.stdin:\n"
                         "    t0 = time.perf_counter()\n"
                         "    s = np.sum(np.exp(a) * b)\n"
                         "    print(time.perf_counter() - t0, repr(float(s)), flush=True)\n";
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      execlp(python.c_str(), python.c_str(), "-c", script, n.c_str(), (char*)nullptr);
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
    char v[64] = {};
    if (pid_ > 0 && out_ && std::fscanf(out_, "%63s", v) == 1) version = v;
  }
  ~NumpyPeer() {
    if (in_) std::fclose(in_);
    if (out_) std::fclose(out_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }
  NumpyPeer(const NumpyPeer&) = delete;
  NumpyPeer& operator=(const NumpyPeer&) = delete;

  bool ok() const { return !version.empty(); }
  // One timed run: seconds, and the sum in `sum`; a negative time when the peer failed.
  double run(double& sum) {
    double t = -1;
    if (!ok() || std::fputs("run\n", in_) < 0 || std::fflush(in_) != 0) return -1;
    if (std::fscanf(out_, "%lf %lf", &t, &sum) != 2) return -1;
    return t;
  }
  std::string version;

private:
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
} // namespace

int main(int argc, char** argv) {
  // (a) links libgomp, so it initializes before main and the engine cannot set its wait
  // policy: start again with the policy the engine sets by default (unless the user chose).
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);
    std::perror("cpu_engine_bench: execv");
    return 1;
  }
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 25;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 10;
  const int64_t n = int64_t(1) << log2n;
  const char* env = std::getenv("HASSIUM_CPU_THREADS");
  const int threads = env && std::atoi(env) > 0 ? std::atoi(env) : omp_get_max_threads();
  omp_set_num_threads(threads);
  std::printf(
      "cpu_engine_bench: 2^%d float64 elements, %d threads, best of %d (median in brackets)\n",
      log2n, threads, reps);
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  std::printf("load average before: %s; OMP_WAIT_POLICY=%s\n", load_average().c_str(),
              wait ? wait : "(unset)");

  BasePtr a = data_base("a", n, 0.0), b = data_base("b", n, 1.0), c = data_base("c", n, 2.0);
  BasePtr x = data_base("x", n, 0.25), y = data_base("y", n, 0.5), z = data_base("z", n, 0.75);
  const double s = 3.0;
  auto gbs = [&](double bytes, Timing t) { return bytes / t.best / 1e9; };
  auto report = [&](const char* what, double bytes, Timing t, double ref) {
    std::printf("  %-44s %8.3f ms [%8.3f]  %7.2f GB/s  %5.2f x (a)\n", what, t.best * 1e3,
                t.median * 1e3, gbs(bytes, t), ref > 0 ? gbs(bytes, t) / ref : 1.0);
  };

  // (a) STREAM triad, C++ OpenMP.
  double* A = static_cast<double*>(a->data);
  const double* B = static_cast<const double*>(b->data);
  const double* C = static_cast<const double*>(c->data);
  Timing ta = time_it(reps, [&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) A[i] = B[i] + s * C[i];
  });
  const double triad_bytes = 24.0 * double(n);
  const double ref = gbs(triad_bytes, ta);
  report("(a) STREAM triad, C++ -O3 -march=native", triad_bytes, ta, 0);

  auto eng = engine(threads);
  // (b) the triad as bytecode: MULTIPLY t, c, s; ADD a, b, t; t contracted.
  BasePtr t = make_base("t", DType::FLOAT64, n);
  Program triad;
  triad.instrs.push_back(instr(Opcode::MULTIPLY, {whole(t), whole(c), Scalar::of_float(s)}));
  triad.instrs.push_back(instr(Opcode::ADD, {whole(a), whole(b), whole(t)}));
  Timing tb = time_it(reps, [&] { run(*eng, triad, {t.get()}); });
  for (int64_t i = 0; i < n; i += n / 7) {
    volatile double product = s * C[i]; // rounded on its own, as the bytecode does (no FMA)
    if (A[i] != B[i] + product) std::printf("  WRONG triad result at %ld\n", long(i));
  }
  report("(b) triad as bytecode", triad_bytes, tb, ref);

  // (c) the chain: 3 inputs read, 1 output written.
  BasePtr out = data_base("out", n, 0.0);
  Chain chain = make_chain(x, y, z, out, n);
  Timing tc = time_it(reps, [&] { run(*eng, chain.program, chain.contracted); });
  const double chain_bytes = 32.0 * double(n);
  report("(c) 10-op chain, 8 temporaries contracted", chain_bytes, tc, ref);

  // (d) sum(exp(a) * b): 2 inputs read, one scalar written.
  BasePtr e1 = make_base("e1", DType::FLOAT64, n), e2 = make_base("e2", DType::FLOAT64, n);
  BasePtr sum = data_base("sum", 1, 0.0);
  Program fused_sum;
  fused_sum.instrs.push_back(instr(Opcode::EXP, {whole(e1), whole(x)}));
  fused_sum.instrs.push_back(instr(Opcode::MULTIPLY, {whole(e2), whole(e1), whole(y)}));
  fused_sum.instrs.push_back(
      instr(Opcode::ADD_REDUCE, {View::contiguous(sum, {}), whole(e2), Scalar::of_int(0)}));
  // Interleaved with NumPy's runs of the same expression: hassium, NumPy, hassium, ...
  NumpyPeer numpy(log2n);
  double np_sum = 0;
  run(*eng, fused_sum, {e1.get(), e2.get()}); // warm-up of both, as time_it does
  numpy.run(np_sum);
  std::vector<double> hs_times, np_times;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    run(*eng, fused_sum, {e1.get(), e2.get()});
    hs_times.push_back(now() - t0);
    double t = numpy.run(np_sum);
    if (t >= 0) np_times.push_back(t);
  }
  std::sort(hs_times.begin(), hs_times.end());
  const Timing td{hs_times.front(), hs_times[hs_times.size() / 2]};
  report("(d) sum(exp(a) * b), one fused kernel", 16.0 * double(n), td, ref);
  const double hs_sum = *static_cast<double*>(sum->data);
  double numpy_speedup = 0;
  if (!np_times.empty()) {
    std::sort(np_times.begin(), np_times.end());
    Timing tn{np_times.front(), np_times[np_times.size() / 2]};
    report("(d) the same in NumPy, runs interleaved", 16.0 * double(n), tn, ref);
    numpy_speedup = tn.best / td.best;
    std::printf("      NumPy %s: hassium is %.2fx faster (medians: %.2fx); sums %.17g (hassium), "
                "%.17g (NumPy)\n",
                numpy.version.c_str(), numpy_speedup, tn.median / td.median, hs_sum, np_sum);
    if (std::fabs(hs_sum - np_sum) > 1e-9 * std::fabs(np_sum))
      std::printf("  WRONG: the sums differ by more than 1e-9 relative\n");
  } else {
    std::printf("  (d) NumPy: could not run the Python subprocess (set HASSIUM_BENCH_PYTHON)\n");
  }

  // Threads 1 vs 2: (c) is bound by memory bandwidth, (d) by the exp computation.
  struct Case {
    const char* name;
    const Program* program;
    std::vector<const Base*> contracted;
    double bytes;
  };
  const Case cases[] = {{"(c)", &chain.program, chain.contracted, chain_bytes},
                        {"(d)", &fused_sum, {e1.get(), e2.get()}, 16.0 * double(n)}};
  double speedup_c = 0;
  for (const Case& k : cases) {
    std::printf("threads on %s:\n", k.name);
    double t1 = 0;
    for (int th : {1, 2}) {
      auto e = engine(th);
      Timing tt = time_it(reps, [&] { run(*e, *k.program, k.contracted); });
      if (th == 1) t1 = tt.best;
      std::printf("  threads=%d  %8.3f ms  %7.2f GB/s  speedup %.2f\n", th, tt.best * 1e3,
                  gbs(k.bytes, tt), t1 / tt.best);
      if (th == 2 && k.program == &chain.program) speedup_c = t1 / tt.best;
    }
  }

  // Compile times: every kernel of the zoo cold (cache none), then from disk, then memory hits.
  std::vector<BasePtr> keep;
  std::vector<Program> zoo = kernel_zoo(keep);
  std::string dir =
      (std::filesystem::temp_directory_path() / numbered("hassium-bench-", size_t(::getpid())))
          .string();
  std::vector<double> cold, cold_cpu, disk;
  {
    auto e = engine(1, KernelCacheMode::DISK, dir);
    for (const Program& p : zoo) {
      double before = e->stats().compile_seconds, cpu0 = thread_cpu_time();
      run(*e, p, {});
      cold_cpu.push_back(thread_cpu_time() - cpu0);
      cold.push_back(e->stats().compile_seconds - before);
    }
  }
  {
    auto e = engine(1, KernelCacheMode::DISK, dir);
    for (const Program& p : zoo) {
      double before = e->stats().compile_seconds;
      run(*e, p, {});
      disk.push_back(e->stats().compile_seconds - before);
    }
    std::printf("kernels: %zu distinct blocks; disk hits %ld\n", zoo.size(),
                long(e->stats().disk_cache_hits));
  }
  std::filesystem::remove_all(dir);
  std::sort(cold.begin(), cold.end());
  std::printf("  cold compile per kernel:  median %7.2f ms  (min %.2f, max %.2f) wall; median %.2f "
              "ms CPU\n",
              median(cold) * 1e3, cold.front() * 1e3, cold.back() * 1e3, median(cold_cpu) * 1e3);
  std::printf("  disk-cache load:          median %7.3f ms  (max %.3f)\n", median(disk) * 1e3,
              *std::max_element(disk.begin(), disk.end()) * 1e3);
  // Memory-cache hit: a whole execute() of a 16-element block (plan, lookup, launch).
  double hit = 0;
  {
    auto e = engine(threads);
    BasePtr u = data_base("u", 16, 1.0), v = data_base("v", 16, 2.0),
            w = make_base("w", DType::FLOAT64, 16);
    Program small;
    small.instrs.push_back(instr(Opcode::MULTIPLY, {whole(w), whole(u), Scalar::of_float(2)}));
    small.instrs.push_back(instr(Opcode::ADD, {whole(v), whole(w), whole(u)}));
    run(*e, small, {w.get()});
    const int calls = 100000;
    double t0 = now(), cpu0 = thread_cpu_time();
    for (int i = 0; i < calls; ++i) run(*e, small, {w.get()});
    double per = (now() - t0) / calls, per_cpu = (thread_cpu_time() - cpu0) / calls;
    std::printf(
        "  memory-cache hit:         %7.3f us wall, %.3f us CPU per execute() of a 16-element "
        "block (%ld hits)\n",
        per * 1e6, per_cpu * 1e6, long(e->stats().memory_cache_hits));
    hit = per;
  }

  std::printf("load average after: %s\n", load_average().c_str());
  struct Goal {
    const char* what;
    double value;
    bool met;
  };
  const Goal goals[] = {
      {"(b) triad >= 0.8 x (a)", gbs(triad_bytes, tb) / ref, gbs(triad_bytes, tb) >= 0.8 * ref},
      {"(c) chain >= 0.8 x (a)", gbs(chain_bytes, tc) / ref, gbs(chain_bytes, tc) >= 0.8 * ref},
      {"(d) >= 2 x NumPy", numpy_speedup, numpy_speedup >= 2},
      {"cold compile median < 50 ms", median(cold) * 1e3, median(cold) < 0.050},
      {"disk-cache load median < 2 ms", median(disk) * 1e3, median(disk) < 0.002},
      {"memory-cache hit < 5 us", hit * 1e6, hit < 5e-6},
      {"2 threads faster than 1 on (c)", speedup_c, speedup_c > 1}};
  int missed = 0;
  std::printf("goals:\n");
  for (const Goal& g : goals) {
    std::printf("  %-34s %9.3f  %s\n", g.what, g.value, g.met ? "met" : "MISSED");
    missed += g.met ? 0 : 1;
  }
  return missed == 0 ? 0 : 3;
}
