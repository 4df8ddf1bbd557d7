// ProgramCache: compiled GPU programs by key (a hash of the kernel source, the device's arch and
// its driver/compiler versions), in memory and optionally on disk (program binaries written
// atomically, temp + rename; a damaged or foreign file is ignored and rebuilt; many processes
// may share the directory). A flush's new kernels compile in batches (program_batch.h), one per
// compile thread: a kernel is then found as its batch's program and its entries' suffix.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ve/gpu/gpu_device.h"

namespace hassium::gpu {

struct ProgramCacheStats {
  int64_t compiled = 0; // kernel sources compiled
  int64_t builds = 0;   // device compiles they took (batches and lone sources)
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t disk_rejected = 0;     // files found but unusable
  int64_t disk_write_errors = 0; // binaries that could not be written
  double compile_seconds = 0;    // compiling and loading
};

class ProgramCache {
public:
  // `dir` empty: memory only.
  ProgramCache(GpuDevice& device, std::string dir);

  // The programs of `sources` (a flush's new blocks), each compiled (or loaded from disk) the
  // first time: those neither in memory nor on disk compile at the same time on up to `threads`
  // threads, as up to `threads` batches (the device compiles thread-safely: NVRTC,
  // clBuildProgram). Per source its program and the suffix of its entries in it, or the error
  // its compile threw (the device's UserError when it does not compile; a batch that does not
  // compile is compiled again source by source, so the error stays with its source).
  struct Found {
    DeviceProgram* program = nullptr;
    std::string suffix; // entry `e` is program->kernel(e + suffix)
    std::exception_ptr error;
  };
  std::vector<Found> get_all(const std::vector<const std::string*>& sources, unsigned threads);
  // The cache key of a source (or of a batch's source) on this device (hex).
  std::string key(const std::string& source) const;
  const ProgramCacheStats& stats() const { return stats_; }

private:
  struct Held {
    DeviceProgram* program;
    std::string suffix;
  };
  // A source's program on disk: `<key>.gpuprog` (compiled alone) or `<key>.gpuref` naming its
  // batch's `.gpuprog` and its suffix there.
  bool from_disk(const std::string& key, Held& held);
  DeviceProgram* load_program(const std::string& key, bool missing_is_rejected);
  // Reads `dir/name` into `data` and its framed payload into `payload`; false when missing
  // (counted as rejected when `missing_is_rejected`) or rejected (counted).
  bool read_framed(const std::string& name, size_t max_bytes, const char* magic,
                   const std::string& key, std::string& data, std::string_view& payload,
                   bool missing_is_rejected);
  // Whether the binary was written (a batch's entries are written only then).
  bool to_disk(const std::string& key, const DeviceProgram& program);
  void ref_to_disk(const std::string& key, const std::string& batch_key, const std::string& suffix);
  bool write(const std::string& name, const std::string& data);

  GpuDevice& device_;
  std::string dir_;
  std::string header_; // program_header(device.dialect()): what a batchable source starts with
  std::unordered_map<std::string, Held> memory_;                             // by source key
  std::unordered_map<std::string, std::unique_ptr<DeviceProgram>> programs_; // by program key
  ProgramCacheStats stats_;
};

} // namespace hassium::gpu
