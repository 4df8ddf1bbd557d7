// cuda_device_check: runs the CUDA device (ve/cuda) on a real GPU with no Python and no LLVM:
// opens the device, compiles (or loads) the check kernels, checks their values against the host,
// counts copies, measures the bandwidth of streaming kernels against the device's peak.
//
//   cuda_device_check [--size-mb N] [--binaries DIR]   run on the GPU (exit 77: no GPU/driver)
//   cuda_device_check --fault                          a failed launch is reported (needs NVRTC)
//   cuda_device_check --emit-binaries DIR [ARCH...]     write the kernels' cubins (default
//                                                       sm_90) and PTX (compute_90) here, for a
//                                                       GPU machine without NVRTC (--binaries)
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/profile.h"
#include "test/ve/cuda_check_kernels.h"
#include "ve/cuda/cuda_device.h"
#include "ve/cuda/cuda_driver.h"
#include "ve/cuda/nvrtc.h"

using namespace hassium;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

int passed = 0, failed = 0;

void report(bool ok, const std::string& what, const std::string& detail = {}) {
  (ok ? passed : failed)++;
  std::printf("  %s  %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  std::fflush(stdout);
}

int64_t bits(double x) {
  int64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

std::string source_of(const std::string& name) {
  for (const auto& [n, s] : cuda_check::kernels())
    if (n == name) return gpu::Dialect::cuda().prelude + s;
  throw InternalError("no check kernel " + name);
}

std::vector<char> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int emit_binaries(const fs::path& dir, std::vector<std::string> archs) {
  if (archs.empty()) archs = {"sm_90", "compute_90"};
  fs::create_directories(dir);
  const cuda::Nvrtc& nvrtc = cuda::Nvrtc::get();
  for (const auto& arch : archs)
    for (const auto& [name, source] : cuda_check::kernels()) {
      cuda::NvrtcOutput out = nvrtc.compile(source_of(name), arch, name + ".cu");
      const bool cubin = !out.cubin.empty();
      fs::path p = dir / (name + "." + arch + (cubin ? ".cubin" : ".ptx"));
      std::ofstream f(p, std::ios::binary);
      if (cubin)
        f.write(out.cubin.data(), std::streamsize(out.cubin.size()));
      else
        f << out.ptx << '\0';
      std::printf("wrote %s (%zu bytes, NVRTC %s)\n", p.c_str(),
                  size_t(cubin ? out.cubin.size() : out.ptx.size()), nvrtc.version().c_str());
    }
  return 0;
}

struct Check {
  cuda::CudaDevice& dev;
  std::map<std::string, std::unique_ptr<gpu::DeviceProgram>> programs; // one per kernel

  gpu::DeviceKernel& k(const std::string& name) { return programs.at(name)->kernel(name); }

  // A 1-D grid-stride launch over n elements.
  gpu::LaunchGeometry grid(int64_t n, size_t local = 256) {
    gpu::LaunchGeometry g;
    size_t groups = size_t((n + int64_t(local) - 1) / int64_t(local));
    groups = std::max<size_t>(1, std::min(groups, size_t(dev.info().compute_units) * 16));
    g.global[0] = groups * local;
    g.local[0] = local;
    return g;
  }

  template <typename T> gpu::DeviceBuffer upload(const std::vector<T>& v) {
    gpu::DeviceBuffer b = dev.allocate(v.size() * sizeof(T));
    dev.copy_to_device(b, 0, v.data(), v.size() * sizeof(T));
    return b;
  }
  template <typename T> std::vector<T> download(gpu::DeviceBuffer b, size_t n) {
    std::vector<T> v(n);
    dev.copy_to_host(v.data(), b, 0, n * sizeof(T));
    return v;
  }
};

// Compiles every check kernel, or loads it from DIR (cubin for the device's arch, else PTX).
bool get_kernels(Check& c, const std::string& binaries) {
  bool ok = true;
  const bool have_nvrtc = cuda::Nvrtc::unavailable_reason().empty();
  for (const auto& [name, source] : cuda_check::kernels()) {
    try {
      auto t = Clock::now();
      if (have_nvrtc) {
        c.programs[name] = c.dev.compile(source_of(name));
        c.k(name);
        std::printf("  compiled %-12s %6.1f ms (NVRTC, %s)\n", name.c_str(), seconds_since(t) * 1e3,
                    c.dev.compile_arch().c_str());
        continue;
      }
      for (const std::string& file :
           {name + "." + c.dev.info().arch + ".cubin", name + ".compute_90.ptx"}) {
        if (binaries.empty() || !fs::exists(fs::path(binaries) / file)) continue;
        if (auto program = c.dev.load(read_file(fs::path(binaries) / file))) {
          program->kernel(name);
          c.programs[name] = std::move(program);
          std::printf("  loaded   %-12s %6.1f ms (%s)\n", name.c_str(), seconds_since(t) * 1e3,
                      file.c_str());
          break;
        }
      }
      if (!c.programs.count(name))
        throw UserError(cuda::Nvrtc::unavailable_reason() + "; and no usable binary of " + name +
                        " in --binaries '" + binaries + "'");
    } catch (const std::exception& e) {
      report(false, "kernel " + name, e.what());
      ok = false;
    }
  }
  if (ok) report(true, "all " + std::to_string(c.programs.size()) + " kernels ready");
  return ok;
}

void check_values(Check& c) {
  cuda::CudaDevice& dev = c.dev;
  const int64_t n = (1 << 20) + 12345;
  const size_t N = size_t(n);
  std::vector<double> a(N), b(N), x(N);
  for (int64_t i = 0; i < n; ++i) {
    a[size_t(i)] = std::sin(double(i)) * 1e3;
    b[size_t(i)] = std::cos(double(i) * 0.7) + 1.0 / (1 + double(i));
    x[size_t(i)] = double((i * 7919) % 1000) - 500; // integers: their sum is exact
  }
  const cuda::CudaDeviceStats before = dev.stats();
  auto da = c.upload(a), db = c.upload(b), dx = c.upload(x);
  auto dout = dev.allocate(size_t(n) * 8);

  { // triad: bit for bit (one multiply, one add, each rounded)
    const double s = 3.0 / 7.0;
    dev.launch(c.k("hs_triad"), c.grid(n), {{dout, da, db}, {n, bits(s)}});
    auto out = c.download<double>(dout, size_t(n));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      bad += bits(out[size_t(i)]) != bits(a[size_t(i)] + s * b[size_t(i)]);
    report(bad == 0, "triad a = b + s * c, bit for bit", std::to_string(bad) + " differ");
  }
  { // muladd: no fused multiply-add
    dev.launch(c.k("hs_muladd"), c.grid(n), {{dout, da, db, dx}, {n}});
    auto out = c.download<double>(dout, size_t(n));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      volatile double p = a[size_t(i)] * b[size_t(i)];
      bad += bits(out[size_t(i)]) != bits(p + x[size_t(i)]);
    }
    report(bad == 0, "a * b + c rounded twice (--fmad=false), bit for bit",
           std::to_string(bad) + " differ");
  }
  { // sum: two passes through shared memory; 64 KiB of dynamic shared memory asks for opt-in
    gpu::LaunchGeometry g = c.grid(n, 512);
    const int64_t groups = int64_t(g.global[0] / g.local[0]);
    auto partial = dev.allocate(size_t(groups) * 8), total = dev.allocate(8);
    g.shared_bytes = 512 * 8;
    dev.launch(c.k("hs_sum"), g, {{partial, dx}, {n}});
    gpu::LaunchGeometry g2;
    g2.global[0] = g2.local[0] = 1024;
    g2.shared_bytes = std::min<size_t>(64 * 1024, dev.info().shared_memory);
    dev.launch(c.k("hs_sum"), g2, {{total, partial}, {groups}});
    double got = c.download<double>(total, 1)[0], want = 0;
    for (double v : x) want += v;
    report(got == want,
           "sum on the device (shared memory, barriers, " + std::to_string(g2.shared_bytes) +
               " B dynamic shared)",
           std::to_string(got) + " vs " + std::to_string(want));
    dev.release(partial);
    dev.release(total);
  }
  { // floor division and modulo of int64 with NumPy's signs
    std::vector<int64_t> p(N), q(N);
    for (int64_t i = 0; i < n; ++i) {
      p[size_t(i)] = (i * 2654435761LL) % 200001 - 100000;
      q[size_t(i)] = i % 13 - 6; // zeros included
    }
    auto dp = c.upload(p), dq = c.upload(q);
    auto dd = dev.allocate(size_t(n) * 8), dm = dev.allocate(size_t(n) * 8);
    dev.launch(c.k("hs_floordiv"), c.grid(n), {{dd, dm, dp, dq}, {n}});
    auto d = c.download<int64_t>(dd, size_t(n)), m = c.download<int64_t>(dm, size_t(n));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t u = p[size_t(i)], v = q[size_t(i)], wd = 0, wm = 0;
      if (v != 0) {
        wd = u / v;
        wm = u % v;
        if (wm != 0 && ((wm < 0) != (v < 0))) wd -= 1, wm += v;
      }
      bad += d[size_t(i)] != wd || m[size_t(i)] != wm;
    }
    report(bad == 0, "int64 // and % (NumPy's signs, 0 divisors)", std::to_string(bad) + " differ");
    for (auto buf : {dp, dq, dd, dm}) dev.release(buf);
  }
  { // transpose on a 2-D grid
    const int64_t h = 1000, w = 777;
    std::vector<float> in(size_t(h * w));
    for (size_t i = 0; i < in.size(); ++i) in[i] = float(i) * 0.5f;
    auto din = c.upload(in), dt = dev.allocate(in.size() * 4);
    gpu::LaunchGeometry g;
    g.dims = 2;
    g.local[0] = g.local[1] = 16;
    g.global[0] = size_t((h + 15) / 16 * 16);
    g.global[1] = size_t((w + 15) / 16 * 16);
    dev.launch(c.k("hs_transpose"), g, {{dt, din}, {h, w}});
    auto out = c.download<float>(dt, in.size());
    int64_t bad = 0;
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) bad += out[size_t(j * h + i)] != in[size_t(i * w + j)];
    report(bad == 0, "transpose on a 2-D grid (16 x 16 groups)", std::to_string(bad) + " differ");
    dev.release(din);
    dev.release(dt);
  }
  { // libdevice's math against glibc's: a few ulps
    dev.launch(c.k("hs_math"), c.grid(n), {{dout, db}, {n}});
    auto out = c.download<double>(dout, size_t(n));
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      double in = b[size_t(i)];
      double want = std::exp(in) * std::sin(in) +
                    std::sqrt(std::fabs(in)) / (1.0 + std::log1p(std::fabs(in)));
      if (std::isinf(want) && out[size_t(i)] == want) continue;
      double err = std::fabs(out[size_t(i)] - want) / std::max(std::fabs(want), 1e-300);
      if (std::isnan(want) != std::isnan(out[size_t(i)])) err = 1;
      if (!std::isnan(err)) worst = std::max(worst, err);
    }
    char text[64];
    std::snprintf(text, sizeof text, "worst relative error %.3g", worst);
    report(worst < 1e-13, "exp, sin, sqrt, log1p (libdevice) vs glibc", text);
  }
  { // fill_zero, copies at offsets
    std::vector<double> ones(1000, 1.0);
    auto z = dev.allocate(8000);
    dev.copy_to_device(z, 0, ones.data(), 8000);
    dev.fill_zero(z);
    std::vector<double> mid = {1.5, 2.5, 3.5};
    dev.copy_to_device(z, 800, mid.data(), 24);
    auto back = c.download<double>(z, 1000);
    std::vector<double> tail(3);
    dev.copy_to_host(tail.data(), z, 800, 24);
    bool ok =
        back[99] == 0 && back[100] == 1.5 && back[102] == 3.5 && back[103] == 0 && tail == mid;
    report(ok, "fill_zero, copies at an offset");
    dev.release(z);
  }
  { // copy counts so far: 3 + 2 + 1 + 2 uploads (+ 2 in the offset check), downloads as read
    const cuda::CudaDeviceStats& s = dev.stats();
    const uint64_t up = s.to_device_copies - before.to_device_copies;
    const uint64_t down = s.to_host_copies - before.to_host_copies;
    report(up == 8 && down == 9, "copies counted",
           std::to_string(up) + " to the device (8 expected), " + std::to_string(down) +
               " to the host (9 expected)");
  }
  { // the pool gives a released buffer back; the driver's memory is not taken again
    const size_t held = dev.stats().memory_held;
    auto buf = dev.allocate(size_t(n) * 8);
    const uintptr_t handle = buf.handle;
    dev.release(buf);
    auto again = dev.allocate(size_t(n) * 8 - 100); // same size class
    report(again.handle == handle && dev.stats().memory_held == held,
           "memory pool reuses a freed buffer");
    dev.release(again);
  }
  for (auto buf : {da, db, dx, dout}) dev.release(buf);
  { // a large copy through the staging ring, both ways
    const size_t bytes = 300u << 20;
    std::vector<uint8_t> big(bytes);
    for (size_t i = 0; i < bytes; ++i) big[i] = uint8_t(i * 131 + (i >> 20));
    auto d = dev.allocate(bytes);
    dev.copy_to_device(d, 0, big.data(), bytes);
    std::vector<uint8_t> back(bytes);
    dev.copy_to_host(back.data(), d, 0, bytes);
    report(back == big, "300 MiB through the pinned staging ring and back");
    dev.release(d);
  }
  { // the kernel's binary loads again (the disk cache's path)
    std::vector<char> binary = c.programs.at("hs_copy")->binary();
    auto loaded = dev.load(binary);
    bool ok = loaded != nullptr;
    if (ok) {
      std::vector<double> v = {1, 2, 3, 4, 5};
      auto src = c.upload(v), dst = dev.allocate(40);
      dev.launch(loaded->kernel("hs_copy"), c.grid(5), {{dst, src}, {5}});
      ok = c.download<double>(dst, 5) == v;
      dev.release(src);
      dev.release(dst);
    }
    report(ok, "binary() -> load() -> launch", std::to_string(binary.size()) + " bytes");
  }
}

