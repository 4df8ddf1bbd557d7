// Tests of ir/fusion/merge_cache.cpp: canonical keys, hits and misses, eviction, the on-disk store
// (round trip, atomic files, corrupt or truncated files ignored).
#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "cache_programs.h"
#include "fusion_programs.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/legality.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/program_key.h"
#include "random_programs.h"

using namespace hassium;
using test::gauss_step;
using test::iteration;
using test::ProgramBuilder;
using test::shifted_read;
using test::with_syncs;

namespace {

namespace fs = std::filesystem;

MergeCache::Options on_disk(const fs::path& dir) {
  MergeCache::Options o;
  o.dir = dir.string();
  return o;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("hassium-merge-cache-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(path))
      for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path());
    return out;
  }
};

} // namespace

TEST_CASE("keys rename bases and ignore constant values") {
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  CHECK(MergeCache::key(iteration("a", 1.0), o) == MergeCache::key(iteration("b", 2.5), o));
  // Offsets are not in the key (which views overlap is checked on a hit instead).
  CHECK(MergeCache::key(iteration("a", 1.0), o) == MergeCache::key(iteration("a", 1.0, 1), o));
  CHECK(MergeCache::key(with_syncs(iteration("a", 1.0), 1), o) !=
        MergeCache::key(iteration("a", 1.0), o));
  // The constant's type is part of the key.
  Program p = iteration("a", 1.0);
  std::get<Scalar>(p.instrs[0].operands[2]) = Scalar::of_float(1.0, DType::FLOAT32);
  CHECK(MergeCache::key(p, o) != MergeCache::key(iteration("a", 1.0), o));
  // Options are part of the key; the budget only for optimal.
  FuserOptions linear = o, optimal = o, optimal2 = o;
  linear.algorithm = "linear";
  optimal.algorithm = optimal2.algorithm = "optimal";
  optimal2.optimal_budget = 7;
  CHECK(MergeCache::key(p, o) != MergeCache::key(p, linear));
  CHECK(MergeCache::key(p, optimal) != MergeCache::key(p, optimal2));
  FuserOptions greedy2 = o;
  greedy2.optimal_budget = 7;
  CHECK(MergeCache::key(p, o) == MergeCache::key(p, greedy2));
  // A base that already holds data is not created by the program: another key.
  static double data[8];
  Program q = iteration("a", 1.0);
  q.bases[1]->data = data;
  CHECK(MergeCache::key(q, o) != MergeCache::key(iteration("a", 1.0), o));
}

TEST_CASE("fuse through the cache: hits answer with the same partition") {
  MergeCache cache;
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  Partition first = fuse(iteration("a", 1.0), o, &cache);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().hits == 0);
  for (int i = 0; i < 5; ++i) {
    Partition again = fuse(iteration("i" + std::to_string(i), double(i)), o, &cache);
    CHECK(again.blocks == first.blocks);
    CHECK(again.cost == first.cost);
  }
  CHECK(cache.stats().hits == 5);
  CHECK(cache.stats().entries == 1);
  // Another cost model is another entry.
  FuserOptions robinson = o;
  robinson.cost_model = "robinson";
  fuse(iteration("a", 1.0), robinson, &cache);
  CHECK(cache.stats().misses == 2);
  CHECK(cache.stats().entries == 2);
  cache.clear();
  fuse(iteration("a", 1.0), o, &cache);
  CHECK(cache.stats().misses == 3);
}

TEST_CASE("the oldest entries go when the cache is full") {
  MergeCache cache({.max_entries = 2, .dir = ""});
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  for (int n : {0, 1, 2}) fuse(with_syncs(iteration("a", 1.0), n), o, &cache);
  CHECK(cache.stats().entries == 2);
  fuse(with_syncs(iteration("a", 1.0), 2), o, &cache); // newest: still there
  CHECK(cache.stats().hits == 1);
  fuse(iteration("a", 1.0), o, &cache); // oldest: gone
  CHECK(cache.stats().misses == 4);
}

