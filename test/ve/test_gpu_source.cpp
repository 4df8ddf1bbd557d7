// Tests of the GPU kernel generator and launch geometry that need no device: what is supported,
// the entries of each kind of block, one source per structure, the geometry of every launch.
#include <catch2/catch.hpp>

#include "ir/text/parser.h"
#include "ve/gpu/kernel_source.h"
#include "ve/gpu/launch_geometry.h"
#include "ve/gpu/program_batch.h"

using namespace hassium;
using namespace hassium::gpu;

namespace {
plan::KernelPlan plan_of(const Program& p, std::vector<const Base*> contracted = {}) {
  KernelBlock block;
  block.program = &p;
  for (size_t i = 0; i < p.instrs.size(); ++i)
    if (!p.instrs[i].is_system()) block.instrs.push_back(i);
  block.contracted = std::move(contracted);
  plan::KernelPlan k;
  plan::plan_block(block, k, /*bind_data=*/false);
  return k;
}

DeviceInfo device(size_t max_group = 1024) {
  DeviceInfo d;
  d.max_group_size = max_group;
  d.compute_units = 80;
  return d;
}
} // namespace

TEST_CASE("gpu source: element-wise blocks have one grid-stride entry", "[ve][gpu]") {
  Program p = parse_program(R"(
.base a float64 100
.base b float64 100
.base c float64 100
MULTIPLY c, a, b
ADD c, c, 2.5:float64
)");
  plan::KernelPlan k = plan_of(p);
  std::string why;
  REQUIRE(supported(k, &why));
  KernelSource s = generate_source(k, Dialect::opencl());
  CHECK(s.entries == std::vector<std::string>{kElementsEntry});
  CHECK(!s.reduction);
  CHECK(s.source.find("HS_KERNEL void hs_elements(") != std::string::npos);
  CHECK(s.source.find("#define HS_KERNEL __kernel") != std::string::npos);
  CHECK(generate_source(k, Dialect::cuda()).source.find("extern \"C\" __global__") !=
        std::string::npos);
}

TEST_CASE("gpu source: one source per structure, whatever the sizes and constants", "[ve][gpu]") {
  Program p1 = parse_program(".base a float32 10\n.base b float32 10\nADD b, a, 1.0:float32\n");
  Program p2 = parse_program(".base a float32 999\n.base b float32 999\nADD b, a, 7.0:float32\n");
  CHECK(generate_source(plan_of(p1), Dialect::opencl()).source ==
        generate_source(plan_of(p2), Dialect::opencl()).source);
}

TEST_CASE("gpu source: programs join a batch under one header and split back out of it",
          "[ve][gpu]") {
  Program add = parse_program(".base a float32 10\n.base b float32 10\nADD b, a, 1.0:float32\n");
  Program sum =
      parse_program(".base a float64 20\n.base r float64 4\nADD_REDUCE r, a{0;4,5;5,1}, 1:int64\n");
  for (const Dialect& d : {Dialect::opencl(), Dialect::cuda()}) {
    const std::string header = program_header(d);
    const std::string p0 = generate_source(plan_of(add), d).source;
    const std::string p1 = generate_source(plan_of(sum), d, 4096).source; // params by value
    REQUIRE(has_header(p0, header));
    REQUIRE(has_header(p1, header));
    CHECK(p1.find("typedef struct") != std::string::npos);
    const std::string batch = batch_source(header, {&p0, &p1, &p0});
    // The header once, each program's names renamed around it and undefined after it.
    CHECK(batch.find(header, 1) == std::string::npos);
    CHECK(batch.find("#define hs_elements hs_elements_b2\n") != std::string::npos);
    CHECK(batch.find("#define hs_params hs_params_b1\n") != std::string::npos);
    CHECK(batch.rfind("#undef params\n") == batch.size() - 14);
    CHECK(batch_programs(header, batch) == std::vector<std::string>{p0, p1, p0});
    CHECK(batch_programs(header, p0).empty()); // a lone program is no batch
    CHECK(batch_programs(header, batch.substr(0, batch.size() - 3)).empty()); // truncated
  }
}

