// Tests of the interpreter tier (ve/cpu/interpreter.h): interpreted blocks compute their kernels'
// bits (every `hassium run` case, and views of every stride class over many tiles with
// temporaries in reused buffers), a new block runs interpreted until its optimized kernel is
// installed, a kernel on disk runs instead, step kernels built ahead of time are loaded (read
// only), which plans it takes, errors as the kernel's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <unistd.h>

#include "core/error.h"
#include "core/profile.h"
#include "test/ve/cpu_fixture.h"
#include "test/ve/run_cases.h"
#include "ve/cpu/interpreter.h"
#include "vem/stack.h"

using namespace hassium;
using namespace hassium::test;
namespace fs = std::filesystem;

namespace {
std::unique_ptr<Engine> engine_with(cpu::InterpreterMode mode, KernelCacheMode cache,
                                    const std::string& dir = "") {
  CpuOptions o;
  o.threads = 2;
  o.cache = cache;
  o.cache_dir = dir;
  o.interpreter = mode;
  return make_cpu_engine(o);
}

Backend& stack_with(cpu::InterpreterMode mode) {
  auto make = [](cpu::InterpreterMode m) {
    StackOptions o;
    o.engine = "cpu";
    o.cpu.cache = KernelCacheMode::MEMORY;
    o.cpu.threads = 2;
    o.cpu.interpreter = m;
    return build_stack(o);
  };
  static Stack always = make(cpu::InterpreterMode::ALWAYS);
  static Stack none = make(cpu::InterpreterMode::NONE);
  return mode == cpu::InterpreterMode::ALWAYS ? *always.backend : *none.backend;
}

int64_t interpreted(Backend& b) {
  ProfileCounters c;
  b.add_counters(c);
  return c.blocks_interpreted;
}

std::string bytes_of(const BasePtr& b) {
  return std::string(static_cast<const char*>(b->data), size_t(b->nbytes()));
}
} // namespace

TEST_CASE("interpreter: every `hassium run` case gives its kernels' bits", "[ve][cpu][interp]") {
  const std::vector<fs::path> cases = run_case_paths();
  REQUIRE(cases.size() > 50);
  Backend& interp = stack_with(cpu::InterpreterMode::ALWAYS);
  Backend& kernels = stack_with(cpu::InterpreterMode::NONE);
  for (const fs::path& path : cases) {
    INFO(path.filename().string());
    const std::string text = read_text(path);
    RunOutcome a = run_text(interp, text);
    RunOutcome b = run_text(kernels, text);
    CHECK(a.error == b.error);
    if (!a.error.empty() || !b.error.empty()) continue;
    for (size_t i = 0; i < a.program.instrs.size(); ++i) {
      if (a.program.instrs[i].op != Opcode::SYNC) continue;
      const Base& x = *a.program.instrs[i].out().base;
      const Base& y = *b.program.instrs[i].out().base;
      INFO("base " << x.name);
      REQUIRE(bool(x.data) == bool(y.data));
      if (x.data) CHECK(std::memcmp(x.data, y.data, size_t(x.nbytes())) == 0);
    }
  }
  // Most cases are element-wise: the interpreter ran them, the other stack never did.
  CHECK(interpreted(interp) > 200);
  CHECK(interpreted(kernels) == 0);
}

namespace {
// A block over a 2-D loop of 37 x 1301 (three tiles and a rest a row): a transposed read (any
// inner stride), a broadcast row (stride 0) and column, an offset view, constants, a chain of
// temporaries (tile buffers reused once dead), a cast, a select, a comparison, a strided write,
// integer floor division and remainder by a zero, a read of an array the block wrote.
struct Wide {
  static constexpr int64_t R = 37, C = 1301;
  Program p;
  BasePtr a = make_data_base("a", DType::FLOAT64, R*C),
          b = make_data_base("b", DType::FLOAT64, C*R),
          row = make_data_base("row", DType::FLOAT64, C),
          k = make_data_base("k", DType::INT64, R*C),
          out = make_data_base("out", DType::FLOAT64, R*C),
          big = make_data_base("big", DType::FLOAT64, 2 * R * C),
          q = make_data_base("q", DType::INT64, R*C),
          flag = make_data_base("flag", DType::BOOL, R*C);
  std::vector<BasePtr> temps;
  BasePtr temp(DType t) {
    temps.push_back(make_temp_base("t" + std::to_string(temps.size()), t, R * C));
    return temps.back();
  }
  View m(const BasePtr& x) { return view(x, 0, {R, C}, {C, 1}); }

