// Every CUDA C program the GPU engine generates for the `hassium run` corpus (every opcode x
// dtype, reductions over every axis, scans: test/run/cases) compiles with NVRTC for sm_90 (a
// quarter each for sm_75 and sm_120), and ptxas accepts each PTX. The engine runs on a
// SourceRecorder (no GPU needed). The programs compile in batches, one translation unit each
// (ve/gpu/program_batch.h, as the engine compiles a flush's new kernels: the common header once,
// each program's names kept apart by macros): NVRTC's and ptxas's start-up is ~60% of a lone
// program's compile. A failed batch compiles its
// programs one by one, so a failure names the program as a lone compile would.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/runtime.h"
#include "ir/text/parser.h"
#include "test/ve/cuda_source_recorder.h"
#include "ve/cuda/nvrtc.h"
#include "ve/gpu/dialect.h"
#include "ve/gpu/gpu_engine.h"
#include "ve/gpu/program_batch.h"
#include "vem/node/node_vem.h"

using namespace hassium;
namespace fs = std::filesystem;

namespace {

// Runs `file` as `hassium run` does (a flush after a SYNC whose base changes later), on the GPU
// engine over a SourceRecorder. False when the program is rejected before it runs.
bool record(const fs::path& file, std::set<std::string>& sources, std::string& why) {
  Program p = parse_file(file.string());
  GpuOptions options;
  options.cache = KernelCacheMode::NONE;
  options.cpu.optimize_at_exit = false; // no child process at the test's exit
  Stack stack;
  stack.backend = std::make_unique<NodeVem>(
      make_gpu_engine(std::make_unique<cuda_check::SourceRecorder>(sources), options, "cuda"),
      FuserOptions{}, nullptr);
  Runtime runtime;
  runtime.install(std::move(stack));
  std::unordered_map<const Base*, size_t> last_change;
  for (size_t i = 0; i < p.instrs.size(); ++i)
    if (p.instrs[i].op != Opcode::SYNC) last_change[p.instrs[i].out().base.get()] = i;
  try {
    for (size_t i = 0; i < p.instrs.size(); ++i) {
      runtime.record(p.instrs[i]);
      const Base* base = p.instrs[i].out().base.get();
      if (p.instrs[i].op == Opcode::SYNC && last_change.count(base) && last_change[base] > i)
        runtime.flush();
    }
    runtime.flush();
  } catch (const UserError& e) {
    why = e.what();
    return false;
  }
  return true;
}

// ptxas on `ptx` for `arch`: empty when accepted, else its output.
std::string ptxas(const std::string& ptx, const std::string& arch) {
  static std::atomic<int> counter{0};
  fs::path dir = fs::temp_directory_path() /
                 ("hassium-gen-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "k.ptx") << ptx;
  const std::string cmd = std::string(HASSIUM_PTXAS) + " -arch=" + arch + " -o " +
                          (dir / "k.cubin").string() + " " + (dir / "k.ptx").string() + " > " +
                          (dir / "log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream l(dir / "log");
  std::string text((std::istreambuf_iterator<char>(l)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return rc == 0 ? std::string() : text;
}

// The text every generated program starts with (ve/gpu/program_batch.h).
const std::string& common_header() {
  static const std::string header = gpu::program_header(gpu::Dialect::cuda());
  return header;
}

} // namespace

TEST_CASE(
    "the generated CUDA C of the run corpus compiles for sm_90 (and shares for sm_75, sm_120)",
    "[cuda][generated]") {
  if (std::string why = cuda::Nvrtc::unavailable_reason(); !why.empty()) {
    WARN("skipped: " << why);
    return;
  }
  const cuda::Nvrtc& nvrtc = cuda::Nvrtc::get();
  std::set<std::string> sources;
  size_t cases = 0, rejected = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (const auto& entry : fs::directory_iterator(fs::path(HASSIUM_TEST_DIR) / "run" / "cases")) {
    if (entry.path().extension() != ".hsb") continue;
    ++cases;
    std::string why;
    if (!record(entry.path(), sources, why)) ++rejected;
  }
  std::printf("test_cuda_generated: %zu cases (%zu rejected before running) gave %zu distinct "
              "programs in %.1f s\n",
              cases, rejected, sources.size(), seconds());
  INFO(cases << " cases, " << rejected << " rejected before running, " << sources.size()
             << " distinct programs");
  // HASSIUM_TEST_CUDA_DUMP=DIR writes the programs there (prog-N.cu), to study them by hand.
  if (const char* dir = std::getenv("HASSIUM_TEST_CUDA_DUMP"); dir && *dir) {
    fs::create_directories(dir);
    size_t i = 0;
    for (const std::string& source : sources)
      std::ofstream(fs::path(dir) / ("prog-" + std::to_string(i++) + ".cu")) << source;
  }
  CHECK(cases > 100);
  CHECK(sources.size() > 50);
  const bool have_ptxas = std::string(HASSIUM_PTXAS).size() && fs::exists(HASSIUM_PTXAS);
  if (!have_ptxas) WARN("ptxas not found: PTX not checked by ptxas");
  // Every program for sm_90 (the H100 the engine is measured on); sm_75 and sm_120, the oldest
  // and newest architectures, get every fourth program (a different quarter each), which keeps
  // their feature gaps covered at a third of the time. HASSIUM_TEST_CUDA_ALL=1: every program for
  // every architecture (~8 minutes on 2 cores); HASSIUM_TEST_CUDA_ARCHS="sm_90" narrows the run.
  struct ArchShare {
    std::string arch;
    size_t stride, phase;
  };
  std::vector<ArchShare> archs = {{"sm_75", 4, 1}, {"sm_90", 1, 0}, {"sm_120", 4, 3}};
  if (const char* all = std::getenv("HASSIUM_TEST_CUDA_ALL"); all && std::string(all) == "1")
    for (ArchShare& a : archs) a.stride = 1;
  if (const char* env = std::getenv("HASSIUM_TEST_CUDA_ARCHS"); env && *env) archs = {{env, 1, 0}};
  // Every program starts with the common header (else the batching below would be wrong).
  std::vector<const std::string*> programs;
  for (const std::string& source : sources) {
    REQUIRE(gpu::has_header(source, common_header()));
    programs.push_back(&source);
  }
  // Work items: up to kBatch programs of one architecture.
  constexpr size_t kBatch = 24;
  struct Batch {
    std::string arch;
    std::vector<const std::string*> sources;
  };
  std::vector<Batch> work;
  size_t compiles = 0;
  for (const ArchShare& share : archs) {
    if (!nvrtc.supports(cuda::arch_number(share.arch))) {
      WARN("NVRTC " << nvrtc.version() << " has no " << share.arch);
      continue;
    }
    for (size_t i = share.phase; i < programs.size(); i += share.stride) {
      if (work.empty() || work.back().arch != share.arch || work.back().sources.size() == kBatch)
        work.push_back({share.arch, {}});
      work.back().sources.push_back(programs[i]);
      ++compiles;
    }
  }
  // NVRTC is thread-safe: the batches compile on every core (ptxas runs as a child process).
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> problems;
  // Empty when `source` compiles for `arch` and ptxas accepts it, else what went wrong.
  auto check = [&](const std::string& source, const std::string& arch) {
    try {
      // PTX only (compute_XY), assembled once by ptxas; without ptxas NVRTC assembles it.
      const std::string virt = "compute_" + arch.substr(3);
      cuda::NvrtcOutput out = nvrtc.compile(source, have_ptxas ? virt : arch);
      return have_ptxas ? ptxas(out.ptx, arch) : std::string();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  };
  auto worker = [&] {
    for (size_t i; (i = next++) < work.size();) {
      const Batch& batch = work[i];
      const std::string text = gpu::batch_source(common_header(), batch.sources);
      if (check(text, batch.arch).empty()) continue;
      std::vector<std::string> found;
      for (const std::string* source : batch.sources)
        if (std::string problem = check(*source, batch.arch); !problem.empty())
          found.push_back(batch.arch + ": " + problem + "\n--- source:\n" + *source);
      if (found.empty()) // the batch failed, each program alone passes: the batching is wrong
        found.push_back(batch.arch + ": a batch failed whose programs compile alone:\n" +
                        check(text, batch.arch));
      std::lock_guard lock(mutex);
      problems.insert(problems.end(), found.begin(), found.end());
    }
  };
  std::vector<std::thread> threads;
  const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const size_t failures = problems.size();
  for (size_t i = 0; i < std::min<size_t>(failures, 3); ++i) FAIL_CHECK(problems[i]);
  std::printf("test_cuda_generated: %zu programs, %zu (program, architecture) compiles in %zu "
              "batches%s, %zu failed, %.1f s in all\n",
              sources.size(), compiles, work.size(), have_ptxas ? " passed to ptxas" : "", failures,
              seconds());
  CHECK(failures == 0);
}
