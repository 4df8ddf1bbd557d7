// Tests of the kernel cache on disk under faults (object_cache.cpp, object_file.cpp,
// core/cache_file.cpp): damaged, foreign and misplaced files, a full disk, a read-only or
// uncreatable directory, eight processes on one empty directory.
#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "test/cache_faults.h"
#include "test/ve/cpu_fixture.h"
#include "ve/cpu/object_file.h"

using namespace hassium;
using namespace hassium::test;
namespace fs = std::filesystem;

namespace {

// One object file per kernel: the faults below are about the cache's files, so the kernels are
// compiled optimized first (tiered compilation, which stores both tiers, is tested in
// test_cpu_tiers.cpp).
std::unique_ptr<Engine> disk_engine(const fs::path& dir, int threads = 1) {
  CpuOptions o;
  o.threads = threads;
  o.tiered_compile = false;
  o.cache = KernelCacheMode::DISK;
  o.cache_dir = dir.string();
  return make_cpu_engine(o);
}

constexpr int kVariants = 6;

// Kernel `variant` (0..5): r = (a * 2) OP 3 with a different OP each, fused into one block (a
// kernel of its own); true when every element is right.
bool run_variant(Engine& engine, int variant, int64_t n = 1000) {
  static const Opcode ops[kVariants] = {Opcode::ADD,    Opcode::SUBTRACT, Opcode::MULTIPLY,
                                        Opcode::DIVIDE, Opcode::MAXIMUM,  Opcode::MINIMUM};
  auto a = make_data_base("a", DType::FLOAT64, n), r = make_data_base("r", DType::FLOAT64, n);
  auto t = make_temp_base("t", DType::FLOAT64, n);
  fill<double>(View::whole(a), [](int64_t i) { return double(i); });
  Program p;
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(t), View::whole(a), Scalar::of_float(2)});
  p.instrs.emplace_back(ops[variant],
                        std::vector<Operand>{View::whole(r), View::whole(t), Scalar::of_float(3)});
  run_all(engine, p, {t.get()});
  for (int64_t i = 0; i < n; ++i) {
    const double x = 2.0 * double(i);
    const double want = variant == 0   ? x + 3
                        : variant == 1 ? x - 3
                        : variant == 2 ? x * 3
                        : variant == 3 ? x / 3
                        : variant == 4 ? std::max(x, 3.0)
                                       : std::min(x, 3.0);
    if (data_of<double>(r)[i] != want) return false;
  }
  return true;
}

// The kernel file(s) in `dir`.
std::vector<fs::path> objects_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const std::string& name : names_in(dir))
    if (fs::path(name).extension() == ".o") files.push_back(dir / name);
  return files;
}

// `dir` holds exactly the kernel files `n` compiles leave: no temporary file, nothing else.
bool only_objects(const fs::path& dir, size_t n) {
  auto names = names_in(dir);
  return names.size() == n && objects_in(dir).size() == n;
}

} // namespace

TEST_CASE("kernel cache file format: every truncation and every flipped bit is rejected",
          "[ve][cpu][cache][faults]") {
  const std::string key = "hs_0123456789abcdef0123456789abcdef";
  std::string object(333, '\0');
  for (size_t i = 0; i < object.size(); ++i) object[i] = char(i * 7 + 1);
  const std::string good = cpu::object_file::encode(key, object);
  std::string_view got;
  REQUIRE(cpu::object_file::check(good, key, got) == "");
  CHECK(got == object);
  for (size_t len = 0; len < good.size(); ++len) {
    std::string_view part;
    INFO("truncated to " << len);
    CHECK(cpu::object_file::check(good.substr(0, len), key, part) != "");
  }
  size_t accepted = 0;
  for (size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[i] = char(bad[i] ^ (1 << bit));
      std::string_view part;
      if (cpu::object_file::check(bad, key, part).empty()) ++accepted;
    }
  CHECK(accepted == 0);
  // A good file of another key (same key length), another version, extra bytes.
  const std::string other = "hs_f123456789abcdef0123456789abcdef";
  CHECK(cpu::object_file::check(cpu::object_file::encode(other, object), key, got) ==
        "the object of another key");
  std::string old_version = good;
  old_version[7] = '1';
  CHECK(cpu::object_file::check(old_version, key, got) == "another format version");
  CHECK(cpu::object_file::check(good + '\0', key, got) != "");
  CHECK(cpu::object_file::check(object, key, got) == "not a kernel object file");
}

