// Recording for both frontends: the flush policy per instruction, FREE, external memory.
#include "bridge/common/recording.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/runtime.h"

namespace hassium::frontend {

struct Recorder::Guard {
  explicit Guard(Recorder& r) : mutex(r.locked_ ? &r.mutex_ : nullptr) {
    if (mutex) mutex->lock();
  }
  ~Guard() {
    if (mutex) mutex->unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  std::mutex* mutex;
};

bool Recorder::record(Runtime& rt, Instruction ins, int64_t threshold) {
  const uint64_t sig = FlushPolicy::signature(ins);
  const size_t pending = rt.record(std::move(ins));
  Guard g(*this);
  return policy_.decide(sig, int64_t(pending), threshold) != FlushPolicy::Cut::NONE;
}

void Recorder::record_free(Runtime& rt, BasePtr base) {
  // A base no recorded instruction ever used (a NumPy result wrapped and only read by the
  // frontend, an array that was never written) is known to no engine and to no pending program:
  // it dies here (its memory with it), and a FREE would only be work for the next flush.
  if (base->last_use == 0) return;
  // FREE of the whole base, built in place (operand storage of executed instructions); the
  // reference moves into it.
  std::vector<Operand> ops = rt.operand_storage(1);
  View& v = std::get<View>(ops.emplace_back());
  v.shape.push_back(base->nelem);
  v.stride.push_back(1);
  v.base = std::move(base);
  Instruction free(Opcode::FREE, std::move(ops));
  const uint64_t sig = FlushPolicy::signature(free);
  rt.record(std::move(free));
  Guard g(*this);
  policy_.note(sig);
}

void Recorder::flushed_elsewhere() {
  Guard g(*this);
  policy_.flushed_elsewhere();
}

void Recorder::set_align(bool on) {
  Guard g(*this);
  policy_.set_align(on);
}
bool Recorder::align() {
  Guard g(*this);
  return policy_.align();
}
FlushPolicy::Stats Recorder::stats() {
  Guard g(*this);
  return policy_.stats();
}

void allocate_external(Base& base, const void* data) {
  const size_t bytes = size_t(base.nbytes());
  const size_t rounded = bytes ? (bytes + 63) / 64 * 64 : 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  if (data && bytes) {
    std::memcpy(p, data, bytes);
    std::memset(static_cast<char*>(p) + bytes, 0, rounded - bytes);
  } else {
    std::memset(p, 0, rounded);
  }
  base.data = p;
  base.external_owner = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

} // namespace hassium::frontend
