// OpenClDevice: GpuDevice over OpenCL 1.2: buffers are cl_mem, programs cl_program (build log in
// errors, binaries for the disk cache), one in-order queue; copies to the device are enqueued
// without blocking from a staging copy the completion callback frees; params travel in a buffer
// created (copied) per launch and released after it is enqueued.
#include "ve/opencl/opencl_device.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001 // cl_khr_icd: the ICD loader found no platform
#endif

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>

#include "core/error.h"
#include "ve/gpu/interruptible_wait.h"

namespace hassium::gpu {

namespace {

const char* error_name(cl_int e) {
  switch (e) {
#define HS_CASE(x)                                                                                 \
  case x:                                                                                          \
    return #x;
    HS_CASE(CL_SUCCESS)
    HS_CASE(CL_DEVICE_NOT_FOUND)
    HS_CASE(CL_DEVICE_NOT_AVAILABLE)
    HS_CASE(CL_COMPILER_NOT_AVAILABLE)
    HS_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    HS_CASE(CL_OUT_OF_RESOURCES)
    HS_CASE(CL_OUT_OF_HOST_MEMORY)
    HS_CASE(CL_BUILD_PROGRAM_FAILURE)
    HS_CASE(CL_INVALID_VALUE)
    HS_CASE(CL_INVALID_PLATFORM)
    HS_CASE(CL_INVALID_DEVICE)
    HS_CASE(CL_INVALID_CONTEXT)
    HS_CASE(CL_INVALID_COMMAND_QUEUE)
    HS_CASE(CL_INVALID_MEM_OBJECT)
    HS_CASE(CL_INVALID_BINARY)
    HS_CASE(CL_INVALID_BUILD_OPTIONS)
    HS_CASE(CL_INVALID_PROGRAM)
    HS_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    HS_CASE(CL_INVALID_KERNEL_NAME)
    HS_CASE(CL_INVALID_KERNEL)
    HS_CASE(CL_INVALID_ARG_INDEX)
    HS_CASE(CL_INVALID_ARG_VALUE)
    HS_CASE(CL_INVALID_ARG_SIZE)
    HS_CASE(CL_INVALID_KERNEL_ARGS)
    HS_CASE(CL_INVALID_WORK_DIMENSION)
    HS_CASE(CL_INVALID_WORK_GROUP_SIZE)
    HS_CASE(CL_INVALID_WORK_ITEM_SIZE)
    HS_CASE(CL_INVALID_GLOBAL_OFFSET)
    HS_CASE(CL_INVALID_BUFFER_SIZE)
    HS_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
    HS_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#undef HS_CASE
  default:
    return "an unknown OpenCL error";
  }
}

void check(cl_int e, const char* what) {
  if (e == CL_SUCCESS) return;
  if (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES)
    throw OutOfMemory(std::string("OpenCL: ") + what + ": " + error_name(e));
  throw InternalError(std::string("OpenCL: ") + what + " failed: " + error_name(e) + " (" +
                      std::to_string(e) + ")");
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T> T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

struct Found {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

std::vector<std::pair<cl_platform_id, std::vector<cl_device_id>>> all_devices(std::string* why) {
  std::vector<std::pair<cl_platform_id, std::vector<cl_device_id>>> out;
  cl_uint np = 0;
  cl_int e = clGetPlatformIDs(0, nullptr, &np);
  if (e != CL_SUCCESS || np == 0) {
    if (why)
      *why = e == CL_SUCCESS || e == CL_PLATFORM_NOT_FOUND_KHR
                 ? "no OpenCL platform is installed (an ICD, e.g. pocl-opencl-icd)"
                 : std::string("clGetPlatformIDs: ") + error_name(e);
    return out;
  }
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  for (cl_platform_id p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    out.emplace_back(p, std::move(ds));
  }
  if (out.empty() && why) *why = "the OpenCL platforms have no devices";
  return out;
}

Found choose(const OpenClOptions& o) {
  std::string why;
  auto platforms = all_devices(&why);
  if (platforms.empty()) HS_USER_ERROR() << "OpenCL: " << why;
  Found any, gpu;
  for (auto& [p, ds] : platforms) {
    const std::string pname = platform_string(p, CL_PLATFORM_NAME);
    for (cl_device_id d : ds) {
      const std::string dname = device_string(d, CL_DEVICE_NAME);
      if (!o.device.empty()) {
        if (pname.find(o.device) != std::string::npos || dname.find(o.device) != std::string::npos)
          return {p, d};
        continue;
      }
      if (!any.device) any = {p, d};
      if (!gpu.device && (device_value<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU))
        gpu = {p, d};
    }
  }
  if (!o.device.empty())
    HS_USER_ERROR() << "OpenCL: no platform or device named like '" << o.device << "'";
  return gpu.device ? gpu : any;
}

class ClKernel : public DeviceKernel {
public:
  explicit ClKernel(cl_kernel k) : kernel(k) {}
  ~ClKernel() override { clReleaseKernel(kernel); }
  cl_kernel kernel;
};

class ClProgram : public DeviceProgram {
public:
  ClProgram(cl_program p, cl_device_id d) : program_(p), device_(d) {}
  ~ClProgram() override {
    kernels_.clear();
    clReleaseProgram(program_);
  }
  DeviceKernel& kernel(const std::string& name) override {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return *it->second;
    cl_int e = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program_, name.c_str(), &e);
    check(e, ("clCreateKernel " + name).c_str());
    return *kernels_.emplace(name, std::make_unique<ClKernel>(k)).first->second;
  }
  std::vector<char> binary() const override {
    size_t size = 0;
    if (clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
            CL_SUCCESS ||
        size == 0)
      return {};
    std::vector<char> bin(size);
    unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
    if (clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS)
      return {};
    (void)device_;
    return bin;
  }

private:
  cl_program program_;
  cl_device_id device_;
  std::map<std::string, std::unique_ptr<ClKernel>> kernels_;
};

// The build options every program gets: IEEE-exact division and square root in float too.
constexpr const char* kBuildOptions = "-cl-fp32-correctly-rounded-divide-sqrt";

class OpenClDevice : public GpuDevice {
public:
  explicit OpenClDevice(const OpenClOptions& o) : dialect_(Dialect::opencl()) {
    Found f = choose(o);
    device_ = f.device;
    const std::string ext = device_string(device_, CL_DEVICE_EXTENSIONS);
    if (ext.find("cl_khr_fp64") == std::string::npos)
      HS_USER_ERROR() << "OpenCL device " << device_string(device_, CL_DEVICE_NAME)
                      << " has no double precision (cl_khr_fp64)";
    cl_int e = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &e);
    check(e, "clCreateContext");
    queue_ = clCreateCommandQueue(context_, device_, 0, &e);
    check(e, "clCreateCommandQueue");
    info_.name = device_string(device_, CL_DEVICE_NAME);
    info_.arch = device_string(device_, CL_DEVICE_VERSION);
    info_.versions = platform_string(f.platform, CL_PLATFORM_NAME) + " " +
                     platform_string(f.platform, CL_PLATFORM_VERSION) + "; driver " +
                     device_string(device_, CL_DRIVER_VERSION) + "; " +
                     device_string(device_, CL_DEVICE_OPENCL_C_VERSION) + "; " + kBuildOptions;
    info_.global_memory = size_t(device_value<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_SIZE));
    info_.max_group_size = device_value<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info_.shared_memory = size_t(device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE));
    info_.compute_units = int(device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS));
    info_.max_param_bytes = device_value<size_t>(device_, CL_DEVICE_MAX_PARAMETER_SIZE);
    max_alloc_ = size_t(device_value<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  }
  ~OpenClDevice() override {
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
    clReleaseContext(context_);
  }

