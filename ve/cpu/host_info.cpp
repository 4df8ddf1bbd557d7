// The host as LLVM sees it: version, triple, CPU name and enabled features; the cpu engine's probe.
#include "ve/cpu/host_info.h"

#include <algorithm>

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/TargetParser/Host.h>

#include "ve/cpu/openmp.h"

namespace hassium {

CpuHostInfo cpu_host_info() {
  CpuHostInfo info;
  info.llvm_version = LLVM_VERSION_STRING;
  info.triple = llvm::sys::getProcessTriple();
  info.cpu_name = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  if (llvm::sys::getHostCPUFeatures(features))
    for (const auto& f : features)
      if (f.getValue()) info.features.push_back(f.getKey().str());
  std::sort(info.features.begin(), info.features.end());
  return info;
}

ComponentProbe probe_cpu_engine() {
  CpuHostInfo h = cpu_host_info();
  std::string features;
  for (const std::string& f : h.features) features += (features.empty() ? "" : " ") + f;
  return {true,
          "LLVM " + h.llvm_version + ", " + h.triple + ", host CPU " + h.cpu_name + ", " +
              std::to_string(openmp_max_threads()) + " OpenMP threads",
          "features: " + features};
}

} // namespace hassium
