// A child process for test_cpu_openmp.cpp: creates a CPU engine with the wait policy named by
// argv[1], runs a kernel big enough to use two threads, and prints what it saw. libgomp itself
// reports its spin count on stderr when OMP_DISPLAY_ENV=verbose.
#include <cstdio>
#include <cstring>

#include <dlfcn.h>

#include "core/program.h"
#include "ve/cpu/cpu_engine.h"

using namespace hassium;

namespace {
bool libgomp_loaded() {
  return dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr;
}
} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s passive|active\n", argv[0]);
    return 2;
  }
  std::printf("libgomp before engine: %s\n", libgomp_loaded() ? "yes" : "no");
  CpuOptions o;
  o.threads = 2;
  o.wait_policy = wait_policy_registry().find(argv[1]).value;
  auto engine = make_cpu_engine(o);
  const int64_t n = int64_t(1) << 18;
  BasePtr a = make_base("a", DType::FLOAT64, n), r = make_base("r", DType::FLOAT64, n);
  std::vector<double> a_mem(size_t(n), 1.5), r_mem(size_t(n), 0.0);
  a->data = a_mem.data();
  r->data = r_mem.data();
  Program p;
  p.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(r), View::whole(a), Scalar::of_float(1.0)});
  KernelBlock block;
  block.program = &p;
  block.instrs = {0};
  engine->execute(block);
  const OpenMpState& s = load_openmp();
  std::printf("libgomp after engine: %s\n", libgomp_loaded() ? "yes" : "no");
  std::printf("available=%d preloaded=%d source=%s policy=%s spincount=%s\n", int(s.available),
              int(s.preloaded), s.source.c_str(), s.wait_policy.c_str(), s.spin_count.c_str());
  std::printf("result=%g,%g\n", r_mem[0], r_mem[size_t(n) - 1]);
  a->data = r->data = nullptr;
  return 0;
}
