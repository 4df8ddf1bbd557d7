// CudaDevice: GpuDevice over the CUDA Driver API; memory pool, staging ring, NVRTC compiles.
#include "ve/cuda/cuda_device.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "core/config.h"
#include "core/error.h"
#include "ve/cuda/cuda_driver.h"
#include "ve/cuda/nvrtc.h"
#include "ve/gpu/interruptible_wait.h"

namespace hassium::cuda {

namespace {

constexpr size_t kParamsArena = 1u << 20; // bytes of parameter blocks between two idle points
constexpr size_t kParamsAlign = 256;
constexpr size_t kSlots = 8; // staging ring slots

size_t round_up(size_t x, size_t to) {
  return (x + to - 1) / to * to;
}

// memcpy of a staging slot's worth, split over `threads` threads when large: one thread's
// memcpy moves less than the PCIe link does.
void parallel_memcpy(void* dst, const void* src, size_t n, int threads) {
  constexpr size_t kMinPart = 1u << 20;
  const size_t parts = std::min<size_t>(size_t(std::max(threads, 1)), n / kMinPart);
  if (parts <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  const size_t part = round_up(n / parts, 4096);
  auto copy = [&](size_t i) {
    const size_t lo = std::min(n, i * part), hi = std::min(n, lo + part);
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  };
  std::vector<std::thread> helpers;
  helpers.reserve(parts - 1);
  for (size_t i = 1; i < parts; ++i) helpers.emplace_back(copy, i);
  copy(0);
  for (auto& t : helpers) t.join();
}

int attribute(CUdevice device, CUdevice_attribute a) {
  int v = 0;
  HS_CU(cuDeviceGetAttribute, &v, a, device);
  return v;
}

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

} // namespace

CudaDeviceOptions CudaDeviceOptions::from_config() {
  const Config& c = *Config::global();
  CudaDeviceOptions o;
  o.ordinal = int(c.get_int("cuda", "device"));
  int64_t limit = c.get_int("cuda", "memory_limit_mb");
  int64_t staging = c.get_int("cuda", "staging_mb");
  HS_USER_ASSERT(limit >= 0) << "[cuda] memory_limit_mb must be >= 0, not " << limit;
  HS_USER_ASSERT(staging >= 1) << "[cuda] staging_mb must be >= 1, not " << staging;
  o.memory_limit = size_t(limit) << 20;
  o.staging_bytes = size_t(staging) << 20;
  o.copy_threads = int(c.get_int("cuda", "copy_threads"));
  HS_USER_ASSERT(o.copy_threads >= 1 && o.copy_threads <= 64)
      << "[cuda] copy_threads must be 1..64, not " << o.copy_threads;
  return o;
}

// --- the device ----------------------------------------------------------------------------

CudaDevice::CudaDevice(const CudaDeviceOptions& options, bool need_nvrtc)
    : options_(options), dialect_(gpu::Dialect::cuda()) {
  const DriverApi& d = driver();
  int count = 0;
  HS_CU(cuDeviceGetCount, &count);
  HS_USER_ASSERT(options.ordinal >= 0 && options.ordinal < count)
      << "CUDA unavailable: [cuda] device " << options.ordinal << " does not exist (" << count
      << " device(s))";
  HS_CU(cuDeviceGet, &device_, options.ordinal);
  char name[256] = {};
  HS_CU(cuDeviceGetName, name, int(sizeof name), device_);
  info_.name = name;
  cc_ = attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
        attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info_.arch = "sm_" + std::to_string(cc_);
  size_t total = 0;
  HS_CU(cuDeviceTotalMem, &total, device_);
  info_.global_memory = total;
  info_.max_group_size = size_t(attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info_.shared_memory =
      size_t(attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  info_.compute_units = attribute(device_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  double clock_khz = attribute(device_, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  double bus_bits = attribute(device_, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  peak_bandwidth_ = 2.0 * clock_khz * 1e3 * bus_bits / 8; // double data rate

  std::string compiler = "no NVRTC";
  compile_arch_ = info_.arch;
  info_.max_param_bytes = 4096; // kernel parameters: the classic limit
  if (need_nvrtc || Nvrtc::unavailable_reason().empty()) {
    const Nvrtc& nvrtc = Nvrtc::get();
    compiler = "NVRTC " + nvrtc.version();
    // 32764 bytes from Volta on, with a 12.1 driver and PTX ISA 8.1 (NVRTC 12.1).
    if (cc_ >= 70 && d.version >= 12010 && nvrtc.version_number() >= 12010)
      info_.max_param_bytes = 32764;
    if (!nvrtc.supports(cc_)) {
      // A device newer than this NVRTC: PTX for the newest architecture below it, JIT-compiled
      // by the driver at load.
      int best = 0;
      for (int a : nvrtc.supported_archs())
        if (a <= cc_) best = std::max(best, a);
      HS_USER_ASSERT(best > 0) << "NVRTC " << nvrtc.version() << " cannot compile for "
                               << info_.arch;
      compile_arch_ = "compute_" + std::to_string(best);
    }
  }
  info_.versions = "CUDA driver " + version_text(d.version) + ", " + compiler + ", " +
                   compile_arch_ + ", hassium cuda 1";

  HS_CU(cuDevicePrimaryCtxRetain, &context_, device_);
  bind();
  HS_CU(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);

  slot_bytes_ = std::max<size_t>(round_up(options.staging_bytes / kSlots, 4096), 4096);
  slots_.resize(kSlots);
  for (Slot& s : slots_) {
    void* p = nullptr;
    HS_CU(cuMemHostAlloc, &p, slot_bytes_, 0);
    s.host = static_cast<char*>(p);
    HS_CU(cuEventCreate, &s.done, CU_EVENT_DISABLE_TIMING);
  }
  void* p = nullptr;
  HS_CU(cuMemHostAlloc, &p, kParamsArena, 0);
  params_host_ = static_cast<char*>(p);
  HS_CU(cuMemAlloc, &params_device_, kParamsArena);
  params_capacity_ = kParamsArena;
}

CudaDevice::~CudaDevice() {
  // Nothing may throw here: results are ignored (a failed launch was reported at its sync).
  const DriverApi& d = driver();
  d.cuCtxSetCurrent(context_);
  if (stream_) d.cuStreamSynchronize(stream_);
  for (auto& [size, ptr] : free_) d.cuMemFree(ptr);
  for (auto& [ptr, size] : sizes_) d.cuMemFree(ptr);
  for (Slot& s : slots_) {
    if (s.host) d.cuMemFreeHost(s.host);
    if (s.done) d.cuEventDestroy(s.done);
  }
  if (params_host_) d.cuMemFreeHost(params_host_);
  if (params_device_) d.cuMemFree(params_device_);
  if (stream_) d.cuStreamDestroy(stream_);
  if (context_) d.cuDevicePrimaryCtxRelease(device_);
}

void CudaDevice::bind() const {
  HS_CU(cuCtxSetCurrent, context_);
}

// --- memory --------------------------------------------------------------------------------

CudaGrid cuda_grid(const gpu::LaunchGeometry& g, size_t max_threads) {
  HS_INTERNAL_ASSERT(g.dims >= 1 && g.dims <= 3) << "launch in " << g.dims << " dimensions";
  CudaGrid out;
  size_t threads = 1;
  for (int d = 0; d < g.dims; ++d) {
    HS_INTERNAL_ASSERT(g.local[d] > 0 && g.global[d] % g.local[d] == 0)
        << "launch: global " << g.global[d] << " is not a multiple of local " << g.local[d]
        << " in dimension " << d;
    const size_t groups = g.global[d] / g.local[d];
    HS_INTERNAL_ASSERT(groups >= 1 && groups <= (d == 0 ? 0x7fffffffu : 65535u))
        << "launch: " << groups << " groups in dimension " << d;
    HS_INTERNAL_ASSERT(g.local[d] <= (d == 2 ? 64u : 1024u))
        << "launch: " << g.local[d] << " threads in dimension " << d;
    out.grid[d] = unsigned(groups);
    out.block[d] = unsigned(g.local[d]);
    threads *= g.local[d];
  }
  HS_INTERNAL_ASSERT(threads <= max_threads)
      << "launch: " << threads << " threads per group, the device allows " << max_threads;
  return out;
}

// Pool classes: multiples of 256 bytes up to 4 KiB, then eight classes per power of two (at
// most 12.5% unused).
size_t CudaDevice::size_class(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  if (bytes <= 4096) return round_up(bytes, 256);
  return round_up(bytes, std::bit_floor(bytes) / 8);
}

gpu::DeviceBuffer CudaDevice::allocate(size_t bytes) {
  std::lock_guard lock(mutex_);
  bind();
  const size_t cls = size_class(bytes);
  CUdeviceptr ptr = 0;
  if (auto it = free_.lower_bound(cls); it != free_.end() && it->first == cls) {
    ptr = it->second;
    free_.erase(it);
  } else {
    auto over_limit = [&] {
      return options_.memory_limit && stats_.memory_held + cls > options_.memory_limit;
    };
    if (over_limit()) trim();
    if (over_limit())
      throw OutOfMemory("CUDA device memory: " + std::to_string(bytes) + " bytes more would pass " +
                        "[cuda] memory_limit_mb (" + std::to_string(options_.memory_limit >> 20) +
                        " MiB; " + std::to_string(stats_.memory_in_use) + " bytes in use)");
    CUresult rc = driver().cuMemAlloc(&ptr, cls);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
      trim();
      rc = driver().cuMemAlloc(&ptr, cls);
    }
    if (rc == CUDA_ERROR_OUT_OF_MEMORY)
      throw OutOfMemory("CUDA device memory: cuMemAlloc of " + std::to_string(cls) +
                        " bytes failed on " + info_.name + " (" +
                        std::to_string(stats_.memory_in_use) + " bytes in use)");
    check(rc, "cuMemAlloc");
    stats_.memory_held += cls;
  }
  sizes_[ptr] = cls;
  stats_.memory_in_use += cls;
  stats_.memory_peak = std::max(stats_.memory_peak, stats_.memory_in_use);
  return {uintptr_t(ptr), bytes};
}

void CudaDevice::release(gpu::DeviceBuffer buffer) {
  if (!buffer) return;
  std::lock_guard lock(mutex_);
  auto it = sizes_.find(CUdeviceptr(buffer.handle));
  HS_INTERNAL_ASSERT(it != sizes_.end()) << "release of a buffer CudaDevice did not allocate";
  // Reused only by work queued later on the one stream, so no wait for kernels still using it.
  // First of its class: the most recently freed buffer is reused first (still in L2).
  free_.emplace_hint(free_.lower_bound(it->second), it->second, it->first);
  stats_.memory_in_use -= it->second;
  sizes_.erase(it);
}

void CudaDevice::trim() {
  std::lock_guard lock(mutex_);
  if (free_.empty()) return;
  bind();
  HS_CU(cuStreamSynchronize, stream_);
  for (auto& [size, ptr] : free_) {
    HS_CU(cuMemFree, ptr);
    stats_.memory_held -= size;
  }
  free_.clear();
}

void CudaDevice::fill_zero(gpu::DeviceBuffer buffer) {
  std::lock_guard lock(mutex_);
  bind();
  HS_CU(cuMemsetD8Async, CUdeviceptr(buffer.handle), 0, buffer.bytes, stream_);
}

CudaDevice::Slot& CudaDevice::next_slot() {
  Slot& s = slots_[next_];
  next_ = (next_ + 1) % slots_.size();
  return s;
}

void CudaDevice::wait(Slot& slot) {
  if (!slot.busy) return;
  HS_CU(cuEventSynchronize, slot.done);
  slot.busy = false;
}

void CudaDevice::copy_to_device(gpu::DeviceBuffer dst, size_t offset, const void* src,
                                size_t bytes) {
  HS_INTERNAL_ASSERT(offset + bytes <= dst.bytes)
      << "copy of " << bytes << " bytes at " << offset << " into a buffer of " << dst.bytes;
  std::lock_guard lock(mutex_);
  bind();
  const char* from = static_cast<const char*>(src);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(slot_bytes_, bytes - done);
    Slot& s = next_slot();
    wait(s);
    parallel_memcpy(s.host, from + done, n, options_.copy_threads);
    HS_CU(cuMemcpyHtoDAsync, CUdeviceptr(dst.handle + offset + done), s.host, n, stream_);
    HS_CU(cuEventRecord, s.done, stream_);
    s.busy = true;
    done += n;
  }
  stats_.to_device_copies++;
  stats_.to_device_bytes += bytes;
}

void CudaDevice::copy_to_host(void* dst, gpu::DeviceBuffer src, size_t offset, size_t bytes) {
  HS_INTERNAL_ASSERT(offset + bytes <= src.bytes)
      << "copy of " << bytes << " bytes at " << offset << " from a buffer of " << src.bytes;
  std::lock_guard lock(mutex_);
  bind();
  wait_stream(); // the long wait (for the kernels before the copy) is interruptible
  struct Pending {
    Slot* slot;
    char* to;
    size_t n;
  };
  std::deque<Pending> pending;
  auto drain = [&] {
    Pending p = pending.front();
    pending.pop_front();
    wait(*p.slot);
    parallel_memcpy(p.to, p.slot->host, p.n, options_.copy_threads);
  };
  char* to = static_cast<char*>(dst);
  for (size_t done = 0; done < bytes;) {
    if (pending.size() == slots_.size()) drain();
    const size_t n = std::min(slot_bytes_, bytes - done);
    Slot& s = next_slot();
    wait(s);
    HS_CU(cuMemcpyDtoHAsync, s.host, CUdeviceptr(src.handle + offset + done), n, stream_);
    HS_CU(cuEventRecord, s.done, stream_);
    s.busy = true;
    pending.push_back({&s, to + done, n});
    done += n;
  }
  while (!pending.empty()) drain();
  if (bytes == 0) HS_CU(cuStreamSynchronize, stream_);
  // Everything queued before the copy has run: the parameter arena is free again.
  params_used_ = 0;
  stats_.to_host_copies++;
  stats_.to_host_bytes += bytes;
  stats_.synchronizations++;
}

// --- kernels -------------------------------------------------------------------------------

CudaProgram::CudaProgram(CUcontext context, CUmodule module, std::vector<char> binary)
    : context_(context), module_(module), binary_(std::move(binary)) {}

CudaProgram::~CudaProgram() {
  // Results ignored: the context may already be gone (a program outliving its device).
  const DriverApi& d = driver();
  d.cuCtxSetCurrent(context_);
  d.cuModuleUnload(module_);
}

gpu::DeviceKernel& CudaProgram::kernel(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto& slot = kernels_[name];
  if (!slot) {
    HS_CU(cuCtxSetCurrent, context_);
    CUfunction function = nullptr;
    CUresult rc = driver().cuModuleGetFunction(&function, module_, name.c_str());
    if (rc != CUDA_SUCCESS) {
      kernels_.erase(name);
      throw UserError("CUDA program has no kernel '" + name + "' (" + error_text(rc) + ")");
    }
    slot = std::make_unique<CudaKernel>(function);
  }
  return *slot;
}

namespace {

// Loads a cubin or NUL-terminated PTX; the result code and the JIT's error log.
CUresult load_module(CUmodule* module, const std::vector<char>& binary, std::string& log) {
  char buffer[8192] = {};
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {buffer, reinterpret_cast<void*>(uintptr_t(sizeof buffer))};
  CUresult rc = driver().cuModuleLoadDataEx(module, binary.data(), 2, keys, values);
  log = buffer;
  return rc;
}

bool is_elf(const std::vector<char>& b) {
  return b.size() >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

} // namespace

std::unique_ptr<gpu::DeviceProgram> CudaDevice::compile(const std::string& source) {
  const auto start = std::chrono::steady_clock::now();
  NvrtcOutput out = Nvrtc::get().compile(source, compile_arch_, "hassium_kernel.cu");
  std::vector<char> binary;
  if (!out.cubin.empty())
    binary = std::move(out.cubin);
  else
    binary.assign(out.ptx.c_str(), out.ptx.c_str() + out.ptx.size() + 1);
  std::lock_guard lock(mutex_);
  bind();
  CUmodule module = nullptr;
  std::string log;
  CUresult rc = load_module(&module, binary, log);
  if (rc != CUDA_SUCCESS)
    throw InternalError("cuModuleLoadDataEx of the " +
                        std::string(is_elf(binary) ? "cubin" : "PTX") + " (" + compile_arch_ +
                        ") failed: " + error_text(rc) + (log.empty() ? "" : "\n" + log));
  stats_.compiles++;
  stats_.compile_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::make_unique<CudaProgram>(context_, module, std::move(binary));
}

std::unique_ptr<gpu::DeviceProgram> CudaDevice::load(const std::vector<char>& binary) {
  if (binary.empty()) return nullptr;
  std::vector<char> image = binary;
  if (!is_elf(image) && image.back() != '\0') image.push_back('\0');
  std::lock_guard lock(mutex_);
  bind();
  CUmodule module = nullptr;
  std::string log;
  if (load_module(&module, image, log) != CUDA_SUCCESS) return nullptr; // another GPU, driver
  return std::make_unique<CudaProgram>(context_, module, std::move(image));
}

CUdeviceptr CudaDevice::upload_params(const std::vector<int64_t>& params) {
  const size_t n = round_up(std::max<size_t>(params.size() * sizeof(int64_t), 1), kParamsAlign);
  HS_INTERNAL_ASSERT(n <= params_capacity_) << params.size() << " kernel parameters";
  if (params_used_ + n > params_capacity_) {
    // The arena is full of blocks queued launches may still read: wait for them.
    HS_CU(cuStreamSynchronize, stream_);
    params_used_ = 0;
  }
  CUdeviceptr at = params_device_ + params_used_;
  if (!params.empty()) {
    std::memcpy(params_host_ + params_used_, params.data(), params.size() * sizeof(int64_t));
    HS_CU(cuMemcpyHtoDAsync, at, params_host_ + params_used_, params.size() * sizeof(int64_t),
          stream_);
  }
  params_used_ += n;
  return at;
}

void CudaDevice::launch(gpu::DeviceKernel& kernel, const gpu::LaunchGeometry& g,
                        const gpu::KernelArgs& args) {
  auto* k = dynamic_cast<CudaKernel*>(&kernel);
  HS_INTERNAL_ASSERT(k) << "CudaDevice::launch of a kernel of another device";
  const CudaGrid grid = cuda_grid(g, info_.max_group_size);
  std::lock_guard lock(mutex_);
  bind();
  if (g.shared_bytes > k->shared_limit) {
    HS_USER_ASSERT(g.shared_bytes <= info_.shared_memory)
        << "a kernel needs " << g.shared_bytes << " bytes of shared memory, " << info_.name
        << " has " << info_.shared_memory;
    HS_CU(cuFuncSetAttribute, k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          int(g.shared_bytes));
    k->shared_limit = g.shared_bytes;
  }
  // Arguments: each buffer's device pointer, then the device address of the parameter block.
  // By value: the driver copies the params into the launch's constant bank.
  std::vector<CUdeviceptr> values;
  values.reserve(args.buffers.size() + 1);
  for (const auto& b : args.buffers) values.push_back(CUdeviceptr(b.handle));
  if (!args.params_by_value) values.push_back(upload_params(args.params));
  std::vector<void*> pointers;
  pointers.reserve(values.size() + 1);
  for (auto& v : values) pointers.push_back(&v);
  if (args.params_by_value) pointers.push_back(const_cast<int64_t*>(args.params.data()));
  HS_CU(cuLaunchKernel, k->function, grid.grid[0], grid.grid[1], grid.grid[2], grid.block[0],
        grid.block[1], grid.block[2], unsigned(g.shared_bytes), stream_, pointers.data(), nullptr);
  stats_.launches++;
}

void CudaDevice::wait_stream() {
  const DriverApi& d = driver();
  gpu::wait_interruptibly([&] { return d.cuStreamQuery(stream_) != CUDA_ERROR_NOT_READY; });
}

void CudaDevice::synchronize() {
  std::lock_guard lock(mutex_);
  bind();
  wait_stream(); // SIGINT ends the wait; cuStreamSynchronize then reports a failed launch
  HS_CU(cuStreamSynchronize, stream_);
  params_used_ = 0;
  for (Slot& s : slots_) s.busy = false;
  stats_.synchronizations++;
}

std::unique_ptr<gpu::GpuDevice> make_cuda_device(const CudaDeviceOptions& options) {
  return std::make_unique<CudaDevice>(options, /*need_nvrtc=*/true);
}

// --- hassium info --------------------------------------------------------------------------

std::string describe_devices() {
  if (std::string why = driver_unavailable_reason(); !why.empty()) return why;
  try {
    const DriverApi& d = driver();
    int count = 0;
    HS_CU(cuDeviceGetCount, &count);
    std::string text = "CUDA driver " + version_text(d.version) + " (" + driver_library() + "), " +
                       std::to_string(count) + " device(s)";
    for (int i = 0; i < count; ++i) {
      CUdevice dev = 0;
      HS_CU(cuDeviceGet, &dev, i);
      char name[256] = {};
      HS_CU(cuDeviceGetName, name, int(sizeof name), dev);
      size_t mem = 0;
      HS_CU(cuDeviceTotalMem, &mem, dev);
      text += "\n  device " + std::to_string(i) + ": " + name + ", sm_" +
              std::to_string(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
              std::to_string(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)) + ", " +
              std::to_string(mem >> 20) + " MiB, " +
              std::to_string(attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)) + " SMs";
    }
    if (std::string why = Nvrtc::unavailable_reason(); !why.empty())
      text += "\n  " + why;
    else
      text += "\n  NVRTC " + Nvrtc::get().version() + " (" + Nvrtc::get().library() + ")";
    return text;
  } catch (const std::exception& e) {
    return std::string("CUDA unavailable: ") + e.what();
  }
}

ComponentProbe probe_cuda_engine() {
  std::string text = describe_devices();
  if (text.rfind("CUDA unavailable: ", 0) == 0) text.erase(0, 18);
  const bool usable = driver_unavailable_reason().empty() && Nvrtc::unavailable_reason().empty();
  const size_t eol = text.find('\n');
  if (eol == std::string::npos) return {usable, text, {}};
  std::string detail = text.substr(eol + 1);
  for (size_t at = 0; (at = detail.find("\n  ", at)) != std::string::npos;)
    detail.replace(at, 3, "; ");
  while (!detail.empty() && (detail.front() == ' ' || detail.back() == '\n')) {
    if (detail.front() == ' ') detail.erase(0, 1);
    if (!detail.empty() && detail.back() == '\n') detail.pop_back();
  }
  return {usable, text.substr(0, eol), detail};
}

} // namespace hassium::cuda
