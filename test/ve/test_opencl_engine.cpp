// Tests of the GPU engine on its OpenCL device (PoCL here): the same programs on the CPU engine and
// on the OpenCL engine give equal values (integers, bools and RANDOM bit for bit, floats within a
// few ulps), data stays resident across flushes (transfers counted), reductions over every axis,
// scans, error paths, blocks the GPU hands to the CPU engine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "core/cache_file.h"
#include "core/error.h"
#include "core/index_error.h"
#include "core/interrupt.h"
#include "core/profile.h"
#include "test/ve/run_cases.h"
#include "ve/gpu/kernel_source.h"
#include "ve/gpu/program_batch.h"
#include "ve/gpu/program_cache.h"
#include "ve/opencl/opencl_device.h"
#include "vem/stack.h"

using namespace hassium;

namespace {
StackOptions options(const std::string& engine) {
  StackOptions o;
  o.engine = engine;
  o.cpu.cache = KernelCacheMode::MEMORY;
  o.cpu.threads = 2;
  o.gpu_cache = KernelCacheMode::MEMORY;
  return o;
}

// The OpenCL stack, built once (compiled programs are kept in its memory cache).
Backend& opencl() {
  static Stack s = build_stack(options("opencl"));
  return *s.backend;
}
Backend& cpu() {
  static Stack s = build_stack(options("cpu"));
  return *s.backend;
}

ProfileCounters counters(Backend& b) {
  ProfileCounters c;
  b.add_counters(c);
  return c;
}

// Bit distance between two finite floats of one sign (ulps).
template <typename F, typename I> int64_t ulps(F a, F b) {
  I x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  if ((x < 0) != (y < 0)) return (a == b) ? 0 : INT64_MAX;
  return std::abs(int64_t(x) - int64_t(y));
}

template <typename F, typename I> bool float_close(F a, F b, int64_t max_ulps, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  if (ulps<F, I>(a, b) <= max_ulps) return true;
  return std::abs(double(a) - double(b)) <=
         rtol * std::max(std::abs(double(a)), std::abs(double(b)));
}

// Whether the element values of two bases agree: exactly for integers and bools, floats within
// a few ulps, or `rtol` relative (sums in another order).
bool same_values(const Base& x, const Base& y, std::string& why, double rtol) {
  for (int64_t i = 0; i < x.nelem; ++i) {
    const char* p = static_cast<const char*>(x.data);
    const char* q = static_cast<const char*>(y.data);
    bool ok = true;
    switch (x.dtype) {
    case DType::FLOAT32:
      ok = float_close<float, int32_t>(reinterpret_cast<const float*>(p)[i],
                                       reinterpret_cast<const float*>(q)[i], 4, rtol * 1e3);
      break;
    case DType::FLOAT64:
      ok = float_close<double, int64_t>(reinterpret_cast<const double*>(p)[i],
                                        reinterpret_cast<const double*>(q)[i], 4, rtol);
      break;
    case DType::COMPLEX64:
      ok = float_close<float, int32_t>(reinterpret_cast<const float*>(p)[2 * i],
                                       reinterpret_cast<const float*>(q)[2 * i], 4, rtol * 1e3) &&
           float_close<float, int32_t>(reinterpret_cast<const float*>(p)[2 * i + 1],
                                       reinterpret_cast<const float*>(q)[2 * i + 1], 4, rtol * 1e3);
      break;
    case DType::COMPLEX128:
      ok = float_close<double, int64_t>(reinterpret_cast<const double*>(p)[2 * i],
                                        reinterpret_cast<const double*>(q)[2 * i], 4, rtol) &&
           float_close<double, int64_t>(reinterpret_cast<const double*>(p)[2 * i + 1],
                                        reinterpret_cast<const double*>(q)[2 * i + 1], 4, rtol);
      break;
    default: {
      const int n = dtype_size(x.dtype);
      ok = std::memcmp(p + i * n, q + i * n, size_t(n)) == 0;
    }
    }
    if (!ok) {
      why = x.name + "[" + std::to_string(i) + "] differs";
      return false;
    }
  }
  return true;
}

// Runs `text` on both engines (each its own parse) and compares every SYNC'd base.
void check_agree(const std::string& text, const std::string& name, double rtol = 1e-12) {
  test::RunOutcome c = test::run_text(cpu(), text);
  test::RunOutcome g = test::run_text(opencl(), text);
  INFO(name);
  CHECK(c.error.empty() == g.error.empty());
  if (!c.error.empty() || !g.error.empty()) {
    CHECK(c.error == g.error);
    return;
  }
  for (size_t i = 0; i < c.program.instrs.size(); ++i) {
    if (c.program.instrs[i].op != Opcode::SYNC) continue;
    const Base& x = *c.program.instrs[i].out().base;
    const Base& y = *g.program.instrs[i].out().base;
    if (!x.data) { // FREEd later in the program
      CHECK(!y.data);
      continue;
    }
    REQUIRE(y.data);
    std::string why;
    INFO("base " << x.name);
    CHECK(same_values(x, y, why, rtol));
    if (!why.empty()) UNSCOPED_INFO(why);
  }
}

} // namespace