TEST_CASE("kernel cache: damaged, foreign and misplaced files are rejected, rebuilt, replaced",
          "[ve][cpu][cache][faults]") {
  ScratchDir scratch;
  const fs::path prefill = scratch.path / "prefill";
  {
    auto engine = disk_engine(prefill);
    REQUIRE(run_variant(*engine, 0));
    REQUIRE(run_variant(*engine, 1));
    REQUIRE(engine->stats().kernels_compiled == 2);
  }
  auto files = objects_in(prefill);
  REQUIRE(files.size() == 2);
  // files[0] is the victim; which variant it holds is found by a run that hits it.
  const std::string good = read_bytes(files[0]), other = read_bytes(files[1]);
  const std::string key = files[0].stem();
  std::string_view object;
  REQUIRE(cpu::object_file::check(good, key, object) == "");
  int victim = -1;
  for (int v : {0, 1}) {
    fs::path only = scratch.path / ("only" + std::to_string(v));
    fs::create_directories(only);
    fs::copy_file(files[0], only / files[0].filename());
    auto engine = disk_engine(only);
    REQUIRE(run_variant(*engine, v));
    if (engine->stats().disk_cache_hits == 1) victim = v;
  }
  REQUIRE(victim >= 0);

  std::string old_format = "HSKOBJ01"; // the previous format: magic, size, xxh64, object
  old_format.append(8, '\0');
  old_format.append(8, '\0');
  old_format += std::string(object);
  const size_t key_at = 24, object_at = 24 + key.size();
  auto cases = damages({{"magic", 2},
                        {"key size", 8},
                        {"object size", 16},
                        {"key", key_at + 5},
                        {"object", object_at + object.size() / 2},
                        {"checksum", good.size() - 3}},
                       {{"the previous format (HSKOBJ01)", old_format},
                        {"a bare object file", std::string(object)},
                        {"a merge-cache file", "HSFP0002" + std::string(64, '\1')},
                        {"another key's file under this name", other}},
                       scratch.path);
  int n = 0;
  for (const Damage& d : cases) {
    INFO("damage: " << d.name);
    const fs::path dir = scratch.path / ("case" + std::to_string(n++));
    fs::create_directories(dir);
    const fs::path file = dir / files[0].filename();
    d.apply(file, good);
    StderrCapture err;
    {
      auto engine = disk_engine(dir);
      CHECK(run_variant(*engine, victim));
      CHECK(run_variant(*engine, victim, 77)); // in memory now
      EngineStats s = engine->stats();
      CHECK(s.disk_cache_rejected == 1);
      CHECK(s.disk_cache_hits == 0);
      CHECK(s.kernels_compiled == 1);
      CHECK(s.disk_cache_write_errors == 0);
    }
    const std::string text = err.text();
    CHECK(lines_with(text, "hassium: warning: kernel cache " + dir.string() + ": ignored " + key +
                               ".o (") == 1);
    CHECK(lines_with(text, "warning") == 1);
    // Replaced by a good regular file: the next engine loads it.
    CHECK(fs::is_regular_file(fs::symlink_status(file)));
    CHECK(read_bytes(file) == good);
    CHECK(only_objects(dir, 1));
    auto next = disk_engine(dir);
    CHECK(run_variant(*next, victim));
    CHECK(next->stats().disk_cache_hits == 1);
    CHECK(next->stats().disk_cache_rejected == 0);
  }
}

TEST_CASE("kernel cache: a directory where a file is expected is rejected and left alone",
          "[ve][cpu][cache][faults]") {
  ScratchDir scratch;
  {
    auto engine = disk_engine(scratch.path);
    REQUIRE(run_variant(*engine, 2));
  }
  auto files = objects_in(scratch.path);
  REQUIRE(files.size() == 1);
  fs::remove(files[0]);
  fs::create_directories(files[0] / "inside");
  StderrCapture err;
  for (int round = 0; round < 2; ++round) {
    auto engine = disk_engine(scratch.path);
    CHECK(run_variant(*engine, 2));
    CHECK(engine->stats().disk_cache_rejected == 1);
    CHECK(engine->stats().kernels_compiled == 1);
    CHECK(engine->stats().disk_cache_write_errors == 1); // a file cannot replace a directory
  }
  const std::string text = err.text();
  CHECK(lines_with(text, "ignored " + files[0].filename().string() + " (a directory)") == 1);
  CHECK(lines_with(text, "cannot rename to " + files[0].string()) == 1);
  CHECK(lines_with(text, "warning") == 2); // once per kind, not once per file or engine
  CHECK(fs::is_directory(files[0] / "inside"));
  CHECK(names_in(scratch.path).size() == 1); // no temporary file left
}

