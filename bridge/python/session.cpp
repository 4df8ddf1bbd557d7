// The Python frontend's link to the Runtime: base names, recording with a flush threshold, FREE.
#include "bridge/python/session.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/runtime.h"

namespace hassium::python {

namespace {
int64_t g_threshold = 1000;
int64_t g_next_name = 0;
bool g_shutting_down = false;
} // namespace

BaseOwner::~BaseOwner() {
  if (g_shutting_down || !base) return;
  try {
    Runtime::instance().record(Instruction(Opcode::FREE, {View::whole(base)}));
  } catch (...) {
    // A destructor must not throw; a FREE that cannot be recorded only leaks until exit.
  }
}

OwnerPtr new_base(DType t, int64_t nelem) {
  std::string name = "a" + std::to_string(g_next_name++);
  return std::make_shared<BaseOwner>(make_base(std::move(name), t, nelem));
}

void record(Opcode op, std::vector<Operand> operands) {
  Runtime& rt = Runtime::instance();
  rt.record(Instruction(op, std::move(operands)));
  if (int64_t(rt.pending_size()) > g_threshold) rt.flush();
}

void flush() {
  Runtime::instance().flush();
}

void sync(const BasePtr& base) {
  Runtime::instance().sync(base);
  if (!base->data) allocate_external(*base);
}

size_t pending_count() {
  return Runtime::instance().pending_size();
}
void set_flush_threshold(int64_t n) {
  g_threshold = n < 0 ? 0 : n;
}
int64_t flush_threshold() {
  return g_threshold;
}
void set_shutting_down() {
  g_shutting_down = true;
}

void allocate_external(Base& base) {
  size_t bytes = size_t(base.nbytes());
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded ? rounded : 64);
  base.data = p;
  base.external_owner = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

} // namespace hassium::python