TEST_CASE("opencl: every `hassium run` case agrees with the CPU engine", "[ve][opencl]") {
  const std::vector<std::filesystem::path> cases = test::run_case_paths();
  REQUIRE(cases.size() > 50);
  for (const auto& path : cases) {
    // Sums in another order: the cases' float reductions agree to 1e-9 relative.
    check_agree(test::read_text(path), path.filename().string(), 1e-9);
  }
}

TEST_CASE("opencl: a loop of 100 fused steps copies its array in once and out once",
          "[ve][opencl]") {
  Backend& b = opencl();
  BasePtr a = make_base("a", DType::FLOAT64, 100000);
  std::vector<double> host(100000);
  for (size_t i = 0; i < host.size(); ++i) host[i] = double(i);
  a->data = host.data(); // a frontend's array: host data, uploaded at first use
  const ProfileCounters before = counters(b);
  for (int step = 0; step < 100; ++step) {
    Program p;
    p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(a), View::whole(a),
                                                                 Scalar::of_float(0.5)});
    p.instrs.emplace_back(
        Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a), Scalar::of_float(1.0)});
    if (step == 99) p.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a)});
    b.execute(p);
  }
  const ProfileCounters after = counters(b);
  CHECK(after.device_copies_in - before.device_copies_in == 1);
  CHECK(after.device_copies_out - before.device_copies_out == 1);
  CHECK(after.device_bytes_in - before.device_bytes_in == 800000);
  CHECK(after.device_launches - before.device_launches == 100);
  // x -> x/2 + 1, 100 times: 2 + (x - 2) / 2^100
  CHECK(host[0] == Approx(2.0));
  CHECK(host[99999] == Approx(2.0));
  // Read again, with no host write: nothing is copied; a host write is uploaded again.
  Program again;
  again.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a), Scalar::of_float(1.0)});
  again.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a)});
  b.execute(again);
  CHECK(counters(b).device_copies_in == after.device_copies_in);
  host[7] = 100.0;
  ++a->host_writes;
  b.execute(again);
  CHECK(counters(b).device_copies_in == after.device_copies_in + 1);
  CHECK(host[7] == 101.0);
  CHECK(host[8] == Approx(4.0));
  // A device write leaves the host memory stale (a frontend syncs before reading it).
  Program write_only;
  write_only.instrs.emplace_back(
      Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a), Scalar::of_float(1.0)});
  b.execute(write_only);
  CHECK(a->device_newer);
  Program sync_a;
  sync_a.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a)});
  b.execute(sync_a);
  CHECK(!a->device_newer);
  // Memory shared with NumPy (host_exported): uploaded at every use, written back at the end of
  // every flush that wrote it (NumPy reads it without a SYNC).
  a->host_exported = true;
  host[9] = -1.0;
  b.execute(again);
  CHECK(host[9] == 0.0);
  const int64_t in_before = counters(b).device_copies_in;
  host[9] = 5.0;
  b.execute(write_only);
  CHECK(counters(b).device_copies_in == in_before + 1);
  CHECK(host[9] == 6.0);
  CHECK(!a->device_newer);
  Program free_a;
  free_a.instrs.emplace_back(Opcode::FREE, std::vector<Operand>{View::whole(a)});
  b.execute(free_a);
  a->data = nullptr;
}

