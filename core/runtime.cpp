// Runtime: pending program, flush pipeline (filters, then the backend), counters, exit hook.
#include "core/runtime.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "core/error.h"

namespace hassium {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

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

size_t Runtime::record(Instruction ins) {
  std::lock_guard lock(mutex_);
  if (stack_.check) stack_.check(ins, pending_.instrs.size());
  pending_.instrs.push_back(std::move(ins));
  return pending_.instrs.size();
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
    for (const auto& filter : stack_.filters) {
      program.collect_bases(); // a filter sees every base listed
      program = filter.fn(std::move(program));
    }
    stack_.backend->execute(program);
  } catch (...) {
    counters_.flush_seconds += seconds_since(t0);
    throw;
  }
  keep_operand_storage(program);
  counters_.flush_seconds += seconds_since(t0);
}

void Runtime::keep_operand_storage(Program& program) {
  for (Instruction& ins : program.instrs) {
    const size_t c = ins.operands.capacity();
    if (c == 0 || c > kSpareCapacity || spare_operands_[c].size() >= kMaxSpare) continue;
    ins.operands.clear(); // drops the views' base references, as destroying the program would
    spare_operands_[c].push_back(std::move(ins.operands));
  }
}

std::vector<Operand> Runtime::operand_storage(size_t n) {
  {
    std::lock_guard lock(mutex_);
    for (size_t c = n; c <= kSpareCapacity; ++c) {
      auto& spare = spare_operands_[c];
      if (spare.empty()) continue;
      std::vector<Operand> v = std::move(spare.back());
      spare.pop_back();
      return v;
    }
  }
  std::vector<Operand> v;
  v.reserve(n);
  return v;
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
  for (auto& spare : spare_operands_) spare = {};
}

} // namespace hassium