TEST_CASE("the disk store survives the process and ignores bad files") {
  TempDir dir;
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  Program p = iteration("a", 1.0);
  const std::string key = MergeCache::key(p, o);
  Partition expect;
  {
    MergeCache writer(on_disk(dir.path));
    expect = fuse(p, o, &writer);
    CHECK(writer.stats().disk_writes == 1);
  }
  auto files = dir.files();
  REQUIRE(files.size() == 1); // no temporary file left behind
  CHECK(files[0].extension() == ".hsfp");
  {
    MergeCache reader(on_disk(dir.path));
    auto hit = reader.find(key, p.size());
    REQUIRE(hit);
    CHECK(hit->blocks == expect.blocks);
    CHECK(hit->cost == expect.cost);
    CHECK(hit->algorithm == expect.algorithm);
    CHECK(hit->cost_model == expect.cost_model);
    CHECK(reader.stats().disk_hits == 1);
    // Now in memory too.
    reader.find(key, p.size());
    CHECK(reader.stats().disk_hits == 1);
    CHECK(reader.stats().hits == 2);
  }
  std::string bytes;
  {
    std::ifstream in(files[0], std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rewrite = [&](const std::string& content) {
    std::ofstream out(files[0], std::ios::binary | std::ios::trunc);
    out << content;
  };
  SECTION("truncated") {
    rewrite(bytes.substr(0, bytes.size() / 2));
  }
  SECTION("one byte flipped") {
    std::string bad = bytes;
    bad[bad.size() / 2] ^= 0x10;
    rewrite(bad);
  }
  SECTION("empty") {
    rewrite("");
  }
  SECTION("another program of the same size under this name") {
    Program other = iteration("a", 1.0);
    other.instrs.back().op = Opcode::FREE; // same size, another key
    MergeCache scratch(on_disk(dir.path / "other"));
    fuse(other, o, &scratch);
    auto f = fs::directory_iterator(dir.path / "other")->path();
    fs::copy_file(f, files[0], fs::copy_options::overwrite_existing);
  }
  MergeCache reader(on_disk(dir.path));
  CHECK_FALSE(reader.find(key, p.size()));
  CHECK(reader.stats().disk_rejected == 1);
  CHECK(reader.stats().misses == 1);
  // fuse() recomputes and rewrites a good file.
  Partition again = fuse(p, o, &reader);
  CHECK(again.blocks == expect.blocks);
  MergeCache fresh(on_disk(dir.path));
  CHECK(fresh.find(key, p.size()));
}

TEST_CASE("an unwritable directory leaves the cache in memory") {
  MergeCache cache(on_disk("/proc/hassium-cannot-write-here"));
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  fuse(iteration("a", 1.0), o, &cache);
  CHECK(cache.stats().disk_errors == 1);
  fuse(iteration("b", 1.0), o, &cache);
  CHECK(cache.stats().hits == 1);
}

TEST_CASE("programs differing only in extents and offsets share a key and hit legally") {
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  Program first = gauss_step("a", 8, 1), second = gauss_step("b", 8, 3),
          other = gauss_step("c", 12, 2);
  CHECK(MergeCache::key(first, o) == MergeCache::key(second, o));
  CHECK(MergeCache::key(first, o) == MergeCache::key(other, o));
  // A row or column of extent 1 is another structure.
  CHECK(MergeCache::key(first, o) != MergeCache::key(gauss_step("d", 8, 6), o));
  MergeCache cache;
  Partition p1 = fuse(first, o, &cache);
  for (const Program* p : {&second, &other}) {
    Partition hit = fuse(*p, o, &cache);
    CHECK(hit.blocks == p1.blocks);
    FusionContext ctx(*p, o.cost_model);
    CHECK(check_partition(ctx.table(), hit.blocks) == "");
    CHECK(hit.cost == partition_cost(ctx.model(), hit.blocks)); // this program's cost
  }
  CHECK(cache.stats().hits == 2);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().stale == 0);
}

TEST_CASE("a stored partition illegal for the program is never returned") {
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  Program disjoint = shifted_read(4), overlapping = shifted_read(2);
  REQUIRE(MergeCache::key(disjoint, o) == MergeCache::key(overlapping, o));
  MergeCache cache;
  Partition fused = fuse(disjoint, o, &cache);
  REQUIRE(fused.blocks.size() < 4); // the two element-wise instructions share a block
  FusionContext ctx(overlapping, o.cost_model);
  CHECK(check_partition(ctx.table(), fused.blocks) != "");
  Partition p = fuse(overlapping, o, &cache);
  CHECK(check_partition(ctx.table(), p.blocks) == "");
  CHECK(p.blocks == fuse(overlapping, o, nullptr).blocks);
  CHECK(cache.stats().stale == 1);
  CHECK(cache.stats().hits == 0);
  CHECK(cache.stats().misses == 2);
  // The entry was replaced: the overlapping program hits now, the disjoint one is re-checked.
  fuse(overlapping, o, &cache);
  CHECK(cache.stats().hits == 1);
}

TEST_CASE("a repeat with the stored layout takes the stored partition as it is") {
  CHECK(MergeCache::layout(iteration("a", 1.0)) == MergeCache::layout(iteration("b", 2.0)));
  CHECK(MergeCache::layout(iteration("a", 1.0)) != MergeCache::layout(iteration("a", 1.0, 2)));
  CHECK(MergeCache::layout(iteration("a", 1.0)) != MergeCache::Layout{});
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  o.algorithm = "optimal";
  MergeCache cache;
  Partition first = fuse(iteration("a", 1.0), o, &cache);
  REQUIRE(first.proven_optimal);
  // Same key, same layout: the stored partition, still proven (no re-check, no recomputation).
  Partition again = fuse(iteration("b", 3.0), o, &cache);
  CHECK(again.blocks == first.blocks);
  CHECK(again.cost == first.cost);
  CHECK(again.proven_optimal);
  // Same key, another layout: checked and re-costed for this program, so no longer proven.
  Program shifted = iteration("c", 1.0, 2);
  REQUIRE(MergeCache::key(shifted, o) == MergeCache::key(iteration("a", 1.0), o));
  Partition checked = fuse(shifted, o, &cache);
  CHECK(!checked.proven_optimal);
  FusionContext ctx(shifted, o.cost_model);
  CHECK(check_partition(ctx.table(), checked.blocks) == "");
  CHECK(cache.stats().hits == 2);
  CHECK(cache.stats().misses == 1);
}

TEST_CASE("fuse reports exact repeats: the same key and layout") {
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  MergeCache cache;
  FuseInfo info;
  fuse(iteration("a", 1.0), o, &cache, &info);
  CHECK_FALSE(info.exact);                     // a miss
  fuse(iteration("b", 2.0), o, &cache, &info); // another constant, other bases: exact
  CHECK(info.exact);
  // Another layout, checked: the entry takes that layout; a repeat of it is then exact.
  fuse(iteration("c", 1.0, 2), o, &cache, &info);
  CHECK_FALSE(info.exact);
  fuse(iteration("d", 1.0, 2), o, &cache, &info);
  CHECK(info.exact);
  fuse(iteration("f", 1.0), o, &cache, &info); // the first layout again: checked, not exact
  CHECK_FALSE(info.exact);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().hits == 4);
  // Without a cache nothing is reported.
  fuse(iteration("g", 1.0), o, nullptr, &info);
  CHECK_FALSE(info.exact);
}

