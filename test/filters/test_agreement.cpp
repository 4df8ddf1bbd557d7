// Agreement of filters with the real stack: programs run with and without each filter give the
// same SYNC'd values (bit for bit; split_reduction's float sums to rounding); a trace replays.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

#include "core/config.h"
#include "core/filter_registry.h"
#include "filter_cases.h"
#include "filters/filters.h"
#include "test/sanitizer_share.h"
#include "vem/stack.h"

using namespace hassium;
namespace fs = std::filesystem;

namespace {

// The values of one SYNC, as bytes, with the dtype to compare them by.
struct Synced {
  std::string name;
  DType dtype;
  std::vector<uint8_t> bytes;
};

const std::string kTracePath =
    (fs::temp_directory_path() / ("hassium-agree-" + std::to_string(::getpid()) + ".hsb")).string();

void use_test_config() {
  static bool done = false;
  if (done) return;
  done = true;
  Config::set_global(std::make_shared<const Config>(
      Config::from_text("[filters]\nsplit_min_length = 4\ntrace_file = " + kTracePath + "\n",
                        "agreement.ini", process_environment())));
}

// Runs the program as a frontend would, flushing at every SYNC, through the real stack with
// the given filters; returns every SYNC'd base's values in program order.
std::vector<Synced> run(const Program& p, std::vector<std::string> filters) {
  StackOptions o;
  o.cpu.cache = KernelCacheMode::DISK;
  o.cpu.cache_dir = HASSIUM_TEST_KERNEL_CACHE;
  o.filters = std::move(filters);
  Runtime rt;
  install_stack(o, rt);
  std::vector<Synced> out;
  for (const Instruction& ins : p.instrs) {
    rt.record(ins);
    if (ins.op != Opcode::SYNC) continue;
    rt.flush();
    const Base& b = *ins.out().base;
    REQUIRE(b.synced);
    const auto* d = static_cast<const uint8_t*>(b.data);
    out.push_back({b.name, b.dtype, std::vector<uint8_t>(d, d + b.nbytes())});
  }
  rt.flush();
  return out;
}

template <typename T> bool close(T a, T b, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  return std::abs(double(a) - double(b)) <=
         rtol * std::max(std::abs(double(a)), std::abs(double(b)));
}

template <typename T> bool all_close(const Synced& x, const Synced& y, double rtol) {
  size_t n = x.bytes.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, x.bytes.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&b, y.bytes.data() + i * sizeof(T), sizeof(T));
    if (!close(a, b, rtol)) return false;
  }
  return true;
}

// Same values: bit for bit (any NaN equals any NaN), or within rtol for float types.
bool agree(const Synced& x, const Synced& y, double rtol) {
  if (x.dtype != y.dtype || x.bytes.size() != y.bytes.size()) return false;
  switch (x.dtype) {
  case DType::FLOAT32:
    return all_close<float>(x, y, rtol);
  case DType::FLOAT64:
    return all_close<double>(x, y, rtol);
  case DType::COMPLEX64:
    return all_close<float>(x, y, rtol);
  case DType::COMPLEX128:
    return all_close<double>(x, y, rtol);
  default:
    return x.bytes == y.bytes;
  }
}

