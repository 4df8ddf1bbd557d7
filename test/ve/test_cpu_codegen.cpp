// Tests of ve/cpu/codegen.cpp and jit_compiler.cpp: what the vectorizer makes of the kernels
// (contiguous loops use vector registers; exp/log call libmvec), the plan's loop structure, the
// cheaper tier of huge kernels.
#include <cstdlib>
#include <iostream>

#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"
#include "ve/cpu/cpu_engine.h"
#include "ve/cpu/jit_compiler.h"
#include "ve/cpu/plan.h"

using namespace hassium;
using namespace hassium::test;

namespace {
bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}
// Vector registers of AVX (ymm) or AVX-512 (zmm).
bool uses_vector_registers(const std::string& asm_text) {
  return has(asm_text, "ymm") || has(asm_text, "zmm");
}
// The plan of the triad a = b + 3 * c over n float64 elements (t contracted), recorded into p,
// which must outlive the plan (it holds the views and, through them, the bases).
cpu::KernelPlan triad_plan(Program& p, int64_t n) {
  auto a = make_data_base("a", DType::FLOAT64, n);
  auto b = make_data_base("b", DType::FLOAT64, n);
  auto c = make_data_base("c", DType::FLOAT64, n);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(t), View::whole(c),
                                                               Scalar::of_float(3.0)});
  p.instrs.emplace_back(Opcode::ADD,
                        std::vector<Operand>{View::whole(a), View::whole(b), View::whole(t)});
  KernelBlock block{&p, {0, 1}, {t.get()}};
  cpu::KernelPlan plan = cpu::plan_block(block);
  return plan;
}
} // namespace

TEST_CASE("codegen: the triad kernel is vectorized", "[ve][cpu][codegen]") {
  Program p;
  cpu::KernelPlan plan = triad_plan(p, 1 << 20);
  CHECK(plan.ndim == 1);
  cpu::JitCompiler jit(3, "", false);
  std::string text = jit.asm_text(plan);
  if (std::getenv("HASSIUM_TEST_DUMP"))
    std::cout << jit.ir_text(plan, true) << "\n" << text << "\n";
  CHECK(uses_vector_registers(text));
  CHECK(has(text, "vfmadd") == false); // a*b+c is not contracted into an FMA: NumPy rounds twice
}

TEST_CASE("codegen: exp in a fused sum calls libmvec", "[ve][cpu][codegen]") {
  const int64_t n = 1 << 20;
  auto a = make_data_base("a", DType::FLOAT64, n);
  auto b = make_data_base("b", DType::FLOAT64, n);
  auto s = make_data_base("s", DType::FLOAT64, 1);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  auto u = make_temp_base("u", DType::FLOAT64, n);
  Program p;
  p.instrs.emplace_back(Opcode::EXP, std::vector<Operand>{View::whole(t), View::whole(a)});
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(u), View::whole(t), View::whole(b)});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{view(s, 0, {}, {}), View::whole(u), axis_const(0)});
  KernelBlock block{&p, {0, 1, 2}, {t.get(), u.get()}};
  cpu::KernelPlan plan = cpu::plan_block(block);
  CHECK(plan.axis == 0);
  CHECK(plan.chunks > 1); // split along the axis into partial sums
  cpu::JitCompiler jit(3, "", false);
  std::string text = jit.asm_text(plan);
  if (std::getenv("HASSIUM_TEST_DUMP"))
    std::cout << jit.ir_text(plan, true) << "\n" << text << "\n";
  CHECK(has(text, "_ZGV"));
  CHECK(uses_vector_registers(text));
}

TEST_CASE("codegen: tanh and arctan2 use libmvec variants beyond LLVM's own table",
          "[ve][cpu][codegen]") {
  const int64_t n = 1 << 16;
  auto a = make_data_base("a", DType::FLOAT32, n), b = make_data_base("b", DType::FLOAT32, n);
  auto r = make_data_base("r", DType::FLOAT32, n);
  Program p;
  p.instrs.emplace_back(Opcode::TANH, std::vector<Operand>{View::whole(r), View::whole(a)});
  p.instrs.emplace_back(Opcode::ARCTAN2,
                        std::vector<Operand>{View::whole(r), View::whole(r), View::whole(b)});
  KernelBlock block{&p, {0, 1}, {}};
  cpu::JitCompiler jit(3, "", false);
  std::string text = jit.asm_text(cpu::plan_block(block));
  CHECK(has(text, "v_tanhf"));
  CHECK(has(text, "vv_atan2f"));
}