TEST_CASE("opencl: a replay whose constants stop sharing a value is planned again",
          "[ve][opencl]") {
  // a = a * c + k, a flush per step: with c == k the kernel has one constant for both; the
  // replayed flush with c != k must not run it. Small integers: every value exact.
  Backend& b = opencl();
  BasePtr a = make_base("a", DType::FLOAT64, 1000);
  std::vector<double> host(1000, 1.0);
  a->data = host.data();
  double expect = 1.0;
  for (auto [c, k] : {std::pair{2.0, 2.0}, std::pair{3.0, 2.0}, std::pair{2.0, 2.0},
                      std::pair{-1.0, 5.0}, std::pair{1.0, 1.0}}) {
    Program p;
    p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{View::whole(a), View::whole(a),
                                                                 Scalar::of_float(c)});
    p.instrs.emplace_back(
        Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a), Scalar::of_float(k)});
    p.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a)});
    b.execute(p);
    expect = expect * c + k;
    INFO("c " << c << " k " << k);
    CHECK(host[0] == expect);
    CHECK(host[999] == expect);
  }
  Program free_a;
  free_a.instrs.emplace_back(Opcode::FREE, std::vector<Operand>{View::whole(a)});
  b.execute(free_a);
  a->data = nullptr;
}

TEST_CASE("opencl: a read of one element copies that element, not the whole base", "[ve][opencl]") {
  // A pivot loop: the device rewrites a 256 x 256 matrix each step, the host reads A[k, k].
  Backend& b = opencl();
  const int64_t n = 256;
  BasePtr a = make_base("A", DType::FLOAT64, n * n);
  std::vector<double> host(size_t(n * n), 1.0);
  a->data = host.data();
  const View whole = View::whole(a);
  const ProfileCounters before = counters(b);
  for (int64_t k = 0; k < 20; ++k) {
    Program p;
    p.instrs.emplace_back(Opcode::ADD,
                          std::vector<Operand>{whole, whole, Scalar::of_float(double(k))});
    const View pivot{a, k * (n + 1), {}, {}};
    p.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{pivot});
    b.execute(p);
    CHECK(a->device_newer); // the rest of the host copy is stale
    CHECK(host[size_t(k * (n + 1))] == 1.0 + double(k * (k + 1) / 2));
  }
  const ProfileCounters mid = counters(b);
  CHECK(mid.device_copies_out - before.device_copies_out == 20);
  CHECK(mid.device_bytes_out - before.device_bytes_out == 20 * 8);
  // A row: its span only.
  Program row;
  row.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View{a, 3 * n, {n}, {1}}});
  b.execute(row);
  CHECK(counters(b).device_bytes_out - mid.device_bytes_out == n * 8);
  CHECK(host[size_t(3 * n + 7)] == 1.0 + 190.0);
  // Reads of parts without a device write in between: after a few, the whole base comes over
  // (the host reads much of it), and the host copy is current.
  for (int64_t k = 0; k < 10; ++k) {
    Program p;
    p.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View{a, k, {}, {}}});
    b.execute(p);
  }
  CHECK(!a->device_newer);
  CHECK(host[size_t(n * n - 1)] == 1.0 + 190.0);
  CHECK(counters(b).device_bytes_out - mid.device_bytes_out < 2 * n * n * 8);
  Program free_a;
  free_a.instrs.emplace_back(Opcode::FREE, std::vector<Operand>{whole});
  b.execute(free_a);
  a->data = nullptr;
}