TEST_CASE("a program's key is the merge cache's under the options in effect") {
  FuserOptions o; // greedy, search_min_bytes 8192: these small programs go to linear
  Program a = iteration("a", 1.0, 1);
  ProgramKey key;
  key.compute(a, o);
  CHECK(key.small);
  FuserOptions linear = o;
  linear.algorithm = "linear";
  CHECK(key.text == MergeCache::key(a, linear));
  CHECK(key.layout == MergeCache::layout(a));
  REQUIRE(key.bases.size() == 3);
  CHECK(key.bases[0]->name == "aT"); // first appearance among the operands, not declaration
  CHECK(key.bases[2]->name == "aY");
  o.search_min_bytes = 0;
  ProgramKey searched;
  searched.compute(a, o);
  CHECK_FALSE(searched.small);
  CHECK(searched.text == MergeCache::key(a, o));
  CHECK(searched.text != key.text);
  CHECK(searched.hash != key.hash);
  // fuse() answers from the cache with a key given as with the one it computes.
  MergeCache cache;
  FuseInfo info;
  Partition first = fuse(a, o, &cache, &info, &searched);
  Program b = iteration("b", 2.0, 1);
  ProgramKey bkey;
  bkey.compute(b, o);
  Partition again = fuse(b, o, &cache, &info, &bkey);
  CHECK(info.exact);
  CHECK(again.blocks == first.blocks);
}