void check_limit(const cuda::CudaDeviceOptions& base) {
  cuda::CudaDeviceOptions o = base;
  o.memory_limit = 64u << 20;
  cuda::CudaDevice limited(o, false);
  auto a = limited.allocate(40u << 20);
  bool threw = false;
  std::string text;
  try {
    limited.allocate(40u << 20);
  } catch (const OutOfMemory& e) {
    threw = true;
    text = e.what();
  }
  limited.release(a);
  auto again = limited.allocate(40u << 20); // the pool's block: within the limit
  limited.release(again);
  report(threw, "[cuda] memory_limit_mb = 64 refuses a second 40 MiB buffer", text);
}

// Where host<->device copy time goes: host memcpy (1 and 8 threads), the DMA from pinned
// memory alone, and the driver's own copy from pageable memory.
void copy_study(cuda::CudaDevice& dev, gpu::DeviceBuffer d, size_t bytes) {
  const cuda::DriverApi& api = cuda::driver();
  bytes = std::min<size_t>(bytes, 512u << 20);
  std::vector<char> src(bytes, 1), dst(bytes, 2);
  auto rate = [&](auto&& f) {
    f();
    auto t = Clock::now();
    f();
    return double(bytes) / seconds_since(t) / 1e9;
  };
  const double memcpy1 = rate([&] { std::memcpy(dst.data(), src.data(), bytes); });
  const double memcpy8 = rate([&] {
    std::vector<std::thread> threads;
    const size_t part = bytes / 8;
    for (size_t i = 0; i < 8; ++i)
      threads.emplace_back(
          [&, i] { std::memcpy(dst.data() + i * part, src.data() + i * part, part); });
    for (auto& t : threads) t.join();
  });
  void* pinned = nullptr;
  HS_CU(cuMemHostAlloc, &pinned, bytes, 0);
  std::memset(pinned, 3, bytes);
  CUstream s = nullptr;
  HS_CU(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  const CUdeviceptr p = CUdeviceptr(d.handle);
  const double dma_up = rate([&] {
    HS_CU(cuMemcpyHtoDAsync, p, pinned, bytes, s);
    HS_CU(cuStreamSynchronize, s);
  });
  const double dma_down = rate([&] {
    HS_CU(cuMemcpyDtoHAsync, pinned, p, bytes, s);
    HS_CU(cuStreamSynchronize, s);
  });
  const double pageable_up = rate([&] {
    HS_CU(cuMemcpyHtoDAsync, p, src.data(), bytes, s);
    HS_CU(cuStreamSynchronize, s);
  });
  const double pageable_down = rate([&] {
    HS_CU(cuMemcpyDtoHAsync, dst.data(), p, bytes, s);
    HS_CU(cuStreamSynchronize, s);
  });
  HS_CU(cuStreamDestroy, s);
  HS_CU(cuMemFreeHost, pinned);
  (void)api;
  dev.synchronize();
  std::printf("  copy study (%zu MiB): host memcpy %.1f GB/s (1 thread), %.1f (8 threads); "
              "DMA from/to pinned %.1f / %.1f GB/s; driver from/to pageable %.1f / %.1f GB/s\n",
              bytes >> 20, memcpy1, memcpy8, dma_up, dma_down, pageable_up, pageable_down);
}

void bandwidth(Check& c, size_t size_mb) {
  cuda::CudaDevice& dev = c.dev;
  const int64_t n = int64_t(size_mb << 20) / 8;
  std::vector<double> host(size_t(n), 1.0);
  auto a = dev.allocate(size_t(n) * 8), b = dev.allocate(size_t(n) * 8),
       cc = dev.allocate(size_t(n) * 8);
  // Through the staging ring: with the configured copy threads, then with one.
  auto transfer = [&](cuda::CudaDevice& d, gpu::DeviceBuffer buf) {
    auto t = Clock::now();
    d.copy_to_device(buf, 0, host.data(), size_t(n) * 8);
    d.synchronize();
    const double h2d = double(n) * 8 / seconds_since(t) / 1e9;
    t = Clock::now();
    d.copy_to_host(host.data(), buf, 0, size_t(n) * 8);
    const double d2h = double(n) * 8 / seconds_since(t) / 1e9;
    std::printf("  host -> device %.1f GB/s, device -> host %.1f GB/s (%zu MiB, staging ring, "
                "%d copy threads)\n",
                h2d, d2h, size_mb, d.options().copy_threads);
  };
  transfer(dev, b);
  dev.copy_to_device(cc, 0, host.data(), size_t(n) * 8);
  {
    cuda::CudaDeviceOptions one = dev.options();
    one.copy_threads = 1;
    cuda::CudaDevice single(one, false);
    auto buf = single.allocate(size_t(n) * 8);
    transfer(single, buf);
    single.release(buf);
  }
  copy_study(dev, b, size_t(n) * 8);
  const double peak = dev.peak_bandwidth() / 1e9;
  auto measure = [&](const char* name, const gpu::KernelArgs& args, double bytes_per_elem) {
    gpu::LaunchGeometry g = c.grid(n);
    for (int i = 0; i < 3; ++i) dev.launch(c.k(name), g, args);
    dev.synchronize();
    const int reps = 20;
    auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) dev.launch(c.k(name), g, args);
    dev.synchronize();
    const double s = seconds_since(t0) / reps;
    const double gbs = double(n) * bytes_per_elem / s / 1e9;
    std::printf("  %-9s %8.1f GB/s  %5.1f%% of peak %.0f GB/s  (%.3f ms a launch, %zu MiB an "
                "array)\n",
                name, gbs, 100 * gbs / peak, peak, s * 1e3, size_mb);
    return gbs;
  };
  { // launch cost: a tiny kernel queued back to back (parameter block uploaded each time), and
    // launched and waited for one at a time
    gpu::LaunchGeometry one = c.grid(1, 32);
    const int reps = 2000;
    auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) dev.launch(c.k("hs_copy"), one, {{a, b}, {1}});
    const double queue_us = seconds_since(t0) / reps * 1e6;
    dev.synchronize();
    const double total_us = seconds_since(t0) / reps * 1e6;
    t0 = Clock::now();
    for (int i = 0; i < 200; ++i) {
      dev.launch(c.k("hs_copy"), one, {{a, b}, {1}});
      dev.synchronize();
    }
    const double sync_us = seconds_since(t0) / 200 * 1e6;
    std::printf("  launch: %.2f us to queue, %.2f us each back to back, %.2f us launched and "
                "waited for\n",
                queue_us, total_us, sync_us);
  }
  const double triad = measure("hs_triad", {{a, b, cc}, {n, bits(0.5)}}, 24);
  measure("hs_copy", {{a, b}, {n}}, 16);
  report(triad > 0.5 * peak, "triad reaches half the peak bandwidth or more");
  for (auto buf : {a, b, cc}) dev.release(buf);
}

} // namespace