TEST_CASE("opencl: an interrupt ends a wait for queued device work, and the engine stays usable",
          "[ve][opencl]") {
  Backend& b = opencl();
  b.finish_queued_work(); // nothing queued: returns
  // A second or more of PoCL work, queued by a flush that returns at once.
  std::ostringstream text;
  text << ".base x float64 2000000\nRANGE x\n";
  for (int k = 0; k < 40; ++k) text << "SIN x, x\nCOS x, x\n";
  Program p = parse_program(text.str());
  BasePtr x = p.bases[0];
  b.execute(p);
  clear_interrupt();
  std::thread signal([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    request_interrupt(); // as the frontend's SIGINT handler does
  });
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(b.finish_queued_work(), Interrupted);
  signal.join();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  // The work goes on and finishes; then its values are the CPU engine's.
  b.finish_queued_work();
  Program read;
  read.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(x)});
  b.execute(read);
  double want = 1.0;
  for (int k = 0; k < 40; ++k) want = std::cos(std::sin(want));
  CHECK(static_cast<const double*>(x->data)[1] == Approx(want).epsilon(1e-12));
  Program free_x;
  free_x.instrs.emplace_back(Opcode::FREE, std::vector<Operand>{View::whole(x)});
  b.execute(free_x);
}

TEST_CASE("opencl: reductions over every axis, long axes through group partials", "[ve][opencl]") {
  const char* ops[] = {"ADD_REDUCE", "MULTIPLY_REDUCE", "MINIMUM_REDUCE", "MAXIMUM_REDUCE",
                       "BITWISE_XOR_REDUCE"};
  // 3-d 40 x 30 x 20 over each axis, a reversed view, a 1-d axis of 300000 (group chunks), the
  // columns of a 2000 x 600 matrix (rows in chunks, then their partials combined).
  for (const char* op : ops) {
    for (const char* t : {"int64", "int32", "float64", "uint8"}) {
      const bool is_float = std::string(t) == "float64";
      if (is_float && std::string(op) == "BITWISE_XOR_REDUCE") continue;
      std::ostringstream s;
      s << ".base x " << t << " 24000\n.base r0 " << t << " 600\n.base r1 " << t << " 800\n"
        << ".base r2 " << t << " 1200\n.base rr " << t << " 1200\n.base big " << t
        << " 300000\n.base rb " << t << " 1\n.base m " << t << " 1200000\n.base rm " << t
        << " 600\n"
        << "RANGE x\n"
        << (is_float ? "MULTIPLY x, x, 0.001:float64\n" : "") << "RANGE big\n"
        << op << " r0{0;30,20;20,1}, x{0;40,30,20;600,20,1}, 0:int64\n"
        << op << " r1{0;40,20;20,1}, x{0;40,30,20;600,20,1}, 1:int64\n"
        << op << " r2{0;40,30;30,1}, x{0;40,30,20;600,20,1}, 2:int64\n"
        << op << " rr{0;40,30;30,1}, x{23999;40,30,20;-600,-20,-1}, 2:int64\n"
        << op << " rb{0;;}, big, 0:int64\n"
        << op << " rm, m{0;2000,600;600,1}, 0:int64\n" // an outer axis: chunked rows
        << "SYNC r0\nSYNC r1\nSYNC r2\nSYNC rr\nSYNC rb\nSYNC rm\n";
      check_agree(s.str(), std::string(op) + " " + t, 1e-12);
    }
  }
}

TEST_CASE("opencl: scans along every axis", "[ve][opencl]") {
  for (int axis = 0; axis < 2; ++axis) {
    std::ostringstream s;
    s << ".base x int64 600\n.base y int64 600\n.base f float64 600\n.base g float64 600\n"
      << "RANGE x\nRANGE f\nMULTIPLY f, f, 0.5:float64\n"
      << "ADD_ACCUMULATE y{0;20,30;30,1}, x{0;20,30;30,1}, " << axis << ":int64\n"
      << "MULTIPLY_ACCUMULATE g{0;20,30;30,1}, f{0;20,30;30,1}, " << axis << ":int64\n"
      << "SYNC y\nSYNC g\n";
    check_agree(s.str(), "scan axis " + std::to_string(axis));
  }
}

