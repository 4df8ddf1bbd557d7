// Tests of the kernel cache (cpu_engine.cpp's memory cache, object_cache.cpp on disk): hits and
// compiles counted, objects reused across engines, corrupt files ignored and rebuilt, two
// processes compiling into one directory at once.
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"

using namespace hassium;
using namespace hassium::test;
namespace fs = std::filesystem;

namespace {
// A fresh empty directory under the system's temporary directory.
std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "hassium-kcache-XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  REQUIRE(made != nullptr);
  return made;
}

std::vector<fs::path> objects_in(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".o") files.push_back(e.path());
  return files;
}

// Kernels compiled optimized first, one object each (tiered compilation and the disk cache:
// test_cpu_tiers.cpp).
std::unique_ptr<Engine> engine_with(KernelCacheMode mode, const std::string& dir = "",
                                    int threads = 2) {
  CpuOptions o;
  o.threads = threads;
  o.tiered_compile = false;
  o.cache = mode;
  o.cache_dir = dir;
  return make_cpu_engine(o);
}

// r = a * k + 1 over n elements; true when the result is right.
bool run_axpy(Engine& engine, int64_t n, double k) {
  auto a = make_data_base("a", DType::FLOAT64, n), r = make_data_base("r", DType::FLOAT64, n);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  fill<double>(View::whole(a), [](int64_t i) { return double(i); });
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(t), View::whole(a), Scalar::of_float(k)});
  p.instrs.emplace_back(Opcode::ADD,
                        std::vector<Operand>{View::whole(r), View::whole(t), Scalar::of_float(1)});
  run_all(engine, p, {t.get()});
  for (int64_t i = 0; i < n; ++i)
    if (data_of<double>(r)[i] != double(i) * k + 1) return false;
  return true;
}
} // namespace

TEST_CASE("kernel cache: memory hits for the same structure at any size", "[ve][cpu][cache]") {
  auto engine = engine_with(KernelCacheMode::MEMORY);
  CHECK(run_axpy(*engine, 1000, 2));
  CHECK(run_axpy(*engine, 1000, 3));
  CHECK(run_axpy(*engine, 77777, -1));
  EngineStats s = engine->stats();
  CHECK(s.kernels_compiled == 1);
  CHECK(s.memory_cache_hits == 2);
  CHECK(s.disk_cache_hits == 0);
  CHECK(s.compile_seconds > 0);
  CHECK(s.blocks_executed == 3);
}

TEST_CASE("kernel cache: mode none compiles every block", "[ve][cpu][cache]") {
  auto engine = engine_with(KernelCacheMode::NONE);
  CHECK(run_axpy(*engine, 100, 2));
  CHECK(run_axpy(*engine, 100, 2));
  CHECK(engine->stats().kernels_compiled == 2);
  CHECK(engine->stats().memory_cache_hits == 0);
}

TEST_CASE("kernel cache: objects on disk serve a new engine, corrupt ones are rebuilt",
          "[ve][cpu][cache]") {
  const std::string dir = temp_dir();
  {
    auto first = engine_with(KernelCacheMode::DISK, dir);
    CHECK(run_axpy(*first, 5000, 2));
    CHECK(first->stats().kernels_compiled == 1);
  }
  auto files = objects_in(dir);
  REQUIRE(files.size() == 1);
  {
    auto second = engine_with(KernelCacheMode::DISK, dir);
    CHECK(run_axpy(*second, 5000, 4));
    CHECK(second->stats().kernels_compiled == 0);
    CHECK(second->stats().disk_cache_hits == 1);
  }
  // Garbage, then a truncated copy: both ignored, recompiled, and the file repaired.
  const auto good_size = fs::file_size(files[0]);
  for (int damage = 0; damage < 2; ++damage) {
    if (damage == 0) {
      std::ofstream(files[0], std::ios::binary | std::ios::trunc) << "not an object file";
    } else {
      fs::resize_file(files[0], good_size / 2);
    }
    auto engine = engine_with(KernelCacheMode::DISK, dir);
    CHECK(run_axpy(*engine, 5000, 3));
    CHECK(engine->stats().kernels_compiled == 1);
    CHECK(engine->stats().disk_cache_hits == 0);
    CHECK(fs::file_size(files[0]) == good_size);
  }
  auto last = engine_with(KernelCacheMode::DISK, dir);
  CHECK(run_axpy(*last, 5000, 5));
  CHECK(last->stats().disk_cache_hits == 1);
  CHECK(objects_in(dir).size() == 1); // no temporary files left behind
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("kernel cache: two processes compiling into one directory both succeed",
          "[ve][cpu][cache]") {
  const std::string dir = temp_dir();
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Child: wait for the start signal, compile the same kernel, report through the exit code.
      ::close(go[1]);
      char byte;
      bool ok = ::read(go[0], &byte, 1) == 1;
      try {
        auto engine = engine_with(KernelCacheMode::DISK, dir, 1);
        ok = ok && run_axpy(*engine, 1000, 7) && run_axpy(*engine, 3000, 8);
        EngineStats s = engine->stats();
        ok = ok && s.kernels_compiled + s.disk_cache_hits == 1;
      } catch (...) {
        ok = false;
      }
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  REQUIRE(::write(go[1], "gg", 2) == 2);
  ::close(go[1]);
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(objects_in(dir).size() == 1);
  auto engine = engine_with(KernelCacheMode::DISK, dir);
  CHECK(run_axpy(*engine, 100, 3)); // (k = 1 would share the constant 1: another kernel)
  CHECK(engine->stats().disk_cache_hits == 1);
  fs::remove_all(dir);
}
