// Runtime: pending program, flush pipeline (filters, then the backend), counters, exit hook.
#include "core/runtime.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "core/error.h"

namespace hassium {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Operand positions that must be views (not constants) besides the output, by rule.
bool needs_view(SigRule rule, size_t i) {
  switch (rule) {
  case SigRule::REDUCE:
    return i == 1;
  case SigRule::GATHER:
  case SigRule::SCATTER:
  case SigRule::CSCATTER:
    return i >= 1;
  default:
    return false;
  }
}

bool needs_constant(SigRule rule, size_t i) {
  return (rule == SigRule::REDUCE && i == 2) || (rule == SigRule::RANDOM && i >= 1);
}

Dims without_axis(const Dims& d, int axis) {
  Dims r;
  for (int k = 0; k < int(d.size()); ++k)
    if (k != axis) r.push_back(d[size_t(k)]);
  return r;
}

std::string check_shapes(const Instruction& ins) {
  const OpInfo& info = ins.info();
  const Dims& out = ins.out().shape;
  auto mismatch = [&](size_t i, const Dims& want) {
    return std::string(info.name) + ": operand " + std::to_string(i) + " has shape " +
           dims_text(ins.view(i).shape) + ", expected " + dims_text(want);
  };
  switch (info.family) {
  case Family::ELEMENTWISE:
    for (size_t i = 1; i < ins.operands.size(); ++i)
      if (ins.is_view(i) && ins.view(i).shape != out) return mismatch(i, out);
    return "";
  case Family::REDUCTION:
  case Family::SCAN: {
    const Dims& in = ins.view(1).shape;
    int axis = ins.axis();
    if (axis < 0 || axis >= int(in.size()))
      return std::string(info.name) + ": axis " + std::to_string(axis) + " out of range for " +
             std::to_string(in.size()) + "-d input";
    Dims want = info.family == Family::SCAN ? in : without_axis(in, axis);
    return out == want ? "" : mismatch(0, want);
  }
  case Family::INDEXING: {
    if (ins.op == Opcode::GATHER) return ins.view(2).shape == out ? "" : mismatch(2, out);
    const Dims& idx = ins.view(2).shape;
    if (ins.view(1).shape != idx) return mismatch(1, idx);
    if (ins.operands.size() > 3 && ins.view(3).shape != idx) return mismatch(3, idx);
    return "";
  }
  case Family::EXTENSION: {
    if (ins.op != Opcode::MATMUL) return "";
    const Dims &a = ins.view(1).shape, &b = ins.view(2).shape;
    if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
      return "MATMUL: operands have shapes " + dims_text(a) + " and " + dims_text(b) +
             ", expected (m, k) and (k, n)";
    Dims want{a[0], b[1]};
    return out == want ? "" : mismatch(0, want);
  }
  default:
    return "";
  }
}
} // namespace

std::string check_instruction(const Instruction& ins) {
  const OpInfo& info = ins.info();
  std::vector<DType> dtypes;
  for (size_t i = 0; i < ins.operands.size(); ++i) dtypes.push_back(ins.dtype(i));
  if (std::string err = check_signature(ins.op, dtypes); !err.empty()) return err;
  if (ins.operands.empty() || !ins.is_view(0))
    return std::string(info.name) + ": the first operand must be an array";
  for (size_t i = 1; i < ins.operands.size(); ++i) {
    bool is_matmul_input = info.family == Family::EXTENSION;
    if ((needs_view(info.rule, i) || is_matmul_input) && !ins.is_view(i))
      return std::string(info.name) + ": operand " + std::to_string(i) + " must be an array";
    if (needs_constant(info.rule, i) && !ins.is_constant(i))
      return std::string(info.name) + ": operand " + std::to_string(i) + " must be a constant";
  }
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    if (!ins.is_view(i)) continue;
    const View& v = ins.view(i);
    if (!v.in_bounds())
      return std::string(info.name) + ": operand " + std::to_string(i) + " (base " + v.base->name +
             ", offset " + std::to_string(v.offset) + ", shape " + dims_text(v.shape) +
             ", stride " + dims_text(v.stride) + ") is outside its base of " +
             std::to_string(v.base->nelem) + " elements";
  }
  if (info.rule == SigRule::BASE && !ins.out().is_whole_base())
    return std::string(info.name) + ": operand must be a whole base";
  if (ins.is_system()) return "";
  return check_shapes(ins);
}

Runtime::~Runtime() {
  shutdown();
}

Runtime& Runtime::instance() {
  static Runtime* runtime = new Runtime; // never destroyed: see install()
  return *runtime;
}

void Runtime::install(Stack stack) {
  std::lock_guard lock(mutex_);
  if (stack_.backend) flush_locked();
  stack_ = std::move(stack);
  // The exit hook is registered after the backend (and the libraries it initialised) exist,
  // so it runs before their static destructors.
  static bool hooked = false;
  if (this == &instance() && !hooked) {
    hooked = true;
    std::atexit([] { instance().shutdown(); });
  }
}

bool Runtime::installed() const {
  std::lock_guard lock(mutex_);
  return stack_.backend != nullptr;
}

void Runtime::record(Instruction ins) {
#ifndef NDEBUG
  if (std::string err = check_instruction(ins); !err.empty())
    HS_USER_ERROR() << "recording an invalid instruction: " << err;
#endif
  std::lock_guard lock(mutex_);
  pending_.instrs.push_back(std::move(ins));
}

void Runtime::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

void Runtime::sync(const BasePtr& base) {
  std::lock_guard lock(mutex_);
  pending_.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(base)});
  flush_locked();
}

void Runtime::flush_locked() {
  if (pending_.instrs.empty()) return;
  if (!stack_.backend)
    HS_USER_ERROR() << "flush with no execution stack installed: link hassium_runtime and call "
                       "hassium::install_stack() (vem/stack.h) first";
  Program program = std::move(pending_); // dropped if anything below throws (see runtime.h)
  pending_ = Program();
  auto t0 = std::chrono::steady_clock::now();
  ++counters_.flushes;
  counters_.instructions += int64_t(program.instrs.size());
  try {
    program.collect_bases();
    for (const auto& filter : stack_.filters) {
      program = filter.fn(std::move(program));
      program.collect_bases();
    }
    stack_.backend->execute(program);
  } catch (...) {
    counters_.flush_seconds += seconds_since(t0);
    throw;
  }
  counters_.flush_seconds += seconds_since(t0);
}

size_t Runtime::pending_size() const {
  std::lock_guard lock(mutex_);
  return pending_.instrs.size();
}

ProfileCounters Runtime::counters() const {
  std::lock_guard lock(mutex_);
  ProfileCounters c = counters_;
  if (stack_.backend) stack_.backend->add_counters(c);
  return c;
}

void Runtime::shutdown() {
  if (stack_.profile) print_profile(std::cerr, counters());
  std::lock_guard lock(mutex_);
  stack_ = Stack();
  pending_ = Program();
}

} // namespace hassium
