// Tests of ve/cpu/code_pages.cpp: the read-only pages go, the process (and the JIT) keep working.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "test/ve/cpu_fixture.h"
#include "ve/cpu/code_pages.h"

using namespace hassium;
using namespace hassium::test;

namespace {

// Resident bytes of the process (/proc/self/statm, second field, in pages).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

// b = a * 2 + 1 over n elements, as one block on `engine`; returns b[n-1].
double run_axpb(Engine& engine, int64_t n) {
  auto a = make_data_base("a", DType::FLOAT64, n), b = make_data_base("b", DType::FLOAT64, n);
  for (int64_t i = 0; i < n; ++i) data_of<double>(a)[i] = double(i);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(t), View::whole(a),
                                                               Scalar::of_float(2.0)});
  p.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(b), View::whole(t), Scalar::of_float(1.0)});
  run_all(engine, p, {t.get()});
  return data_of<double>(b)[n - 1];
}

} // namespace

TEST_CASE("drop_code_pages shrinks the resident set and everything keeps running", "[ve][cpu]") {
  CpuOptions o;
  o.tiered_compile = false; // (no background compile touching the compiler's pages meanwhile)
  auto engine = make_cpu_engine(o);
  CHECK(run_axpb(*engine, 1000) == 1999.0); // the JIT has run: its code is resident
  int64_t before = resident_bytes();
  size_t dropped = cpu::drop_code_pages();
  CHECK(dropped > 0);
  CHECK(resident_bytes() < before);
  // Code comes back from the file as it runs: the cached kernel and a new compile both work.
  CHECK(run_axpb(*engine, 1000) == 1999.0);
  CHECK(run_axpb(*engine, 77) == 153.0);
  CHECK(engine->stats().kernels_compiled >= 1);
}

TEST_CASE("end_flush drops the pages only after a flush that compiled", "[ve][cpu]") {
  CpuOptions o;
  o.threads = 1;
  auto engine = make_cpu_engine(o);
  CHECK(run_axpb(*engine, 500) == 999.0);
  engine->end_flush(); // compiled: drops
  CHECK(run_axpb(*engine, 500) == 999.0);
  int64_t resident = resident_bytes();
  engine->end_flush(); // a flush of cache hits only: nothing dropped, code stays resident
  CHECK(resident_bytes() >= resident - 64 * 1024);
  o.drop_compiler_pages = false;
  auto keeping = make_cpu_engine(o);
  CHECK(run_axpb(*keeping, 300) == 599.0);
  keeping->end_flush();
  CHECK(run_axpb(*keeping, 300) == 599.0);
}

TEST_CASE("prepare compiles before the data exists, the first launch counts no extra hit",
          "[ve][cpu]") {
  CpuOptions o;
  o.threads = 1;
  auto engine = make_cpu_engine(o);
  int jit_calls = 0;
  engine->before_jit = [&] { ++jit_calls; };
  const int64_t n = 64;
  auto x = make_base("x", DType::FLOAT64, n), y = make_base("y", DType::FLOAT64, n); // no data
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(y), View::whole(x),
                                                               Scalar::of_float(4.0)});
  KernelBlock kb;
  kb.program = &p;
  kb.instrs = {0};
  auto plan = engine->make_plan(2);
  engine->prepare(*plan, 0, kb);
  engine->prepare(*plan, 0, kb); // the same slot again: nothing more to compile
  engine->prepare(*plan, 1, kb); // another block of that kernel: compiled once
  engine->end_prepare(*plan);
  CHECK(jit_calls == 1);
  CHECK(engine->stats().kernels_compiled == 1);
  CHECK(engine->stats().memory_cache_hits == 0);
  auto xd = make_data_base("x", DType::FLOAT64, n), yd = make_data_base("y", DType::FLOAT64, n);
  for (int64_t i = 0; i < n; ++i) data_of<double>(xd)[i] = double(i);
  Program q;
  q.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(yd), View::whole(xd),
                                                               Scalar::of_float(4.0)});
  KernelBlock kq{&q, {0}, {}};
  engine->launch(*plan, 0, kq);
  CHECK(data_of<double>(yd)[n - 1] == 4.0 * double(n - 1));
  CHECK(engine->stats().memory_cache_hits == 0); // the prepared kernel was counted as compiled
  engine->launch(*plan, 1, kq);
  CHECK(engine->stats().memory_cache_hits == 1); // the second block of that kernel
  engine->end_flush();
  data_of<double>(xd)[n - 1] = 1.0;
  engine->launch(*plan, 0, kq); // the next flush replays the plan: an ordinary memory hit
  CHECK(data_of<double>(yd)[n - 1] == 4.0);
  CHECK(engine->stats().memory_cache_hits == 2);
  CHECK(engine->stats().kernels_compiled == 1);
  CHECK(jit_calls == 1);
}
