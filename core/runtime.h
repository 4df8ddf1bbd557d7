// Runtime: the one per process that frontends record instructions into and flush.
#pragma once

#include <atomic>

#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/backend.h"
#include "core/filter_registry.h"
#include "core/program.h"
#include "core/release_bin.h"

namespace hassium {

// How the stack is assembled (core may not depend on vem/ or ve/):
//   core/backend.h  Backend, the interface a VEM implements: execute a Program, report counters.
//   core/runtime.h  Runtime: the pending Program, the filter pipeline, the profile counters and
//                   the installed Backend. Knows nothing of configuration files or engines.
//   vem/stack.h     install_stack(), in the library hassium_runtime that links everything: reads
//                   the configuration, builds engine + VEM + filters, calls Runtime::install().
// A program that flushes links hassium_runtime and calls install_stack() once at start-up (the
// `hassium` tool and the Python module do). Until then a flush of a non-empty program throws a
// UserError that says so; recording works without a stack.
//
// Errors during a flush: the pending program is taken out of the Runtime before anything runs,
// so after a UserError (bad filter, bad data such as an out-of-range GATHER index) it is DROPPED:
// the Runtime is empty and usable. Blocks that ran before the error keep their effects, nothing
// after the failing block runs, and the dropped program's FREEs are still honored by the VEM.
// Arrays written by the failed program therefore hold unspecified values; frontends report the
// error to the user and carry on.
//
// Threads and foreign code. The Runtime is thread-safe and NOT re-entrant under its locks:
// no foreign code (a frontend's objects, finalizers, user callbacks) ever runs while it holds a
// lock, so such code may call back into it at any time. Two locks:
//   - the state lock guards the pending program and the counters (spare operand vectors are
//     per thread: operand_storage() takes no lock); record(), pending_size() and idle() take
//     only it, and only briefly:
//     recording never waits for a running flush (what is recorded then goes to the next one);
//   - the execution lock serializes flushes (and install/counters/shutdown, which touch the
//     stack): a flush holds it while the filters and the backend run, taking the pending program
//     out under the state lock first, so programs run in the order they were recorded.
// What a flush lets go of that may run foreign code goes through a ReleaseBin
// (core/release_bin.h): Bases that die in the flush and memory owners that FREE drops are kept
// until the flush has released both locks, then dropped on the flushing thread. Frontends whose
// threads hold a lock of their own (Python's GIL) release it around flush(), sync(), counters()
// and install(), which may wait for another thread's flush.
struct Stack {
  std::unique_ptr<Backend> backend;
  std::vector<NamedFilter> filters; // applied in order at every flush
  // A flush of more instructions runs through the filters and the backend as consecutive pieces
  // of at most this many (core/program_pieces.h); 0 = whole.
  size_t piece_size = 0;
  bool profile = false; // print the counters to stderr at exit
  // Checks each recorded instruction (its position in the pending program given) and throws
  // UserError when it is invalid; empty = no check. install_stack() sets it to the ir
  // verifier in debug builds, where a bad instruction is caught at the frontend's call.
  std::function<void(const Instruction&, size_t)> check;
};

class Runtime {
public:
  Runtime() = default;
  ~Runtime(); // shutdown()
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The process's runtime. Never destroyed; install() registers an exit hook that calls
  // shutdown() (before the engine's libraries are torn down).
  static Runtime& instance();

  // Replaces the stack. A pending program is flushed through the old backend first, if any.
  void install(Stack stack);
  bool installed() const;

  // Appends to the pending program, after the stack's check (Stack::check) if it has one.
  // Returns the number of pending instructions with it (pending_size() without a second lock).
  size_t record(Instruction ins);
  // Runs the pending program: filters in order, then the backend. No-op when nothing is pending.
  // Waits for a flush running on another thread first.
  void flush();
  // Records SYNC of the base and flushes: afterwards base->data holds its values.
  void sync(const BasePtr& base);
  // The same for the elements of one view of a base: afterwards base->data holds those (an
  // engine with device memory may copy only them; Base::device_newer then stays set).
  void sync(const View& part);