TEST_CASE("write_key gives the key, the layout and the bases of one pass") {
  Program p = iteration("a", 1.0, 1);
  std::string key;
  MergeCache::Layout layout{};
  std::vector<Base*> bases;
  MergeCache::write_key(p, FuserOptions{}, key, &layout, &bases);
  CHECK(key == MergeCache::key(p, FuserOptions{}));
  CHECK(layout == MergeCache::layout(p));
  REQUIRE(bases.size() == 3);
  CHECK(bases[0]->name == "aT");
  CHECK(bases[1]->name == "aX");
  CHECK(bases[2]->name == "aY");
  // Only what the key leaves out moves the layout: an offset, a base size.
  CHECK(MergeCache::layout(iteration("b", 5.0, 1)) == layout);
  CHECK(MergeCache::layout(iteration("b", 1.0, 2)) != layout);
}

TEST_CASE("a reduction's axis is in the key: it shapes the loops, unlike other constants") {
  auto sum_along = [](int64_t axis) {
    ProgramBuilder b;
    auto A = b.base("A", 12), S = b.base("S", axis == 0 ? 4 : 3);
    b.op(Opcode::ADD_REDUCE, {ProgramBuilder::whole(S), ProgramBuilder::view(A, 0, {3, 4}, {4, 1}),
                              Scalar::of_int(axis)});
    return std::move(b.p);
  };
  FuserOptions o;
  o.search_min_bytes = 0; // the named algorithm on these small programs
  CHECK(MergeCache::key(sum_along(0), o) != MergeCache::key(sum_along(1), o));
  CHECK(MergeCache::key(sum_along(1), o) == MergeCache::key(sum_along(1), o));
  CHECK(MergeCache::key(iteration("a", 1.0), o) == MergeCache::key(iteration("a", 9.0), o));
}

namespace {
// f(code, partition) for every ordered assignment of n instructions to blocks (the block of
// instruction i is digit i of the code in base n; empty blocks dropped).
template <typename F> void for_each_assignment(size_t n, F f) {
  size_t codes = 1;
  for (size_t i = 0; i < n; ++i) codes *= n;
  Partition part;
  for (size_t code = 0; code < codes; ++code) {
    std::vector<std::vector<size_t>> blocks(n);
    for (size_t i = 0, c = code; i < n; ++i, c /= n) blocks[c % n].push_back(i);
    std::erase_if(blocks, [](const auto& b) { return b.empty(); });
    part.blocks = std::move(blocks);
    f(code, part);
  }
}

// f(code, partition, legal for p, legal for q) for every assignment of p's instructions to blocks
// (q: p with other views, the same instructions).
template <typename F>
void for_each_legality(const Program& p, const Program& q, const std::string& cost_model, F f) {
  FusionContext cp(p, cost_model), cq(q, cost_model);
  for_each_assignment(p.size(), [&](size_t code, const Partition& part) {
    f(code, part, check_partition(cp.table(), part.blocks).empty(),
      check_partition(cq.table(), part.blocks).empty());
  });
}

// The largest offset at which view v (of non-negative strides) still lies inside its base.
int64_t last_offset(const View& v) {
  int64_t span = 0;
  for (size_t d = 0; d < v.shape.size(); ++d) span += (v.shape[d] - 1) * v.stride[d];
  return v.base->nelem - 1 - span;
}

// `p` with every distinct view moved to a random offset inside its base (identical views move
// together): another program of the same structure, when the key says so.
Program moved_views(const Program& p, std::mt19937& rng) {
  Program q = p;
  std::vector<std::pair<View, int64_t>> moved; // original view -> its new offset
  for (Instruction& ins : q.instrs)
    for (Operand& o : ins.operands) {
      View* v = std::get_if<View>(&o);
      if (!v || ins.is_system()) continue;
      auto it = std::find_if(moved.begin(), moved.end(),
                             [&](const auto& m) { return m.first.identical(*v); });
      if (it == moved.end()) {
        const int64_t offset = std::uniform_int_distribution<int64_t>(0, last_offset(*v))(rng);
        it = moved.insert(moved.end(), {*v, offset});
      }
      v->offset = it->second;
    }
  return q;
}
} // namespace

