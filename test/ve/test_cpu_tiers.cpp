// Tests of tiered compilation (ve/cpu/background_compiler.cpp, jit_compiler.cpp's tiers): a new
// kernel runs on fast-tier code at once and on optimized code after the background compile,
// with the same bits; the optimized code lands in the disk cache and a later engine loads it;
// a flush's new kernels compile in one module; a process that exits while the background
// thread compiles exits cleanly.
#include <cstring>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"
#include "ve/cpu/jit_compiler.h"
#include "ve/cpu/plan.h"

using namespace hassium;
using namespace hassium::test;
namespace fs = std::filesystem;

namespace {
std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "hassium-tiers-XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  REQUIRE(made != nullptr);
  return made;
}

size_t objects_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".o";
  return n;
}

std::unique_ptr<Engine> tiered_engine(KernelCacheMode cache = KernelCacheMode::MEMORY,
                                      const std::string& dir = "") {
  CpuOptions o;
  o.threads = 2;
  o.cache = cache;
  o.cache_dir = dir;
  o.tiered_compile = true;
  // The fast tier itself (test_interpreter.cpp: the interpreter's first runs).
  o.interpreter = cpu::InterpreterMode::NONE;
  return make_cpu_engine(o);
}

// One program of the comparison: its blocks (each a kernel), run in order, and the bases whose
// bytes are compared.
struct Case {
  std::string name;
  Program program;
  std::vector<std::vector<size_t>> blocks;
  std::vector<std::vector<const Base*>> contracted;
  std::vector<BasePtr> outputs;
  std::vector<BasePtr> keep; // inputs and temporaries
};

template <typename T> BasePtr input(const std::string& name, DType t, int64_t n, T (*f)(int64_t)) {
  BasePtr b = make_data_base(name, t, n);
  for (int64_t i = 0; i < n; ++i) data_of<T>(b)[i] = f(i);
  return b;
}

