// The execution stack: engine + VEM + filters, built from the configuration, installed in the
// Runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/config.h"
#include "core/runtime.h"
#include "ir/fuser.h"
#include "ve/cpu/cpu_engine.h"
#include "vem/node/memory_pool.h"

namespace hassium {

// Everything a stack is built from; from_config() reads the [stack], [fuser], [cpu], [memory]
// and [profile] sections. Callers may change fields before building (the `hassium run`
// options --algorithm and --cost-model do).
struct StackOptions {
  std::string engine = "cpu";       // a name of engine_names()
  std::string vem = "node";         // a name of vem_names()
  std::vector<std::string> filters; // names of the filter registry, applied in order
  FuserOptions fuser;
  std::string merge_cache = "memory"; // none | memory | disk
  std::string merge_cache_dir;
  CpuOptions cpu;
  // The GPU engines: program cache, OpenCL device choice ([gpu]).
  KernelCacheMode gpu_cache = KernelCacheMode::DISK;
  std::string gpu_cache_dir;
  std::string opencl_device;
  bool gpu_fallback_cpu = true; // no usable device: the CPU engine (else the error)
  MemoryPoolOptions memory;
  bool profile = false;
  std::string dot_dir; // [profile] dot_dir: each flush's WSP graph as .dot; empty = off

  static StackOptions from_config(const Config& config);
};

// The registries of engines and VEMs built into this library, in their listed order.
std::vector<std::string> engine_names();
std::vector<std::string> vem_names();

// Builds the backend (VEM over engine) and resolves the filters. Throws UserError for an
// unknown engine, VEM, filter, algorithm or cost model, listing the valid names.
Stack build_stack(const StackOptions& options);
// Builds the stack and installs it in the runtime.
void install_stack(const StackOptions& options, Runtime& runtime = Runtime::instance());
// The same from Config::global(): what frontends call once at start-up.
void install_stack();

} // namespace hassium