TEST_CASE("an overlap-free program: every partition legal for a program of its key is legal") {
  // What fuse() relies on to replay a moved or reshaped repeat without check_partition().
  FuserOptions o;
  std::mt19937 rng(20261125);
  int checked = 0, overlapping = 0;
  for (int round = 0; round < test::random_rounds(4000); ++round) {
    Program p = test::random_program(rng, {6, true, round % 2 == 1});
    Program q = moved_views(p, rng);
    std::string kp, kq;
    bool p_free = false, q_free = false;
    MergeCache::write_key(p, o, kp, nullptr, nullptr, &p_free);
    MergeCache::write_key(q, o, kq, nullptr, nullptr, &q_free);
    if (kp != kq) continue; // the move merged or split views: not a repeat
    overlapping += !p_free;
    if (!p_free && !q_free) continue;
    for_each_legality(p, q, o.cost_model,
                      [&](size_t code, const Partition&, bool legal_p, bool legal_q) {
                        INFO("round " << round << ", code " << code);
                        if (legal_p && q_free) REQUIRE(legal_q);
                        if (legal_q && p_free) REQUIRE(legal_p);
                        checked += (legal_p && q_free) || (legal_q && p_free);
                      });
  }
  CHECK(checked > test::random_rounds(1000));
  CHECK(overlapping > test::random_rounds(100)); // the generator makes both kinds
}

namespace {
// p with every view of a base no compute instruction writes moved on its own, appearance by
// appearance, to one of two offsets: reads that coincided may part and apart ones coincide.
Program reads_moved_apart(const Program& p, std::mt19937& rng) {
  std::set<const Base*> written;
  for (const Instruction& ins : p.instrs)
    if (!ins.is_system() && ins.is_view(0)) written.insert(ins.view(0).base.get());
  Program q = p;
  for (Instruction& ins : q.instrs)
    for (Operand& o : ins.operands) {
      View* v = std::get_if<View>(&o);
      if (!v || ins.is_system() || written.count(v->base.get())) continue;
      const int64_t room = last_offset(*v);
      if (room >= 0) v->offset = std::uniform_int_distribution<int64_t>(0, 1)(rng) * room;
    }
  return q;
}
} // namespace

TEST_CASE("reads coinciding or not: one key, and every partition as legal as before") {
  // Views of a base the program only reads are not identity-tracked in the key (a gather's
  // data-dependent rows repeat or not from flush to flush), which is sound because which reads
  // coincide decides no dependency and no block's legality.
  FuserOptions o;
  std::mt19937 rng(20261128);
  int moved = 0, checked = 0;
  for (int round = 0; round < test::random_rounds(800); ++round) {
    Program p = test::random_program(rng, {6, true, round % 2 == 1});
    Program q = reads_moved_apart(p, rng);
    std::string kp, kq;
    MergeCache::write_key(p, o, kp);
    MergeCache::write_key(q, o, kq);
    REQUIRE(kp == kq);
    bool differs = false;
    for (size_t i = 0; i < p.instrs.size(); ++i)
      for (size_t k = 0; k < p.instrs[i].operands.size(); ++k)
        if (p.instrs[i].is_view(k) && p.instrs[i].view(k).offset != q.instrs[i].view(k).offset)
          differs = true;
    if (!differs) continue;
    ++moved;
    for_each_legality(p, q, o.cost_model,
                      [&](size_t code, const Partition&, bool legal_p, bool legal_q) {
                        INFO("round " << round << ", code " << code);
                        REQUIRE(legal_p == legal_q);
                        ++checked;
                      });
  }
  CHECK(moved > test::random_rounds(150));
  CHECK(checked > test::random_rounds(3000));
}

