// Tests for vem/stack: the real stack (node VEM + CPU engine) behind the Runtime.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/profile.h"
#include "ir/text/parser.h"
#include "vem/stack.h"

using namespace hassium;

namespace {
StackOptions test_options() {
  StackOptions o;
  o.cpu.cache = KernelCacheMode::MEMORY;
  return o;
}

void record_all(Runtime& rt, const Program& p) {
  for (const Instruction& ins : p.instrs) rt.record(ins);
}
} // namespace

TEST_CASE("a bad GATHER index fails the flush and leaves the runtime usable") {
  Runtime rt;
  install_stack(test_options(), rt);
  Program bad = parse_program(R"(
.base S float64 3
.base I int64 2
.base O float64 2
.base T float64 3
IDENTITY S, 1.5
IDENTITY I{0;1;1}, 0
IDENTITY I{1;1;1}, 7
GATHER O, S, I
IDENTITY T, 2
FREE T
FREE S
SYNC O
)");
  record_all(rt, bad);
  CHECK_THROWS_AS(rt.flush(), UserError);
  CHECK(rt.pending_size() == 0);              // dropped
  CHECK(bad.find_base("S")->data == nullptr); // its FREE was honored
  CHECK(bad.find_base("T")->data == nullptr);

  Program good = parse_program(R"(
.base A int32 5
.base B int32 5
RANGE A
MULTIPLY B, A, A
SYNC B
)");
  record_all(rt, good);
  rt.flush();
  BasePtr b = good.find_base("B");
  REQUIRE(b->synced);
  const int32_t* v = static_cast<const int32_t*>(b->data);
  CHECK(std::vector<int32_t>(v, v + 5) == std::vector<int32_t>{0, 1, 4, 9, 16});
  CHECK(rt.counters().flushes == 2);
}

TEST_CASE("external memory is read in place and results land in pool memory") {
  Runtime rt;
  install_stack(test_options(), rt);
  Program p = parse_program(".base X float64 4\n.base Y float64 4\nADD Y, X, X\nSYNC Y\n");
  std::vector<double> x = {1, 2, 3, 4.5};
  p.find_base("X")->data = x.data();
  rt.record(p.instrs[0]);
  rt.sync(p.find_base("Y"));
  const double* y = static_cast<const double*>(p.find_base("Y")->data);
  CHECK(std::vector<double>(y, y + 4) == std::vector<double>{2, 4, 6, 9});
  CHECK(p.find_base("X")->data == x.data());
}

TEST_CASE("unknown names in the stack options are errors listing the valid ones") {
  StackOptions o = test_options();
  o.engine = "gpu9000";
  CHECK_THROWS_WITH(build_stack(o), Catch::Contains("unknown engine") && Catch::Contains("cpu"));
  o = test_options();
  o.vem = "cloud";
  CHECK_THROWS_WITH(build_stack(o), Catch::Contains("unknown VEM") && Catch::Contains("node"));
  o = test_options();
  o.fuser.algorithm = "magic";
  CHECK_THROWS_WITH(build_stack(o), Catch::Contains("greedy"));
  o = test_options();
  o.filters = {"no_such_filter"};
  CHECK_THROWS_WITH(build_stack(o), Catch::Contains("unknown filter 'no_such_filter'"));
  // The CPU engine first; the GPU engines where their devices' libraries were built.
  const std::vector<std::string> engines = engine_registry().names();
  REQUIRE(!engines.empty());
  CHECK(engines.front() == "cpu");
  for (const std::string& e : engines) CHECK((e == "cpu" || e == "cuda" || e == "opencl"));
  // The node VEM first; the cluster VEM where CMake found MPI.
  const std::vector<std::string> vems = vem_registry().names();
  REQUIRE(!vems.empty());
  CHECK(vems.front() == "node");
  for (const std::string& v : vems) CHECK((v == "node" || v == "cluster"));
}

TEST_CASE("every component key names a published registry that holds its default") {
  publish_builtin_registries();
  publish_builtin_registries(); // idempotent
  int components = 0;
  for (const ConfigKey& k : config_keys()) {
    if (k.type != ConfigType::k_component && k.type != ConfigType::k_component_list) continue;
    INFO("[" << k.section << "] " << k.key);
    ++components;
    const RegistryBase* r = k.registry();
    REQUIRE(r);
    CHECK(r->id() == k.valid);
    const Config defaults = Config::defaults({{"HOME", "/h"}});
    std::vector<std::string> names = k.type == ConfigType::k_component_list
                                         ? defaults.get_list(k.section, k.key)
                                         : std::vector{defaults.get_string(k.section, k.key)};
    for (const std::string& name : names) CHECK(r->contains(name));
    for (const std::string& name : r->names()) CHECK_FALSE(r->doc(name).empty());
  }
  CHECK(components == 10);
  CHECK(published_registry("stack.engine") == &engine_registry());
  CHECK(published_registry("stack.vem") == &vem_registry());
}

