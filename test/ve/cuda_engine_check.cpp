// cuda_engine_check: runs the `hassium run` corpus (test/run/cases, every opcode x dtype) on the
// GPU engine over a real device and on the CPU engine, and compares every SYNC'd array: integers
// and bools bit for bit, floats exact or within a few ulps (transcendental functions). No Python.
//
//   cuda_engine_check [--device cuda|opencl] [--cases DIR] [--match TEXT] [--ulps N] [--verbose]
//   cuda_engine_check [--device ...] --bench TRACE.hsb [--bench ...] [--size N] [--repeat R]
//     times traces (benchmarks/traces) scaled to N elements on both engines
//   cuda_engine_check --device recorder --sources DIR --bench TRACE.hsb ... [--size N]
//     no GPU: writes the CUDA C programs the traces generate to DIR/prog-K.cu (for ptxas -v)
// Exit 77: no such device here (the reason is printed).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/profile.h"
#include "core/runtime.h"
#include "ir/fusion/merge_cache.h"
#include "ir/text/parser.h"
#include "test/ve/cuda_source_recorder.h"
#include "ve/cpu/cpu_engine.h"
#include "ve/cuda/cuda_device.h"
#include "ve/cuda/cuda_driver.h"
#include "ve/cuda/nvrtc.h"
#include "ve/gpu/gpu_engine.h"
#include "vem/node/node_vem.h"
#ifdef HASSIUM_HAVE_OPENCL
#include "ve/opencl/opencl_device.h"
#endif

using namespace hassium;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// What a run of one case left: each SYNC'd base's name, dtype and bytes, in order; or the
// error it raised.
struct Outcome {
  struct Synced {
    std::string name;
    DType dtype;
    std::vector<char> bytes;
  };
  std::vector<Synced> synced;
  std::string error;
  double seconds = 0;
};

