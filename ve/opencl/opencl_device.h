// The OpenCL 1.2 GpuDevice (ve/gpu/gpu_device.h): the first GPU (else accelerator, else any
// device) of the first platform that has one, one in-order queue. Here it runs on PoCL.
#pragma once

#include <memory>
#include <string>

#include "core/registry.h"
#include "ve/gpu/gpu_device.h"

namespace hassium::gpu {

struct OpenClOptions {
  // Which device: empty = the first GPU of any platform, else the first device; otherwise a
  // substring of the platform or device name ("pthread", "NVIDIA").
  std::string device;
};

// Throws UserError naming why when no OpenCL device can be used (no ICD, no platform, no
// device, a device without double precision).
std::unique_ptr<GpuDevice> make_opencl_device(const OpenClOptions& options = {});

// One line per OpenCL device found ("platform / device (OpenCL C version)"), or why none
// (for `hassium info`).
std::string describe_opencl_devices();

// `hassium info`'s line on the opencl engine: the first device (and how many more), or why none.
ComponentProbe probe_opencl_engine();

} // namespace hassium::gpu