TEST_CASE("opencl: RANDOM matches the CPU engine bit for bit", "[ve][opencl]") {
  check_agree(".base r uint64 100003\nRANDOM r, 42:uint64, 123456789:uint64\nSYNC r\n", "random");
}

TEST_CASE("opencl: an out-of-range GATHER raises, and the engine stays usable", "[ve][opencl]") {
  const std::string bad = R"(
.base s float64 10
.base i int64 3
.base o float64 3
RANGE s
RANGE i
MULTIPLY i, i, 6:int64
GATHER o, s, i
SYNC o
)";
  test::RunOutcome g = test::run_text(opencl(), bad);
  CHECK(g.error == "GATHER: index 12 is out of bounds for size 10");
  check_agree(R"(
.base s float64 10
.base i int64 3
.base o float64 3
RANGE s
RANGE i
MULTIPLY i, i, 4:int64
GATHER o, s, i
SYNC o
)",
              "gather after the error");
}

TEST_CASE("opencl: blocks the GPU cannot run go to the CPU engine, data moved", "[ve][opencl]") {
  Backend& b = opencl();
  const int64_t fallbacks = counters(b).device_fallback_blocks;
  // Complex square root (not generated) between two device blocks.
  check_agree(R"(
.base f float64 50
.base a complex128 50
.base b complex128 50
.base c complex128 50
RANGE f
IDENTITY a, f
ADD a, a, (1.0,2.0):complex128
SQRT b, a
MULTIPLY c, b, a
SYNC c
)",
              "complex sqrt", 1e-12);
  CHECK(counters(b).device_fallback_blocks > fallbacks);
}

TEST_CASE("opencl: an array too large for the device raises MemoryError's message, and the "
          "engine stays usable",
          "[ve][opencl]") {
  test::RunOutcome g =
      test::run_text(opencl(), ".base a float64 1000000000000\nIDENTITY a, 1.0:float64\nSYNC a\n");
  CHECK(g.error.find("Unable to allocate 7.28 TiB for an array with 1000000000000 elements of "
                     "data type float64") == 0);
  check_agree(".base a float64 10\nRANGE a\nSYNC a\n", "after the failed allocation");
}

namespace {
// A program as the generator writes them (the header, then a body defining its entries and its
// params type) whose hs_elements writes params[0] + `k` (by value) or params[0] * `k` (params
// in a buffer) into a0[0]; with `rows`, an hs_rows entry too, writing -k.
std::string tiny_program(const std::string& header, int k, bool by_value, bool rows = false) {
  std::string s = header;
  std::string params = "HS_GLOBAL const hs_i64* params";
  if (by_value) {
    s += "typedef struct { hs_i64 v[1]; } hs_params;\n#define params hs_P.v\n";
    params = "const hs_params hs_P";
  }
  const std::string op = by_value ? " + " : " * ";
  s += "HS_KERNEL void hs_elements(HS_GLOBAL hs_i64* a0, " + params + ") { a0[0] = params[0]" + op +
       std::to_string(k) + "; }\n";
  if (rows)
    s += "HS_KERNEL void hs_rows(HS_GLOBAL hs_i64* a0, " + params + ") { a0[0] = -" +
         std::to_string(k) + "; }\n";
  return s;
}

// Runs `entry` of a found program with params[0] = 5 and returns what it wrote.
int64_t run_found(gpu::GpuDevice& d, const gpu::ProgramCache::Found& f, const char* entry,
                  bool by_value) {
  REQUIRE(f.program);
  gpu::DeviceBuffer b = d.allocate(sizeof(int64_t));
  gpu::KernelArgs args;
  args.buffers = {b};
  args.params = {5};
  args.params_by_value = by_value;
  d.launch(f.program->kernel(entry + f.suffix), gpu::LaunchGeometry{}, args);
  int64_t out = 0;
  d.copy_to_host(&out, b, 0, sizeof out);
  d.release(b);
  return out;
}

struct TinyPrograms {
  std::vector<std::string> texts;
  std::vector<const std::string*> sources() const {
    std::vector<const std::string*> v;
    for (const std::string& t : texts) v.push_back(&t);
    return v;
  }
  // Program i: by value when i is even, with an hs_rows entry when i % 3 == 0.
  TinyPrograms(const std::string& header, int n, int base) {
    for (int i = 0; i < n; ++i)
      texts.push_back(tiny_program(header, base + i, i % 2 == 0, i % 3 == 0));
  }
  // Every program's entries run their own body.
  void check_runs(gpu::GpuDevice& d, const std::vector<gpu::ProgramCache::Found>& found,
                  int base) const {
    REQUIRE(found.size() == texts.size());
    for (size_t i = 0; i < found.size(); ++i) check_run(d, found[i], i, base);
  }
  // Program i's entries run its own body.
  static void check_run(gpu::GpuDevice& d, const gpu::ProgramCache::Found& f, size_t i, int base) {
    INFO("program " << i);
    CHECK(!f.error);
    const bool by_value = i % 2 == 0;
    CHECK(run_found(d, f, gpu::kElementsEntry, by_value) ==
          (by_value ? 5 + base + int(i) : 5 * (base + int(i))));
    if (i % 3 == 0) CHECK(run_found(d, f, gpu::kRowsEntry, by_value) == -(base + int(i)));
  }
};

std::vector<std::filesystem::path> files_ending(const std::filesystem::path& dir,
                                                const std::string& ext) {
  std::vector<std::filesystem::path> v;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ext) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}
} // namespace

