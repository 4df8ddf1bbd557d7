// The CUDA Driver API opened at run time: load_driver() resolves the function table, driver() keeps
// the process's one copy, check() turns a result code into an InternalError naming the call.
#include "ve/cuda/cuda_driver.h"

#include <dlfcn.h>

#include "core/config.h"
#include "core/error.h"

namespace hassium::cuda {

namespace {
// Names for the codes a driver that cannot start returns (the toolkit's stub library answers
// cuGetErrorName with an error too).
const char* fallback_name(CUresult rc) {
  switch (rc) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY (the toolkit's stub, not a driver)";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  default:
    return nullptr;
  }
}

std::string describe(const DriverApi& api, CUresult rc) {
  const char* name = nullptr;
  const char* what = nullptr;
  if (!api.cuGetErrorName || api.cuGetErrorName(rc, &name) != CUDA_SUCCESS) name = nullptr;
  if (!api.cuGetErrorString || api.cuGetErrorString(rc, &what) != CUDA_SUCCESS) what = nullptr;
  if (!name) name = fallback_name(rc);
  return std::string(name ? name : "CUDA_ERROR_" + std::to_string(int(rc))) +
         (what ? std::string(" (") + what + ")" : std::string());
}
} // namespace

DriverLoad load_driver(const std::string& library) {
  DriverLoad load;
  load.library = library;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    const std::string why = e ? e : "dlopen failed";
    // The driver's usual folders, for a loader not configured to search them (containers
    // mount the driver under /usr/local/nvidia).
    if (library.find('/') == std::string::npos)
      for (const char* dir : {"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
                              "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/wsl/lib"}) {
        const std::string path = std::string(dir) + "/" + library;
        if ((handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
          load.library = path;
          break;
        }
      }
    if (!handle) {
      load.error = "CUDA unavailable: " + library + " not found (" + why +
                   "; no NVIDIA driver on this machine, or set [cuda] driver_library)";
      return load;
    }
  }
  DriverApi& api = load.api;
#define HS_CUDA_RESOLVE(name)                                                                      \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));                           \
  if (!api.name) {                                                                                 \
    load.error = "CUDA unavailable: " + library + " has no " #name " (driver too old?)";           \
    return load;                                                                                   \
  }
  HS_CUDA_DRIVER_FUNCTIONS(HS_CUDA_RESOLVE)
#undef HS_CUDA_RESOLVE
  auto text = [&](CUresult rc) { return describe(api, rc); };
  if (CUresult rc = api.cuInit(0); rc != CUDA_SUCCESS) {
    load.error = "CUDA unavailable: cuInit failed: " + text(rc);
    return load;
  }
  if (CUresult rc = api.cuDriverGetVersion(&api.version); rc != CUDA_SUCCESS) {
    load.error = "CUDA unavailable: cuDriverGetVersion failed: " + text(rc);
    return load;
  }
  int devices = 0;
  if (CUresult rc = api.cuDeviceGetCount(&devices); rc != CUDA_SUCCESS || devices == 0) {
    load.error = "CUDA unavailable: " +
                 (rc != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + text(rc) : "no CUDA device");
    return load;
  }
  return load;
}

namespace {
const DriverLoad& process_driver() {
  static const DriverLoad load = [] {
    std::string library = "libcuda.so.1";
    try {
      const std::string& configured = Config::global()->get_string("cuda", "driver_library");
      if (!configured.empty()) library = configured;
    } catch (const std::exception& e) {
      DriverLoad bad;
      bad.error = std::string("CUDA unavailable: ") + e.what();
      return bad;
    }
    return load_driver(library);
  }();
  return load;
}
} // namespace

const DriverApi& driver() {
  const DriverLoad& load = process_driver();
  if (!load.error.empty()) throw UserError(load.error);
  return load.api;
}

std::string driver_unavailable_reason() {
  return process_driver().error;
}

std::string driver_library() {
  return process_driver().library;
}

std::string error_text(CUresult rc) {
  return describe(process_driver().api, rc);
}

void check(CUresult rc, const char* function) {
  if (rc == CUDA_SUCCESS) return;
  throw InternalError(std::string(function) + " failed: " + error_text(rc));
}

} // namespace hassium::cuda