TEST_CASE("kernel cache: a full disk warns once, leaves nothing behind, results stay right",
          "[ve][cpu][cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "kernels";
  ChildResult child = run_in_child([&] {
    if (!simulate_full_disk()) return false;
    auto engine = disk_engine(dir);
    bool ok = true;
    for (int v = 0; v < kVariants; ++v) ok = run_variant(*engine, v) && ok;
    ok = run_variant(*engine, 0, 50) && ok; // memory hit
    auto second = disk_engine(dir);         // another engine, same directory: still no warning
    ok = run_variant(*second, 1) && ok;
    EngineStats s = engine->stats();
    return ok && s.kernels_compiled == kVariants && s.disk_cache_write_errors == kVariants &&
           s.disk_cache_rejected == 0 && second->stats().disk_cache_write_errors == 1;
  });
  INFO("child stderr: " << child.err);
  CHECK(child.exit_code == 0);
  CHECK(lines_with(child.err,
                   "hassium: warning: kernel cache " + dir.string() + ": cannot write ") == 1);
  CHECK(lines_with(child.err, "File too large") == 1);
  CHECK(lines_with(child.err, "warning") == 1);
  CHECK(names_in(dir).empty()); // the temporary files are gone
}

TEST_CASE("kernel cache: a read-only directory still serves hits, warns once, runs on",
          "[ve][cpu][cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "kernels";
  {
    auto engine = disk_engine(dir);
    REQUIRE(run_variant(*engine, 0));
  }
  REQUIRE(only_objects(dir, 1));
  ChildResult child = run_in_child([&] {
    if (!make_read_only(dir)) {
      std::fprintf(stderr, "cannot make %s read-only\n", dir.c_str());
      return false;
    }
    auto engine = disk_engine(dir);
    bool ok = run_variant(*engine, 0);
    for (int v = 1; v < kVariants; ++v) ok = run_variant(*engine, v) && ok;
    EngineStats s = engine->stats();
    return ok && s.disk_cache_hits == 1 && s.kernels_compiled == kVariants - 1 &&
           s.disk_cache_write_errors == kVariants - 1 && s.disk_cache_rejected == 0;
  });
  INFO("child stderr: " << child.err);
  CHECK(child.exit_code == 0);
  CHECK(lines_with(child.err,
                   "hassium: warning: kernel cache " + dir.string() + ": cannot create ") == 1);
  CHECK(lines_with(child.err, "Permission denied") == 1);
  CHECK(lines_with(child.err, "warning") == 1);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  CHECK(only_objects(dir, 1));
}

TEST_CASE("kernel cache: a directory that cannot be created (under a file) warns once",
          "[ve][cpu][cache][faults]") {
  // Fails for root too: no directory can exist under a regular file (ENOTDIR).
  ScratchDir scratch;
  write_bytes(scratch.path / "file", "x");
  const fs::path dir = scratch.path / "file" / "kernels";
  StderrCapture err;
  auto engine = disk_engine(dir);
  CHECK(run_variant(*engine, 3));
  CHECK(run_variant(*engine, 4));
  CHECK(engine->stats().disk_cache_write_errors == 2);
  const std::string text = err.text();
  CHECK(lines_with(text, "hassium: warning: kernel cache " + dir.string() + ": cannot create") ==
        1);
  CHECK(lines_with(text, "Not a directory") == 1);
  CHECK(lines_with(text, "warning") == 1);
}

TEST_CASE("kernel cache: eight processes on one empty directory read only whole files",
          "[ve][cpu][cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "kernels";
  constexpr int kProcesses = 8, kRounds = 6;
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (int c = 0; c < kProcesses; ++c) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Wait for the start signal; then rounds of fresh engines (no memory cache between them)
      // compile or load every kernel. A partly written file would be rejected (or crash).
      ::close(go[1]);
      char byte;
      bool ok = ::read(go[0], &byte, 1) == 1;
      try {
        for (int round = 0; round < kRounds; ++round) {
          auto engine = disk_engine(dir);
          for (int v = 0; v < kVariants; ++v) ok = run_variant(*engine, (v + c) % kVariants) && ok;
          EngineStats s = engine->stats();
          ok = ok && s.disk_cache_rejected == 0 && s.disk_cache_write_errors == 0 &&
               s.kernels_compiled + s.disk_cache_hits == kVariants;
        }
      } catch (...) {
        ok = false;
      }
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  REQUIRE(::write(go[1], "gggggggg", kProcesses) == kProcesses);
  ::close(go[1]);
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(only_objects(dir, kVariants));
  for (const fs::path& f : objects_in(dir)) {
    std::string_view object;
    INFO(f);
    CHECK(cpu::object_file::check(read_bytes(f), f.stem().string(), object) == "");
  }
}