namespace {
// The element indices of a 0-d or 1-D view.
std::set<int64_t> elements(const View& v) {
  std::set<int64_t> e;
  const int64_t n = v.shape.empty() ? 1 : v.shape[0], s = v.shape.empty() ? 0 : v.stride[0];
  for (int64_t k = 0; k < n; ++k) e.insert(v.offset + k * s);
  return e;
}
} // namespace

TEST_CASE("overlap-free: no two distinct views of a written base share an element") {
  // Soundness of write_key's test (intervals, and offsets apart modulo the stride gcd) against
  // every element of every view; and it is not vacuous: strided views interleave.
  FuserOptions o;
  std::mt19937 rng(20261125);
  int free_with_interleaved = 0;
  for (int round = 0; round < 20000; ++round) {
    Program p = test::random_program(rng, {8, true, round % 4 != 0});
    std::string key;
    bool free = false;
    MergeCache::write_key(p, o, key, nullptr, nullptr, &free);
    std::set<const Base*> written;
    std::vector<const View*> views;
    for (const Instruction& ins : p.instrs) {
      if (ins.is_system()) continue;
      written.insert(ins.out().base.get());
      for (const Operand& opnd : ins.operands)
        if (const View* v = std::get_if<View>(&opnd); v && v->size() > 0) views.push_back(v);
    }
    bool shared = false, interleaved = false;
    for (size_t i = 0; i < views.size(); ++i)
      for (size_t j = i + 1; j < views.size(); ++j) {
        const View &a = *views[i], &b = *views[j];
        if (a.base != b.base || !written.count(a.base.get()) || a.identical(b)) continue;
        std::set<int64_t> ea = elements(a);
        for (int64_t e : elements(b)) shared |= ea.count(e) > 0;
        interleaved |= a.min_index() <= b.max_index() && b.min_index() <= a.max_index();
      }
    INFO("round " << round);
    if (free) REQUIRE_FALSE(shared);
    free_with_interleaved += free && interleaved;
  }
  CHECK(free_with_interleaved > 100);
}

TEST_CASE("overlap-free: a matrix's columns, written one by one") {
  // A(6x5)[:, j] for distinct j: offsets apart modulo the row stride, intervals interleaved.
  test::ProgramBuilder b;
  auto a = b.base("A", 30), q = b.base("Q", 6);
  for (int64_t j : {1, 2, 4})
    b.op(Opcode::SUBTRACT, {test::ProgramBuilder::view(a, j, 6, 5),
                            test::ProgramBuilder::view(a, j, 6, 5), b.whole(q)});
  std::string key;
  bool free = false;
  MergeCache::write_key(b.p, FuserOptions{}, key, nullptr, nullptr, &free);
  CHECK(free);
  b.op(Opcode::IDENTITY, {test::ProgramBuilder::view(a, 6, 5, 5), test::ProgramBuilder::f64(1)});
  MergeCache::write_key(b.p, FuserOptions{}, key, nullptr, nullptr, &free);
  CHECK_FALSE(free); // column 1 again, from row 1: shares elements 6..26 with A[:, 1]
}

TEST_CASE("overlap-free: a matrix's short columns and the row below them, as boxes") {
  // A(6x5)[:3, j] for distinct j and A[3, :]: the strides' gcd is 1 (no residue tells them
  // apart) and the columns' intervals meet, but as boxes of rows and columns they are apart.
  test::ProgramBuilder b;
  auto a = b.base("A", 30), q = b.base("Q", 5);
  for (int64_t j : {0, 2, 3})
    b.op(Opcode::ADD, {test::ProgramBuilder::view(a, j, 3, 5),
                       test::ProgramBuilder::view(a, j, 3, 5), test::ProgramBuilder::f64(1)});
  b.op(Opcode::ADD, {test::ProgramBuilder::view(a, 15, 5, 1),
                     test::ProgramBuilder::view(a, 15, 5, 1), b.whole(q)});
  std::string key;
  bool free = false;
  MergeCache::write_key(b.p, FuserOptions{}, key, nullptr, nullptr, &free);
  CHECK(free);
  // The row of the columns' last element: A[2, :] meets A[:3, 0] at element 10.
  b.op(Opcode::IDENTITY, {test::ProgramBuilder::view(a, 10, 5, 1), test::ProgramBuilder::f64(1)});
  MergeCache::write_key(b.p, FuserOptions{}, key, nullptr, nullptr, &free);
  CHECK_FALSE(free);
}

