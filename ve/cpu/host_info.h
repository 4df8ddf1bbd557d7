// What the CPU engine compiles for: LLVM's version and the host CPU it detects (`hassium info`).
#pragma once

#include <string>
#include <vector>

#include "core/registry.h"

namespace hassium {

struct CpuHostInfo {
  std::string llvm_version;          // LLVM_VERSION_STRING of the LLVM the engine links, "16.0.6"
  std::string triple;                // the process triple, "x86_64-pc-linux-gnu"
  std::string cpu_name;              // LLVM's name of the host CPU, "skylake-avx512"
  std::vector<std::string> features; // the host's enabled target features, sorted ("avx2", ...)
};

// Asks LLVM about the host, as the JIT does when it picks the kernels' target-cpu and
// target-features (ve/cpu/jit_compiler.cpp).
CpuHostInfo cpu_host_info();

// The cpu engine's probe (vem/stack.cpp's registry): always usable; the text names LLVM, the
// triple, the host CPU and the OpenMP threads, the detail line the CPU features.
ComponentProbe probe_cpu_engine();

} // namespace hassium
