// ProgramCache: compiled GPU programs by key (a hash of the kernel source, the device's arch and
// its driver/compiler versions), in memory and optionally on disk (program binaries written
// atomically, temp + rename; a damaged or foreign file is ignored and rebuilt; many processes
// may share the directory).
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ve/gpu/gpu_device.h"

namespace hassium::gpu {

struct ProgramCacheStats {
  int64_t compiled = 0;
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t disk_rejected = 0;     // files found but unusable
  int64_t disk_write_errors = 0; // binaries that could not be written
  double compile_seconds = 0;    // compiling and loading
};

class ProgramCache {
public:
  // `dir` empty: memory only.
  ProgramCache(GpuDevice& device, std::string dir) : device_(device), dir_(std::move(dir)) {}

  // The programs of `sources` (a flush's new blocks), each compiled (or loaded from disk) the
  // first time: those neither in memory nor on disk compile at the same time on up to `threads`
  // threads (the device compiles thread-safely: NVRTC, clBuildProgram). Per source its program,
  // or the error its compile threw (the device's UserError when it does not compile).
  struct Found {
    DeviceProgram* program = nullptr;
    std::exception_ptr error;
  };
  std::vector<Found> get_all(const std::vector<const std::string*>& sources, unsigned threads);
  // The cache key of a source on this device (hex).
  std::string key(const std::string& source) const;
  const ProgramCacheStats& stats() const { return stats_; }

private:
  std::unique_ptr<DeviceProgram> from_disk(const std::string& key);
  void to_disk(const std::string& key, const DeviceProgram& program);

  GpuDevice& device_;
  std::string dir_;
  std::unordered_map<std::string, std::unique_ptr<DeviceProgram>> memory_;
  ProgramCacheStats stats_;
};

} // namespace hassium::gpu
