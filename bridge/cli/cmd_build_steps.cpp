// `hassium build-steps DIR`: compiles the interpreter's step kernels ahead of time into DIR (the
// build runs it into build/step-kernels, what [cpu] step_dir = auto reads), on every core;
// objects of DIR that are not among them (an older build's keys) are removed.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "bridge/cli/command.h"
#include "ve/cpu/interpreter.h"
#include "ve/cpu/jit_compiler.h"

namespace {
int build_steps(const std::string& dir) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::vector<hassium::cpu::KernelPlan> plans = hassium::cpu::prebuilt_step_plans();
  hassium::cpu::JitCompiler jit(3, dir, /*transient=*/false);
  std::vector<std::string> files(plans.size());
  std::atomic<size_t> next{0}, compiled{0};
  auto work = [&] {
    for (size_t i; (i = next++) < plans.size();) {
      hassium::cpu::CompileResult r = jit.compile(plans[i], hassium::cpu::Tier::OPTIMIZED);
      files[i] = "hs_" + r.key + ".o";
      compiled += r.outcome == hassium::cpu::CompileOutcome::COMPILED;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  const std::set<std::string> keep(files.begin(), files.end());
  size_t removed = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".o" && !keep.count(e.path().filename().string()))
      removed += std::filesystem::remove(e.path());
  std::cout << keep.size() << " step kernels in " << dir << " (" << compiled << " compiled, "
            << keep.size() - compiled << " there already, " << removed << " stale removed) in "
            << std::chrono::duration<double>(Clock::now() - t0).count() << " s\n";
  return 0;
}
} // namespace

HS_CLI_COMMAND(build_steps) {
  auto* sub = app.add_subcommand(
      "build-steps", "Compile the interpreter's step kernels ahead of time into a directory "
                     "(the build does, into its step-kernels directory: [cpu] step_dir).");
  static std::string dir;
  sub->add_option("dir", dir, "the directory (created if missing)")->required();
  sub->callback([&exit_code] { exit_code = build_steps(dir); });
}
