// The execution stack: registries of engines and VEMs by name, assembly, installation.
#include "vem/stack.h"

#include <functional>
#include <string_view>

#include "core/error.h"
#include "ir/algorithms.h"
#include "ir/cost_model.h"
#include "ir/merge_cache.h"
#include "ir/verifier.h"
#include "vem/node/node_vem.h"
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
using EngineFactory = std::function<std::unique_ptr<Engine>(const StackOptions&)>;
using VemFactory =
    std::function<std::unique_ptr<Backend>(std::unique_ptr<Engine>, const StackOptions&)>;

struct EngineEntry {
  std::string_view name;
  EngineFactory make;
};
struct VemEntry {
  std::string_view name;
  VemFactory make;
};

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

// The one list of engines.
const std::vector<EngineEntry>& engines() {
  static const std::vector<EngineEntry> list = {
      {"cpu", [](const StackOptions& o) { return make_cpu_engine(o.cpu); }},
#ifdef HASSIUM_HAVE_CUDA
      {"cuda",
       [](const StackOptions& o) {
         return gpu_engine(o, "cuda", [] { return cuda::make_cuda_device(); });
       }},
#endif
#ifdef HASSIUM_HAVE_OPENCL
      {"opencl",
       [](const StackOptions& o) {
         return gpu_engine(o, "opencl", [&] { return gpu::make_opencl_device({o.opencl_device}); });
       }},
#endif
  };
  return list;
}

std::unique_ptr<MergeCache> make_merge_cache(const StackOptions& o) {
  if (o.merge_cache == "none") return nullptr;
  MergeCache::Options mo;
  if (o.merge_cache == "disk") mo.dir = o.merge_cache_dir;
  return std::make_unique<MergeCache>(mo);
}

// The one list of VEMs.
const std::vector<VemEntry>& vems() {
  static const std::vector<VemEntry> list = {
      {"node",
       [](std::unique_ptr<Engine> engine, const StackOptions& o) -> std::unique_ptr<Backend> {
         auto vem = std::make_unique<NodeVem>(std::move(engine), o.fuser, make_merge_cache(o),
                                              o.memory, o.dot_dir);
         vem->set_profiling(o.profile);
         return vem;
       }},
  };
  return list;
}

template <typename Entry>
const Entry& find_entry(const std::vector<Entry>& list, std::string_view name,
                        std::string_view what) {
  for (const auto& e : list)
    if (e.name == name) return e;
  std::string valid;
  for (const auto& e : list) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  throw UserError("unknown " + std::string(what) + " '" + std::string(name) +
                  "'; this build has: " + valid);
}

template <typename Entry> std::vector<std::string> names_of(const std::vector<Entry>& list) {
  std::vector<std::string> names;
  for (const auto& e : list) names.emplace_back(e.name);
  return names;
}
} // namespace

std::vector<std::string> engine_names() {
  return names_of(engines());
}
std::vector<std::string> vem_names() {
  return names_of(vems());
}

StackOptions StackOptions::from_config(const Config& config) {
  StackOptions o;
  o.engine = config.choice("stack", "engine");
  o.vem = config.choice("stack", "vem");
  o.filters = config.get_list("stack", "filters");
  o.fuser = FuserOptions::from_config(config);
  o.merge_cache = config.choice("fuser", "cache");
  o.merge_cache_dir = config.get_string("fuser", "cache_dir");
  o.cpu.threads = int(config.get_int("cpu", "threads"));
  o.cpu.opt_level = int(config.get_int("cpu", "opt_level"));
  o.cpu.tiered_compile = config.get_bool("cpu", "tiered_compile");
  o.cpu.optimize_at_exit = config.get_bool("cpu", "optimize_at_exit");
  o.cpu.large_kernel = config.get_int("cpu", "large_kernel");
  o.cpu.cache = parse_kernel_cache_mode(config.choice("cpu", "kernel_cache"));
  o.cpu.cache_dir = config.get_string("cpu", "cache_dir");
  o.cpu.wait_policy = parse_wait_policy(config.choice("cpu", "wait_policy"));
  o.cpu.drop_compiler_pages = config.get_bool("cpu", "drop_compiler_pages");
  o.cpu.adaptive_threads = config.get_bool("cpu", "adaptive_threads");
  o.cpu.blas = cpu::parse_blas_choice(config.choice("cpu", "blas"));
  o.gpu_cache = parse_kernel_cache_mode(config.choice("gpu", "kernel_cache"));
  o.gpu_cache_dir = config.get_string("gpu", "cache_dir");
  o.opencl_device = config.get_string("gpu", "opencl_device");
  o.gpu_fallback_cpu = config.choice("gpu", "fallback") == "cpu";
  o.memory.enabled = config.get_bool("memory", "pool");
  o.memory.cap_bytes = size_t(std::max<int64_t>(0, config.get_int("memory", "pool_cap_mb"))) << 20;
  o.memory.huge_pages = config.get_bool("memory", "huge_pages");
  o.profile = config.get_bool("profile", "enabled");
  o.dot_dir = config.get_string("profile", "dot_dir");
  return o;
}

Stack build_stack(const StackOptions& options) {
  find_algorithm(options.fuser.algorithm); // fail before building anything
  find_cost_model(options.fuser.cost_model);
  std::string list;
  for (const auto& f : options.filters) list += (list.empty() ? "" : ",") + f;
  Stack stack;
  stack.filters = resolve_filters(list);
  const VemEntry& vem = find_entry(vems(), options.vem, "VEM ([stack] vem)");
  const EngineEntry& engine = find_entry(engines(), options.engine, "engine ([stack] engine)");
  stack.backend = vem.make(engine.make(options), options);
  stack.profile = options.profile;
#ifndef NDEBUG
  stack.check = [](const Instruction& ins, size_t index) { verify_instruction(ins, index); };
#endif
  return stack;
}

void install_stack(const StackOptions& options, Runtime& runtime) {
  runtime.install(build_stack(options));
}

void install_stack() {
  install_stack(StackOptions::from_config(*Config::global()));
}

} // namespace hassium