TEST_CASE("gpu source: params by value where the device's argument space holds them, else a buffer",
          "[ve][gpu]") {
  Program p = parse_program(R"(
.base a float64 100
.base b float64 100
.base t float64 100
.base c float64 100
MULTIPLY t, a, b
ADD c, t, 2.5:float64
FREE t
)");
  const Base* t = p.bases[2].get();
  REQUIRE(t->name == "t");
  plan::KernelPlan k = plan_of(p, {t});
  // Contracted arrays get no buffer argument and no offset slot.
  CHECK(buffer_arrays(k) == 3);
  CHECK(launch_slots(k) == k.params.size() + 3);
  CHECK(param_count(k) == launch_slots(k) + LAUNCH_SCRATCH);
  // Pointers of a, b, c, scratch and err, then the params: 8 bytes each.
  const size_t bytes = (3 + 2 + param_count(k)) * 8;
  for (const Dialect& d : {Dialect::opencl(), Dialect::cuda()}) {
    KernelSource by_value = generate_source(k, d, bytes);
    CHECK(by_value.params_by_value);
    CHECK(by_value.param_count == param_count(k));
    CHECK(by_value.source.find("const hs_params hs_P)") != std::string::npos);
    CHECK(by_value.source.find("hs_i64 v[" + std::to_string(param_count(k)) + "]") !=
          std::string::npos);
    // One byte short: the params go in a buffer.
    KernelSource buffer = generate_source(k, d, bytes - 1);
    CHECK(!buffer.params_by_value);
    CHECK(buffer.source.find("const hs_i64* params)") != std::string::npos);
    CHECK(generate_source(k, d).source == buffer.source); // 0: always a buffer
    for (const KernelSource& s : {by_value, buffer}) {
      std::string signature = s.source.substr(s.source.find("void hs_elements("));
      signature = signature.substr(0, signature.find(')'));
      for (size_t i = 0; i < k.arrays.size(); ++i)
        CHECK((signature.find("* a" + std::to_string(i) + ",") == std::string::npos) ==
              k.arrays[i].contracted);
    }
  }
}

TEST_CASE("gpu source: reductions have row, group and combine entries and scans run by rows",
          "[ve][gpu]") {
  Program r = parse_program(R"(
.base a int32 12
.base s int32 3
ADD_REDUCE s, a{0;3,4;4,1}, 1:int64
)");
  KernelSource s = generate_source(plan_of(r), Dialect::opencl());
  CHECK(s.reduction);
  CHECK(s.entries == std::vector<std::string>{kRowsEntry, kGroupsEntry, kCombineEntry});
  CHECK(s.source.find("HS_BARRIER()") != std::string::npos);
  Program c = parse_program(R"(
.base a float64 12
.base s float64 12
ADD_ACCUMULATE s{0;3,4;4,1}, a{0;3,4;4,1}, 0:int64
)");
  KernelSource sc = generate_source(plan_of(c), Dialect::opencl());
  CHECK(!sc.reduction);
  CHECK(sc.entries == std::vector<std::string>{kRowsEntry});
}

TEST_CASE("gpu source: unsupported blocks say why", "[ve][gpu]") {
  Program p = parse_program(".base a complex128 4\n.base b complex128 4\nSQRT b, a\n");
  std::string why;
  CHECK(!supported(plan_of(p), &why));
  CHECK(why.find("SQRT") != std::string::npos);
}

TEST_CASE("gpu source: indexed writes run in order on one work item", "[ve][gpu]") {
  Program p = parse_program(R"(
.base t float64 5
.base i int64 3
.base v float64 3
SCATTER t, v, i
)");
  KernelSource s = generate_source(plan_of(p), Dialect::opencl());
  CHECK(s.sequential);
  CHECK(s.source.find("hs_error(err") != std::string::npos);
}

