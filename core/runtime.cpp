// Runtime: pending program, flush pipeline (filters, then the backend), counters, exit hook.
#include "core/runtime.h"
#include "core/profile.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/memory_error.h"
#include "core/program_pieces.h"

namespace hassium {

Runtime::~Runtime() {
  shutdown();
}

Runtime& Runtime::instance() {
  static Runtime* runtime = new Runtime; // never destroyed: see install()
  return *runtime;
}

void Runtime::install(Stack stack) {
  ReleaseBin bin; // outlives the locks: the old stack's flush may release foreign memory
  Stack old;      // destroyed after the lock too
  std::lock_guard exec(exec_mutex_);
  if (stack_.backend) run_pending(nullptr);
  {
    std::lock_guard lock(mutex_);
    check_ = stack.check;
    host_allocator_ = stack.backend ? stack.backend->host_allocator() : Backend::HostAllocator{};
    installed_flag_ = stack.backend != nullptr;
  }
  old = std::exchange(stack_, std::move(stack));
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
  return installed_flag_;
}

namespace {
// Base::pending_writes gets the write of view w, numbered n: it extends the last run when w is
// that run's next view (or its last view again), else starts an entry.
void note_pending_write(Base& out, const View& w, uint64_t n) {
  auto& runs = out.pending_writes;
  if (!runs.empty()) {
    Base::PendingWrite& last = runs.back();
    if (last.shape == w.shape && last.stride == w.stride) {
      const int64_t step = w.offset - (last.offset + (last.count - 1) * last.delta);
      if (step == 0 || last.count == 1 || step == last.delta) {
        if (step != 0) {
          last.delta = step;
          ++last.count;
        }
        last.number = n;
        return;
      }
    }
  }
  if (runs.size() < Base::kTrackedWrites) {
    runs.push_back({n, w.offset, w.shape, w.stride});
  } else {
    out.untracked_writes = true;
  }
}

// The views a pending-write run covers, as one view with the run as its first axis.
View run_view(const Base::PendingWrite& w) {
  View v{nullptr, w.offset, w.shape, w.stride};
  if (w.count > 1) {
    v.shape.insert(v.shape.begin(), w.count);
    v.stride.insert(v.stride.begin(), w.delta);
  }
  return v;
}
} // namespace

size_t Runtime::record(Instruction ins) {
  std::lock_guard lock(mutex_);
  if (check_) check_(ins, pending_.instrs.size());
  ++recorded_;
  for (const Operand& o : ins.operands)
    if (const View* v = std::get_if<View>(&o)) v->base->last_use = recorded_;
  // A compute instruction's output is written; SYNC and FREE write nothing (a FREE of a base
  // on foreign memory is no write of it: counting it made each check of a foreign write scan
  // one entry per FREE pending, quadratic in a loop that wraps NumPy results).
  if (!ins.is_system() && ins.is_view(0)) {
    Base& out = *ins.out().base;
    if (out.external_owner && out.data && out.last_write <= executed_) {
      const auto lo = reinterpret_cast<uintptr_t>(out.data);
      foreign_writes_.push_back({recorded_, lo, lo + uintptr_t(out.nbytes()), &out});
    }
    if (out.last_write <= executed_) { // its earlier writes all ran
      out.pending_writes.clear();
      out.untracked_writes = false;
    }
    note_pending_write(out, ins.out(), recorded_);
    out.last_write = recorded_;
  }
  pending_.instrs.push_back(std::move(ins));
  busy_.store(true, std::memory_order_release);
  return pending_.instrs.size();
}

void Runtime::flush() {
  ReleaseBin bin; // declared first: dropped after both locks
  std::lock_guard exec(exec_mutex_);
  run_pending(nullptr);
}

void Runtime::sync(const BasePtr& base) {
  sync(View::whole(base));
}

void Runtime::sync(const View& part) {
  ReleaseBin bin;
  std::lock_guard exec(exec_mutex_);
  run_pending(&part);
}

void Runtime::run_pending(const View* sync_part) {
  Program program;
  uint64_t through = 0;
  {
    std::lock_guard lock(mutex_);
    if (sync_part) pending_.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{*sync_part});
    if (pending_.instrs.empty()) return;
    if (!stack_.backend) {
      // Left pending (a frontend may install a stack and flush again).
      if (sync_part) pending_.instrs.pop_back();
      HS_USER_ERROR() << "flush with no execution stack installed: link hassium_runtime and call "
                         "hassium::install_stack() (vem/stack.h) first";
    }
    program = std::move(pending_); // dropped if anything below throws (see runtime.h)
    pending_ = Program();
    // The next flush of a loop is about as long: its list grows without reallocating.
    pending_.instrs.reserve(program.instrs.size());
    running_ = true;
    busy_.store(true, std::memory_order_release);
    through = recorded_;
    clear_interrupt(); // a request from before this flush is the frontend's (core/interrupt.h)
    ++flushes_;
    instructions_ += int64_t(program.instrs.size());
  }
  auto t0 = std::chrono::steady_clock::now();
  // Ends the flush: the state it leaves under the state lock, whether the backend threw or not.
  auto finish = [&](bool ran) {
    std::lock_guard lock(mutex_);
    if (ran) {
      executed_ = std::max(executed_, through);
      std::erase_if(foreign_writes_, [&](const ForeignWrite& w) { return w.first <= executed_; });
    }
    running_ = false;
    // (After a failed flush its instructions count as pending until a flush runs: the lock's
    // answers, as executed_ did not advance.)
    busy_.store(!ran || !pending_.instrs.empty(), std::memory_order_release);
    flush_seconds_ += seconds_since(t0);
  };
  try {
    if (stack_.piece_size > 0 && program.size() > stack_.piece_size)
      run_in_pieces(program);
    else
      run_stack(program);
  } catch (...) {
    finish(false);
    throw;
  }
  finish(true);
  keep_operand_storage(program);
}