  size_t pending_size() const;
  // True when every recorded instruction has run: nothing pending and no flush running. A
  // frontend may read a base's memory without sync() only then.
  bool idle() const;
  // True while an instruction recorded to write (or FREE) the base has not run, or ran in a flush
  // that failed; for a base on foreign memory (Base::external_owner), also while such a write to
  // another foreign base whose memory overlaps it (two wraps of one NumPy buffer) has not.
  // Otherwise the base's memory holds its values (when it has memory), and a frontend may copy
  // values out of it without sync(), though other work is pending: the pending instructions
  // only read it. (Handing out the memory itself is another matter: a writer outside the
  // runtime would change what those pending reads see.)
  bool writes_pending(const Base& base) const;
  // The same for the elements of one view of the base: false when every pending write of the
  // base is known not to overlap it (a loop that writes column j and reads column j + 1).
  bool writes_pending(const View& view) const;
  // True while an instruction recorded to read, write or FREE the base has not run (or ran in a
  // flush that failed); for a base on foreign memory that was shared (host_exported: a NumPy
  // array's, or memory handed out), while anything at all is pending (another base may wrap the
  // same memory). Foreign memory no one else saw (a frontend's allocate_external for np.empty's
  // first element store) is the base's own. Otherwise nothing pending touches the base, and a
  // frontend may write values into its memory directly (an element store that records nothing).
  bool uses_pending(const Base& base) const;
  // An empty operand vector with room for n operands: the storage of an instruction an earlier
  // flush executed when one of that size is spare, so that recording in a loop allocates none
  // (and a flush frees none). Optional: instructions may bring their own vectors.
  std::vector<Operand> operand_storage(size_t n);
  // Gives a fresh base (no memory yet, used by no instruction) memory that the frontend fills
  // itself, not zeroed: the backend's host allocator (Backend::host_allocator), else
  // aligned_alloc. Takes no lock a flush holds.
  void allocate_host(Base& base);
  // Counters of the runtime and its backend.
  ProfileCounters counters() const;
  // Waits for the backend's background work (Backend::wait_background_work).
  void wait_background_work();
  // Waits for work the backend queued asynchronously (Backend::finish_queued_work): what a
  // frontend does before its process exits.
  void finish_queued_work();
  // Prints the counters to stderr when the stack asked for it; then drops the backend.
  void shutdown();

private:
  // Runs what is pending (with a SYNC of `sync_base` appended when given). The caller holds the
  // execution lock and a ReleaseBin that outlives it.
  void run_pending(const View* sync_part);
  // A write pending to a base on the same foreign memory as `base`; `others_only`: to another
  // base than `base` itself (the caller holds the state lock).
  bool foreign_writes_pending(const Base& base, bool others_only) const;
  // counters() for a caller holding the execution lock.
  ProfileCounters counters_held() const;
  // Keeps the operand vectors of an executed program for operand_storage(), emptied.
  void keep_operand_storage(Program& program);
  // The stack's filters in order, then its backend, on one program (or piece of one).
  void run_stack(Program& program);
  // Runs a flush longer than stack_.piece_size through the filters and the backend piece by
  // piece (core/program_pieces.h); the program's instructions are moved out.
  void run_in_pieces(Program& program);

  // Execution lock: held by a flush from taking the pending program until its backend returns;
  // guards stack_ (except the check, copied into check_). Timed: shutdown() gives up on it (see
  // there).
  mutable std::timed_mutex exec_mutex_;
  Stack stack_;
  bool installed_flag_ = false; // guarded by mutex_ (installed() must not wait for a flush)

  // State lock: never held while anything but the runtime's own code runs.
  mutable std::mutex mutex_;
  Program pending_;
  bool running_ = false; // a flush is between taking the pending program and finishing it
  // !pending_.instrs.empty() || running_: written under mutex_, read without it, so that the
  // questions a frontend asks before every element read or store (writes_pending, uses_pending,
  // idle) cost no lock while nothing is pending (an element loop running through NumPy). May
  // stay true a little longer than needed (the slow path under the lock then answers).
  std::atomic<bool> busy_{false};
  uint64_t recorded_ = 0; // instructions recorded so far (Base::last_write numbers them)
  uint64_t executed_ = 0; // every instruction numbered up to this one ran in a flush that ended
  // Foreign bases with writes pending, by the number of the first one: their memory's bytes.
  struct ForeignWrite {
    uint64_t first;
    uintptr_t lo, hi;
    const Base* base; // the base written (only compared, never followed: it may be gone)
  };
  std::vector<ForeignWrite> foreign_writes_;
  std::function<void(const Instruction&, size_t)> check_; // Stack::check of the installed stack
  Backend::HostAllocator host_allocator_;                 // the installed backend's (under mutex_)
  // The runtime's own counters (ProfileCounters' flushes, instructions, flush_seconds).
  int64_t flushes_ = 0, instructions_ = 0;
  double flush_seconds_ = 0;
};

} // namespace hassium
