// CudaDevice: the GpuDevice of one NVIDIA GPU through the CUDA Driver API (cuda_driver.h) and
// NVRTC (nvrtc.h): primary context, one stream, pooled device memory, pinned staging ring.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/registry.h"
#include "ve/gpu/gpu_device.h"

namespace hassium::cuda {

struct CudaDeviceOptions {
  int ordinal = 0;         // [cuda] device
  size_t memory_limit = 0; // [cuda] memory_limit_mb: most bytes taken from the driver; 0 = all
  size_t staging_bytes = 64u << 20; // [cuda] staging_mb: pinned host memory for copies, in total
  int copy_threads = 8; // [cuda] copy_threads: threads copying into/out of staging buffers
  static CudaDeviceOptions from_config();
};

// What the device did since it opened: copies, launches, memory.
struct CudaDeviceStats {
  uint64_t to_device_copies = 0, to_device_bytes = 0;
  uint64_t to_host_copies = 0, to_host_bytes = 0;
  uint64_t launches = 0, synchronizations = 0, compiles = 0;
  double compile_seconds = 0;
  size_t memory_in_use = 0; // bytes of buffers handed out
  size_t memory_held = 0;   // bytes taken from the driver (in use + kept in the pool)
  size_t memory_peak = 0;   // most memory_in_use
};

// A launch's geometry as cuLaunchKernel takes it: gridDim = global / local blocks of blockDim =
// local threads. InternalError for a geometry no CUDA device runs (global not a multiple of
// local, more than `max_threads` threads a block, grid or block past CUDA's limits).
struct CudaGrid {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
};
CudaGrid cuda_grid(const gpu::LaunchGeometry& geometry, size_t max_threads);

class CudaDevice final : public gpu::GpuDevice {
public:
  // Opens device `options.ordinal`; UserError "CUDA unavailable: ..." without a driver or
  // device, "NVRTC unavailable: ..." without NVRTC (compile() needs it; load() does not when
  // `need_nvrtc` is false).
  explicit CudaDevice(const CudaDeviceOptions& options = CudaDeviceOptions::from_config(),
                      bool need_nvrtc = true);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const gpu::DeviceInfo& info() const override { return info_; }
  const gpu::Dialect& dialect() const override { return dialect_; }

  gpu::DeviceBuffer allocate(size_t bytes) override;
  void release(gpu::DeviceBuffer buffer) override;
  void fill_zero(gpu::DeviceBuffer buffer) override;
  void copy_to_device(gpu::DeviceBuffer dst, size_t offset, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, gpu::DeviceBuffer src, size_t offset, size_t bytes) override;

  std::unique_ptr<gpu::DeviceProgram> compile(const std::string& source) override;
  std::unique_ptr<gpu::DeviceProgram> load(const std::vector<char>& binary) override;
  void launch(gpu::DeviceKernel& kernel, const gpu::LaunchGeometry& geometry,
              const gpu::KernelArgs& args) override;
  void synchronize() override;

  // --- CUDA specifics (the device check, `hassium info`) --------------------------------------
  int compute_capability() const { return cc_; }            // 90 for sm_90
  double peak_bandwidth() const { return peak_bandwidth_; } // bytes/s from clock and bus width
  const CudaDeviceStats& stats() const { return stats_; }
  const CudaDeviceOptions& options() const { return options_; }
  // Gives the pool's unused buffers back to the driver.
  void trim();
  // The architecture compile() targets: the device's own when NVRTC knows it (cubin, no JIT),
  // else the newest NVRTC knows as PTX (the driver compiles it at load).
  const std::string& compile_arch() const { return compile_arch_; }

private:
  struct Slot {
    char* host = nullptr; // pinned
    CUevent done = nullptr;
    bool busy = false;
  };
  void bind() const;
  // Waits (mutex held) until the stream's work has run; SIGINT ends the wait (Interrupted).
  void wait_stream();
  Slot& next_slot();
  void wait(Slot& slot);
  CUdeviceptr upload_params(const std::vector<int64_t>& params);

public:
  // The pool's size class of an allocation (what it takes from the driver).
  static size_t size_class(size_t bytes);

private:
  CudaDeviceOptions options_;
  gpu::DeviceInfo info_;
  gpu::Dialect dialect_;
  int cc_ = 0;
  double peak_bandwidth_ = 0;
  std::string compile_arch_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;

  // Memory pool: freed buffers by size class, reused before asking the driver.
  std::multimap<size_t, CUdeviceptr> free_;
  std::map<CUdeviceptr, size_t> sizes_; // every buffer handed out: its class size

  // Pinned staging ring for host<->device copies.
  std::vector<Slot> slots_;
  size_t slot_bytes_ = 0;
  size_t next_ = 0;

  // Parameter blocks: pinned host and device arenas written in order, reset when the stream
  // is idle (synchronize(), copy_to_host()).
  char* params_host_ = nullptr;
  CUdeviceptr params_device_ = 0;
  size_t params_capacity_ = 0, params_used_ = 0;

  CudaDeviceStats stats_;
  std::recursive_mutex mutex_;
};

// One entry of a program: its function and the dynamic shared memory it may use now.
class CudaKernel final : public gpu::DeviceKernel {
public:
  explicit CudaKernel(CUfunction function) : function(function) {}
  CUfunction function;
  size_t shared_limit = 48 * 1024; // raised by cuFuncSetAttribute when a launch needs more
};

// A loaded module and the kernels asked of it.
class CudaProgram final : public gpu::DeviceProgram {
public:
  CudaProgram(CUcontext context, CUmodule module, std::vector<char> binary);
  ~CudaProgram() override;
  gpu::DeviceKernel& kernel(const std::string& name) override;
  std::vector<char> binary() const override { return binary_; }

private:
  CUcontext context_;
  CUmodule module_;
  std::vector<char> binary_; // cubin (ELF) or PTX text, NUL-terminated
  std::map<std::string, std::unique_ptr<CudaKernel>> kernels_;
  std::mutex mutex_;
};

// The CUDA device for the GPU engine (ve/gpu/gpu_engine.h), as the stack's "cuda" entry makes
// it: UserError "CUDA unavailable: ..." or "NVRTC unavailable: ..." when it cannot run here
// (the caller falls back to the CPU engine with that line).
std::unique_ptr<gpu::GpuDevice>
make_cuda_device(const CudaDeviceOptions& options = CudaDeviceOptions::from_config());

// One line per device, or why there is none: for `hassium info` (never throws).
std::string describe_devices();

// `hassium info`'s line on the cuda engine: the driver, NVRTC and the devices found, or why CUDA
// cannot run here.
ComponentProbe probe_cuda_engine();

} // namespace hassium::cuda