TEST_CASE("a configuration may only name components built in") {
  publish_builtin_registries();
  auto error = [](Environment env) {
    env["HOME"] = "/h";
    try {
      Config::defaults(env);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error({{"HASSIUM_STACK_ENGINE", "gpu"}}) ==
        "unknown [stack] engine 'gpu' (from env HASSIUM_STACK_ENGINE); valid: " +
            engine_registry().joined_names());
  CHECK(error({{"HASSIUM_STACK_VEM", "mesh"}}) ==
        "unknown [stack] vem 'mesh' (from env HASSIUM_STACK_VEM); valid: " +
            vem_registry().joined_names());
  CHECK(error({{"HASSIUM_CPU_KERNEL_CACHE", "sometimes"}}) ==
        "unknown [cpu] kernel_cache 'sometimes' (from env HASSIUM_CPU_KERNEL_CACHE); valid: none, "
        "memory, disk");
  CHECK(error({{"HASSIUM_STACK_FILTERS", "expand_power,nope"}}) ==
        "unknown 'nope' in [stack] filters 'expand_power,nope' (from env HASSIUM_STACK_FILTERS); "
        "valid: expand_power, split_reduction, remove_identity, forward_copies, fold_constants, "
        "remove_dead, trace");
  CHECK(error({{"HASSIUM_FUSER_CACHE", "disk"}, {"HASSIUM_CPU_BLAS", "linked"}}).empty());
}

TEST_CASE("the stack options follow the configuration") {
  auto config = Config::from_text("[fuser]\nalgorithm = linear\n[cpu]\nthreads = 1\n"
                                  "[memory]\npool_cap_mb = 3\nhuge_pages = false\n"
                                  "[profile]\nenabled = true\n",
                                  "test.ini", Environment{{"HOME", "/home/test"}});
  StackOptions o = StackOptions::from_config(config);
  CHECK(o.fuser.algorithm == "linear");
  CHECK(o.cpu.threads == 1);
  CHECK(o.memory.cap_bytes == size_t(3) << 20);
  CHECK_FALSE(o.memory.huge_pages);
  CHECK(o.profile);
  CHECK(o.engine == "cpu");
  CHECK(o.vem == "node");
  CHECK(o.merge_cache == MergeCacheMode::MEMORY);
  CHECK(o.cpu.cache == KernelCacheMode::DISK);
  CHECK(o.cpu.wait_policy == WaitPolicy::PASSIVE);
  CHECK(o.cpu.blas == cpu::BlasChoice::AUTO);
  CHECK(o.cluster_overlap == "auto");
  CHECK(o.cluster_overlap_min_elements == 100000);
  auto other = Config::from_text("[fuser]\ncache = disk\n[cpu]\nkernel_cache = none\n"
                                 "wait_policy = active\nblas = linked\n"
                                 "[cluster]\noverlap = off\noverlap_min_elements = 0\n",
                                 "test.ini", Environment{{"HOME", "/home/test"}});
  StackOptions p = StackOptions::from_config(other);
  CHECK(p.merge_cache == MergeCacheMode::DISK);
  CHECK(p.cpu.cache == KernelCacheMode::NONE);
  CHECK(p.cpu.wait_policy == WaitPolicy::ACTIVE);
  CHECK(p.cpu.blas == cpu::BlasChoice::LINKED);
  CHECK(p.cluster_overlap == "off");
  CHECK(p.cluster_overlap_min_elements == 0);
}

TEST_CASE("debug builds verify each instruction as it is recorded") {
  Stack s = build_stack(test_options());
#ifdef NDEBUG
  CHECK_FALSE(s.check);
#else
  REQUIRE(s.check);
  auto a = make_base("a", DType::FLOAT64, 4);
  auto i = make_base("i", DType::INT32, 4);
  Instruction bad(Opcode::ADD, {View::whole(a), View::whole(i), Scalar::of_float(1)});
  CHECK_THROWS_WITH(s.check(bad, 2), Catch::Contains("instruction 3"));
#endif
}
