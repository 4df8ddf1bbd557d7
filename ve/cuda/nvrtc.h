// NVRTC opened at run time (dlopen): CUDA C source -> PTX, and cubin for a real architecture,
// with the options that keep results equal to the CPU engine's (no fused multiply-add).
#pragma once

#include <string>
#include <vector>

namespace hassium::cuda {

struct NvrtcOutput {
  std::string ptx;         // always (NUL-free text; the driver wants it NUL-terminated)
  std::vector<char> cubin; // when compiled for a real architecture (sm_XY), else empty
  std::string log;         // the compiler's log (warnings), may be empty
};

class Nvrtc {
public:
  // The process's NVRTC, found once: `[cuda] nvrtc_library` (a file, or a folder holding
  // libnvrtc.so.*), then dlopen's own search (LD_LIBRARY_PATH, ldconfig), then the CUDA
  // folders ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda*) and pip's nvidia-cuda-nvrtc wheels in
  // known virtual environments. UserError "NVRTC unavailable: ..." naming where it looked.
  static const Nvrtc& get();
  // Empty when get() works, else why not. Never throws.
  static std::string unavailable_reason();

  // Compiles `source` for `arch`: "sm_90" gives PTX and a cubin, "compute_90" PTX only.
  // UserError with the program's log when it does not compile.
  NvrtcOutput compile(const std::string& source, const std::string& arch,
                      const std::string& name = "hassium_kernel.cu") const;

  std::string version() const;              // "13.0"
  int version_number() const;               // 13000 (major * 1000 + minor * 10, as CUDA_VERSION)
  const std::string& library() const;       // the file it was loaded from
  std::vector<int> supported_archs() const; // e.g. 75 80 86 ... 120
  bool supports(int sm) const;

  struct Api;
  explicit Nvrtc(const Api* api, std::string library);

private:
  const Api* api_;
  std::string library_;
};

// "sm_90" -> 90; 0 when the text is not sm_/compute_ followed by digits.
int arch_number(const std::string& arch);

} // namespace hassium::cuda
