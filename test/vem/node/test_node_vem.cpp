// Tests for vem/node/node_vem: allocation, contraction, SYNC, FREE and errors, on a fake engine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include "core/error.h"
#include "ir/text/parser.h"
#include "vem/node/node_vem.h"

using namespace hassium;

namespace {
// Checks the engine contract on every block, writes 7.0 through float64 IDENTITY fills, and
// throws UserError for NEGATIVE (standing in for bad data such as a GATHER index).
struct FakeEngine : Engine {
  struct Seen {
    std::vector<size_t> instrs;
    std::vector<std::string> contracted;
  };
  std::vector<Seen>* seen;
  explicit FakeEngine(std::vector<Seen>* seen) : seen(seen) {}
  std::string_view name() const override { return "fake"; }
  void launch(EnginePlan&, size_t, const KernelBlock& block) override {
    Seen s{block.instrs, {}};
    for (const Base* b : block.contracted) s.contracted.push_back(b->name);
    seen->push_back(s);
    for (size_t i : block.instrs) {
      const Instruction& ins = block.program->instrs[i];
      REQUIRE_FALSE(ins.is_system());
      for (const auto& opnd : ins.operands) {
        const View* v = std::get_if<View>(&opnd);
        if (!v) continue;
        bool contracted =
            std::count(block.contracted.begin(), block.contracted.end(), v->base.get()) > 0;
        CHECK((v->base->data == nullptr) == contracted);
      }
      if (ins.op == Opcode::NEGATIVE) HS_USER_ERROR() << "bad data in block";
      if (ins.op == Opcode::IDENTITY && ins.is_constant(1) && ins.dtype(0) == DType::FLOAT64 &&
          ins.out().base->data) {
        for (int64_t k = 0; k < ins.out().size(); ++k)
          static_cast<double*>(ins.out().base->data)[ins.out().index_of_flat(k)] = 7.0;
      }
    }
  }
  EngineStats stats() const override {
    EngineStats e;
    e.kernels_compiled = int64_t(seen->size());
    return e;
  }
};

struct Fixture {
  std::vector<FakeEngine::Seen> seen;
  std::unique_ptr<NodeVem> vem;
  explicit Fixture(const std::string& algorithm, bool cache = false) {
    FuserOptions o;
    o.algorithm = algorithm;
    vem = std::make_unique<NodeVem>(std::make_unique<FakeEngine>(&seen), o,
                                    cache ? std::make_unique<MergeCache>() : nullptr);
  }
};

const char* kTemporary = R"(
.base T float64 4
.base O float64 4
IDENTITY T, 1.5
ADD O, T, 2
FREE T
SYNC O
)";
} // namespace

TEST_CASE("a fused temporary is contracted and never allocated") {
  Fixture f("greedy");
  Program p = parse_program(kTemporary);
  f.vem->execute(p);
  REQUIRE(f.seen.size() == 1);
  CHECK(f.seen[0].instrs == std::vector<size_t>{0, 1}); // FREE and SYNC stripped
  CHECK(f.seen[0].contracted == std::vector<std::string>{"T"});
  BasePtr o = p.find_base("O"), t = p.find_base("T");
  CHECK(o->data != nullptr);
  CHECK(o->synced);
  CHECK(t->data == nullptr);
  auto s = f.vem->pool().stats();
  CHECK(s.allocations == 1);
  CHECK(s.bytes_in_use == MemoryPool::size_class(32));
}

TEST_CASE("sum(exp(a) * b): the chain a reduction reads is fused, contracted, never allocated") {
  for (const char* algorithm : {"greedy", "linear", "optimal"}) {
    INFO(algorithm);
    Fixture f(algorithm);
    Program p = parse_program(R"(
.base A float64 8
.base B float64 8
.base T float64 8
.base U float64 8
.base S float64 1
EXP T, A
MULTIPLY U, T, B
ADD_REDUCE S{0;;}, U, 0
FREE T
FREE U
SYNC S
)");
    double a[8] = {}, b[8] = {};
    p.find_base("A")->data = a;
    p.find_base("B")->data = b;
    f.vem->execute(p);
    REQUIRE(f.seen.size() == 1);
    CHECK(f.seen[0].instrs == std::vector<size_t>{0, 1, 2});
    CHECK(f.seen[0].contracted == std::vector<std::string>{"T", "U"});
    CHECK(p.find_base("T")->allocation == nullptr);
    CHECK(p.find_base("U")->allocation == nullptr);
    CHECK(f.vem->pool().stats().allocations == 1); // S only
  }
}

