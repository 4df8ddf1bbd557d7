// SourceRecorder: a GpuDevice in the CUDA dialect that keeps every program the GPU engine asks it
// to compile and runs nothing (buffers in host memory, zero-filled; launches do nothing), so the
// engine's generated CUDA C can be compiled by NVRTC and checked by ptxas on a machine without a
// GPU (test_cuda_generated.cpp). The engine's batches (ve/gpu/program_batch.h) are kept as the
// programs they join. Values computed through it are meaningless.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "ve/gpu/gpu_device.h"
#include "ve/gpu/program_batch.h"

namespace hassium::cuda_check {

class SourceRecorder final : public gpu::GpuDevice {
public:
  explicit SourceRecorder(std::set<std::string>& sources)
      : sources_(sources), dialect_(gpu::Dialect::cuda()), header_(gpu::program_header(dialect_)) {
    info_.name = "source recorder";
    info_.arch = "sm_90";
    info_.versions = "recorder";
    info_.global_memory = size_t(80) << 30;
    info_.max_group_size = 1024;
    info_.shared_memory = 48 * 1024;
    info_.compute_units = 132;
    info_.max_param_bytes = 32764; // an H100 with a CUDA 12.1+ driver
  }
  const gpu::DeviceInfo& info() const override { return info_; }
  const gpu::Dialect& dialect() const override { return dialect_; }

  gpu::DeviceBuffer allocate(size_t bytes) override {
    void* p = std::calloc(std::max<size_t>(bytes, 1), 1);
    if (!p) throw OutOfMemory("source recorder: calloc failed");
    return {uintptr_t(p), bytes};
  }
  void release(gpu::DeviceBuffer b) override { std::free(reinterpret_cast<void*>(b.handle)); }
  void fill_zero(gpu::DeviceBuffer b) override {
    std::memset(reinterpret_cast<void*>(b.handle), 0, b.bytes);
  }
  void copy_to_device(gpu::DeviceBuffer dst, size_t offset, const void* src,
                      size_t bytes) override {
    std::memcpy(reinterpret_cast<char*>(dst.handle) + offset, src, bytes);
  }
  void copy_to_host(void* dst, gpu::DeviceBuffer src, size_t offset, size_t bytes) override {
    std::memcpy(dst, reinterpret_cast<const char*>(src.handle) + offset, bytes);
  }

  // Called from several threads at once (GpuDevice::compile's contract): the set under a lock.
  std::unique_ptr<gpu::DeviceProgram> compile(const std::string& source) override {
    std::vector<std::string> programs = gpu::batch_programs(header_, source);
    if (programs.empty()) programs = {source};
    {
      std::lock_guard lock(mutex_);
      sources_.insert(programs.begin(), programs.end());
    }
    return std::make_unique<Program>(source);
  }
  std::unique_ptr<gpu::DeviceProgram> load(const std::vector<char>&) override { return nullptr; }
  void launch(gpu::DeviceKernel&, const gpu::LaunchGeometry&, const gpu::KernelArgs&) override {}
  void synchronize() override {}

private:
  struct Kernel final : gpu::DeviceKernel {};
  struct Program final : gpu::DeviceProgram {
    explicit Program(std::string source) : source(std::move(source)) {}
    gpu::DeviceKernel& kernel(const std::string& name) override {
      // Its own name, or one a batch's macro gives an entry (" hs_rows_b3\n").
      HS_INTERNAL_ASSERT(source.find("void " + name + "(") != std::string::npos ||
                         source.find(" " + name + "\n") != std::string::npos)
          << "no kernel " << name << " in the generated source";
      return kernel_;
    }
    std::vector<char> binary() const override { return {}; }
    std::string source;
    Kernel kernel_;
  };

  std::set<std::string>& sources_;
  std::mutex mutex_;
  gpu::DeviceInfo info_;
  gpu::Dialect dialect_;
  std::string header_;
};

} // namespace hassium::cuda_check
