// Tests of bridge/cxx/profile.cpp: hassium::profile() after a known program gives the counts the
// stack saw (a spy backend records them), sane costs, bytes and the slowest kernels.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/runtime.h"
#include "hassium/hassium.h"
#include "vem/stack.h"

using namespace hassium;

namespace {
// Counts the flushed programs, then runs them on the real stack.
class CountingBackend : public Backend {
public:
  explicit CountingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return "counting"; }
  void execute(const Program& program) override {
    ++flushes;
    instructions += int64_t(program.instrs.size());
    inner_->execute(program);
  }
  void add_counters(ProfileCounters& c) const override { inner_->add_counters(c); }
  int64_t flushes = 0, instructions = 0;

private:
  std::unique_ptr<Backend> inner_;
};
} // namespace

TEST_CASE("hassium::profile() reports what the stack ran") {
  StackOptions options = StackOptions::from_config(Config::defaults({{"HOME", "/tmp"}}));
  options.filters.clear(); // the spy then sees exactly what was recorded
  options.profile = true;
  options.cpu.cache = KernelCacheMode::MEMORY;
  Stack stack = build_stack(options);
  stack.profile = false; // no report at exit from a test
  auto counting = std::make_unique<CountingBackend>(std::move(stack.backend));
  CountingBackend* spy = counting.get();
  stack.backend = std::move(counting);
  Runtime::instance().install(std::move(stack));

  constexpr int64_t n = 1000;
  double total = 0;
  for (int k = 0; k < 3; ++k) {
    auto x = linspace(0.0, 1.0, n);
    auto y = sin(x) * 2.0 + 1.0;
    total += sum(y).item();
  }
  CHECK(total > 3 * n);
  ProfileCounters p = profile();
  CHECK(p.flushes == spy->flushes);
  CHECK(p.instructions == spy->instructions);
  CHECK(p.flushes >= 3);
  CHECK(p.blocks >= p.flushes);
  CHECK(p.partition_cost > 0);
  CHECK(p.singleton_cost >= p.partition_cost);
  CHECK(p.fused_to_singleton() > 0);
  CHECK(p.fused_to_singleton() <= 1);
  CHECK(p.bytes_moved >= 3 * n * 8); // at least x, written three times
  CHECK(p.kernels_compiled >= 1);
  CHECK(p.kernel_memory_hits >= 1); // the same kernels in loops 2 and 3
  CHECK(p.kernel_cache_hit_rate() > 0);
  CHECK(p.execute_seconds > 0);
  REQUIRE_FALSE(p.slowest_kernels.empty());
  CHECK(p.slowest_kernels.size() <= ProfileCounters::kMaxSlowestKernels);
  for (size_t k = 1; k < p.slowest_kernels.size(); ++k)
    CHECK(p.slowest_kernels[k - 1].seconds >= p.slowest_kernels[k].seconds);
  int64_t runs = 0;
  for (const auto& kt : p.slowest_kernels) {
    CHECK_THAT(kt.bytecode, Catch::StartsWith(".base a0 "));
    runs += kt.runs;
  }
  CHECK(runs >= 3);

  std::ostringstream report;
  print_profile(report, p);
  CHECK_THAT(report.str(),
             Catch::Contains("flushes: ") && Catch::Contains(std::to_string(p.flushes) + "\n") &&
                 Catch::Contains("slowest kernels") && Catch::Contains("fused / singleton cost"));
}