TEST_CASE("launch geometry: grid-stride launches of 1-d, 2-d and 3-d loops", "[ve][gpu]") {
  const DeviceInfo d = device();
  // One item, a tiny loop, a 2-d loop (300 x 7), a 3-d loop (64 x 64 x 64), a huge one.
  LaunchGeometry one = grid_geometry(1, d);
  CHECK((one.global[0] == 1 && one.local[0] == 1));
  LaunchGeometry tiny = grid_geometry(5, d);
  CHECK(tiny.local[0] == 8);
  CHECK(tiny.global[0] == 8);
  LaunchGeometry two = grid_geometry(300 * 7, d);
  CHECK(two.local[0] == size_t(kDefaultGroup));
  CHECK(two.global[0] >= 2100);
  CHECK(two.global[0] % two.local[0] == 0);
  LaunchGeometry three = grid_geometry(64 * 64 * 64, d);
  CHECK(three.global[0] == size_t(64 * 64 * 64));
  LaunchGeometry huge = grid_geometry(int64_t(1) << 40, d);
  CHECK(huge.global[0] == size_t(kMaxGroups * kDefaultGroup)); // the rest by striding
  CHECK(grid_geometry(0, d).global[0] == 1);
  CHECK(grid_geometry(1000, d, /*sequential=*/true).global[0] == 1);
}

TEST_CASE("launch geometry: the device's group size limit", "[ve][gpu]") {
  CHECK(grid_geometry(10000, device(64)).local[0] == 64);
  CHECK(grid_geometry(10000, device(100)).local[0] == 64); // a power of two below the limit
  CHECK_THROWS(reduction_geometry(10, 1 << 20, 128, device(64)));
}

TEST_CASE("launch geometry: reductions by rows or by groups and chunks", "[ve][gpu]") {
  const DeviceInfo d = device();
  // Many rows: one work item per row.
  ReductionLaunch rows = reduction_geometry(1 << 20, 100, 128, d);
  CHECK(!rows.groups);
  // A short axis: per row too.
  CHECK(!reduction_geometry(10, 50, 128, d).groups);
  // An empty axis: the identity, per row.
  CHECK(!reduction_geometry(10, 0, 128, d).groups);
  // A full reduction of a long axis: groups over chunks, then the combine pass.
  ReductionLaunch full = reduction_geometry(1, int64_t(1) << 24, 128, d);
  CHECK(full.groups);
  CHECK(full.chunks > 1);
  CHECK(full.chunks * full.chunk >= int64_t(1) << 24);
  CHECK((full.chunks - 1) * full.chunk < int64_t(1) << 24);
  CHECK(full.first.local[0] == 128);
  // The combine pass: a group per row.
  CHECK(full.second.local[0] == 128);
  CHECK(full.second.global[0] == 128);
  CHECK(reduction_geometry(5, int64_t(1) << 24, 128, d).second.global[0] == 5 * 128);
  // One chunk: no combine pass.
  ReductionLaunch one = reduction_geometry(3, 1000, 128, d);
  CHECK(one.groups);
  CHECK(one.chunks == 1);
  // An outer axis (a column sum of a tall matrix): rows over (row, chunk) pairs, coalesced.
  ReductionLaunch outer = reduction_geometry(1000, 100000, 128, d, /*axis_innermost=*/false);
  CHECK(!outer.groups);
  CHECK(outer.chunks == 66); // 65536 items over 1000 rows
  CHECK(outer.chunks * outer.chunk >= 100000);
  CHECK(outer.first.global[0] >= size_t(1000 * 66));
  CHECK(reduction_geometry(1000, 600, 128, d, false).chunks == 9); // >= 64 elements per chunk
  // Huge: the chunks stay bounded.
  CHECK(reduction_geometry(2, int64_t(1) << 40, 128, d).chunks == 1024);
}
