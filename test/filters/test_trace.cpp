// Tests for filters/trace: the file it writes (headers, declarations once, renamed reuse).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/error.h"
#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("hassium-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}
} // namespace

TEST_CASE("trace: before/after cases (the program is unchanged)") {
  TraceOptions o{temp_path("cases.hsb")};
  reset_trace();
  test::check_all_filter_cases("trace", [&](Program p) { return trace(p, o); });
  std::filesystem::remove(o.file);
}

TEST_CASE("trace: flushes appended with headers, bases declared once, reused names renamed") {
  TraceOptions o{temp_path("trace.hsb")};
  reset_trace();
  Program first = parse_program(".base A float64 4\n.base B float64 4\n"
                                "RANGE A\nADD B, A, 1\nFREE A\nSYNC B\n");
  trace(first, o);
  // The second flush uses B again and a new base that is also called A (the first A was
  // FREEd), as a frontend that reuses names would.
  Program second;
  BasePtr b = first.find_base("B");
  BasePtr a2 = make_base("A", DType::INT32, 2);
  second.bases = {b, a2};
  second.instrs.emplace_back(Opcode::RANGE, std::vector<Operand>{View::whole(a2)});
  second.instrs.emplace_back(
      Opcode::MULTIPLY, std::vector<Operand>{View::whole(b), View::whole(b), Scalar::of_float(2)});
  second.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a2)});
  trace(second, o);
  CHECK(slurp(o.file) == "# flush 1\n"
                         ".base A float64 4\n"
                         ".base B float64 4\n"
                         "RANGE A\n"
                         "ADD B, A, 1.0\n"
                         "FREE A\n"
                         "SYNC B\n"
                         "# flush 2\n"
                         ".base A_2 int32 2\n"
                         "RANGE A_2\n"
                         "MULTIPLY B, B, 2.0\n"
                         "SYNC A_2\n");
  // The whole file is one valid program: `hassium run` replays it.
  Program replay = parse_file(o.file);
  CHECK_NOTHROW(verify_program(replay));
  CHECK(replay.instrs.size() == 7);

  // A new process (here: reset) starts the file anew.
  reset_trace();
  trace(first, o);
  CHECK(slurp(o.file).rfind("# flush 1\n", 0) == 0);
  CHECK(slurp(o.file).find("# flush 2") == std::string::npos);
  std::filesystem::remove(o.file);
}

TEST_CASE("trace: %p names the file by process id, errors name the file") {
  reset_trace();
  Program p = parse_program(".base A float64 4\nRANGE A\nSYNC A\n");
  TraceOptions o{temp_path("pid-%p.hsb")};
  trace(p, o);
  std::string expected = temp_path("pid-" + std::to_string(::getpid()) + ".hsb");
  CHECK(std::filesystem::exists(expected));
  std::filesystem::remove(expected);
  CHECK_THROWS_WITH(trace(p, TraceOptions{"/nonexistent-dir/x.hsb"}),
                    Catch::Contains("cannot open '/nonexistent-dir/x.hsb'"));
  CHECK_THROWS_AS(trace(p, TraceOptions{""}), UserError);
}