TEST_CASE("an unfused temporary is allocated at its first write and freed at FREE") {
  Fixture f("singleton");
  Program p = parse_program(kTemporary);
  f.vem->execute(p);
  CHECK(f.seen.size() == 2);
  for (const auto& s : f.seen) CHECK(s.contracted.empty());
  CHECK(p.find_base("T")->data == nullptr);
  CHECK(p.find_base("T")->allocation == nullptr);
  auto s = f.vem->pool().stats();
  CHECK(s.allocations == 2);
  CHECK(s.bytes_cached == MemoryPool::size_class(32)); // T's block, kept for reuse
  ProfileCounters c;
  f.vem->add_counters(c);
  CHECK(c.blocks == 4); // singleton: one block per instruction, FREE and SYNC included
  CHECK(c.kernels_compiled == 2);
}

TEST_CASE("memory goes back to the pool when a base dies without FREE") {
  Fixture f("greedy");
  {
    Program p = parse_program(".base A float64 1000\nIDENTITY A, 1\nSYNC A\n");
    f.vem->execute(p);
    CHECK(f.vem->pool().stats().bytes_in_use == MemoryPool::size_class(8000));
  }
  CHECK(f.vem->pool().stats().bytes_in_use == 0);
}

TEST_CASE("external data is used as is and only let go at FREE") {
  Fixture f("greedy");
  Program p = parse_program(R"(
.base X float64 4
.base O float64 4
ADD O, X, 1
FREE X
SYNC O
)");
  auto mem = std::make_shared<std::vector<double>>(4, 3.0);
  BasePtr x = p.find_base("X");
  x->data = mem->data();
  x->external_owner = mem;
  f.vem->execute(p);
  CHECK(x->data == nullptr);
  CHECK(mem.use_count() == 1); // the VEM let go; the memory itself was never touched
  CHECK((*mem)[0] == 3.0);
  CHECK(f.vem->pool().stats().allocations == 1); // O only
}

TEST_CASE("a base read before anything writes it reads zeros") {
  Fixture f("greedy");
  Program p = parse_program(R"(
.base X float64 4
.base O float64 4
ADD O, X, 1
SYNC X
)");
  f.vem->execute(p);
  BasePtr x = p.find_base("X");
  REQUIRE(x->data != nullptr);
  for (int k = 0; k < 4; ++k) CHECK(static_cast<double*>(x->data)[k] == 0.0);
  CHECK(x->synced);
}

TEST_CASE("a later write clears synced, data written by the engine is what SYNC shows") {
  Fixture f("greedy");
  Program p = parse_program(".base A float64 3\nIDENTITY A, 0\nSYNC A\n");
  f.vem->execute(p);
  BasePtr a = p.find_base("A");
  CHECK(a->synced);
  CHECK(static_cast<double*>(a->data)[2] == 7.0);
  Program q;
  q.instrs.emplace_back(Opcode::IDENTITY,
                        std::vector<Operand>{View::whole(a), Scalar::of_float(2)});
  q.collect_bases();
  f.vem->execute(q);
  CHECK_FALSE(a->synced);
}

TEST_CASE("after an engine error the program's FREEs are honored and the VEM is usable") {
  Fixture f("singleton");
  Program p = parse_program(R"(
.base A float64 4
.base B float64 4
IDENTITY A, 1
NEGATIVE B, A
FREE A
FREE B
)");
  CHECK_THROWS_WITH(f.vem->execute(p), Catch::Contains("bad data"));
  CHECK(p.find_base("A")->data == nullptr);
  CHECK(p.find_base("B")->data == nullptr);
  CHECK(f.vem->pool().stats().bytes_in_use == 0);
  Program q = parse_program(kTemporary);
  f.vem->execute(q);
  CHECK(q.find_base("O")->synced);
}