  Wide() {
    fill<double>(View::whole(a), [](int64_t i) { return 0.25 * double(i % 1013) - 40.0; });
    fill<double>(View::whole(b), [](int64_t i) { return 1.0 + double(i % 97) / 7.0; });
    fill<double>(View::whole(row), [](int64_t i) { return double(i % 5) - 2.0; });
    fill<int64_t>(View::whole(k), [](int64_t i) { return int64_t(i % 11) - 5; });
    View bt = view(b, 0, {R, C}, {1, R});                // transposed: inner stride R
    View brow = view(row, 0, {R, C}, {0, 1});            // a row broadcast down
    View bcol = view(row, 3, {R, C}, {1, 0});            // a column broadcast across (offset 3)
    View strided_out = view(big, 1, {R, C}, {2 * C, 2}); // every other element, offset 1
    BasePtr t0 = temp(DType::FLOAT64), t1 = temp(DType::FLOAT64), t2 = temp(DType::FLOAT64),
            t3 = temp(DType::FLOAT64), t4 = temp(DType::FLOAT64), t5 = temp(DType::BOOL),
            t6 = temp(DType::INT64), t7 = temp(DType::FLOAT64);
    auto add = [&](Opcode op, std::vector<Operand> ops) {
      p.instrs.emplace_back(op, std::move(ops));
    };
    add(Opcode::MULTIPLY, {m(t0), m(a), bt});
    add(Opcode::ADD, {m(t1), m(t0), brow});
    add(Opcode::SUBTRACT, {m(t2), Scalar::of_float(3.5), m(t1)});
    add(Opcode::DIVIDE, {m(t3), m(t2), bcol});
    add(Opcode::MAXIMUM, {m(t4), m(t3), Scalar::of_float(-7.0)});
    add(Opcode::GREATER, {m(t5), m(t4), m(a)});
    add(Opcode::WHERE, {m(out), m(t5), m(t4), bt});
    add(Opcode::IDENTITY, {m(t6), m(out)});
    add(Opcode::FLOOR_DIVIDE, {m(q), m(t6), m(k)});
    add(Opcode::MOD, {m(t6), m(t6), m(k)}); // a temporary written twice
    add(Opcode::IDENTITY, {m(t7), m(t6)});
    add(Opcode::MULTIPLY, {strided_out, m(t7), m(out)}); // reads what the block wrote
    add(Opcode::LOGICAL_NOT, {m(flag), m(t5)});
  }
  std::vector<const Base*> contracted() const {
    std::vector<const Base*> c;
    for (const BasePtr& t : temps) c.push_back(t.get());
    return c;
  }
  std::vector<std::string> run(Engine& e) {
    for (const BasePtr& o : {out, big, q, flag}) std::memset(o->data, 0, size_t(o->nbytes()));
    run_all(e, p, contracted());
    return {bytes_of(out), bytes_of(big), bytes_of(q), bytes_of(flag)};
  }
};
} // namespace

