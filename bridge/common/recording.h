// How a frontend records into the Runtime: the flush policy driven per instruction, FREE at a
// base's last reference, memory the frontend fills itself.
#pragma once

#include <cstdint>
#include <mutex>

#include "core/flush_policy.h"
#include "core/instruction.h"

namespace hassium {
class Runtime;
}

namespace hassium::frontend {

// One per frontend: where its pending program is cut (core/flush_policy.h). Python's is used
// under the GIL; the C++ API's from any thread (`locked`: the policy is guarded by a mutex;
// the Runtime has its own lock).
class Recorder {
public:
  explicit Recorder(bool locked) : locked_(locked) {}

  // Appends ins to the runtime's pending program. True when the frontend must flush now (the
  // policy cut after it, with at most `threshold` pending in steady state).
  bool record(Runtime& rt, Instruction ins, int64_t threshold);
  // Records FREE of the whole base, where the frontend must not flush (a destructor).
  void record_free(Runtime& rt, BasePtr base);
  // The frontend flushed for another reason (a sync, an explicit flush).
  void flushed_elsewhere();

  void set_align(bool on);
  bool align();
  FlushPolicy::Stats stats();

private:
  struct Guard; // locks mutex_ when locked_
  bool locked_;
  std::mutex mutex_;
  FlushPolicy policy_;
};

// Memory a frontend fills itself (arrays built from host data): 64-byte aligned, owned through
// base.external_owner, holding a copy of base.nbytes() bytes at `data`, or zeros without it.
void allocate_external(Base& base, const void* data = nullptr);

} // namespace hassium::frontend