TEST_CASE("codegen: a kernel past large_kernel only gets the fast code generator",
          "[ve][cpu][codegen]") {
  Program p;
  cpu::KernelPlan plan = triad_plan(p, 1 << 12);
  cpu::JitCompiler full(3, "", false, 0), cheap(3, "", false, 1); // every kernel is "large"
  // The fast tier is a kernel that may still be optimized; past large_kernel it is final.
  cpu::CompileResult ff = full.compile(plan, cpu::Tier::FAST);
  CHECK(ff.tier == cpu::Tier::FAST);
  CHECK_FALSE(ff.final);
  cpu::CompileResult fo = full.compile(plan, cpu::Tier::OPTIMIZED);
  CHECK(fo.tier == cpu::Tier::OPTIMIZED);
  CHECK(fo.final);
  CHECK(fo.key != ff.key); // another code generator is another kernel (the key covers it)
  cpu::CompileResult co = cheap.compile(plan, cpu::Tier::OPTIMIZED);
  CHECK(co.tier == cpu::Tier::FAST);
  CHECK(co.final);
  CHECK(co.key == ff.key); // the same machine code as the fast tier of an unlimited engine
  // Both code generators get the vectorized IR of the kernel pipeline.
  CHECK(uses_vector_registers(full.asm_text(plan, cpu::Tier::FAST)));
  CHECK(uses_vector_registers(full.asm_text(plan, cpu::Tier::OPTIMIZED)));
  CHECK(has(full.ir_text(plan, true), "<8 x double>") == has(full.features(), "+avx512f"));
}

TEST_CASE("codegen: opt_level 0 is one tier, unoptimized", "[ve][cpu][codegen]") {
  Program p;
  cpu::KernelPlan plan = triad_plan(p, 1 << 12);
  cpu::JitCompiler none(0, "", false);
  cpu::CompileResult r = none.compile(plan, cpu::Tier::FAST);
  CHECK(r.tier == cpu::Tier::FAST);
  CHECK(r.final);
  CHECK(none.ir_text(plan, true) == none.ir_text(plan, false));
}

TEST_CASE("cpu engine: a kernel past large_kernel computes what an optimized one does",
          "[ve][cpu][codegen]") {
  const int64_t n = 3000;
  auto a = make_data_base("a", DType::FLOAT64, n), r = make_data_base("r", DType::FLOAT64, n);
  for (int64_t i = 0; i < n; ++i) data_of<double>(a)[i] = double(i % 97) * 0.125 - 3.0;
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(r), View::whole(a), View::whole(a)});
  for (int k = 0; k < 40; ++k) // a long chain: one loop body of 80 operations
    p.instrs.emplace_back(k % 2 ? Opcode::SUBTRACT : Opcode::ADD,
                          std::vector<Operand>{View::whole(r), View::whole(r), View::whole(a)});
  std::vector<double> want;
  for (int64_t large : {int64_t(0), int64_t(1)}) {
    CpuOptions o;
    o.large_kernel = large;
    o.tiered_compile = false;
    auto engine = make_cpu_engine(o);
    run_all(*engine, p, {});
    const double* got = data_of<double>(r);
    if (want.empty()) {
      want.assign(got, got + n);
      continue;
    }
    for (int64_t i = 0; i < n; ++i) REQUIRE(got[i] == want[size_t(i)]);
  }
}

TEST_CASE("codegen: every transcendental op calls libmvec at the host's full vector width",
          "[ve][cpu][codegen]") {
  cpu::JitCompiler jit(3, "", false);
  const bool avx512 = has(jit.features(), "+avx512f"), avx2 = has(jit.features(), "+avx2");
  const Opcode unary[] = {Opcode::EXP,     Opcode::EXP2,    Opcode::EXPM1,   Opcode::LOG,
                          Opcode::LOG2,    Opcode::LOG10,   Opcode::LOG1P,   Opcode::SIN,
                          Opcode::COS,     Opcode::TAN,     Opcode::ARCSIN,  Opcode::ARCCOS,
                          Opcode::ARCTAN,  Opcode::SINH,    Opcode::COSH,    Opcode::TANH,
                          Opcode::ARCSINH, Opcode::ARCCOSH, Opcode::ARCTANH, Opcode::CBRT};
  const Opcode binary[] = {Opcode::POWER, Opcode::ARCTAN2, Opcode::HYPOT};
  for (DType t : {DType::FLOAT64, DType::FLOAT32}) {
    const int lanes = (avx512 ? 64 : avx2 ? 32 : 16) / int(dtype_size(t));
    const std::string width = std::string("_ZGV") +
                              (avx512 ? "e"
                               : avx2 ? "d"
                                      : "b") +
                              "N" + std::to_string(lanes);
    auto check = [&](Opcode op, bool two) {
      INFO(op_name(op) << " " << dtype_name(t) << ": wants " << width);
      const int64_t n = 1 << 12;
      auto a = make_data_base("a", t, n), b = make_data_base("b", t, n);
      auto r = make_data_base("r", t, n);
      Program p;
      std::vector<Operand> ops = {View::whole(r), View::whole(a)};
      if (two) ops.push_back(View::whole(b));
      p.instrs.emplace_back(op, ops);
      KernelBlock block{&p, {0}, {}};
      const std::string text = jit.asm_text(cpu::plan_block(block));
      CHECK(has(text, width));
    };
    for (Opcode op : unary) check(op, false);
    for (Opcode op : binary) check(op, true);
  }
}
