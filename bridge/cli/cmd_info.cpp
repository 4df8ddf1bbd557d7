// `hassium info`: the configured stack, which engines and VEMs can run here (and why not), the
// cache directories and their sizes, and the versions of hassium and what it runs on.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/cli/command.h"
#include "core/config.h"
#include "core/filter_registry.h"
#include "ve/cpu/host_info.h"
#include "ve/cpu/openmp.h"
#include "vem/stack.h"
#ifdef HASSIUM_HAVE_CUDA
#include "ve/cuda/cuda_device.h"
#include "ve/cuda/cuda_driver.h"
#include "ve/cuda/nvrtc.h"
#endif

#ifndef HASSIUM_VERSION
#define HASSIUM_VERSION "unknown"
#endif

namespace {

namespace fs = std::filesystem;

// What a probe found: whether the component can run here, and the details or the reason not.
struct Probe {
  Probe(bool usable, std::string text, std::string detail = {})
      : usable(usable), text(std::move(text)), detail(std::move(detail)) {}
  bool usable;
  std::string text;
  std::string detail; // a further line, or empty
};

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : std::string(sep)) + i;
  return s;
}

// The first of `names` that dlopen() loads, or null; `error` gets the first dlerror() text.
void* open_library(std::initializer_list<const char*> names, std::string& error) {
  for (const char* n : names) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    if (error.empty()) error = e ? e : std::string(n) + ": not found";
  }
  return nullptr;
}

Probe probe_cpu() {
  hassium::CpuHostInfo h = hassium::cpu_host_info();
  return {true,
          "LLVM " + h.llvm_version + ", " + h.triple + ", host CPU " + h.cpu_name + ", " +
              std::to_string(hassium::openmp_max_threads()) + " OpenMP threads",
          "features: " + join(h.features, " ")};
}

#ifdef HASSIUM_HAVE_CUDA
// The CUDA device (ve/cuda): the driver and NVRTC, both opened at run time; the devices found,
// or why CUDA cannot run here.
Probe probe_cuda() {
  std::string text = hassium::cuda::describe_devices();
  if (text.rfind("CUDA unavailable: ", 0) == 0) text.erase(0, 18);
  const bool usable = hassium::cuda::driver_unavailable_reason().empty() &&
                      hassium::cuda::Nvrtc::unavailable_reason().empty();
  const size_t eol = text.find('\n');
  if (eol == std::string::npos) return {usable, text};
  std::string detail = text.substr(eol + 1);
  for (size_t at = 0; (at = detail.find("\n  ", at)) != std::string::npos;)
    detail.replace(at, 3, "; ");
  while (!detail.empty() && detail.front() == ' ') detail.erase(0, 1);
  return {usable, text.substr(0, eol), detail};
}
#else
// The CUDA Driver API, loaded at run time so that hassium never needs libcuda to start.
Probe probe_cuda() {
  std::string err;
  void* lib = open_library({"libcuda.so.1", "libcuda.so"}, err);
  if (!lib) return {false, "no CUDA driver (" + err + ")"};
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using VersionFn = int (*)(int*);
  using NameFn = int (*)(char*, int, int);
  using ErrorFn = int (*)(int, const char**);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "cuDriverGetVersion"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  auto error_string = reinterpret_cast<ErrorFn>(dlsym(lib, "cuGetErrorString"));
  if (!init || !count) return {false, "the CUDA driver library lacks cuInit/cuDeviceGetCount"};
  auto describe = [&](int rc) {
    const char* s = nullptr;
    if (error_string) error_string(rc, &s);
    return "error " + std::to_string(rc) + (s ? std::string(": ") + s : std::string());
  };
  if (int rc = init(0); rc != 0) return {false, "cuInit failed, " + describe(rc)};
  int n = 0;
  if (int rc = count(&n); rc != 0) return {false, "cuDeviceGetCount failed, " + describe(rc)};
  if (n == 0) return {false, "no device"};
  std::string text = std::to_string(n) + " device(s)";
  int v = 0;
  if (version && version(&v) == 0)
    text += ", driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  std::array<char, 256> buf{};
  if (name && name(buf.data(), int(buf.size()), 0) == 0)
    text += ", device 0: " + std::string(buf.data());
  return {true, text};
}
#endif

Probe probe_node() {
  return {true, "this machine"};
}

// Whether an MPI library is there for a cluster VEM to use.
Probe probe_mpi() {
  std::string err;
  void* lib = open_library({"libmpi.so.40", "libmpi.so.12", "libmpi.so"}, err);
  if (!lib) return {false, "no MPI library (" + err + ")"};
  using VersionFn = int (*)(char*, int*);
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "MPI_Get_library_version"));
  std::string text = "MPI library present";
  std::vector<char> buf(8192);
  int len = 0;
  if (version && version(buf.data(), &len) == 0) {
    std::string v(buf.data(), size_t(std::clamp(len, 0, int(buf.size()))));
    text += ": " + v.substr(0, v.find_first_of(",\n"));
  }
  return {true, text};
}

// The components `[stack] engine` and `[stack] vem` may name, each with its probe. A component
// can run when this build has it (vem/stack.h registries) and its probe finds what it needs.
struct Component {
  std::string_view key; // "engine" or "vem"
  std::string_view name;
  std::function<Probe()> probe;
};
const std::vector<Component>& components() {
  static const std::vector<Component> list = {
      {"engine", "cpu", probe_cpu},
      {"engine", "cuda", probe_cuda},
      {"vem", "node", probe_node},
      {"vem", "cluster", probe_mpi},
  };
  return list;
}

