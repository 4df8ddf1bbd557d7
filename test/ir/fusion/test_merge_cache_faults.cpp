// Tests of the merge cache's disk store under faults (ir/fusion/merge_cache.cpp,
// core/cache_file.cpp): damaged, foreign and misplaced files, a full disk, a read-only or
// uncreatable directory, eight processes on one empty directory.
#include <catch2/catch.hpp>

#include "fusion_programs.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "test/cache_faults.h"

using namespace hassium;
using namespace hassium::test;

namespace {

// The default options, with the named algorithm (greedy) however small the program.
FuserOptions searching() {
  FuserOptions o;
  o.search_min_bytes = 0;
  return o;
}

// A loop body with `extra` more SYNCs of its result: each `extra` is another structure, another
// key, another file.
Program body(int extra, const std::string& prefix = "a") {
  ProgramBuilder b;
  using P = ProgramBuilder;
  auto X = b.base(prefix + "X", 8), T = b.base(prefix + "T", 4), Y = b.base(prefix + "Y", 4);
  b.op(Opcode::MULTIPLY, {P::whole(T), P::view(X, 0, 4), P::f64(2)});
  b.op(Opcode::ADD, {P::whole(Y), P::whole(T), P::view(X, 4, 4)});
  b.op(Opcode::MULTIPLY, {P::whole(T), P::whole(Y), P::f64(3)});
  b.op(Opcode::ADD, {P::whole(Y), P::whole(T), P::whole(Y)});
  b.free(T);
  for (int i = 0; i <= extra; ++i) b.sync(Y);
  return std::move(b.p);
}

constexpr int kPrograms = 5;

MergeCache::Options on_disk(const fs::path& dir) {
  MergeCache::Options o;
  o.dir = dir.string();
  return o;
}

// The partition of every body() without a cache: the reference.
std::vector<Partition> reference() {
  std::vector<Partition> r;
  for (int i = 0; i < kPrograms; ++i) r.push_back(fuse(body(i), searching()));
  return r;
}

bool same(const Partition& a, const Partition& b) {
  return a.blocks == b.blocks && a.cost == b.cost;
}

// The one .hsfp file `dir` holds after fusing body(0) into it.
fs::path prefill(const fs::path& dir) {
  MergeCache cache(on_disk(dir));
  fuse(body(0), searching(), &cache);
  auto names = names_in(dir);
  if (names.size() != 1) return {};
  return dir / names[0];
}

} // namespace

TEST_CASE("merge cache file: every truncation and every flipped bit is rejected",
          "[ir][merge_cache][faults]") {
  ScratchDir scratch;
  const fs::path file = prefill(scratch.path);
  REQUIRE(!file.empty());
  const std::string good = read_bytes(file);
  const Program p = body(0);
  const std::string key = MergeCache::key(p, searching());
  uint64_t expected = 0;
  auto rejected = [&](const std::string& bytes) {
    write_bytes(file, bytes);
    MergeCache cache(on_disk(scratch.path));
    ++expected;
    return !cache.find(key, p.size()) && cache.stats().disk_rejected == 1;
  };
  size_t accepted = 0;
  StderrCapture err; // one warning per MergeCache directory and process: this one only
  for (size_t len = 0; len < good.size(); ++len)
    if (!rejected(good.substr(0, len))) ++accepted;
  for (size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[i] = char(bad[i] ^ (1 << bit));
      if (!rejected(bad)) ++accepted;
    }
  CHECK(accepted == 0);
  CHECK(lines_with(err.text(), "warning") == 1);
  write_bytes(file, good);
  MergeCache cache(on_disk(scratch.path));
  CHECK(cache.find(key, p.size()));
}

