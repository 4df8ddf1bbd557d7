// `hassium run FILE.hsb`: executes a program and prints every SYNC'd base, in program order.
#include <cmath>
#include <complex>
#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "bridge/cli/command.h"
#include "core/error.h"
#include "core/runtime.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/text/parser.h"
#include "ir/text/verifier.h"
#include "vem/stack.h"

namespace {

using namespace hassium;

// Floats with %.17g (float64) or %.9g (float32): enough digits to read the value back
// exactly. NaN prints as `nan` whatever its sign bit.
std::string float_text(double v, bool single) {
  if (std::isnan(v)) return "nan";
  char buf[40];
  std::snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", v);
  return buf;
}

template <typename T> T load(const Base& b, int64_t i) {
  return static_cast<const T*>(b.data)[i];
}

// One element as `hassium run` prints it: ints as ints, bools true/false, complex (re,im).
std::string element_text(const Base& b, int64_t i) {
  switch (b.dtype) {
  case DType::BOOL:
    return load<uint8_t>(b, i) ? "true" : "false";
  case DType::INT8:
    return std::to_string(load<int8_t>(b, i));
  case DType::INT16:
    return std::to_string(load<int16_t>(b, i));
  case DType::INT32:
    return std::to_string(load<int32_t>(b, i));
  case DType::INT64:
    return std::to_string(load<int64_t>(b, i));
  case DType::UINT8:
    return std::to_string(load<uint8_t>(b, i));
  case DType::UINT16:
    return std::to_string(load<uint16_t>(b, i));
  case DType::UINT32:
    return std::to_string(load<uint32_t>(b, i));
  case DType::UINT64:
    return std::to_string(load<uint64_t>(b, i));
  case DType::FLOAT32:
    return float_text(load<float>(b, i), true);
  case DType::FLOAT64:
    return float_text(load<double>(b, i), false);
  case DType::COMPLEX64: {
    auto c = load<std::complex<float>>(b, i);
    return "(" + float_text(c.real(), true) + "," + float_text(c.imag(), true) + ")";
  }
  case DType::COMPLEX128: {
    auto c = load<std::complex<double>>(b, i);
    return "(" + float_text(c.real(), false) + "," + float_text(c.imag(), false) + ")";
  }
  }
  return "?";
}

void print_base(const Base& b) {
  HS_INTERNAL_ASSERT(b.synced && (b.data || b.nelem == 0)) << "base " << b.name << " not synced";
  std::string line = b.name + ":";
  for (int64_t i = 0; i < b.nelem; ++i) line += " " + element_text(b, i);
  line += "\n";
  std::cout << line;
}

std::string where(const Program& p, size_t i) {
  std::string w = p.source_name.empty() ? "" : p.source_name + ":";
  if (p.source_lines.size() == p.instrs.size()) w += std::to_string(p.source_lines[i]) + ": ";
  return w;
}

// A SYNC of a base that nothing has written would print memory that holds no values: an error,
// found before anything runs.
void check_syncs_follow_writes(const Program& p) {
  std::unordered_map<const Base*, bool> written;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    const Instruction& ins = p.instrs[i];
    const Base* base = ins.out().base.get();
    if (!ins.is_system()) {
      written[base] = true;
    } else if (ins.op == Opcode::SYNC && !written[base]) {
      HS_USER_ERROR() << where(p, i) << "SYNC " << base->name << ": nothing writes base "
                      << base->name << " before this SYNC, so it holds no values to print";
    }
  }
}

// Runs the program as a frontend would: one flush, except that a SYNC of a base that a later
// instruction writes or FREEs ends a flush there (the printed values are those at the SYNC).
void run_program(const Program& p, Runtime& runtime) {
  std::unordered_map<const Base*, size_t> last_change; // last write or FREE, per base
  for (size_t i = 0; i < p.instrs.size(); ++i)
    if (p.instrs[i].op != Opcode::SYNC) last_change[p.instrs[i].out().base.get()] = i;
  std::vector<const Base*> to_print;
  auto flush_and_print = [&] {
    runtime.flush();
    for (const Base* b : to_print) print_base(*b);
    to_print.clear();
  };
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    const Instruction& ins = p.instrs[i];
    runtime.record(ins);
    if (ins.op != Opcode::SYNC) continue;
    const Base* base = ins.out().base.get();
    to_print.push_back(base);
    if (last_change.count(base) && last_change[base] > i) flush_and_print();
  }
  flush_and_print();
}

// One program: its errors propagate (exit code 1). Several: each after a line "== FILE", an
// error printed as "error: ..." (the runtime stays usable) and the next one run; exit code 1
// when any failed. One process runs them all (`mpirun -np P hassium run` a whole corpus).
int run(const std::vector<std::string>& files, const std::string& algorithm,
        const std::string& cost_model) {
  StackOptions options = StackOptions::from_config(*Config::global());
  if (!algorithm.empty()) options.fuser.algorithm = algorithm;
  if (!cost_model.empty()) options.fuser.cost_model = cost_model;
  Runtime& runtime = Runtime::instance();
  auto parse = [](const std::string& file) {
    Program p = parse_file(file);
    verify_program(p);
    check_syncs_follow_writes(p);
    return p;
  };
  if (files.size() == 1) {
    Program p = parse(files[0]);
    install_stack(options, runtime);
    run_program(p, runtime);
    return 0;
  }
  install_stack(options, runtime);
  int rc = 0;
  for (const std::string& file : files) {
    std::cout << "== " << file << "\n";
    try {
      run_program(parse(file), runtime);
    } catch (const UserError& e) {
      std::cout << "error: " << e.what() << "\n";
      rc = 1;
    }
  }
  std::cout.flush();
  return rc;
}

} // namespace

HS_CLI_COMMAND(run) {
  auto* sub = app.add_subcommand("run", "execute a .hsb program; print each SYNC'd base");
  static std::vector<std::string> files;
  static std::string algorithm, cost_model;
  static bool list_algorithms = false;
  sub->add_option("files", files, "the program (.hsb); several run one after another");
  sub->add_option("--algorithm", algorithm,
                  "partition algorithm (default: [fuser] algorithm of the configuration)");
  sub->add_option("--cost-model", cost_model,
                  "cost model (default: [fuser] cost_model of the configuration)");
  sub->add_flag("--list-algorithms", list_algorithms,
                "print the partition algorithms, one a line, and exit");
  sub->callback([&] {
    if (list_algorithms) {
      for (const auto& name : hassium::algorithm_registry().names()) std::cout << name << "\n";
      exit_code = 0;
      return;
    }
    if (files.empty()) throw hassium::UserError("run: no program file given");
    exit_code = run(files, algorithm, cost_model);
  });
}