namespace {
// `p` with all views of each base moved by one distance per base (inside the base; a base that
// a FREE or SYNC names whole stays).
Program moved_per_base(const Program& p, std::mt19937& rng) {
  Program q = p;
  std::map<const Base*, std::pair<int64_t, int64_t>> range; // lowest, highest element touched
  std::set<const Base*> whole;
  for (const Instruction& ins : q.instrs)
    if (ins.is_system()) whole.insert(ins.view(0).base.get());
  for (const Instruction& ins : q.instrs)
    for (const Operand& o : ins.operands)
      if (const View* v = std::get_if<View>(&o);
          v && !whole.count(v->base.get()) && v->size() > 0) {
        auto [it, fresh] = range.try_emplace(v->base.get(), v->min_index(), v->max_index());
        it->second = {std::min(it->second.first, v->min_index()),
                      std::max(it->second.second, v->max_index())};
      }
  std::map<const Base*, int64_t> delta;
  for (auto& [base, r] : range)
    delta[base] = std::uniform_int_distribution<int64_t>(-r.first, base->nelem - 1 - r.second)(rng);
  for (Instruction& ins : q.instrs)
    for (Operand& o : ins.operands)
      if (View* v = std::get_if<View>(&o); v && delta.count(v->base.get()))
        v->offset += delta[v->base.get()];
  return q;
}
} // namespace

TEST_CASE("views moved together per base: the same legal partitions, without a check") {
  FuserOptions o;
  std::mt19937 rng(112526);
  int checked = 0, together = 0;
  for (int round = 0; round < test::random_rounds(2000); ++round) {
    Program p = test::random_program(rng, {5, true});
    Program q = moved_per_base(p, rng);
    if (MergeCache::key(p, o) != MergeCache::key(q, o)) continue; // merged or split views
    const MergeCache::Layout lp = MergeCache::layout(p), lq = MergeCache::layout(q);
    REQUIRE(MergeCache::same_geometry(lp, lq));
    REQUIRE(MergeCache::moved_together(lp, lq));
    ++together;
    for_each_legality(
        p, q, o.cost_model, [&](size_t code, const Partition&, bool legal_p, bool legal_q) {
          if (legal_p != legal_q)
            FAIL("round " << round << ", code " << code << ": legal for one program only");
          ++checked;
        });
  }
  CHECK(together > test::random_rounds(500));
  CHECK(checked > test::random_rounds(100000));
  // Views of one base moved apart: not together (their overlaps may differ).
  Program a = gauss_step("a", 8, 1), b = gauss_step("a", 8, 1);
  for (Instruction& ins : b.instrs)
    if (ins.op == Opcode::DIVIDE) std::get<View>(ins.operands[1]).offset += 1;
  REQUIRE(MergeCache::key(a, o) == MergeCache::key(b, o));
  CHECK(MergeCache::same_geometry(MergeCache::layout(a), MergeCache::layout(b)));
  CHECK_FALSE(MergeCache::moved_together(MergeCache::layout(a), MergeCache::layout(b)));
}