void Runtime::run_stack(Program& program) {
  for (const auto& filter : stack_.filters) program = filter.fn(std::move(program));
  stack_.backend->execute(program);
}

void Runtime::run_in_pieces(Program& program) {
  const std::vector<size_t> starts = program_piece_starts(program, stack_.piece_size);
  Program piece;
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto first = program.instrs.begin() + long(starts[k]);
    const auto end =
        k + 1 < starts.size() ? program.instrs.begin() + long(starts[k + 1]) : program.instrs.end();
    piece.instrs.assign(std::make_move_iterator(first), std::make_move_iterator(end));
    run_stack(piece);
    keep_operand_storage(piece);
    piece = Program();
  }
}

namespace {
// Spare operand vectors by capacity (1 to kSpareCapacity operands), at most kMaxSpare each: per
// thread, so that recording takes them without the state lock (a frontend's recording thread
// is the one that flushes, as a rule; a pool of another thread is only not shared).
constexpr size_t kSpareCapacity = 4;
constexpr size_t kMaxSpare = 1024;
thread_local bool t_pool_gone = false; // (trivial: readable after the pool's destructor)
struct SparePool {
  std::array<std::vector<std::vector<Operand>>, kSpareCapacity + 1> by_capacity;
  ~SparePool() { t_pool_gone = true; }
};
// This thread's pool; null once its thread-local objects are destroyed (the main thread's go
// before the exit hook's shutdown, and frontends record FREEs late).
SparePool* spare_pool() {
  if (t_pool_gone) return nullptr;
  thread_local SparePool pool;
  return &pool;
}
} // namespace

void Runtime::keep_operand_storage(Program& program) {
  SparePool* pool = spare_pool();
  if (!pool) return;
  auto& spare = pool->by_capacity;
  for (Instruction& ins : program.instrs) {
    const size_t c = ins.operands.capacity();
    if (c == 0 || c > kSpareCapacity || spare[c].size() >= kMaxSpare) continue;
    ins.operands.clear(); // drops the views' base references, as destroying the program would
    spare[c].push_back(std::move(ins.operands));
  }
}

std::vector<Operand> Runtime::operand_storage(size_t n) {
  SparePool* pool = spare_pool();
  for (size_t c = n; pool && c <= kSpareCapacity; ++c) {
    auto& spare = pool->by_capacity[c];
    if (spare.empty()) continue;
    std::vector<Operand> v = std::move(spare.back());
    spare.pop_back();
    return v;
  }
  std::vector<Operand> v;
  v.reserve(n);
  return v;
}

