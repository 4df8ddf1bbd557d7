// The execution stack: registries of engines and VEMs, publication of all registries, assembly,
// installation.
#include "vem/stack.h"

#include <initializer_list>
#include <mutex>

#include "core/error.h"
#include "core/filter_registry.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/cost_model.h"
#include "ir/fusion/merge_cache.h"
#include "ir/text/verifier.h"
#include "ve/cpu/host_info.h"
#include "vem/node/node_vem.h"
#ifdef HASSIUM_HAVE_CLUSTER
#include "vem/cluster/cluster_vem.h"
#endif
#if defined(HASSIUM_HAVE_OPENCL) || defined(HASSIUM_HAVE_CUDA)
#include <cstdio>

#include "ve/gpu/gpu_engine.h"
#endif
#ifdef HASSIUM_HAVE_OPENCL
#include "ve/opencl/opencl_device.h"
#endif
#ifdef HASSIUM_HAVE_CUDA
#include "ve/cuda/cuda_device.h"
#endif

namespace hassium {

namespace {
#if defined(HASSIUM_HAVE_OPENCL) || defined(HASSIUM_HAVE_CUDA)
GpuOptions gpu_options(const StackOptions& o) {
  GpuOptions g;
  g.cache = o.gpu_cache;
  g.cache_dir = o.gpu_cache_dir;
  g.cpu = o.cpu;
  return g;
}

// The GPU engine `name` over the device `make_device` opens; without a usable device (it
// throws UserError saying why): the CPU engine with one line saying so ([gpu] fallback = cpu),
// or the error (fallback = error).
template <typename MakeDevice>
std::unique_ptr<Engine> gpu_engine(const StackOptions& o, const char* name,
                                   MakeDevice make_device) {
  std::unique_ptr<gpu::GpuDevice> device;
  try {
    device = make_device();
  } catch (const UserError& e) {
    if (!o.gpu_fallback_cpu) throw;
    std::fprintf(stderr, "hassium: engine %s unavailable (%s); running on the CPU engine\n", name,
                 e.what());
    return make_cpu_engine(o.cpu);
  }
  return make_gpu_engine(std::move(device), gpu_options(o), name);
}
#endif

std::unique_ptr<MergeCache> make_merge_cache(const StackOptions& o) {
  if (o.merge_cache == MergeCacheMode::NONE) return nullptr;
  MergeCache::Options mo;
  if (o.merge_cache == MergeCacheMode::DISK) mo.dir = o.merge_cache_dir;
  return std::make_unique<MergeCache>(mo);
}

std::unique_ptr<Backend> make_node_vem(std::unique_ptr<Engine> engine, const StackOptions& o) {
  auto vem = std::make_unique<NodeVem>(std::move(engine), o.fuser, make_merge_cache(o), o.memory,
                                       o.dot_dir);
  vem->set_profiling(o.profile);
  return vem;
}

#ifdef HASSIUM_HAVE_CLUSTER
// Rank 0 gets the cluster VEM; every other rank serves rank 0's flushes and ends there.
std::unique_ptr<Backend> make_cluster_vem(std::unique_ptr<Engine> engine, const StackOptions& o) {
  cluster::OverlapOptions overlap;
  overlap.mode = o.cluster_overlap;
  overlap.min_elements = o.cluster_overlap_min_elements;
  auto vem = std::make_unique<cluster::ClusterVem>(make_node_vem(std::move(engine), o), o.profile,
                                                   overlap);
  if (cluster::Comm::world().rank() != 0) vem->serve();
  return vem;
}
#endif
} // namespace

// The one list of engines: an engine built in (ve/gpu, ve/opencl, ve/cuda ...) is one entry.
const Registry<EngineComponent>& engine_registry() {
  static const Registry<EngineComponent> registry(
      "stack.engine", "engine",
      {
          {"cpu",
           {[](const StackOptions& o) { return make_cpu_engine(o.cpu); }, probe_cpu_engine},
           "LLVM JIT + OpenMP on this machine's cores"},
#ifdef HASSIUM_HAVE_CUDA
          {"cuda",
           {[](const StackOptions& o) {
              return gpu_engine(o, "cuda", [] { return cuda::make_cuda_device(); });
            },
            cuda::probe_cuda_engine},
           "NVIDIA GPU: the GPU kernel generator's CUDA C through NVRTC and the CUDA Driver API"},
#endif
#ifdef HASSIUM_HAVE_OPENCL
          {"opencl",
           {[](const StackOptions& o) {
              return gpu_engine(o, "opencl",
                                [&] { return gpu::make_opencl_device({o.opencl_device}); });
            },
            gpu::probe_opencl_engine},
           "OpenCL 1.2 device (a GPU; PoCL on the CPU where none): the GPU kernel generator's "
           "OpenCL C"},
#endif
      });
  return registry;
}

// The one list of VEMs.
const Registry<VemComponent>& vem_registry() {
  static const Registry<VemComponent> registry(
      "stack.vem", "VEM",
      {
          {"node",
           {make_node_vem,
            [] {
              return ComponentProbe{true, "this machine", {}};
            }},
           "one machine: fusion, merge cache, memory pool, blocks run in order"},
#ifdef HASSIUM_HAVE_CLUSTER
          {"cluster",
           {make_cluster_vem, cluster::probe_cluster,
            [](StackOptions& o) {
              o.cpu.cache_dir = cluster::rank_cache_dir(o.cpu.cache_dir);
              o.merge_cache_dir = cluster::rank_cache_dir(o.merge_cache_dir);
              o.gpu_cache_dir = cluster::rank_cache_dir(o.gpu_cache_dir);
            }},
           "MPI ranks (mpirun -np P): bases block-distributed, halos exchanged per flush, each "
           "rank's piece fused and run by the node VEM; one rank without mpirun"},
#endif
      });
  return registry;
}

void publish_builtin_registries() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const RegistryBase* r : std::initializer_list<const RegistryBase*>{
             &engine_registry(), &vem_registry(), &filter_registry(), &algorithm_registry(),
             &cost_model_registry(), &merge_cache_registry(), &kernel_cache_registry(),
             &wait_policy_registry(), &cpu::blas_registry(), &cpu::interpreter_registry()})
      publish_registry(*r);
  });
}