// A kernel that writes out of bounds: the failed launch must be reported at the next
// synchronization as an error naming the call and CUDA's error (the context is lost after it,
// so this runs alone: --fault).
int check_fault() {
  cuda::CudaDevice dev(cuda::CudaDeviceOptions::from_config(), false);
  const std::string source = gpu::Dialect::cuda().prelude + R"(
HS_KERNEL void hs_fault(HS_GLOBAL hs_f64* a, HS_GLOBAL const hs_i64* params) {
  a[params[0]] = 1.0;
}
)";
  auto program = dev.compile(source);
  auto buf = dev.allocate(8);
  gpu::LaunchGeometry g;
  g.global[0] = g.local[0] = 1;
  dev.launch(program->kernel("hs_fault"), g, {{buf}, {int64_t(1) << 40}});
  try {
    dev.synchronize();
    report(false, "an out-of-bounds write is reported at synchronize", "nothing reported");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    report(what.find("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos,
           "an out-of-bounds write is reported at synchronize", what);
  }
  std::printf("cuda_device_check --fault: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // lines out as they come (a run cut short)
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t size_mb = 512;
  std::string binaries;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--emit-binaries" && i + 1 < args.size())
        return emit_binaries(args[i + 1],
                             std::vector<std::string>(args.begin() + long(i) + 2, args.end()));
      if (args[i] == "--fault") {
        if (std::string why = cuda::driver_unavailable_reason(); !why.empty()) {
          std::printf("SKIP: %s\n", why.c_str());
          return 77;
        }
        return check_fault();
      }
      if (args[i] == "--size-mb" && i + 1 < args.size())
        size_mb = size_t(std::stoul(args[++i]));
      else if (args[i] == "--binaries" && i + 1 < args.size())
        binaries = args[++i];
      else {
        std::fprintf(stderr, "usage: cuda_device_check [--size-mb N] [--binaries DIR] | "
                             "--emit-binaries DIR [ARCH...]\n");
        return 2;
      }
    }
    std::printf("cuda_device_check\n%s\n", cuda::describe_devices().c_str());
    if (std::string why = cuda::driver_unavailable_reason(); !why.empty()) {
      std::printf("SKIP: %s\n", why.c_str());
      return 77;
    }
    const cuda::CudaDeviceOptions options = cuda::CudaDeviceOptions::from_config();
    auto t = Clock::now();
    cuda::CudaDevice dev(options, false);
    const gpu::DeviceInfo& info = dev.info();
    std::printf("device: %s, %s, %d SMs, %.1f GiB, %zu threads/group, %zu KiB shared/group, "
                "peak %.0f GB/s\nversions: %s\nopened in %.1f ms\n",
                info.name.c_str(), info.arch.c_str(), info.compute_units,
                double(info.global_memory) / (1 << 30), info.max_group_size,
                info.shared_memory / 1024, dev.peak_bandwidth() / 1e9, info.versions.c_str(),
                seconds_since(t) * 1e3);
    Check c{dev, {}};
    std::printf("kernels:\n");
    if (get_kernels(c, binaries)) {
      std::printf("values:\n");
      check_values(c);
      check_limit(options);
      std::printf("bandwidth:\n");
      bandwidth(c, size_mb);
    }
    const cuda::CudaDeviceStats& s = dev.stats();
    std::printf("device counters: %llu copies to the device (%.1f MiB), %llu to the host (%.1f "
                "MiB), %llu launches, %llu syncs, %llu compiles (%.1f ms), peak %.1f MiB\n",
                (unsigned long long)s.to_device_copies, double(s.to_device_bytes) / (1 << 20),
                (unsigned long long)s.to_host_copies, double(s.to_host_bytes) / (1 << 20),
                (unsigned long long)s.launches, (unsigned long long)s.synchronizations,
                (unsigned long long)s.compiles, s.compile_seconds * 1e3,
                double(s.memory_peak) / (1 << 20));
  } catch (const std::exception& e) {
    report(false, "error", e.what());
  }
  std::printf("cuda_device_check: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
