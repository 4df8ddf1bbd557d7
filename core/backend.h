// Backend: what the Runtime hands a flushed Program to (a VEM implements it; core knows no VEM).
#pragma once

#include <functional>
#include <string_view>

#include "core/program.h"

namespace hassium {

struct ProfileCounters; // core/profile.h

// The layering: core may not depend on vem/ or ve/, so the Runtime talks to this interface.
// vem/node's NodeVem implements it; the library hassium_runtime (vem/stack.h) builds a Backend
// from the configuration and installs it with Runtime::install().
class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Executes the program: every instruction, in an order that respects its dependencies.
  // Afterwards every SYNC'd base holds its values in base->data and has base->synced set.
  // On a UserError (bad data, e.g. an out-of-range GATHER index) the backend stays usable:
  // blocks that ran before the failing one keep their effects, nothing after it runs, and the
  // program's FREEs are still honored (their memory is released). `program.bases` need not
  // list every base the instructions use (a frontend's program lists none).
  virtual void execute(const Program& program) = 0;
  // Adds this backend's counters (fusion, memory, engine) to `c`.
  virtual void add_counters(ProfileCounters& c) const = 0;
  // Blocks until work the backend does in the background (an engine compiling optimized
  // kernels) is done. For tests and benchmarks that measure the steady state.
  virtual void wait_background_work() {}
  // Blocks until work the backend queued asynchronously (a device's launches) has run; an
  // interrupt request ends the wait (Interrupted). A frontend's explicit flush calls it (its
  // results are then computed, as on the CPU engine), and so does a process before it exits:
  // queued device work must not outlive the libraries that run it (PoCL compiles a kernel at
  // its launch with an LLVM whose lazily made statics exit() destroys before any earlier exit
  // hook runs).
  virtual void finish_queued_work() {}
  // Memory for a base that a frontend fills on the host itself (a boolean selection, whose
  // length is data), not zeroed, owned through Base::allocation: from the backend's memory
  // pool where it has one (reused blocks, no page faults). Callable from any thread at any
  // time, also while a flush runs, and independent of the backend's lifetime. Empty: the
  // runtime's default (aligned_alloc).
  using HostAllocator = std::function<void(Base&)>;
  virtual HostAllocator host_allocator() const { return {}; }
};

} // namespace hassium