void print_components(const std::string& key, const std::vector<std::string>& built) {
  const hassium::ConfigKey* ck = nullptr;
  for (const auto& k : hassium::config_keys())
    if (k.section == "stack" && k.key == key) ck = &k;
  std::cout << key << "s:\n";
  for (const std::string& name : ck->valid_values()) {
    bool in_build = std::find(built.begin(), built.end(), name) != built.end();
    Probe p{false, "no probe"};
    for (const auto& c : components())
      if (c.key == key && c.name == name) p = c.probe();
    std::cout << "  " << name << ": ";
    if (in_build && p.usable)
      std::cout << "available (" << p.text << ")\n";
    else if (in_build)
      std::cout << "unavailable: " << p.text << "\n";
    else
      std::cout << "unavailable: not in this build (" << key << "s built: " << join(built, ", ")
                << "); " << p.text << "\n";
    if (!p.detail.empty()) std::cout << "      " << p.detail << "\n";
  }
}

// "absent", or "N files, B bytes (M MiB)".
std::string dir_size(const std::string& dir) {
  std::error_code ec;
  if (dir.empty()) return "none";
  if (!fs::exists(dir, ec)) return "absent";
  int64_t files = 0, bytes = 0;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) {
      ++files;
      bytes += int64_t(it->file_size(ec));
    }
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", double(bytes) / (1 << 20));
  return std::to_string(files) + (files == 1 ? " file, " : " files, ") + std::to_string(bytes) +
         " bytes (" + mib + " MiB)";
}

// "Python X.Y.Z, NumPy A.B.C (/path/to/python)" of `python`, or empty when it does not run.
std::string python_versions(const std::string& python) {
  std::string cmd =
      "'" + python +
      "' -c 'import sys\nprint(\"Python \" + sys.version.split()[0], sys.executable)\n"
      "try:\n import numpy\n print(\"NumPy \" + numpy.__version__)\n"
      "except Exception as e:\n print(\"NumPy not importable\")' 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {};
  std::string out;
  std::array<char, 256> buf;
  while (fgets(buf.data(), int(buf.size()), f)) out += buf.data();
  if (pclose(f) != 0 || out.find('\n') == std::string::npos) return {};
  std::string first = out.substr(0, out.find('\n'));
  std::string second = out.substr(first.size() + 1);
  if (!second.empty() && second.back() == '\n') second.pop_back();
  size_t sp = first.find(' ', 7); // "Python X.Y.Z /path"
  if (sp == std::string::npos) return {};
  return first.substr(0, sp) + ", " + second + " (" + first.substr(sp + 1) + ")";
}

// The Python the build's module was made for, else the first python3 on PATH.
std::string python_line() {
#ifdef HASSIUM_BUILD_PYTHON
  if (std::string v = python_versions(HASSIUM_BUILD_PYTHON); !v.empty()) return v;
#endif
  std::string v = python_versions("python3");
  return v.empty() ? "python3 not found on PATH" : v;
}

void print_info() {
  auto config = hassium::Config::global();
  auto value = [&](const char* s, const char* k) { return config->value(s, k).text; };
  std::cout << "hassium " << HASSIUM_VERSION << "\n";
  std::cout << "config file: " << (config->file().empty() ? "none, defaults" : config->file())
            << "\n";
  std::string filters = value("stack", "filters");
  std::cout << "stack:\n"
            << "  engine = " << value("stack", "engine") << ", vem = " << value("stack", "vem")
            << ", filters = " << (filters.empty() ? "(none)" : filters) << "\n"
            << "  fuser: algorithm " << value("fuser", "algorithm") << ", cost model "
            << value("fuser", "cost_model") << ", merge cache " << value("fuser", "cache") << "\n"
            << "  cpu: threads " << value("cpu", "threads") << " (0 = all), opt level "
            << value("cpu", "opt_level") << ", kernel cache " << value("cpu", "kernel_cache")
            << "\n"
            << "  filters in this build: " << join(hassium::filter_names(), ", ") << "\n";
  print_components("engine", hassium::engine_names());
  print_components("vem", hassium::vem_names());
  std::cout << "caches:\n"
            << "  kernels (cpu.cache_dir, used when kernel_cache = disk): "
            << value("cpu", "cache_dir") << ": " << dir_size(value("cpu", "cache_dir")) << "\n"
            << "  partitions (fuser.cache_dir, used when cache = disk): "
            << value("fuser", "cache_dir") << ": " << dir_size(value("fuser", "cache_dir")) << "\n";
  std::cout << "versions:\n"
            << "  hassium " << HASSIUM_VERSION << "\n"
            << "  LLVM " << hassium::cpu_host_info().llvm_version << "\n"
            << "  python: " << python_line() << "\n";
}

} // namespace

HS_CLI_COMMAND(info) {
  auto* sub = app.add_subcommand(
      "info", "Print the configured stack, the engines and VEMs that can run here (and why "
              "not), the cache directories with their sizes, and versions.");
  sub->callback([&exit_code] {
    print_info();
    exit_code = 0;
  });
}
