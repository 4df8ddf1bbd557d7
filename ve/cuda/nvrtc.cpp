// NVRTC found and opened at run time; compile() runs one program to PTX (and cubin).
#include "ve/cuda/nvrtc.h"

#include <dlfcn.h>
#include <glob.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <memory>

#include "core/config.h"
#include "core/error.h"

namespace hassium::cuda {

#define HS_NVRTC_FUNCTIONS(X)                                                                      \
  X(nvrtcGetErrorString)                                                                           \
  X(nvrtcVersion)                                                                                  \
  X(nvrtcGetNumSupportedArchs)                                                                     \
  X(nvrtcGetSupportedArchs)                                                                        \
  X(nvrtcCreateProgram)                                                                            \
  X(nvrtcDestroyProgram)                                                                           \
  X(nvrtcCompileProgram)                                                                           \
  X(nvrtcGetPTXSize)                                                                               \
  X(nvrtcGetPTX)                                                                                   \
  X(nvrtcGetCUBINSize)                                                                             \
  X(nvrtcGetCUBIN)                                                                                 \
  X(nvrtcGetProgramLogSize)                                                                        \
  X(nvrtcGetProgramLog)

struct Nvrtc::Api {
#define HS_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
  HS_NVRTC_FUNCTIONS(HS_NVRTC_MEMBER)
#undef HS_NVRTC_MEMBER
  int major = 0, minor = 0;
  std::vector<int> archs;
};

namespace fs = std::filesystem;

namespace {

// The names NVRTC's library goes by, newest first (NVRTC 12 compiles the same source).
const char* const kNames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  std::sort(out.rbegin(), out.rend()); // cuda-13.1 before cuda-13.0
  return out;
}

// Folders that may hold libnvrtc.so.*, in the order they are tried.
std::vector<std::string> candidate_folders() {
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char* v = std::getenv(env); v && *v) {
      dirs.push_back(std::string(v) + "/lib64");
      dirs.push_back(std::string(v) + "/lib");
    }
  dirs.push_back("/usr/local/cuda/lib64");
  for (const auto& d : glob_paths("/usr/local/cuda-*/lib64")) dirs.push_back(d);
  dirs.push_back("/usr/lib/x86_64-linux-gnu");
  // pip's wheels: nvidia-cuda-nvrtc (CUDA 13: nvidia/cu13/lib; CUDA 12: nvidia/cuda_nvrtc/lib).
  std::vector<std::string> site_packages;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv)
    for (const auto& d : glob_paths(std::string(venv) + "/lib/python3*/site-packages"))
      site_packages.push_back(d);
  for (const char* pattern :
       {"/opt/*/.venv/lib/python3*/site-packages", "/opt/*/venv/lib/python3*/site-packages",
        "/opt/*/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
        "/usr/local/lib/python3*/site-packages", "/usr/lib/python3/dist-packages"})
    for (const auto& d : glob_paths(pattern)) site_packages.push_back(d);
  if (const char* home = std::getenv("HOME"); home && *home)
    for (const auto& d : glob_paths(std::string(home) + "/.local/lib/python3*/site-packages"))
      site_packages.push_back(d);
  for (const auto& sp : site_packages)
    for (const char* sub : {"/nvidia/cu13/lib", "/nvidia/cuda_nvrtc/lib", "/nvidia/cu12/lib"})
      dirs.push_back(sp + sub);
  return dirs;
}

// Opens NVRTC from `path` (a file); its builtins library (libnvrtc-builtins.so.*, which NVRTC
// opens by name) is loaded first from the same folder, so NVRTC finds it without LD_LIBRARY_PATH.
void* open_file(const fs::path& path, std::string& error) {
  for (const auto& b : glob_paths((path.parent_path() / "libnvrtc-builtins.so.*").string()))
    if (b.find(".alt.") == std::string::npos) dlopen(b.c_str(), RTLD_NOW | RTLD_GLOBAL);
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h && error.empty()) {
    const char* e = dlerror();
    error = e ? e : path.string() + ": dlopen failed";
  }
  return h;
}

// Looks for NVRTC where the header says; returns the handle and its path, or the reason.
void* find_library(std::string& found, std::string& reason) {
  std::string error;
  std::string configured;
  try {
    configured = Config::global()->get_string("cuda", "nvrtc_library");
  } catch (const std::exception& e) {
    reason = e.what();
    return nullptr;
  }
  if (!configured.empty()) {
    fs::path p(configured);
    std::vector<fs::path> files;
    if (fs::is_directory(p))
      for (const char* n : kNames) files.push_back(p / n);
    else
      files.push_back(p);
    for (const auto& f : files)
      if (fs::exists(f))
        if (void* h = open_file(f, error)) return found = f.string(), h;
    reason = "[cuda] nvrtc_library '" + configured + "' has no usable libnvrtc.so" +
             (error.empty() ? std::string() : " (" + error + ")");
    return nullptr;
  }
  for (const char* n : kNames)
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) {
      char path[4096] = {};
      found = dlinfo(h, RTLD_DI_ORIGIN, path) == 0 ? std::string(path) + "/" + n : n;
      return h;
    }
  std::vector<std::string> dirs = candidate_folders();
  for (const auto& d : dirs)
    for (const char* n : kNames) {
      fs::path f = fs::path(d) / n;
      std::error_code ec;
      if (fs::exists(f, ec))
        if (void* h = open_file(f, error)) return found = f.string(), h;
    }
  reason = "libnvrtc.so.13/.12 not found by dlopen nor in $CUDA_HOME, /usr/local/cuda*/lib64, "
           "pip's nvidia/cu13/lib or nvidia/cuda_nvrtc/lib (set [cuda] nvrtc_library, env "
           "HASSIUM_CUDA_NVRTC_LIBRARY, to the file or its folder)" +
           (error.empty() ? std::string() : "; " + error);
  return nullptr;
}