// Kernels whose bits could depend on code generation choices: a float sum (reassociated into
// per-lane partial sums) of libmvec's vector exp, float32 sin/cos with a scalar tail, integer
// division and remainder, complex products summed, a scan, a column reduction.
std::vector<Case> cases() {
  std::vector<Case> out;
  const int64_t n = 100003; // a vector body and a scalar tail
  {
    Case c{"sum(exp(a) * b)", {}, {}, {}, {}, {}};
    auto a =
        input<double>("a", DType::FLOAT64, n, [](int64_t i) { return 1e-4 * double(i % 977); });
    auto b = input<double>("b", DType::FLOAT64, n, [](int64_t i) { return 1.0 / double(1 + i); });
    auto t = make_temp_base("t", DType::FLOAT64, n), u = make_temp_base("u", DType::FLOAT64, n);
    auto s = make_data_base("s", DType::FLOAT64, 1);
    c.program.instrs.emplace_back(Opcode::EXP,
                                  std::vector<Operand>{View::whole(t), View::whole(a)});
    c.program.instrs.emplace_back(
        Opcode::MULTIPLY, std::vector<Operand>{View::whole(u), View::whole(t), View::whole(b)});
    c.program.instrs.emplace_back(
        Opcode::ADD_REDUCE,
        std::vector<Operand>{view(s, 0, {}, {}), View::whole(u), axis_const(0)});
    c.blocks = {{0, 1, 2}};
    c.contracted = {{t.get(), u.get()}};
    c.outputs = {s};
    c.keep = {a, b, t, u};
    out.push_back(std::move(c));
  }
  {
    Case c{"float32 sin + cos", {}, {}, {}, {}, {}};
    auto a =
        input<float>("a", DType::FLOAT32, n, [](int64_t i) { return 0.001f * float(i % 4099); });
    auto r = make_data_base("r", DType::FLOAT32, n);
    auto t = make_temp_base("t", DType::FLOAT32, n);
    c.program.instrs.emplace_back(Opcode::SIN,
                                  std::vector<Operand>{View::whole(t), View::whole(a)});
    c.program.instrs.emplace_back(Opcode::COS,
                                  std::vector<Operand>{View::whole(r), View::whole(a)});
    c.program.instrs.emplace_back(
        Opcode::ADD, std::vector<Operand>{View::whole(r), View::whole(r), View::whole(t)});
    c.blocks = {{0, 1, 2}};
    c.contracted = {{t.get()}};
    c.outputs = {r};
    c.keep = {a, t};
    out.push_back(std::move(c));
  }
  {
    Case c{"int64 // and %", {}, {}, {}, {}, {}};
    auto a = input<int64_t>("a", DType::INT64, n, [](int64_t i) { return i * 7919 - 400000; });
    auto q = make_data_base("q", DType::INT64, n), m = make_data_base("m", DType::INT64, n);
    c.program.instrs.emplace_back(
        Opcode::FLOOR_DIVIDE,
        std::vector<Operand>{View::whole(q), View::whole(a), Scalar::of_int(-37, DType::INT64)});
    c.program.instrs.emplace_back(
        Opcode::MOD,
        std::vector<Operand>{View::whole(m), View::whole(a), Scalar::of_int(13, DType::INT64)});
    c.blocks = {{0, 1}};
    c.contracted = {{}};
    c.outputs = {q, m};
    c.keep = {a};
    out.push_back(std::move(c));
  }
  {
    Case c{"complex products summed", {}, {}, {}, {}, {}};
    using C = std::complex<double>;
    auto a = input<C>("a", DType::COMPLEX128, n, [](int64_t i) {
      return C(0.5 + 1e-3 * double(i % 101), 1e-3 * double(i % 7));
    });
    auto t = make_temp_base("t", DType::COMPLEX128, n);
    auto s = make_data_base("s", DType::COMPLEX128, 1);
    c.program.instrs.emplace_back(
        Opcode::MULTIPLY, std::vector<Operand>{View::whole(t), View::whole(a), View::whole(a)});
    c.program.instrs.emplace_back(
        Opcode::ADD_REDUCE,
        std::vector<Operand>{view(s, 0, {}, {}), View::whole(t), axis_const(0)});
    c.blocks = {{0, 1}};
    c.contracted = {{t.get()}};
    c.outputs = {s};
    c.keep = {a, t};
    out.push_back(std::move(c));
  }
  {
    Case c{"cumulative sum and column sums", {}, {}, {}, {}, {}};
    auto a = input<double>("a", DType::FLOAT64, 300 * 301,
                           [](int64_t i) { return 0.1 * double(i % 17); });
    auto cs = make_data_base("cs", DType::FLOAT64, 300 * 301);
    auto col = make_data_base("col", DType::FLOAT64, 301);
    c.program.instrs.emplace_back(
        Opcode::ADD_ACCUMULATE,
        std::vector<Operand>{View::whole(cs), View::whole(a), axis_const(0)});
    c.program.instrs.emplace_back(
        Opcode::ADD_REDUCE, std::vector<Operand>{view(col, 0, {301}, {1}),
                                                 view(a, 0, {300, 301}, {301, 1}), axis_const(0)});
    c.blocks = {{0}, {1}};
    c.contracted = {{}, {}};
    c.outputs = {cs, col};
    c.keep = {a};
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> run_case(Engine& engine, Case& c) {
  for (const BasePtr& o : c.outputs) std::memset(o->data, 0, size_t(o->nbytes()));
  for (size_t k = 0; k < c.blocks.size(); ++k)
    run_block(engine, c.program, c.blocks[k], c.contracted[k]);
  std::vector<std::string> bytes;
  for (const BasePtr& o : c.outputs)
    bytes.emplace_back(static_cast<const char*>(o->data), size_t(o->nbytes()));
  return bytes;
}
} // namespace

TEST_CASE("tiers: fast code first, optimized code after the background compile, the same bits",
          "[ve][cpu][tiers]") {
  for (Case& c : cases()) {
    INFO(c.name);
    // A fresh engine per case: each block's first run is on fast-tier code (an optimized
    // kernel is installed only before a later block).
    auto engine = tiered_engine();
    const int64_t kernels = int64_t(c.blocks.size());
    std::vector<std::string> fast = run_case(*engine, c);
    EngineStats s = engine->stats();
    CHECK(s.kernels_compiled == kernels);
    CHECK(s.kernels_optimized < kernels);
    engine->wait_background_work();
    s = engine->stats();
    CHECK(s.kernels_optimized == kernels);
    CHECK(s.background_compile_seconds > 0);
    CHECK(run_case(*engine, c) == fast);
    CHECK(engine->stats().kernels_compiled == kernels); // nothing compiled again
  }
}

TEST_CASE("tiers: the disk cache keeps the optimized code, a later engine starts optimized",
          "[ve][cpu][tiers][cache]") {
  const std::string dir = temp_dir();
  std::vector<Case> all = cases();
  std::vector<std::vector<std::string>> first;
  int64_t kernels = 0;
  {
    auto engine = tiered_engine(KernelCacheMode::DISK, dir);
    for (Case& c : all) {
      first.push_back(run_case(*engine, c));
      kernels += int64_t(c.blocks.size());
    }
    engine->wait_background_work();
    CHECK(engine->stats().kernels_optimized == kernels);
  }
  // Each kernel's optimized object (fast code that gets replaced is compiled again, not stored).
  CHECK(objects_in(dir) == size_t(kernels));
  auto later = tiered_engine(KernelCacheMode::DISK, dir);
  for (size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    CHECK(run_case(*later, all[i]) == first[i]);
  }
  later->wait_background_work();
  EngineStats s = later->stats();
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_cache_hits == kernels);
  CHECK(s.kernels_optimized == 0); // loaded optimized: nothing for the background to do
  fs::remove_all(dir);
}