TEST_CASE("a FREEd base is let go after its last access, long before its FREE") {
  // singleton: one block per instruction, in program order. T's last access is block 1, its
  // FREE block 4: U (block 2) reuses T's buffer.
  Fixture f("singleton");
  Program p = parse_program(R"(
.base T float64 1000
.base O float64 1000
.base U float64 1000
.base P float64 1000
IDENTITY T, 1
ADD O, T, 2
IDENTITY U, 3
ADD P, U, 1
FREE T
FREE U
SYNC O
SYNC P
)");
  f.vem->execute(p);
  size_t cls = MemoryPool::size_class(8000);
  auto s = f.vem->pool().stats();
  CHECK(s.allocations == 4);
  CHECK(s.reuses == 1);                  // U took T's block
  CHECK(s.peak_bytes_in_use == 3 * cls); // T, O, then U and P with O
  CHECK(s.bytes_in_use == 2 * cls);      // O and P, synced
  CHECK(p.find_base("T")->data == nullptr);
  CHECK(p.find_base("U")->data == nullptr);
  CHECK(p.find_base("O")->synced);
}

TEST_CASE("after an engine error an early-released base is let go once, the rest at the throw") {
  Fixture f("singleton");
  Program p = parse_program(R"(
.base A float64 4
.base B float64 4
.base C float64 4
IDENTITY A, 1
ADD B, A, 1
NEGATIVE C, B
FREE A
FREE B
FREE C
)");
  CHECK_THROWS_WITH(f.vem->execute(p), Catch::Contains("bad data"));
  for (const char* name : {"A", "B", "C"}) {
    INFO(name);
    CHECK(p.find_base(name)->data == nullptr);
    CHECK(p.find_base(name)->allocation == nullptr);
  }
  auto s = f.vem->pool().stats();
  CHECK(s.bytes_in_use == 0);
  CHECK(s.allocations == 3);
}

TEST_CASE("a small write into a big base far ahead of its use is deferred: the base reuses") {
  // singleton: P's row write is block 1, P's next use block 6. Deferred to just before block 6,
  // P's allocation comes after Q's last use and takes Q's buffer.
  Fixture f("singleton");
  Program p = parse_program(R"(
.base S float64 4
.base P float64 131072
.base Q float64 131072
.base R float64 131072
IDENTITY S, 1.5
IDENTITY P{0;4;1}, S
FREE S
IDENTITY Q, 2
ADD R, Q, 1
FREE Q
IDENTITY P{4;131068;1}, R{0;131068;1}
FREE R
SYNC P
)");
  f.vem->execute(p);
  size_t cls = MemoryPool::size_class(size_t(1) << 20);
  auto s = f.vem->pool().stats();
  CHECK(s.peak_bytes_in_use == 2 * cls + 64); // S, Q, R; then S, R, P (not S, P, Q, R)
  CHECK(s.reuses == 1);
  CHECK(p.find_base("P")->synced);
  REQUIRE(f.seen.size() == 5); // every compute instruction still ran once, in a legal order
  CHECK(f.seen[3].instrs == std::vector<size_t>{1});
}

TEST_CASE("the merge cache answers a repeated program") {
  Fixture f("greedy", true);
  for (int k = 0; k < 3; ++k) {
    Program p = parse_program(kTemporary);
    f.vem->execute(p);
  }
  ProfileCounters c;
  f.vem->add_counters(c);
  CHECK(c.merge_cache_misses == 1);
  CHECK(c.merge_cache_hits == 2);
  CHECK(c.pool_reuses == 2); // O's buffer comes back each time
}

TEST_CASE("the partition cost counter sums each flush's cost, cache hits included") {
  auto cost_of = [](const std::string& algorithm, bool cache, int flushes) {
    Fixture f(algorithm, cache);
    for (int k = 0; k < flushes; ++k) {
      Program p = parse_program(kTemporary);
      f.vem->execute(p);
    }
    ProfileCounters c;
    f.vem->add_counters(c);
    return c.partition_cost;
  };
  int64_t singleton = cost_of("singleton", false, 1), greedy = cost_of("greedy", false, 1);
  CHECK(greedy > 0);
  CHECK(singleton > greedy); // fusing contracts T: fewer bytes touched
  CHECK(cost_of("greedy", true, 3) == 3 * greedy);
}