TEST_CASE("interpreter: views of every stride class over many tiles, temporaries in tile buffers",
          "[ve][cpu][interp]") {
  Wide w;
  auto interp = engine_with(cpu::InterpreterMode::ALWAYS, KernelCacheMode::MEMORY);
  auto kernels = engine_with(cpu::InterpreterMode::NONE, KernelCacheMode::MEMORY);
  std::vector<std::string> expect = w.run(*kernels);
  CHECK(kernels->stats().blocks_interpreted == 0);
  CHECK(w.run(*interp) == expect);
  CHECK(interp->stats().blocks_interpreted == 1);
  // Again (a kept interpreted kernel), and on one thread.
  CHECK(w.run(*interp) == expect);
  CpuOptions one;
  one.threads = 1;
  one.interpreter = cpu::InterpreterMode::ALWAYS;
  CHECK(w.run(*make_cpu_engine(one)) == expect);
  // The values are the definition's: spot checks against C++.
  const double* out = data_of<double>(w.out);
  for (int64_t i : {int64_t(0), int64_t(1300), int64_t(1301), int64_t(Wide::R * Wide::C - 1)}) {
    const int64_t r = i / Wide::C, c = i % Wide::C;
    const double a = data_of<double>(w.a)[i], bt = data_of<double>(w.b)[c * Wide::R + r];
    const double t4 = std::max(
        (3.5 - (a * bt + data_of<double>(w.row)[c])) / data_of<double>(w.row)[3 + r], -7.0);
    INFO("element " << i);
    CHECK(out[i] == (t4 > a ? t4 : bt));
  }
}

TEST_CASE("interpreter: a new block runs interpreted until its optimized kernel is installed, a "
          "kernel on disk runs instead",
          "[ve][cpu][interp][tiers]") {
  std::string pattern = (fs::temp_directory_path() / "hassium-interp-XXXXXX").string();
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  const std::string dir = pattern;
  Wide w;
  std::vector<std::string> expect =
      w.run(*engine_with(cpu::InterpreterMode::NONE, KernelCacheMode::MEMORY));
  {
    auto e = engine_with(cpu::InterpreterMode::FIRST, KernelCacheMode::DISK, dir);
    CHECK(w.run(*e) == expect);
    EngineStats s = e->stats();
    CHECK(s.blocks_interpreted == 1);
    // Compiled: its 13 step kernels (no two instructions alike), not the block's kernel.
    CHECK(s.kernels_compiled == 13);
    e->wait_background_work();
    CHECK(w.run(*e) == expect);
    CHECK(e->stats().blocks_interpreted == 1); // its optimized kernel ran
  }
  auto later = engine_with(cpu::InterpreterMode::FIRST, KernelCacheMode::DISK, dir);
  CHECK(w.run(*later) == expect);
  EngineStats s = later->stats();
  CHECK(s.blocks_interpreted == 0);
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_cache_hits == 1);
  fs::remove_all(dir);
}

TEST_CASE("interpreter: which plans it runs", "[ve][cpu][interp]") {
  auto plan_of = [](Program& p) {
    std::vector<size_t> all(p.instrs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return plan::plan_block(KernelBlock{&p, all, {}});
  };
  BasePtr x = make_data_base("x", DType::FLOAT64, 64), y = make_data_base("y", DType::FLOAT64, 64),
          s = make_data_base("s", DType::FLOAT64, 1), n = make_data_base("n", DType::INT64, 64);
  Program arith, math, sum, range, fpow, ipow;
  arith.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(y), View::whole(x), Scalar::of_float(1)});
  math.instrs.emplace_back(Opcode::EXP, std::vector<Operand>{View::whole(y), View::whole(x)});
  sum.instrs.emplace_back(Opcode::ADD_REDUCE,
                          std::vector<Operand>{view(s, 0, {}, {}), View::whole(x), axis_const(0)});
  range.instrs.emplace_back(Opcode::RANGE, std::vector<Operand>{View::whole(n)});
  fpow.instrs.emplace_back(
      Opcode::POWER, std::vector<Operand>{View::whole(y), View::whole(x), Scalar::of_float(3)});
  ipow.instrs.emplace_back(Opcode::POWER,
                           std::vector<Operand>{View::whole(n), View::whole(n), Scalar::of_int(3)});
  CHECK(cpu::interpretable(plan_of(arith)));
  CHECK(cpu::interpretable(plan_of(ipow)));
  CHECK_FALSE(cpu::interpretable(plan_of(math))); // libmvec in the body, libm in the tail
  CHECK_FALSE(cpu::interpretable(plan_of(fpow)));
  CHECK_FALSE(cpu::interpretable(plan_of(sum)));
  CHECK_FALSE(cpu::interpretable(plan_of(range)));
  // A one-instruction contiguous block's steps: one step kernel, of the block's own structure.
  cpu::InterpretedKernel k(plan_of(arith));
  REQUIRE(k.step_plans().size() == 1);
  CHECK(k.step_plans()[0].spec == plan_of(arith).spec);
}

