// ve/cuda/nvrtc.cpp: the check kernels (and the dialect's prelude) compile for sm_75, sm_90 and
// sm_120, ptxas accepts every PTX, fmad stays off, errors carry the compiler's log.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.h"
#include "test/ve/cuda_check_kernels.h"
#include "ve/cuda/nvrtc.h"
#include "ve/gpu/dialect.h"

using namespace hassium;
namespace fs = std::filesystem;

namespace {

const cuda::Nvrtc* nvrtc_or_skip() {
  if (std::string why = cuda::Nvrtc::unavailable_reason(); !why.empty()) {
    WARN("skipped: " << why);
    return nullptr;
  }
  return &cuda::Nvrtc::get();
}

// ptxas -arch=`arch` on `ptx`: "" when it accepts it, else its output. Null `ok` = no ptxas.
std::string run_ptxas(const std::string& ptx, const std::string& arch, bool& ran) {
  ran = false;
  const std::string ptxas = HASSIUM_PTXAS;
  if (ptxas.empty() || !fs::exists(ptxas)) return {};
  ran = true;
  fs::path dir = fs::temp_directory_path() / ("hassium-ptxas-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path in = dir / "k.ptx", out = dir / "k.cubin", log = dir / "log";
  std::ofstream(in) << ptx;
  const std::string cmd = ptxas + " -arch=" + arch + " -o " + out.string() + " " + in.string() +
                          " > " + log.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream l(log);
  std::string text((std::istreambuf_iterator<char>(l)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return rc == 0 ? std::string() : "ptxas exit " + std::to_string(rc) + ": " + text;
}

} // namespace

TEST_CASE("NVRTC compiles the check kernels for sm_75, sm_90 and sm_120, ptxas accepts them",
          "[cuda][nvrtc]") {
  const cuda::Nvrtc* nvrtc = nvrtc_or_skip();
  if (!nvrtc) return;
  INFO("NVRTC " << nvrtc->version() << " from " << nvrtc->library());
  const std::string prelude = gpu::Dialect::cuda().prelude;
  bool warned = false;
  for (const char* arch : {"sm_75", "sm_90", "sm_120"}) {
    if (!nvrtc->supports(cuda::arch_number(arch))) {
      WARN("NVRTC " << nvrtc->version() << " has no " << arch);
      continue;
    }
    for (const auto& [name, source] : cuda_check::kernels()) {
      INFO(name << " for " << arch);
      cuda::NvrtcOutput out = nvrtc->compile(prelude + source, arch, name + ".cu");
      CHECK(out.ptx.find(".entry " + name) != std::string::npos);
      CHECK(out.cubin.size() > 4);
      CHECK(std::string(out.cubin.data(), 4) == "\x7f"
                                                "ELF");
      bool ran = false;
      CHECK(run_ptxas(out.ptx, arch, ran) == "");
      if (!ran && !warned) {
        WARN("ptxas not found (" << HASSIUM_PTXAS << "): PTX not checked by ptxas");
        warned = true;
      }
    }
  }
}

TEST_CASE("compute_XY gives PTX only", "[cuda][nvrtc]") {
  const cuda::Nvrtc* nvrtc = nvrtc_or_skip();
  if (!nvrtc) return;
  const auto& [name, source] = cuda_check::kernels().front();
  cuda::NvrtcOutput out = nvrtc->compile(gpu::Dialect::cuda().prelude + source, "compute_90");
  CHECK(out.ptx.find(".target sm_90") != std::string::npos);
  CHECK(out.cubin.empty());
}

TEST_CASE("fmad is off: a * b + c is a multiply and an add, as on the CPU", "[cuda][nvrtc]") {
  const cuda::Nvrtc* nvrtc = nvrtc_or_skip();
  if (!nvrtc) return;
  for (const auto& [name, source] : cuda_check::kernels())
    if (name == "hs_muladd") {
      cuda::NvrtcOutput out = nvrtc->compile(gpu::Dialect::cuda().prelude + source, "sm_90");
      CHECK(out.ptx.find("fma.rn.f64") == std::string::npos);
      CHECK(out.ptx.find("mul.rn.f64") != std::string::npos);
      CHECK(out.ptx.find("add.rn.f64") != std::string::npos);
    }
}

TEST_CASE("a compile error is a UserError with the program's log", "[cuda][nvrtc]") {
  const cuda::Nvrtc* nvrtc = nvrtc_or_skip();
  if (!nvrtc) return;
  const std::string bad = "extern \"C\" __global__ void broken(int* p) { p[0] = undeclared; }";
  CHECK_THROWS_AS(nvrtc->compile(bad, "sm_90", "broken.cu"), UserError);
  CHECK_THROWS_WITH(nvrtc->compile(bad, "sm_90", "broken.cu"),
                    Catch::Contains("broken.cu") && Catch::Contains("undeclared"));
  CHECK_THROWS_WITH(nvrtc->compile(bad, "gfx90a"), Catch::Contains("not sm_XY or compute_XY"));
}

TEST_CASE("architecture names", "[cuda][nvrtc]") {
  CHECK(cuda::arch_number("sm_90") == 90);
  CHECK(cuda::arch_number("compute_120") == 120);
  CHECK(cuda::arch_number("sm_") == 0);
  CHECK(cuda::arch_number("sm_9a") == 0);
  CHECK(cuda::arch_number("90") == 0);
}