  const DeviceInfo& info() const override { return info_; }
  const Dialect& dialect() const override { return dialect_; }

  DeviceBuffer allocate(size_t bytes) override {
    cl_int e = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &e);
    if (e == CL_INVALID_BUFFER_SIZE || e == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        e == CL_OUT_OF_RESOURCES || e == CL_OUT_OF_HOST_MEMORY)
      throw OutOfMemory("clCreateBuffer of " + std::to_string(bytes) + " bytes: " + error_name(e) +
                        "; largest buffer " + std::to_string(max_alloc_) + " bytes");
    check(e, "clCreateBuffer");
    return {reinterpret_cast<uintptr_t>(m), bytes};
  }
  void release(DeviceBuffer b) override {
    if (b) clReleaseMemObject(mem(b)); // deferred by OpenCL until queued work is done with it
  }
  void fill_zero(DeviceBuffer b) override {
    if (!b || b.bytes == 0) return;
    const cl_uchar zero = 0;
    check(clEnqueueFillBuffer(queue_, mem(b), &zero, 1, 0, b.bytes, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
  }
  void copy_to_device(DeviceBuffer dst, size_t offset, const void* src, size_t bytes) override {
    if (bytes == 0) return;
    // A staging copy the queue owns until the write completes.
    char* staging = new char[bytes];
    std::memcpy(staging, src, bytes);
    cl_event done = nullptr;
    cl_int e =
        clEnqueueWriteBuffer(queue_, mem(dst), CL_FALSE, offset, bytes, staging, 0, nullptr, &done);
    if (e != CL_SUCCESS) {
      delete[] staging;
      check(e, "clEnqueueWriteBuffer");
    }
    e = clSetEventCallback(
        done, CL_COMPLETE, [](cl_event, cl_int, void* p) { delete[] static_cast<char*>(p); },
        staging);
    clReleaseEvent(done);
    if (e != CL_SUCCESS) { // no callback: wait here and free it
      clFinish(queue_);
      delete[] staging;
    }
  }
  void copy_to_host(void* dst, DeviceBuffer src, size_t offset, size_t bytes) override {
    if (bytes == 0) return;
    synchronize(); // the long wait (for the kernels before it) is interruptible
    check(clEnqueueReadBuffer(queue_, mem(src), CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }

  std::unique_ptr<DeviceProgram> compile(const std::string& source) override {
    const char* text = source.c_str();
    const size_t length = source.size();
    cl_int e = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(context_, 1, &text, &length, &e);
    check(e, "clCreateProgramWithSource");
    e = clBuildProgram(p, 1, &device_, kBuildOptions, nullptr, nullptr);
    if (e != CL_SUCCESS) {
      const std::string log = build_log(p);
      clReleaseProgram(p);
      if (e == CL_BUILD_PROGRAM_FAILURE)
        HS_USER_ERROR() << "OpenCL: the kernel does not compile on " << info_.name << ":\n" << log;
      check(e, "clBuildProgram");
    }
    return std::make_unique<ClProgram>(p, device_);
  }

  std::unique_ptr<DeviceProgram> load(const std::vector<char>& binary) override {
    if (binary.empty()) return nullptr;
    const size_t length = binary.size();
    const unsigned char* bin = reinterpret_cast<const unsigned char*>(binary.data());
    cl_int status = CL_SUCCESS, e = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(context_, 1, &device_, &length, &bin, &status, &e);
    if (e != CL_SUCCESS || status != CL_SUCCESS) {
      if (p) clReleaseProgram(p);
      return nullptr;
    }
    if (clBuildProgram(p, 1, &device_, kBuildOptions, nullptr, nullptr) != CL_SUCCESS) {
      clReleaseProgram(p);
      return nullptr;
    }
    return std::make_unique<ClProgram>(p, device_);
  }

  void launch(DeviceKernel& kernel, const LaunchGeometry& g, const KernelArgs& args) override {
    cl_kernel k = static_cast<ClKernel&>(kernel).kernel;
    cl_uint i = 0;
    for (const DeviceBuffer& b : args.buffers) {
      cl_mem m = mem(b);
      check(clSetKernelArg(k, i++, sizeof m, &m), "clSetKernelArg");
    }
    cl_int e = CL_SUCCESS;
    if (args.params_by_value) {
      e = clSetKernelArg(k, i++, args.params.size() * sizeof(int64_t), args.params.data());
      if (e == CL_SUCCESS)
        e = clEnqueueNDRangeKernel(queue_, k, cl_uint(g.dims), nullptr, g.global, g.local, 0,
                                   nullptr, nullptr);
      check(e, "clEnqueueNDRangeKernel");
      return;
    }
    const size_t bytes = std::max<size_t>(1, args.params.size()) * sizeof(int64_t);
    int64_t none = 0;
    cl_mem params = clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                   args.params.empty() ? static_cast<void*>(&none)
                                                       : const_cast<int64_t*>(args.params.data()),
                                   &e);
    check(e, "clCreateBuffer (params)");
    e = clSetKernelArg(k, i++, sizeof params, &params);
    if (e == CL_SUCCESS)
      e = clEnqueueNDRangeKernel(queue_, k, cl_uint(g.dims), nullptr, g.global, g.local, 0, nullptr,
                                 nullptr);
    clReleaseMemObject(params); // freed once the kernel is done with it
    check(e, "clEnqueueNDRangeKernel");
  }

  // Waits for the queue through a marker it polls, so that SIGINT ends the wait; clFinish then
  // reports a failed command.
  void synchronize() override {
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
    check(clFlush(queue_), "clFlush");
    try {
      wait_interruptibly([&] {
        cl_int status = CL_QUEUED;
        if (clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           nullptr) != CL_SUCCESS)
          return true; // clFinish says what went wrong
        return status == CL_COMPLETE || status < 0;
      });
    } catch (...) {
      clReleaseEvent(marker);
      throw;
    }
    clReleaseEvent(marker);
    check(clFinish(queue_), "clFinish");
  }

private:
  static cl_mem mem(DeviceBuffer b) { return reinterpret_cast<cl_mem>(b.handle); }

  std::string build_log(cl_program p) const {
    size_t n = 0;
    clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    if (n) clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
  }

  Dialect dialect_;
  DeviceInfo info_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  size_t max_alloc_ = 0; // CL_DEVICE_MAX_MEM_ALLOC_SIZE
};

} // namespace

std::unique_ptr<GpuDevice> make_opencl_device(const OpenClOptions& options) {
  return std::make_unique<OpenClDevice>(options);
}

std::string describe_opencl_devices() {
  std::string why;
  auto platforms = all_devices(&why);
  if (platforms.empty()) return "no OpenCL device: " + why + "\n";
  std::ostringstream s;
  for (auto& [p, ds] : platforms)
    for (cl_device_id d : ds)
      s << platform_string(p, CL_PLATFORM_NAME) << " / " << device_string(d, CL_DEVICE_NAME) << " ("
        << device_string(d, CL_DEVICE_OPENCL_C_VERSION) << ")\n";
  return s.str();
}

ComponentProbe probe_opencl_engine() {
  const std::string devices = describe_opencl_devices();
  if (devices.rfind("no OpenCL device", 0) == 0)
    return {false, devices.substr(0, devices.size() - 1), {}};
  std::string text = devices.substr(0, devices.find('\n'));
  const auto n = std::count(devices.begin(), devices.end(), '\n');
  if (n > 1) text += " (+" + std::to_string(n - 1) + " more)";
  return {true, text, {}};
}

} // namespace hassium::gpu