TEST_CASE("with a dot_dir each distinct partition is written once, as .dot and .png") {
  auto dir =
      std::filesystem::temp_directory_path() / ("hassium-dot-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::vector<FakeEngine::Seen> seen;
  FuserOptions o;
  o.algorithm = "singleton";
  NodeVem vem(std::make_unique<FakeEngine>(&seen), o, nullptr, {}, dir.string());
  for (int k = 0; k < 3; ++k) { // the same structure three times: one picture
    Program p = parse_program(kTemporary);
    vem.execute(p);
  }
  Program other = parse_program(".base A int32 8\nRANGE A\nSYNC A\n");
  vem.execute(other);
  std::vector<std::string> dots, pngs;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    (e.path().extension() == ".dot" ? dots : pngs).push_back(e.path());
  std::sort(dots.begin(), dots.end());
  REQUIRE(dots.size() == 2);
  std::string all;
  for (const auto& path : dots) {
    CHECK_THAT(path, Catch::Contains("/partition-"));
    std::ifstream in(path);
    std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(dot, Catch::StartsWith("digraph flush {"));
    CHECK(std::count(dot.begin(), dot.end(), '{') == std::count(dot.begin(), dot.end(), '}'));
    all += dot;
  }
  CHECK_THAT(all, Catch::Contains("subgraph cluster_3")); // singleton: four blocks
  CHECK_THAT(all, Catch::Contains("i0 -> i1;"));          // ADD reads what IDENTITY wrote
  CHECK_THAT(all, Catch::Contains("1: ADD O, T, 2"));
  CHECK_THAT(all, Catch::Contains("0: RANGE A"));
  PartitionDotWriter probe(dir.string());
  if (probe.dot_program().empty()) {
    CHECK(pngs.empty());
  } else {
    REQUIRE(pngs.size() == 2);
    for (const auto& path : pngs) {
      std::ifstream in(path, std::ios::binary);
      char magic[8] = {};
      in.read(magic, 8);
      CHECK(std::string(magic + 1, 3) == "PNG");
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unwritable dot_dir is a warning, the flush still runs") {
  std::vector<FakeEngine::Seen> seen;
  NodeVem vem(std::make_unique<FakeEngine>(&seen), FuserOptions{}, nullptr, {},
              "/proc/hassium-no-such-dir");
  Program p = parse_program(kTemporary);
  CHECK_NOTHROW(vem.execute(p));
  CHECK(p.find_base("O")->synced);
}

TEST_CASE("profiling gathers the singleton cost, bytes moved and each distinct kernel") {
  auto profile_of = [](const std::string& algorithm, int flushes) {
    Fixture f(algorithm);
    f.vem->set_profiling(true);
    for (int k = 0; k < flushes; ++k) {
      Program p = parse_program(kTemporary);
      f.vem->execute(p);
    }
    ProfileCounters c;
    f.vem->add_counters(c);
    return c;
  };
  ProfileCounters g = profile_of("greedy", 2);
  CHECK(g.singleton_cost > g.partition_cost); // T contracted
  CHECK(g.bytes_moved == 2 * 32);             // O written; T never in memory
  REQUIRE(g.slowest_kernels.size() == 1);     // the same block both times
  CHECK(g.slowest_kernels[0].runs == 2);
  CHECK(g.slowest_kernels[0].bytes == 32);
  CHECK(g.slowest_kernels[0].bytecode ==
        ".base a0 float64 4\n.base a1 float64 4\nIDENTITY a0, 1.5\nADD a1, a0, 2.0\n");

  ProfileCounters s = profile_of("singleton", 1);
  CHECK(s.singleton_cost == s.partition_cost);
  CHECK(s.bytes_moved == 32 + 64); // T written, then T read and O written
  CHECK(s.slowest_kernels.size() == 2);

  Fixture off("greedy"); // profiling off: none of it
  Program p = parse_program(kTemporary);
  off.vem->execute(p);
  ProfileCounters c;
  off.vem->add_counters(c);
  CHECK(c.singleton_cost == 0);
  CHECK(c.bytes_moved == 0);
  CHECK(c.slowest_kernels.empty());
  CHECK(c.partition_cost > 0);
}

namespace {
// An engine with memory of its own (as a GPU's), for the VEM's side of DeviceMemory: float64
// whole views, IDENTITY/ADD/NEGATIVE (NEGATIVE throws: bad data). A base with host data and no
// device copy is copied to the device at its first launch; results stay on the device.
struct DeviceEngine : Engine, DeviceMemory {
  std::map<const Base*, std::vector<double>> device;
  int64_t allocations = 0, zero_fills = 0, syncs = 0, releases = 0;
  std::vector<std::pair<int64_t, int64_t>> sync_parts; // (offset, elements) each SYNC asked for

  std::string_view name() const override { return "device"; }
  DeviceMemory* device_memory() override { return this; }
  EngineStats stats() const override { return {}; }

  bool resident(const Base& base) const override { return device.count(&base) > 0; }
  void allocate(Base& base, bool zero_fill) override {
    REQUIRE_FALSE(resident(base));
    REQUIRE(base.data == nullptr);
    ++allocations;
    zero_fills += zero_fill;
    // Not zero-filled memory holds garbage: NaN, so a read of it shows.
    device[&base].assign(size_t(base.nelem), zero_fill ? 0.0 : std::nan(""));
  }
  void sync(Base& base, const View& part) override {
    REQUIRE(base.data != nullptr);
    REQUIRE(part.base.get() == &base);
    ++syncs;
    sync_parts.push_back({part.offset, part.size()});
    std::memcpy(base.data, device.at(&base).data(), size_t(base.nbytes()));
  }
  void release(Base& base) override { releases += device.erase(&base); }

  std::vector<double>& on_device(const View& v) {
    auto it = device.find(v.base.get());
    if (it != device.end()) return it->second;
    REQUIRE(v.base->data != nullptr); // every base the block accesses has its data somewhere
    auto* host = static_cast<const double*>(v.base->data);
    return device[v.base.get()] = std::vector<double>(host, host + v.base->nelem);
  }
  double operand(const Instruction& ins, size_t k, size_t i) {
    if (ins.is_constant(k)) return std::get<Scalar>(ins.operands[k]).as_double();
    return on_device(std::get<View>(ins.operands[k]))[i];
  }
  void launch(EnginePlan&, size_t, const KernelBlock& block) override {
    for (size_t n : block.instrs) {
      const Instruction& ins = block.program->instrs[n];
      REQUIRE(resident(*ins.out().base));
      std::vector<double>& out = on_device(ins.out());
      for (size_t i = 0; i < out.size(); ++i) {
        if (ins.op == Opcode::IDENTITY) out[i] = operand(ins, 1, i);
        if (ins.op == Opcode::ADD) out[i] = operand(ins, 1, i) + operand(ins, 2, i);
        if (ins.op == Opcode::NEGATIVE) HS_USER_ERROR() << "bad data on the device";
      }
    }
  }
};
} // namespace

TEST_CASE("an engine with its own memory: first writes there, SYNC copies, FREE releases") {
  auto owned = std::make_unique<DeviceEngine>();
  DeviceEngine& e = *owned;
  FuserOptions o;
  o.algorithm = "singleton"; // T is not contracted: it lives on the device
  NodeVem vem(std::move(owned), o, std::make_unique<MergeCache>());
  double a[4] = {1, 2, 3, 4};
  Program p = parse_program(R"(
.base A float64 4
.base T float64 4
.base O float64 4
.base Z float64 4
ADD T, A, 1
ADD O, T, T
ADD Z, Z, 1
FREE T
SYNC O
SYNC Z{3;;}
)");
  Base& A = *p.find_base("A");
  A.data = a; // the frontend's array
  vem.execute(p);
  const Base &T = *p.find_base("T"), &O = *p.find_base("O"), &Z = *p.find_base("Z");
  CHECK(e.allocations == 3); // T, O and Z: written first on the device
  CHECK(e.zero_fills == 1);  // Z, read before written
  CHECK(e.syncs == 2);
  // Each SYNC hands the device its view: all of O, Z's last element.
  CHECK(e.sync_parts == std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {3, 1}});
  CHECK(e.releases == 1); // T
  CHECK_FALSE(e.resident(T));
  CHECK(T.data == nullptr); // never on the host
  REQUIRE(O.data != nullptr);
  CHECK(std::vector<double>(static_cast<double*>(O.data), static_cast<double*>(O.data) + 4) ==
        std::vector<double>{4, 6, 8, 10});
  CHECK(static_cast<double*>(Z.data)[3] == 1.0);
  CHECK(O.synced);
  CHECK(e.resident(O));                          // still on the device, its host copy valid
  CHECK(vem.pool().stats().os_allocations == 2); // the host buffers of the two SYNCs only

  // A failed flush still honors its FREE on the device.
  Program bad = parse_program(R"(
.base U float64 4
IDENTITY U, 1
NEGATIVE U, U
FREE U
)");
  CHECK_THROWS_WITH(vem.execute(bad), Catch::Contains("bad data on the device"));
  CHECK_FALSE(e.resident(*bad.find_base("U")));
  CHECK(e.device.size() == 3); // A (copied over), O and Z
}