// The programs: every filter case, the generated multi-instruction `hassium run` cases
// (test/run/cases/prog_*) and the single-opcode cases of the opcodes the filters rewrite.
std::vector<std::string> programs() {
  std::vector<std::string> paths;
  const std::string cases = std::string(HASSIUM_TEST_DIR) + "/filters/cases";
  for (const auto& e : fs::recursive_directory_iterator(cases))
    if (e.path().string().ends_with(".before.hsb")) paths.push_back(e.path().string());
  const std::vector<std::string> ops = {"op_POWER.hsb",
                                        "op_IDENTITY.hsb",
                                        "op_ADD_REDUCE.hsb",
                                        "op_MULTIPLY_REDUCE.hsb",
                                        "op_MINIMUM_REDUCE.hsb",
                                        "op_LOGICAL_XOR_REDUCE.hsb",
                                        "op_BITWISE_OR_REDUCE.hsb",
                                        "op_FLOOR_DIVIDE.hsb"};
  for (const auto& e : fs::directory_iterator(std::string(HASSIUM_TEST_DIR) + "/run/cases")) {
    std::string f = e.path().filename().string();
    bool op = std::find(ops.begin(), ops.end(), f) != ops.end();
    if (op || (f.starts_with("prog_") && f.ends_with(".hsb"))) paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The values without filters, computed once per program.
const std::vector<Synced>& plain_run(const std::string& path) {
  static std::map<std::string, std::vector<Synced>> memo;
  auto it = memo.find(path);
  if (it == memo.end()) it = memo.emplace(path, run(parse_file(path), {})).first;
  return it->second;
}

void check_agreement(const std::string& filter, double rtol) {
  use_test_config();
  // The filter must rewrite some of the programs, or agreeing would prove nothing.
  // Counted per flush, as run() flushes (at every SYNC).
  int rewritten = 0;
  for (const auto& path : programs()) {
    Program whole = parse_file(path);
    Program flush;
    for (size_t i = 0; i < whole.instrs.size(); ++i) {
      flush.instrs.push_back(whole.instrs[i]);
      if (whole.instrs[i].op != Opcode::SYNC && i + 1 < whole.instrs.size()) continue;
      flush.collect_bases();
      std::string text = print_program(flush);
      for (const auto& f : resolve_filters(filter)) flush = f.fn(std::move(flush));
      rewritten += print_program(flush) != text;
      flush = Program();
    }
  }
  INFO("filter " << filter);
  CHECK(rewritten >= 2);
  // Under the sanitizers, one program in test::kSanitizerShare runs (all are rewritten above).
  for (const auto& path : test::share_of(programs())) {
    INFO("program " << path << ", filter " << filter);
    const std::vector<Synced>& plain = plain_run(path);
    std::vector<Synced> filtered = run(parse_file(path), {filter});
    REQUIRE(plain.size() == filtered.size());
    for (size_t i = 0; i < plain.size(); ++i) {
      INFO("SYNC " << plain[i].name);
      CHECK(agree(plain[i], filtered[i], rtol));
    }
  }
}

} // namespace

// The engine's POWER (a vector pow) is within a few ulp of what NumPy computes for x**2, x**-1,
// x**0.5; expand_power gives NumPy's values exactly (x*x, 1/x, sqrt). So agreement with the
// unfiltered run is to 1e-15, not bit for bit.
TEST_CASE("agreement: expand_power") {
  check_agreement("expand_power", 1e-15);
}
TEST_CASE("agreement: split_reduction") {
  check_agreement("split_reduction", 1e-5);
}
TEST_CASE("agreement: remove_identity") {
  check_agreement("remove_identity", 0);
}
TEST_CASE("agreement: forward_copies") {
  check_agreement("forward_copies", 0);
}
TEST_CASE("agreement: fold_constants") {
  check_agreement("fold_constants", 0);
}
TEST_CASE("agreement: remove_dead") {
  check_agreement("remove_dead", 0);
}

TEST_CASE("agreement: all filters in one list") {
  check_agreement("fold_constants, expand_power, forward_copies, remove_identity, remove_dead, "
                  "split_reduction",
                  1e-5);
}

TEST_CASE("agreement: a trace replays to the same values") {
  use_test_config();
  for (const auto& path : test::share_of(programs())) {
    INFO("program " << path);
    reset_trace();
    std::vector<Synced> traced = run(parse_file(path), {"trace"});
    Program replay = parse_file(kTracePath);
    REQUIRE_NOTHROW(verify_program(replay));
    std::vector<Synced> replayed = run(replay, {});
    REQUIRE(traced.size() == replayed.size());
    for (size_t i = 0; i < traced.size(); ++i) CHECK(agree(traced[i], replayed[i], 0));
  }
  fs::remove(kTracePath);
}