TEST_CASE("tiers: a process exiting while the background compiles exits cleanly",
          "[ve][cpu][tiers]") {
  for (int round = 0; round < 4; ++round) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      CpuOptions o;
      o.threads = 1; // (no OpenMP team in a forked child)
      o.tiered_compile = true;
      o.interpreter = cpu::InterpreterMode::NONE;
      auto* engine = make_cpu_engine(o).release(); // never destroyed: exit() meets its thread
      std::vector<Case> all = cases();
      for (Case& c : all) run_case(*engine, c);
      std::exit(0); // runs the exit handlers (LLVM's statics) while compiles are queued
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    INFO("round " << round << ", status " << status);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}

TEST_CASE("tiers: kernels not optimized at exit are finished by a detached child, for the next run",
          "[ve][cpu][tiers][cache]") {
  const std::string dir = temp_dir();
  int64_t kernels = 0;
  for (Case& c : cases()) kernels += int64_t(c.blocks.size());
  for (bool finish : {false, true}) {
    INFO("optimize_at_exit " << finish);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      CpuOptions o;
      o.threads = 1;
      o.cache = KernelCacheMode::DISK;
      o.cache_dir = dir;
      o.optimize_at_exit = finish;
      o.interpreter = cpu::InterpreterMode::NONE; // every block's kernel compiles (fast tier)
      auto* engine = make_cpu_engine(o).release();
      std::vector<Case> all = cases();
      for (Case& c : all) run_case(*engine, c);
      std::exit(0); // at once: the background thread has hardly begun
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    if (!finish) {
      CHECK(objects_in(dir) < size_t(kernels)); // dropped: the next run compiles them again
      continue;
    }
    // The child writes the rest within seconds (it runs at the lowest priority).
    for (int i = 0; i < 600 && objects_in(dir) < size_t(kernels); ++i) ::usleep(50000);
    CHECK(objects_in(dir) == size_t(kernels));
  }
  auto later = tiered_engine(KernelCacheMode::DISK, dir);
  for (Case& c : cases()) run_case(*later, c);
  EngineStats s = later->stats();
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_cache_hits == kernels);
  fs::remove_all(dir);
}

TEST_CASE("tiers: a flush's new kernels compile in one module, each as it computes alone",
          "[ve][cpu][tiers]") {
  std::vector<Case> all = cases();
  // Through the engine: prepare() for every block, end_prepare() compiles them together.
  auto engine = tiered_engine();
  std::vector<KernelBlock> blocks;
  for (Case& c : all)
    for (size_t k = 0; k < c.blocks.size(); ++k) {
      KernelBlock kb;
      kb.program = &c.program;
      kb.instrs = c.blocks[k];
      kb.contracted = c.contracted[k];
      blocks.push_back(kb);
    }
  auto plan = engine->make_plan(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) engine->prepare(*plan, b, blocks[b]);
  engine->end_prepare(*plan);
  CHECK(engine->stats().kernels_compiled == int64_t(blocks.size()));
  std::vector<std::vector<std::string>> batched;
  for (Case& c : all) batched.push_back(run_case(*engine, c));
  CHECK(engine->stats().kernels_compiled == int64_t(blocks.size())); // all were there
  // Each kernel compiled alone by the optimizing code generator computes the same bits.
  CpuOptions o;
  o.tiered_compile = false;
  auto alone = make_cpu_engine(o);
  for (size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    CHECK(run_case(*alone, all[i]) == batched[i]);
  }
  // The batch itself: a plan given twice is compiled once and shares its code.
  cpu::JitCompiler jit(3, "", false);
  std::vector<cpu::KernelPlan> plans;
  for (const KernelBlock& kb : blocks) plans.push_back(cpu::plan_block(kb));
  std::vector<const cpu::KernelPlan*> ptrs;
  for (const cpu::KernelPlan& plan : plans) ptrs.push_back(&plan);
  ptrs.push_back(&plans[0]);
  std::vector<cpu::CompileResult> r = jit.compile_fast(ptrs);
  REQUIRE(r.size() == plans.size() + 1);
  for (const cpu::CompileResult& x : r) {
    CHECK(x.tier == cpu::Tier::FAST);
    CHECK_FALSE(x.final);
    CHECK(x.fns.kernel != nullptr);
  }
  CHECK(r.back().fns.kernel == r[0].fns.kernel);
  CHECK(r.back().key == r[0].key);
  CHECK(jit.compile(plans[1], cpu::Tier::FAST).outcome == cpu::CompileOutcome::ALREADY_LOADED);
}