TEST_CASE("an empty view is in the key: its program has fewer dependencies than a non-empty one") {
  // An empty view conflicts with nothing, not even an identical view, so a partition legal for a
  // program whose views are empty may order a read before the write it would depend on. The key
  // tells empty extents apart, so such a partition is never replayed for non-empty views.
  auto program = [](int64_t n) {
    ProgramBuilder b;
    auto A = b.base("A", 4), X = b.base("X", 4), Y = b.base("Y", 4), Z = b.base("Z", 4096);
    using P = ProgramBuilder;
    b.op(Opcode::MULTIPLY, {P::view(A, 0, n), P::view(X, 0, n), P::f64(2)}); // writes A[:n]
    b.op(Opcode::ADD, {P::view(Y, 0, n), P::view(A, 0, n), P::f64(1)});      // reads A[:n]
    b.op(Opcode::ADD, {P::whole(Z), P::whole(Z), P::f64(1)}); // the bytes: one size class
    return std::move(b.p);
  };
  const Program empty = program(0), full = program(2), full3 = program(3);
  const std::vector<std::vector<size_t>> read_first = {{1}, {0}, {2}};
  CHECK(check_partition(build_access_table(empty), read_first).empty());
  CHECK(!check_partition(build_access_table(full), read_first).empty());
  FuserOptions o;
  ProgramKey ke, kf, kf3;
  ke.compute(empty, o);
  kf.compute(full, o);
  kf3.compute(full3, o);
  CHECK(ke.text != kf.text);
  CHECK(kf.text == kf3.text); // other non-empty extents: the same key
  CHECK(kf.overlap_free);
}

TEST_CASE("a FREE or SYNC of a whole base makes no overlap with the base's other views") {
  // A 2-D temporary (a small matrix product's result) is FREEd as its whole 1-D base: two
  // distinct views of one written base, but the FREE accesses no element, so the program is
  // overlap-free (no legality check when its plan is replayed with moved views). A compute
  // view that does meet another still makes the base overlapping.
  auto program = [](bool second_write) {
    ProgramBuilder b;
    auto T = b.base("T", 16), X = b.base("X", 64), S = b.base("S", 64);
    using P = ProgramBuilder;
    b.op(Opcode::MULTIPLY,
         {P::view(T, 0, {4, 4}, {4, 1}), P::view(X, 0, {4, 4}, {4, 1}), P::f64(2)});
    b.op(Opcode::ADD, {P::view(S, 16, {4, 4}, {4, 1}), P::view(S, 16, {4, 4}, {4, 1}),
                       P::view(T, 0, {4, 4}, {4, 1})});
    if (second_write) // T[1:3] rewritten as 1-D: meets the 2-D view's elements
      b.op(Opcode::ADD, {P::view(T, 4, 8), P::view(T, 4, 8), P::f64(1)});
    b.sync(S);
    b.free(T);
    return std::move(b.p);
  };
  FuserOptions o;
  ProgramKey k;
  k.compute(program(false), o);
  CHECK(k.overlap_free);
  CHECK(k.overlapping.empty());
  k.compute(program(true), o);
  CHECK_FALSE(k.overlap_free);
  CHECK(k.overlapping.size() == 1);
}

TEST_CASE("partition_holds checks only the overlapping bases, and decides as the full check") {
  // A partition legal for a program of the key, asked of another program of the key whose views
  // moved (each base's views apart or not): the check on the accesses of the key's overlapping
  // bases alone must answer what check_partition on the whole program answers.
  FuserOptions o;
  o.search_min_bytes = 0;
  std::mt19937 rng(20261128);
  int restricted = 0, illegal = 0, checked = 0;
  for (int round = 0; round < test::random_rounds(800); ++round) {
    Program p = test::random_program(rng, {6, true, round % 2 == 1});
    Program q = moved_views(p, rng);
    ProgramKey kp, kq;
    kp.compute(p, o);
    kq.compute(q, o);
    if (kp.text != kq.text) continue; // the move merged or split views: not a repeat
    REQUIRE(kq.overlap_free == kq.overlapping.empty());
    const bool takes_check = !(kp.layout == kq.layout) && !kq.overlap_free &&
                             !MergeCache::moved_together(kp.layout, kq.layout);
    restricted += takes_check;
    for_each_legality(p, q, o.cost_model,
                      [&](size_t code, const Partition& part, bool legal_p, bool legal) {
                        if (!legal_p) return; // kept plans are legal
                        INFO("round " << round << ", code " << code);
                        REQUIRE(partition_holds(q, kq, kp.layout, part) == legal);
                        illegal += takes_check && !legal;
                        checked += takes_check;
                      });
  }
  CHECK(restricted > test::random_rounds(50));
  CHECK(checked > test::random_rounds(1000));
  CHECK(illegal > test::random_rounds(50)); // the restricted check does reject
}
