// ve/cuda/cuda_driver.cpp and the device without a driver: every failure is a clear reason.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/error.h"
#include "ve/cuda/cuda_device.h"
#include "ve/cuda/cuda_driver.h"

using namespace hassium;

TEST_CASE("a missing driver library is a reason, not a crash", "[cuda]") {
  cuda::DriverLoad load = cuda::load_driver("libcuda-not-here.so.1");
  CHECK(load.error.find("CUDA unavailable: libcuda-not-here.so.1 not found (") == 0);
  CHECK(load.api.cuInit == nullptr);
}

TEST_CASE("the toolkit's stub driver fails at cuInit with its error name", "[cuda]") {
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) {
    WARN("skipped: no " << stub);
    return;
  }
  cuda::DriverLoad load = cuda::load_driver(stub);
  INFO(load.error);
  CHECK(load.api.cuInit != nullptr); // every function of the table resolved
  CHECK(load.error.find("CUDA unavailable: cuInit failed: CUDA_ERROR_STUB_LIBRARY") == 0);
}

TEST_CASE("the process's driver: usable, or the same reason everywhere", "[cuda]") {
  const std::string why = cuda::driver_unavailable_reason();
  const std::string devices = cuda::describe_devices();
  CHECK(!devices.empty());
  if (why.empty()) {
    WARN("a CUDA driver is present: " << devices);
    CHECK_NOTHROW(cuda::driver());
    return;
  }
  CHECK(why.rfind("CUDA unavailable: ", 0) == 0);
  CHECK(devices == why);
  CHECK_THROWS_WITH(cuda::driver(), why);
  CHECK_THROWS_AS(cuda::CudaDevice(), UserError);
  try {
    cuda::CudaDevice device;
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) == why);
  }
}

TEST_CASE("check() names the function", "[cuda]") {
  CHECK_NOTHROW(cuda::check(CUDA_SUCCESS, "cuInit"));
  CHECK_THROWS_AS(cuda::check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"), InternalError);
  // Without a driver the code's name is still given ("CUDA_ERROR_2" when no table to ask).
  CHECK_THROWS_WITH(cuda::check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc"),
                    Catch::StartsWith("internal error: cuMemAlloc failed: CUDA_ERROR_"));
}