TEST_CASE("merge cache: damaged, foreign and misplaced files are rejected, recomputed, replaced",
          "[ir][merge_cache][faults]") {
  ScratchDir scratch;
  const fs::path good_file = prefill(scratch.path / "prefill");
  REQUIRE(!good_file.empty());
  const std::string good = read_bytes(good_file);
  // Another program's file under this name: fused from body(1) in a directory of its own.
  std::string other;
  {
    MergeCache cache(on_disk(scratch.path / "another"));
    fuse(body(1), searching(), &cache);
    auto names = names_in(scratch.path / "another");
    REQUIRE(names.size() == 1);
    other = read_bytes(scratch.path / "another" / names[0]);
  }
  const Partition want = fuse(body(0), searching());
  const size_t key_size_at = 8, key_at = 16;
  std::string old_version = good;
  old_version[7] = '1'; // HSFP0001 (its checksum then fails too: a damaged old file)
  auto cases = damages({{"magic", 1},
                        {"key size", key_size_at},
                        {"key", key_at + 3},
                        {"blocks", good.size() - 40},
                        {"checksum", good.size() - 2}},
                       {{"another version", old_version},
                        {"a kernel object file", "HSKOBJ02" + std::string(80, '\2')},
                        {"text", "not a partition\n"},
                        {"another program's file under this name", other}},
                       scratch.path);
  int n = 0;
  for (const Damage& d : cases) {
    INFO("damage: " << d.name);
    const fs::path dir = scratch.path / ("case" + std::to_string(n++));
    fs::create_directories(dir);
    const fs::path file = dir / good_file.filename();
    d.apply(file, good);
    StderrCapture err;
    {
      MergeCache cache(on_disk(dir));
      CHECK(same(fuse(body(0), searching(), &cache), want));
      CHECK(cache.stats().disk_rejected == 1);
      CHECK(cache.stats().disk_hits == 0);
      CHECK(cache.stats().disk_writes == 1);
      CHECK(cache.stats().disk_errors == 0);
    }
    const std::string text = err.text();
    CHECK(lines_with(text, "hassium: warning: merge cache " + dir.string() + ": ignored " +
                               good_file.filename().string() + " (") == 1);
    CHECK(lines_with(text, "warning") == 1);
    CHECK(fs::is_regular_file(fs::symlink_status(file)));
    CHECK(read_bytes(file) == good);
    CHECK(names_in(dir).size() == 1); // no temporary file
    MergeCache next(on_disk(dir));
    CHECK(same(fuse(body(0), searching(), &next), want));
    CHECK(next.stats().disk_hits == 1);
  }
  SECTION("a directory where the file is expected: rejected, left alone, writes fail") {
    const fs::path dir = scratch.path / "dir-case";
    fs::create_directories(dir / good_file.filename() / "inside");
    StderrCapture err;
    for (int round = 0; round < 2; ++round) {
      MergeCache cache(on_disk(dir));
      CHECK(same(fuse(body(0), searching(), &cache), want));
      CHECK(cache.stats().disk_rejected == 1);
      CHECK(cache.stats().disk_errors == 1);
    }
    const std::string text = err.text();
    CHECK(lines_with(text, "(a directory)") == 1);
    CHECK(lines_with(text, "cannot rename to") == 1);
    CHECK(lines_with(text, "warning") == 2);
    CHECK(names_in(dir).size() == 1);
  }
}

TEST_CASE("merge cache: a full disk warns once, leaves nothing behind, partitions stay right",
          "[ir][merge_cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "partitions";
  const auto want = reference();
  ChildResult child = run_in_child([&] {
    if (!simulate_full_disk()) return false;
    MergeCache cache(on_disk(dir));
    bool ok = true;
    for (int round = 0; round < 2; ++round) // the second round hits in memory
      for (int i = 0; i < kPrograms; ++i)
        ok = same(fuse(body(i), searching(), &cache), want[size_t(i)]) && ok;
    MergeCache second(on_disk(dir)); // another cache on the same directory: no second warning
    ok = same(fuse(body(0), searching(), &second), want[0]) && ok;
    auto s = cache.stats();
    return ok && s.disk_errors == kPrograms && s.hits == kPrograms && s.disk_rejected == 0 &&
           second.stats().disk_errors == 1;
  });
  INFO("child stderr: " << child.err);
  CHECK(child.exit_code == 0);
  CHECK(lines_with(child.err,
                   "hassium: warning: merge cache " + dir.string() + ": cannot write ") == 1);
  CHECK(lines_with(child.err, "File too large") == 1);
  CHECK(lines_with(child.err, "warning") == 1);
  CHECK(names_in(dir).empty());
}