StackOptions StackOptions::from_config(const Config& config) {
  StackOptions o;
  o.engine = config.choice("stack", "engine", engine_registry());
  o.vem = config.choice("stack", "vem", vem_registry());
  o.filters = config.choice_list("stack", "filters", filter_registry());
  const int64_t piece_size = config.get_int("stack", "piece_size");
  if (piece_size < 0)
    throw UserError("[stack] piece_size must be at least 0, not " + std::to_string(piece_size) +
                    " (" + config.value("stack", "piece_size").source.str() + ")");
  o.piece_size = size_t(piece_size);
  o.fuser = FuserOptions::from_config(config);
  o.merge_cache = config.component("fuser", "cache", merge_cache_registry());
  o.merge_cache_dir = config.get_string("fuser", "cache_dir");
  o.cpu.threads = int(config.get_int("cpu", "threads"));
  o.cpu.opt_level = int(config.get_int("cpu", "opt_level"));
  o.cpu.tiered_compile = config.get_bool("cpu", "tiered_compile");
  o.cpu.interpreter = config.component("cpu", "interpreter", cpu::interpreter_registry());
  o.cpu.step_dir = config.get_string("cpu", "step_dir");
  o.cpu.optimize_at_exit = config.get_bool("cpu", "optimize_at_exit");
  o.cpu.large_kernel = config.get_int("cpu", "large_kernel");
  o.cpu.cache = config.component("cpu", "kernel_cache", kernel_cache_registry());
  o.cpu.cache_dir = config.get_string("cpu", "cache_dir");
  o.cpu.wait_policy = config.component("cpu", "wait_policy", wait_policy_registry());
  o.cpu.drop_compiler_pages = config.get_bool("cpu", "drop_compiler_pages");
  o.cpu.adaptive_threads = config.get_bool("cpu", "adaptive_threads");
  o.cpu.blas = config.component("cpu", "blas", cpu::blas_registry());
  o.gpu_cache = kernel_cache_registry().find(config.choice("gpu", "kernel_cache")).value;
  o.gpu_cache_dir = config.get_string("gpu", "cache_dir");
  o.opencl_device = config.get_string("gpu", "opencl_device");
  o.gpu_fallback_cpu = config.choice("gpu", "fallback") == "cpu";
  o.memory.enabled = config.get_bool("memory", "pool");
  o.memory.cap_bytes = size_t(std::max<int64_t>(0, config.get_int("memory", "pool_cap_mb"))) << 20;
  o.memory.huge_pages = config.get_bool("memory", "huge_pages");
  o.cluster_overlap = config.choice("cluster", "overlap");
  o.cluster_overlap_min_elements = config.get_int("cluster", "overlap_min_elements");
  o.profile = config.get_bool("profile", "enabled");
  o.dot_dir = config.get_string("profile", "dot_dir");
  return o;
}

Stack build_stack(const StackOptions& options) {
  algorithm_registry().find(options.fuser.algorithm); // fail before building anything
  cost_model_registry().find(options.fuser.cost_model);
  std::string list;
  for (const auto& f : options.filters) list += (list.empty() ? "" : ",") + f;
  Stack stack;
  stack.filters = resolve_filters(list);
  stack.piece_size = options.piece_size;
  const VemComponent& vem = vem_registry().find(options.vem).value;
  const EngineComponent& engine = engine_registry().find(options.engine).value;
  StackOptions o = options;
  if (vem.adjust) vem.adjust(o);
  stack.backend = vem.make(engine.make(o), o);
  stack.profile = options.profile;
#ifndef NDEBUG
  stack.check = [](const Instruction& ins, size_t index) { verify_instruction(ins, index); };
#endif
  return stack;
}

void install_stack(const StackOptions& options, Runtime& runtime) {
  publish_builtin_registries();
  runtime.install(build_stack(options));
}

void install_stack() {
  publish_builtin_registries();
  install_stack(StackOptions::from_config(*Config::global()));
}

void serve_cluster_ranks() {
#ifdef HASSIUM_HAVE_CLUSTER
  if (!cluster::Comm::launched() || Runtime::instance().installed()) return;
  publish_builtin_registries();
  const StackOptions options = StackOptions::from_config(*Config::global());
  if (options.vem != "cluster") return;
  const cluster::Comm& comm = cluster::Comm::world(); // MPI_Init
  if (comm.rank() == 0 || comm.size() == 1) return;
  install_stack(options); // serves; does not return
#endif
}

} // namespace hassium