TEST_CASE("opencl program cache: a flush's new kernels compile in one batch per thread, each "
          "found through its suffix",
          "[ve][opencl][cache]") {
  std::unique_ptr<gpu::GpuDevice> d = gpu::make_opencl_device();
  const std::string header = gpu::program_header(d->dialect());
  gpu::ProgramCache cache(*d, "");
  TinyPrograms p(header, 7, 100);
  std::vector<const std::string*> sources = p.sources();
  sources.push_back(&p.texts[3]); // a source twice in one call: compiled once
  std::vector<gpu::ProgramCache::Found> found = cache.get_all(sources, 3);
  CHECK(cache.stats().compiled == 7);
  CHECK(cache.stats().builds == 3); // 7 programs in batches of 2, 2 and 3
  CHECK(found[7].program == found[3].program);
  CHECK(found[7].suffix == found[3].suffix);
  found.pop_back();
  p.check_runs(*d, found, 100);
  // The same sources again: memory hits, nothing built.
  p.check_runs(*d, cache.get_all(p.sources(), 3), 100);
  CHECK(cache.stats().memory_hits == 7);
  CHECK(cache.stats().builds == 3);
  // One thread: one batch. A source without the header compiles alone, its entries unrenamed.
  TinyPrograms q(header, 4, 200);
  q.texts.push_back("#define HS_L 128\n" + tiny_program(header, 204, true));
  std::vector<gpu::ProgramCache::Found> more = cache.get_all(q.sources(), 1);
  CHECK(cache.stats().builds == 3 + 2);
  CHECK(more[4].suffix.empty());
  CHECK(more[0].program == more[3].program);
  CHECK(more[4].program != more[0].program);
  q.check_runs(*d, more, 200);
}

TEST_CASE("opencl program cache: a batch with a kernel that does not compile keeps the error with "
          "that kernel, the others run",
          "[ve][opencl][cache]") {
  std::unique_ptr<gpu::GpuDevice> d = gpu::make_opencl_device();
  const std::string header = gpu::program_header(d->dialect());
  gpu::ProgramCache cache(*d, "");
  TinyPrograms p(header, 4, 300);
  p.texts[2] += "HS_KERNEL void broken( { }\n";
  std::vector<gpu::ProgramCache::Found> found = cache.get_all(p.sources(), 2);
  CHECK(cache.stats().compiled == 3);
  CHECK(cache.stats().builds == 2 + 2); // two batches; the failed one's two programs alone
  REQUIRE(found[2].error);
  CHECK(!found[2].program);
  try {
    std::rethrow_exception(found[2].error);
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("does not compile") != std::string::npos);
  }
  for (size_t i : {0, 1, 3}) TinyPrograms::check_run(*d, found[i], i, 300);
}