TEST_CASE("merge cache: a read-only directory still serves hits, warns once, runs on",
          "[ir][merge_cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "partitions";
  REQUIRE(!prefill(dir).empty());
  const auto want = reference();
  ChildResult child = run_in_child([&] {
    if (!make_read_only(dir)) {
      std::fprintf(stderr, "cannot make %s read-only\n", dir.c_str());
      return false;
    }
    MergeCache cache(on_disk(dir));
    bool ok = true;
    for (int i = 0; i < kPrograms; ++i)
      ok = same(fuse(body(i), searching(), &cache), want[size_t(i)]) && ok;
    auto s = cache.stats();
    return ok && s.disk_hits == 1 && s.disk_errors == kPrograms - 1 && s.disk_rejected == 0;
  });
  INFO("child stderr: " << child.err);
  CHECK(child.exit_code == 0);
  CHECK(lines_with(child.err,
                   "hassium: warning: merge cache " + dir.string() + ": cannot create ") == 1);
  CHECK(lines_with(child.err, "Permission denied") == 1);
  CHECK(lines_with(child.err, "warning") == 1);
  CHECK(names_in(dir).size() == 1);
}

TEST_CASE("merge cache: a directory that cannot be created (under a file) warns once",
          "[ir][merge_cache][faults]") {
  // Fails for root too: no directory can exist under a regular file (ENOTDIR).
  ScratchDir scratch;
  write_bytes(scratch.path / "file", "x");
  const fs::path dir = scratch.path / "file" / "partitions";
  const auto want = reference();
  StderrCapture err;
  MergeCache cache(on_disk(dir));
  for (int i = 0; i < kPrograms; ++i)
    CHECK(same(fuse(body(i), searching(), &cache), want[size_t(i)]));
  CHECK(cache.stats().disk_errors == kPrograms);
  const std::string text = err.text();
  CHECK(lines_with(text, "hassium: warning: merge cache " + dir.string() + ": cannot create") == 1);
  CHECK(lines_with(text, "Not a directory") == 1);
  CHECK(lines_with(text, "warning") == 1);
}

TEST_CASE("merge cache: eight processes on one empty directory read only whole files",
          "[ir][merge_cache][faults]") {
  ScratchDir scratch;
  const fs::path dir = scratch.path / "partitions";
  const auto want = reference();
  constexpr int kProcesses = 8, kRounds = 20;
  int go[2];
  REQUIRE(::pipe(go) == 0);
  std::vector<pid_t> children;
  for (int c = 0; c < kProcesses; ++c) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Rounds of fresh caches (nothing in memory between them) over every program: each finds
      // the file another process wrote, or writes it. A partly written file would be rejected.
      ::close(go[1]);
      char byte;
      bool ok = ::read(go[0], &byte, 1) == 1;
      for (int round = 0; round < kRounds; ++round) {
        MergeCache cache(on_disk(dir));
        for (int i = 0; i < kPrograms; ++i) {
          const int k = (i + c) % kPrograms;
          ok = same(fuse(body(k), searching(), &cache), want[size_t(k)]) && ok;
        }
        auto s = cache.stats();
        ok =
            ok && s.disk_rejected == 0 && s.disk_errors == 0 && s.disk_hits + s.misses == kPrograms;
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
  auto names = names_in(dir);
  CHECK(names.size() == size_t(kPrograms)); // no temporary file
  for (const std::string& name : names) CHECK(fs::path(name).extension() == ".hsfp");
}