// Runs `file` as `hassium run` does (a flush after a SYNC whose base changes later) on `engine`.
Outcome run_case(const fs::path& file, std::unique_ptr<Engine> engine) {
  Outcome out;
  Program p = parse_file(file.string());
  Stack stack;
  stack.backend = std::make_unique<NodeVem>(std::move(engine), FuserOptions{}, nullptr);
  Runtime runtime;
  runtime.install(std::move(stack));
  std::unordered_map<const Base*, size_t> last_change;
  for (size_t i = 0; i < p.instrs.size(); ++i)
    if (p.instrs[i].op != Opcode::SYNC) last_change[p.instrs[i].out().base.get()] = i;
  std::vector<const Base*> pending;
  auto flush = [&] {
    runtime.flush();
    for (const Base* b : pending) {
      const char* d = static_cast<const char*>(b->data);
      out.synced.push_back(
          {b->name, b->dtype, d ? std::vector<char>(d, d + b->nbytes()) : std::vector<char>()});
    }
    pending.clear();
  };
  const auto t0 = Clock::now();
  try {
    for (size_t i = 0; i < p.instrs.size(); ++i) {
      runtime.record(p.instrs[i]);
      if (p.instrs[i].op != Opcode::SYNC) continue;
      const Base* base = p.instrs[i].out().base.get();
      pending.push_back(base);
      if (last_change.count(base) && last_change[base] > i) flush();
    }
    flush();
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

// ulps between two floats of the same type (0 when equal or both NaN).
template <typename F, typename I> uint64_t ulps(F a, F b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return UINT64_MAX;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  // Map to a monotonic integer line.
  auto line = [](I x) { return x < 0 ? std::numeric_limits<I>::min() - x : x; };
  const I la = line(ia), lb = line(ib);
  return la > lb ? uint64_t(la) - uint64_t(lb) : uint64_t(lb) - uint64_t(la);
}

// The largest ulp distance between two arrays' elements (0: bit for bit or NaN alike);
// UINT64_MAX for integers that differ.
uint64_t distance(const Outcome::Synced& a, const Outcome::Synced& b, std::string& where) {
  if (a.bytes.size() != b.bytes.size()) return where = "sizes differ", UINT64_MAX;
  if (a.bytes == b.bytes) return 0;
  const DType real = is_complex(a.dtype) ? real_part_type(a.dtype) : a.dtype;
  if (!is_float(real)) {
    for (size_t i = 0; i < a.bytes.size(); ++i)
      if (a.bytes[i] != b.bytes[i]) {
        where = "byte " + std::to_string(i);
        break;
      }
    return UINT64_MAX;
  }
  uint64_t worst = 0;
  const size_t size = size_t(dtype_size(real));
  for (size_t i = 0; i + size <= a.bytes.size(); i += size) {
    uint64_t d;
    if (real == DType::FLOAT64) {
      double x, y;
      std::memcpy(&x, &a.bytes[i], 8);
      std::memcpy(&y, &b.bytes[i], 8);
      d = ulps<double, int64_t>(x, y);
      if (d > worst)
        where = "element " + std::to_string(i / 8) + ": " + std::to_string(x) + " vs " +
                std::to_string(y);
    } else {
      float x, y;
      std::memcpy(&x, &a.bytes[i], 4);
      std::memcpy(&y, &b.bytes[i], 4);
      d = ulps<float, int32_t>(x, y);
      if (d > worst)
        where = "element " + std::to_string(i / 4) + ": " + std::to_string(x) + " vs " +
                std::to_string(y);
    }
    worst = std::max(worst, d);
  }
  return worst;
}

// A device shared by the engines of every case (the engine owns its device): one context,
// one staging ring, one NVRTC warm-up for the whole run.
class SharedDevice final : public gpu::GpuDevice {
public:
  explicit SharedDevice(gpu::GpuDevice& d) : d_(d) {}
  const gpu::DeviceInfo& info() const override { return d_.info(); }
  const gpu::Dialect& dialect() const override { return d_.dialect(); }
  gpu::DeviceBuffer allocate(size_t bytes) override { return d_.allocate(bytes); }
  void release(gpu::DeviceBuffer b) override { d_.release(b); }
  void fill_zero(gpu::DeviceBuffer b) override { d_.fill_zero(b); }
  void copy_to_device(gpu::DeviceBuffer dst, size_t offset, const void* src,
                      size_t bytes) override {
    d_.copy_to_device(dst, offset, src, bytes);
  }
  void copy_to_host(void* dst, gpu::DeviceBuffer src, size_t offset, size_t bytes) override {
    d_.copy_to_host(dst, src, offset, bytes);
  }
  std::unique_ptr<gpu::DeviceProgram> compile(const std::string& source) override {
    return d_.compile(source);
  }
  std::unique_ptr<gpu::DeviceProgram> load(const std::vector<char>& binary) override {
    return d_.load(binary);
  }
  void launch(gpu::DeviceKernel& k, const gpu::LaunchGeometry& g,
              const gpu::KernelArgs& args) override {
    d_.launch(k, g, args);
  }
  void synchronize() override { d_.synchronize(); }

private:
  gpu::GpuDevice& d_;
};

// A trace scaled up for timing: bases of its most common size get `size` elements (so a
// 1000-element trace of benchmarks/traces runs at 10M), declared first; bases read before any
// write start at 1.5 (no NaN). Its .base lines must come before their first use, as in traces.
std::string scaled_trace(const fs::path& file, int64_t size) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string original;
  for (const auto& l : lines) original += l + "\n";
  Program p = parse_program(original, file.string());
  std::set<const Base*> written;
  std::vector<const Base*> unwritten;
  for (const Instruction& ins : p.instrs) {
    if (ins.op == Opcode::SYNC || ins.op == Opcode::FREE) continue;
    for (const View* v : ins.inputs())
      if (!written.count(v->base.get()) &&
          std::find(unwritten.begin(), unwritten.end(), v->base.get()) == unwritten.end())
        unwritten.push_back(v->base.get());
    written.insert(ins.out().base.get());
  }
  std::map<std::string, int> sizes;
  for (const auto& l : lines)
    if (l.rfind(".base ", 0) == 0) sizes[l.substr(l.find_last_of(' ') + 1)]++;
  std::string common;
  for (const auto& [n, count] : sizes)
    if (common.empty() || count > sizes[common]) common = n;
  std::string decls, body;
  for (const auto& l : lines) {
    if (l.rfind(".base ", 0) == 0) {
      const size_t at = l.find_last_of(' ');
      decls += (l.substr(at + 1) == common ? l.substr(0, at + 1) + std::to_string(size) : l) + "\n";
    } else if (!l.empty() && l[0] != '#') {
      body += l + "\n";
    }
  }
  for (const Base* b : unwritten)
    decls += "IDENTITY " + b->name + ", " + (is_bool(b->dtype) ? "true" : "1.5") + ":" +
             std::string(dtype_name(b->dtype)) + "\n";
  return decls + body;
}

// Runs a scaled trace `repeat` times on one engine (a program's loop: the flush plans and
// kernels of the first run serve the others); the wall time of each run, SYNCs included.
struct BenchResult {
  std::vector<double> seconds;
  ProfileCounters first, rest; // counters of the first run, and of the others together
};
BenchResult bench(const std::string& text, std::unique_ptr<Engine> engine, int repeat) {
  BenchResult r;
  // With a merge cache, as a program runs: from the second run on, the flush plans replay (no
  // fusion), so the time is the engine's.
  auto vem = std::make_unique<NodeVem>(std::move(engine), FuserOptions{},
                                       std::make_unique<MergeCache>(MergeCache::Options{}));
  vem->set_profiling(true);
  Stack stack;
  stack.backend = std::move(vem);
  Runtime runtime;
  runtime.install(std::move(stack));
  ProfileCounters before = runtime.counters();
  for (int i = 0; i < repeat; ++i) {
    Program p = parse_program(text, "bench");
    const auto t0 = Clock::now();
    for (const Instruction& ins : p.instrs) {
      runtime.record(ins);
      if (ins.op == Opcode::SYNC) runtime.flush(); // the host reads it: the copy back is timed
    }
    runtime.flush();
    r.seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (i == 0) {
      r.first = runtime.counters();
      before = r.first;
    }
  }
  r.rest = runtime.counters();
  r.rest.bytes_moved -= before.bytes_moved;
  r.rest.device_bytes_in -= before.device_bytes_in;
  r.rest.device_bytes_out -= before.device_bytes_out;
  r.rest.device_launches -= before.device_launches;
  r.rest.execute_seconds -= before.execute_seconds;
  return r;
}

int run_bench(const std::vector<fs::path>& traces, int64_t size, int repeat, gpu::GpuDevice& device,
              const std::string& name, double peak_bandwidth) {
  CpuOptions cpu;
  cpu.optimize_at_exit = false;
  GpuOptions gpu_options;
  gpu_options.cpu = cpu;
  for (const fs::path& trace : traces) {
    const std::string text = scaled_trace(trace, size);
    BenchResult c = bench(text, make_cpu_engine(cpu), repeat);
    BenchResult g = bench(
        text, make_gpu_engine(std::make_unique<SharedDevice>(device), gpu_options, name), repeat);
    auto best = [](const BenchResult& r) {
      return r.seconds.size() > 1 ? *std::min_element(r.seconds.begin() + 1, r.seconds.end())
                                  : r.seconds[0];
    };
    const double runs = std::max(1, repeat - 1);
    const double moved = double(g.rest.bytes_moved) / runs;
    std::printf("bench %s at %lld elements: cpu engine first %.1f ms, best %.2f ms | %s first "
                "%.1f ms, best %.2f ms (%.1fx the cpu engine); per run %.0f MB moved by "
                "kernels (%.3f ms at peak bandwidth), %.0f MB to the host, %.0f MB to the "
                "device, %.0f launches\n",
                trace.stem().c_str(), (long long)size, c.seconds[0] * 1e3, best(c) * 1e3,
                name.c_str(), g.seconds[0] * 1e3, best(g) * 1e3, best(c) / best(g), moved / 1e6,
                peak_bandwidth > 0 ? moved / peak_bandwidth * 1e3 : 0.0,
                double(g.rest.device_bytes_out) / runs / 1e6,
                double(g.rest.device_bytes_in) / runs / 1e6, double(g.rest.device_launches) / runs);
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // lines out as they come (a run cut short)
  std::string device = "cuda";
  fs::path cases = fs::path(HASSIUM_SOURCE_DIR) / "test" / "run" / "cases";
  uint64_t max_ulps = 4;
  bool verbose = false;
  std::string match; // only cases whose name holds this
  std::vector<fs::path> bench_traces;
  int64_t bench_size = 10'000'000;
  int bench_repeat = 5;
  fs::path sources_dir; // --device recorder: where the generated programs go
  std::set<std::string> recorded;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--match" && i + 1 < argc)
      match = argv[++i];
    else if (a == "--device" && i + 1 < argc)
      device = argv[++i];
    else if (a == "--cases" && i + 1 < argc)
      cases = argv[++i];
    else if (a == "--ulps" && i + 1 < argc)
      max_ulps = std::stoull(argv[++i]);
    else if (a == "--bench" && i + 1 < argc)
      bench_traces.push_back(argv[++i]);
    else if (a == "--size" && i + 1 < argc)
      bench_size = std::stoll(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc)
      bench_repeat = std::stoi(argv[++i]);
    else if (a == "--sources" && i + 1 < argc)
      sources_dir = argv[++i];
    else if (a == "--verbose")
      verbose = true;
    else {
      std::fprintf(stderr, "usage: cuda_engine_check [--device cuda|opencl] [--cases DIR] "
                           "[--match TEXT] [--ulps N] [--verbose] | [--bench TRACE.hsb "
                           "[--size N] [--repeat R] [--sources DIR]]\n");
      return 2;
    }
  }
  // The device, opened once up front so that a machine without one skips cleanly.
  std::unique_ptr<gpu::GpuDevice> shared;
  try {
    if (device == "cuda") {
      for (const std::string& why :
           {cuda::driver_unavailable_reason(), cuda::Nvrtc::unavailable_reason()})
        if (!why.empty()) {
          std::printf("SKIP: %s\n", why.c_str());
          return 77;
        }
      shared = cuda::make_cuda_device();
    } else if (device == "recorder") {
      shared = std::make_unique<cuda_check::SourceRecorder>(recorded);
#ifdef HASSIUM_HAVE_OPENCL
    } else if (device == "opencl") {
      shared = gpu::make_opencl_device();
#endif
    } else {
      std::fprintf(stderr, "unknown or unbuilt --device %s\n", device.c_str());
      return 2;
    }
    std::printf("cuda_engine_check: %s (%s; %s) against the CPU engine, cases from %s\n",
                shared->info().name.c_str(), shared->info().arch.c_str(),
                shared->info().versions.c_str(), cases.c_str());
  } catch (const std::exception& e) {
    std::printf("SKIP: %s\n", e.what());
    return 77;
  }

  if (!bench_traces.empty()) {
    double peak = 0;
    if (auto* c = dynamic_cast<cuda::CudaDevice*>(shared.get())) peak = c->peak_bandwidth();
    const int rc = run_bench(bench_traces, bench_size, bench_repeat, *shared, device, peak);
    if (!sources_dir.empty()) {
      fs::create_directories(sources_dir);
      size_t k = 0;
      for (const std::string& source : recorded)
        std::ofstream(sources_dir / ("prog-" + std::to_string(k++) + ".cu")) << source;
      std::printf("%zu programs written to %s\n", recorded.size(), sources_dir.c_str());
    }
    return rc;
  }

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(cases))
    if (entry.path().extension() == ".hsb" &&
        entry.path().stem().string().find(match) != std::string::npos)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  CpuOptions cpu;
  cpu.optimize_at_exit = false;
  GpuOptions gpu_options;
  gpu_options.cache = KernelCacheMode::MEMORY;
  gpu_options.cpu = cpu;
  // A fresh engine per case (as a fresh process would have), all on the one device.
  size_t identical = 0, close = 0, differ = 0, errors_alike = 0, error_mismatch = 0;
  double cpu_seconds = 0, gpu_seconds = 0;
  for (const fs::path& f : files) {
    Outcome want = run_case(f, make_cpu_engine(cpu));
    Outcome got;
    try {
      got = run_case(f,
                     make_gpu_engine(std::make_unique<SharedDevice>(*shared), gpu_options, device));
    } catch (const std::exception& e) {
      got.error = e.what();
    }
    cpu_seconds += want.seconds;
    gpu_seconds += got.seconds;
    const std::string name = f.stem().string();
    if (!want.error.empty() || !got.error.empty()) {
      const bool alike = !want.error.empty() && !got.error.empty();
      (alike ? errors_alike : error_mismatch)++;
      if (!alike || verbose)
        std::printf("  %s %s: cpu: %s | %s: %s\n", alike ? "ok  " : "FAIL", name.c_str(),
                    want.error.empty() ? "ran" : want.error.c_str(), device.c_str(),
                    got.error.empty() ? "ran" : got.error.c_str());
      continue;
    }
    uint64_t worst = 0;
    std::string where;
    if (want.synced.size() != got.synced.size()) {
      worst = UINT64_MAX;
      where = "a different number of SYNCs";
    }
    for (size_t i = 0; i < want.synced.size() && i < got.synced.size(); ++i) {
      std::string w;
      uint64_t d = distance(want.synced[i], got.synced[i], w);
      if (d > worst) {
        worst = d;
        where =
            want.synced[i].name + " (" + std::string(dtype_name(want.synced[i].dtype)) + ") " + w;
      }
    }
    if (worst == 0)
      identical++;
    else if (worst <= max_ulps)
      close++;
    else
      differ++;
    if (worst > max_ulps || (verbose && worst > 0))
      std::printf("  %s %s: %s%s\n", worst > max_ulps ? "FAIL" : "ulps", name.c_str(),
                  worst == UINT64_MAX ? "" : (std::to_string(worst) + " ulps, ").c_str(),
                  where.c_str());
  }
  std::printf("cuda_engine_check: %zu cases: %zu identical, %zu within %llu ulps, %zu differ, "
              "%zu raise alike, %zu raise on one side only; cpu %.2f s, %s %.2f s (compiles "
              "included)\n",
              files.size(), identical, close, (unsigned long long)max_ulps, differ, errors_alike,
              error_mismatch, cpu_seconds, device.c_str(), gpu_seconds);
  return differ || error_mismatch ? 1 : 0;
}
