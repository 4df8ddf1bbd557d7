// The Python frontend's link to the Runtime: base names, recording with a flush threshold, FREE.
#include "bridge/python/session.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/runtime.h"

namespace hassium::python {

namespace {
int64_t g_threshold = 1000;
int64_t g_next_name = 0;
bool g_shutting_down = false;
// The base whose sync failed last (its values are unspecified) and the error: reading it again
// repeats the error instead of showing garbage (NumPy asks the buffer protocol first and
// swallows its error before calling __array__).
std::weak_ptr<Base> g_failed_base;
std::string g_failed_message;
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
  try {
    Runtime::instance().sync(base);
  } catch (const UserError& e) {
    g_failed_base = base;
    g_failed_message = e.what();
    throw;
  }
  if (!g_failed_base.expired() && g_failed_base.lock() == base) g_failed_base.reset();
  if (!base->data) allocate_external(*base);
}

void sync_for_read(const BasePtr& base) {
  if (pending_count() > 0 || !base->data) sync(base);
  if (!g_failed_base.expired() && g_failed_base.lock() == base)
    HS_USER_ERROR() << g_failed_message
                    << " (this array's values were never computed; write it again to reuse it)";
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
