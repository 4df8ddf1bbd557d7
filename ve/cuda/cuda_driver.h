// The CUDA Driver API opened at run time (dlopen "libcuda.so.1") behind a function table, so that
// hassium builds, starts and tests without a driver; cuda.h gives the types only.
#pragma once

#include <cuda.h>

#include <string>

namespace hassium::cuda {

// Every Driver API function hassium calls, by the symbol the driver exports. cuda.h maps the
// plain names to their versioned symbols (`#define cuMemAlloc cuMemAlloc_v2`), so a call written
// `driver.cuMemAlloc(...)` reaches the member `cuMemAlloc_v2` declared here.
#define HS_CUDA_DRIVER_FUNCTIONS(X)                                                                \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem_v2)                                                                           \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease_v2)                                                                  \
  X(cuCtxSetCurrent)                                                                               \
  X(cuMemGetInfo_v2)                                                                               \
  X(cuStreamCreate)                                                                                \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamQuery)                                                                                 \
  X(cuStreamDestroy_v2)                                                                            \
  X(cuEventCreate)                                                                                 \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventDestroy_v2)                                                                             \
  X(cuMemAlloc_v2)                                                                                 \
  X(cuMemFree_v2)                                                                                  \
  X(cuMemcpyHtoDAsync_v2)                                                                          \
  X(cuMemcpyDtoHAsync_v2)                                                                          \
  X(cuMemsetD8Async)                                                                               \
  X(cuMemHostAlloc)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuFuncSetAttribute)                                                                            \
  X(cuFuncGetAttribute)                                                                            \
  X(cuLaunchKernel)

struct DriverApi {
#define HS_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  HS_CUDA_DRIVER_FUNCTIONS(HS_CUDA_MEMBER)
#undef HS_CUDA_MEMBER
  int version = 0; // cuDriverGetVersion: 13000 for CUDA 13.0
};

// A driver library opened and initialized: the table, or why not.
struct DriverLoad {
  DriverApi api;
  std::string library; // the name or path it was opened by
  std::string error;   // empty when usable
};

// Opens `library` (a path, or a name dlopen() searches for), resolves every function and calls
// cuInit(0); error "CUDA unavailable: ..." when any step fails. The handle stays open.
DriverLoad load_driver(const std::string& library);

// The driver of `[cuda] driver_library`, loaded once per process; UserError "CUDA unavailable:
// ..." when it cannot be (no libcuda.so.1, a symbol missing, cuInit failed, e.g. no device).
const DriverApi& driver();

// Empty when driver() works, else why not ("CUDA unavailable: libcuda.so.1 not found (...)"):
// for `hassium info` and engine selection. Never throws.
std::string driver_unavailable_reason();

// Where the driver library was loaded from (its path, or the name dlopen() found).
std::string driver_library();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a result code.
std::string error_text(CUresult rc);

// Throws InternalError "cuMemAlloc failed: CUDA_ERROR_... (...)" unless rc is CUDA_SUCCESS.
void check(CUresult rc, const char* function);

} // namespace hassium::cuda

// HS_CU(cuMemAlloc, &ptr, bytes): calls the driver's function and checks its result.
#define HS_CU(function, ...)                                                                       \
  ::hassium::cuda::check(::hassium::cuda::driver().function(__VA_ARGS__), #function)