TEST_CASE("interpreter: a kernel error is the kernel's, and the engine stays usable",
          "[ve][cpu][interp]") {
  BasePtr x = make_data_base("x", DType::INT64, 2000), y = make_data_base("y", DType::INT64, 2000);
  fill<int64_t>(View::whole(x), [](int64_t i) { return i == 1500 ? -2 : 2; });
  Program p;
  BasePtr t = make_temp_base("t", DType::INT64, 2000);
  p.instrs.emplace_back(Opcode::ADD,
                        std::vector<Operand>{View::whole(t), View::whole(x), Scalar::of_int(0)});
  p.instrs.emplace_back(Opcode::POWER,
                        std::vector<Operand>{View::whole(y), Scalar::of_int(3), View::whole(t)});
  auto messages = [&](cpu::InterpreterMode mode) {
    auto e = engine_with(mode, KernelCacheMode::MEMORY);
    std::string msg;
    try {
      run_all(*e, p, {t.get()});
    } catch (const UserError& err) {
      msg = err.what();
    }
    data_of<int64_t>(x)[1500] = 2;
    run_all(*e, p, {t.get()}); // usable: runs clean now
    data_of<int64_t>(x)[1500] = -2;
    CHECK(data_of<int64_t>(y)[7] == 9);
    return std::make_pair(msg, e->stats().blocks_interpreted);
  };
  auto [interp_msg, interp_runs] = messages(cpu::InterpreterMode::ALWAYS);
  auto [kernel_msg, kernel_runs] = messages(cpu::InterpreterMode::NONE);
  CHECK(interp_msg.find("negative integer powers") != std::string::npos);
  CHECK(interp_msg == kernel_msg);
  CHECK(interp_runs == 2);
  CHECK(kernel_runs == 0);
}

#ifdef HASSIUM_BUILD_STEP_DIR
TEST_CASE("interpreter: step kernels built ahead of time are loaded, not compiled, and their "
          "directory is only read",
          "[ve][cpu][interp][cache]") {
  const std::string steps = HASSIUM_BUILD_STEP_DIR;
  REQUIRE(fs::is_directory(steps));
  auto files = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(steps)) n += e.path().extension() == ".o";
    return n;
  };
  // Every prebuilt step is there (the build ran `hassium build-steps` into it), each once.
  const std::vector<cpu::KernelPlan> prebuilt = cpu::prebuilt_step_plans();
  std::set<std::string> specs;
  for (const cpu::KernelPlan& p : prebuilt) specs.insert(p.spec);
  CHECK(specs.size() == prebuilt.size());
  CHECK(prebuilt.size() > 1000);
  const size_t before = files();
  CHECK(before == prebuilt.size());
  Wide w;
  std::vector<std::string> expect =
      w.run(*engine_with(cpu::InterpreterMode::NONE, KernelCacheMode::MEMORY));
  CpuOptions o;
  o.threads = 2;
  o.cache = KernelCacheMode::MEMORY;
  o.interpreter = cpu::InterpreterMode::FIRST;
  o.step_dir = steps;
  auto e = make_cpu_engine(o);
  CHECK(w.run(*e) == expect);
  EngineStats s = e->stats();
  CHECK(s.blocks_interpreted == 1);
  CHECK(s.kernels_compiled == 0); // all 13 steps are prebuilt (common dtypes, every pattern)
  CHECK(s.disk_cache_hits == 13);
  e->wait_background_work();
  CHECK(files() == before); // the block's optimized kernel went to memory, not there
  // Without the directory the same steps compile.
  o.step_dir = "";
  auto alone = make_cpu_engine(o);
  CHECK(w.run(*alone) == expect);
  CHECK(alone->stats().kernels_compiled == 13);
}
#endif