TEST_CASE("opencl program cache: the disk serves each kernel through its batch, and damaged, "
          "foreign and missing files are rejected and rebuilt",
          "[ve][opencl][cache]") {
  namespace fs = std::filesystem;
  std::unique_ptr<gpu::GpuDevice> d = gpu::make_opencl_device();
  const std::string header = gpu::program_header(d->dialect());
  const fs::path dir =
      fs::temp_directory_path() / ("hassium-gpu-cache-" + std::to_string(getpid()));
  fs::remove_all(dir);
  TinyPrograms p(header, 6, 400);
  {
    gpu::ProgramCache cache(*d, dir.string());
    p.check_runs(*d, cache.get_all(p.sources(), 2), 400);
    CHECK(cache.stats().builds == 2);
  }
  REQUIRE(files_ending(dir, ".gpuprog").size() == 2); // a binary per batch
  REQUIRE(files_ending(dir, ".gpuref").size() == 6);  // an entry per kernel
  auto fresh = [&](int64_t disk_hits, int64_t rejected, int64_t compiled) {
    gpu::ProgramCache cache(*d, dir.string());
    std::vector<gpu::ProgramCache::Found> found = cache.get_all(p.sources(), 2);
    p.check_runs(*d, found, 400);
    CHECK(cache.stats().disk_hits == disk_hits);
    CHECK(cache.stats().disk_rejected == rejected);
    CHECK(cache.stats().compiled == compiled);
  };
  SECTION("whole files: every kernel from the disk, each batch loaded once") {
    fresh(6, 0, 0);
  }
  auto rewrite = [](const fs::path& f, const std::function<void(std::string&)>& change) {
    std::string data = test::read_text(f);
    change(data);
    std::ofstream(f, std::ios::binary | std::ios::trunc) << data;
  };
  const fs::path batch = files_ending(dir, ".gpuprog")[0];
  SECTION("a flipped bit in a batch's binary: its kernels rejected (each asks) and rebuilt") {
    rewrite(batch, [](std::string& s) { s[s.size() - 100] ^= 4; });
    gpu::ProgramCache cache(*d, dir.string());
    p.check_runs(*d, cache.get_all(p.sources(), 2), 400);
    CHECK(cache.stats().disk_hits == 3);
    CHECK(cache.stats().disk_rejected == 3);
    CHECK(cache.stats().compiled == 3);
  }
  SECTION("a batch's binary gone: its kernels' entries are rejected, the kernels rebuilt") {
    fs::remove(batch);
    fresh(3, 3, 3);
    fresh(6, 0, 0); // rebuilt on disk as a new batch
  }
  SECTION("a truncated entry, one of another key, one pointing outside: rejected, rebuilt") {
    const std::vector<fs::path> refs = files_ending(dir, ".gpuref");
    rewrite(refs[0], [](std::string& s) { s.resize(s.size() - 3); });
    fs::copy_file(refs[2], refs[1], fs::copy_options::overwrite_existing);
    rewrite(refs[3], [&](std::string& s) { // well framed, its checksum right
      s = cache_file::frame(s.substr(0, 8), refs[3].stem().string(),
                            "../../etc/passwd0000000000000000 _b0");
    });
    fresh(3, 3, 3);
    fresh(6, 0, 0);
  }
  SECTION("the old format (a lone program without a checksum) is rejected") {
    const std::string key = batch.stem().string();
    rewrite(batch, [&](std::string& s) {
      std::string_view binary;
      REQUIRE(cache_file::unframe(s, s.substr(0, 8), "", "", key, binary).empty());
      s = "hassium-gpu-program 1\n" + key + "\n" + std::string(binary);
    });
    fresh(3, 3, 3);
  }
  fs::remove_all(dir);
}