struct Loaded {
  std::unique_ptr<Nvrtc::Api> api;
  std::unique_ptr<Nvrtc> nvrtc;
  std::string error;
};

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded out;
    std::string path, reason;
    void* h = find_library(path, reason);
    if (!h) {
      out.error = "NVRTC unavailable: " + reason;
      return out;
    }
    auto api = std::make_unique<Nvrtc::Api>();
#define HS_NVRTC_RESOLVE(name)                                                                     \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(h, #name));                              \
  if (!api->name) {                                                                                \
    out.error = "NVRTC unavailable: " + path + " has no " #name;                                   \
    return out;                                                                                    \
  }
    HS_NVRTC_FUNCTIONS(HS_NVRTC_RESOLVE)
#undef HS_NVRTC_RESOLVE
    if (api->nvrtcVersion(&api->major, &api->minor) != NVRTC_SUCCESS) {
      out.error = "NVRTC unavailable: nvrtcVersion failed in " + path;
      return out;
    }
    int n = 0;
    if (api->nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
      api->archs.resize(size_t(n));
      if (api->nvrtcGetSupportedArchs(api->archs.data()) != NVRTC_SUCCESS) api->archs.clear();
    }
    out.nvrtc = std::make_unique<Nvrtc>(api.get(), path);
    out.api = std::move(api);
    return out;
  }();
  return l;
}

} // namespace

Nvrtc::Nvrtc(const Api* api, std::string library) : api_(api), library_(std::move(library)) {}

const Nvrtc& Nvrtc::get() {
  const Loaded& l = loaded();
  if (!l.nvrtc) throw UserError(l.error);
  return *l.nvrtc;
}

std::string Nvrtc::unavailable_reason() {
  return loaded().error;
}

std::string Nvrtc::version() const {
  return std::to_string(api_->major) + "." + std::to_string(api_->minor);
}

int Nvrtc::version_number() const {
  return api_->major * 1000 + api_->minor * 10;
}

const std::string& Nvrtc::library() const {
  return library_;
}

std::vector<int> Nvrtc::supported_archs() const {
  return api_->archs;
}

bool Nvrtc::supports(int sm) const {
  return std::find(api_->archs.begin(), api_->archs.end(), sm) != api_->archs.end();
}

int arch_number(const std::string& arch) {
  std::string digits;
  if (arch.rfind("sm_", 0) == 0)
    digits = arch.substr(3);
  else if (arch.rfind("compute_", 0) == 0)
    digits = arch.substr(8);
  if (digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoi(digits);
}

NvrtcOutput Nvrtc::compile(const std::string& source, const std::string& arch,
                           const std::string& name) const {
  HS_USER_ASSERT(arch_number(arch) > 0)
      << "CUDA architecture '" << arch << "' is not sm_XY or compute_XY";
  const bool real = arch.rfind("sm_", 0) == 0;
  auto fail = [&](nvrtcResult rc, const char* what) {
    throw InternalError(std::string(what) + " failed: " + api_->nvrtcGetErrorString(rc));
  };
  nvrtcProgram prog = nullptr;
  if (nvrtcResult rc =
          api_->nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
      rc != NVRTC_SUCCESS)
    fail(rc, "nvrtcCreateProgram");
  struct Destroy {
    const Api* api;
    nvrtcProgram* prog;
    ~Destroy() { api->nvrtcDestroyProgram(prog); }
  } destroy{api_, &prog};
  // fmad=false: a * b + c rounds twice, as on the CPU engine (its IR has no contraction).
  // -default-device: every function is __device__ unless marked otherwise. No -lineinfo.
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "--std=c++17", "--fmad=false", "-default-device"};
  nvrtcResult rc = api_->nvrtcCompileProgram(prog, int(std::size(options)), options);
  NvrtcOutput out;
  size_t log_size = 0;
  if (api_->nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    api_->nvrtcGetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (rc != NVRTC_SUCCESS)
    throw UserError("NVRTC " + version() + " failed to compile " + name + " for " + arch + " (" +
                    api_->nvrtcGetErrorString(rc) + "):\n" + out.log);
  size_t size = 0;
  if (nvrtcResult r = api_->nvrtcGetPTXSize(prog, &size); r != NVRTC_SUCCESS)
    fail(r, "nvrtcGetPTXSize");
  out.ptx.resize(size);
  if (nvrtcResult r = api_->nvrtcGetPTX(prog, out.ptx.data()); r != NVRTC_SUCCESS)
    fail(r, "nvrtcGetPTX");
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  if (real) {
    if (nvrtcResult r = api_->nvrtcGetCUBINSize(prog, &size); r != NVRTC_SUCCESS)
      fail(r, "nvrtcGetCUBINSize");
    out.cubin.resize(size);
    if (nvrtcResult r = api_->nvrtcGetCUBIN(prog, out.cubin.data()); r != NVRTC_SUCCESS)
      fail(r, "nvrtcGetCUBIN");
  }
  return out;
}

} // namespace hassium::cuda
