// The execution stack: engine + VEM + filters, built from the configuration, installed in the
// Runtime; and the registries of every component this library has, published for the config.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/config.h"
#include "core/registry.h"
#include "core/runtime.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ve/cpu/cpu_engine.h"
#include "vem/node/memory_pool.h"

namespace hassium {

// Everything a stack is built from; from_config() reads the [stack], [fuser], [cpu], [memory]
// and [profile] sections. Callers may change fields before building (the `hassium run`
// options --algorithm and --cost-model do).
struct StackOptions {
  std::string engine = "cpu";       // a name of engine_registry()
  std::string vem = "node";         // a name of vem_registry()
  std::vector<std::string> filters; // names of filter_registry(), applied in order
  size_t piece_size = 4096;         // Stack::piece_size ([stack] piece_size)
  FuserOptions fuser;
  MergeCacheMode merge_cache = MergeCacheMode::MEMORY;
  std::string merge_cache_dir; // merge_cache == DISK: the partitions' directory
  CpuOptions cpu;
  // The GPU engines: program cache, OpenCL device choice ([gpu]).
  KernelCacheMode gpu_cache = KernelCacheMode::DISK;
  std::string gpu_cache_dir;
  std::string opencl_device;
  bool gpu_fallback_cpu = true; // no usable device: the CPU engine (else the error)
  MemoryPoolOptions memory;
  // The cluster VEM ([cluster]): overlap (auto, on, off) and the phase size below which a
  // phase's local program is not split at the wait (vem/cluster/README.md, Overlap).
  std::string cluster_overlap = "auto";
  int64_t cluster_overlap_min_elements = 100000;
  bool profile = false;
  std::string dot_dir; // [profile] dot_dir: each flush's WSP graph as .dot; empty = off

  static StackOptions from_config(const Config& config);
};

// An engine `[stack] engine` may name: how to make one, and whether it can run here.
struct EngineComponent {
  std::function<std::unique_ptr<Engine>(const StackOptions&)> make;
  std::function<ComponentProbe()> probe; // `hassium info`
};
// A VEM `[stack] vem` may name: how to make one over an engine, and whether it can run here.
struct VemComponent {
  std::function<std::unique_ptr<Backend>(std::unique_ptr<Engine>, const StackOptions&)> make;
  std::function<ComponentProbe()> probe;
  // Optional: changes the options before the engine is built (the cluster VEM gives each rank
  // its own cache directories).
  std::function<void(StackOptions&)> adjust = {};
};

// The engines and VEMs built into this library (ids "stack.engine", "stack.vem"). Adding one is
// one entry in vem/stack.cpp: its name, {factory, probe}, a one-line doc; config validation,
// `hassium config --doc` and `hassium info` read it from there (README's [stack] row and
// config.ini's `Valid` line name it too: test_readme_config.py and test_registries.py check).
const Registry<EngineComponent>& engine_registry();
const Registry<VemComponent>& vem_registry();

// Publishes the registry of every component key (core/config_keys.def) that this library has:
// engines, VEMs, filters (the built-in ones added first), partition algorithms, cost models,
// merge cache modes, kernel cache modes, wait policies and BLAS choices. From then on a
// configuration naming a component that is not built in fails when it is loaded. Idempotent;
// install_stack() calls it, and so do the frontends before they first read the configuration.
void publish_builtin_registries();

// Builds the backend (VEM over engine) and resolves the filters. Throws UserError for an
// unknown engine, VEM, filter, algorithm or cost model, listing the valid names.
Stack build_stack(const StackOptions& options);
// Builds the stack and installs it in the runtime.
void install_stack(const StackOptions& options, Runtime& runtime = Runtime::instance());
// The same from Config::global(): what frontends call once at start-up.
void install_stack();
// Ranks > 0 of an `mpirun -np P` launch (P > 1) whose configured VEM is cluster: installs the
// stack, which serves rank 0's flushes and ends the process. Returns on rank 0, without an MPI
// launcher, with another VEM, or when a stack is installed already. The C++ API calls it before
// main (bridge/cxx), so those ranks never run the program.
void serve_cluster_ranks();

} // namespace hassium