size_t Runtime::pending_size() const {
  std::lock_guard lock(mutex_);
  return pending_.instrs.size();
}

bool Runtime::writes_pending(const Base& base) const {
  if (!busy_.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(mutex_);
  return base.last_write > executed_ || foreign_writes_pending(base, false);
}

bool Runtime::foreign_writes_pending(const Base& base, bool others_only) const {
  if (!base.external_owner || !base.data) return false;
  const auto lo = reinterpret_cast<uintptr_t>(base.data), hi = lo + uintptr_t(base.nbytes());
  for (const ForeignWrite& w : foreign_writes_)
    if (w.first > executed_ && w.lo < hi && lo < w.hi && !(others_only && w.base == &base))
      return true;
  return false;
}

bool Runtime::writes_pending(const View& view) const {
  const Base& base = *view.base;
  if (!busy_.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(mutex_);
  if (base.last_write > executed_) {
    if (base.untracked_writes) return true;
    const View probe{nullptr, view.offset, view.shape, view.stride};
    for (const Base::PendingWrite& w : base.pending_writes)
      if (w.number > executed_ && overlaps(run_view(w), probe)) return true;
  }
  return foreign_writes_pending(base, true);
}

bool Runtime::uses_pending(const Base& base) const {
  if (!busy_.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(mutex_);
  if (base.external_owner && base.host_exported) return recorded_ > executed_;
  return base.last_use > executed_;
}

bool Runtime::idle() const {
  if (!busy_.load(std::memory_order_acquire)) return true;
  std::lock_guard lock(mutex_);
  return pending_.instrs.empty() && !running_;
}

void Runtime::allocate_host(Base& base) {
  HS_INTERNAL_ASSERT(!base.data) << "allocate_host of a base that has memory";
  Backend::HostAllocator allocate;
  {
    std::lock_guard lock(mutex_);
    allocate = host_allocator_;
  }
  if (allocate) return allocate(base);
  const size_t bytes = size_t(base.nbytes());
  void* p = std::aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  if (!p) throw OutOfMemory(unable_to_allocate(base));
  base.allocation = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  base.data = p;
}

ProfileCounters Runtime::counters() const {
  std::lock_guard exec(exec_mutex_); // the backend's counters change while it runs
  return counters_held();
}

ProfileCounters Runtime::counters_held() const {
  std::lock_guard lock(mutex_);
  ProfileCounters c;
  c.flushes = flushes_;
  c.instructions = instructions_;
  c.flush_seconds = flush_seconds_;
  if (stack_.backend) stack_.backend->add_counters(c);
  return c;
}

void Runtime::wait_background_work() {
  std::lock_guard exec(exec_mutex_);
  if (stack_.backend) stack_.backend->wait_background_work();
}

void Runtime::finish_queued_work() {
  std::lock_guard exec(exec_mutex_);
  clear_interrupt(); // as a flush: a request from before is the frontend's
  if (stack_.backend) stack_.backend->finish_queued_work();
}

namespace {
// How long the exit hook waits for a flush to end before it leaves the stack as it is: long
// enough for a flush still running on another thread at exit (a daemon thread's) to finish and
// be torn down cleanly, short enough that a process exit()ing from a thread a flush waits for
// ends soon.
constexpr auto kShutdownWait = std::chrono::seconds(10);
} // namespace

void Runtime::shutdown() {
  ReleaseBin bin;
  Stack old; // destroyed after the locks
  Program dropped;
  // exit() called while a flush runs (from a thread the flush waits for: a compile helper, an
  // OpenMP worker, a library calling exit on a fatal error) runs this exit hook while the flush
  // holds the execution lock and can never release it. The hook then leaves the stack as it is
  // rather than wait forever: the process is ending either way.
  std::unique_lock exec(exec_mutex_, std::defer_lock);
  if (!exec.try_lock_for(kShutdownWait)) return;
  if (stack_.profile) print_profile(std::cerr, counters_held());
  std::lock_guard lock(mutex_);
  old = std::exchange(stack_, Stack());
  dropped = std::exchange(pending_, Program());
  busy_.store(running_, std::memory_order_release);
  check_ = nullptr;
  installed_flag_ = false;
}

} // namespace hassium
