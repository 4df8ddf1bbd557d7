// The Python frontend's link to the Runtime: base names, recording with loop-aligned flushes, FREE.
#include "bridge/python/session.h"

#include <new>

#include <pybind11/pybind11.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <unistd.h>

#include "bridge/common/recording.h"
#include "core/config.h"
#include "core/error.h"
#include "core/index_error.h"
#include "core/runtime.h"

namespace hassium::python {

namespace {
int64_t g_threshold = 1000;
// Where the pending program is cut (bridge/common/recording.h); [python] align_flushes read at
// the first record unless set_align_flushes() came first. The GIL serializes its use.
frontend::Recorder g_recorder(/*locked=*/false);
int g_align = -1; // -1 = not read yet
int64_t g_next_name = 0;
bool g_shutting_down = false;
// The base whose sync failed last (its values are unspecified) and the error: reading it again
// repeats the error instead of showing garbage (NumPy asks the buffer protocol first and
// swallows its error before calling __array__), until a write to it is recorded (its
// Base::generation moves on): a later flush of other work (FREEs of garbage the collector
// found) leaves it failed.
std::weak_ptr<Base> g_failed_base;
uint64_t g_failed_generation = 0;
std::string g_failed_message;
std::optional<IndexOutOfBounds> g_failed_index; // when that error was an index out of bounds

bool is_failed(const BasePtr& base) {
  return !g_failed_base.expired() && g_failed_base.lock() == base;
}
} // namespace

BaseOwner::~BaseOwner() {
  if (g_shutting_down || !base) return;
  try {
    g_recorder.record_free(Runtime::instance(), std::move(base));
  } catch (...) {
    // A destructor must not throw; a FREE that cannot be recorded only leaks until exit.
  }
}

OwnerPtr new_base(DType t, int64_t nelem) {
  char text[24] = {'a'};
  char* end = std::to_chars(text + 1, text + sizeof text, g_next_name++).ptr;
  std::string name(text, end);
  return std::make_shared<BaseOwner>(make_base(std::move(name), t, nelem));
}

std::vector<Operand> operand_storage(size_t n) {
  return Runtime::instance().operand_storage(n);
}

void record(Opcode op, std::vector<Operand> operands) {
  Runtime& rt = Runtime::instance();
  Instruction ins(op, std::move(operands));
  if (!ins.is_system() && ins.is_view(0)) ++ins.out().base->generation;
  if (g_align < 0) set_align_flushes(Config::global()->get_bool("python", "align_flushes"));
  if (g_recorder.record(rt, std::move(ins), g_threshold)) without_gil([&] { rt.flush(); });
}

void flush() {
  g_recorder.flushed_elsewhere();
  without_gil([] {
    Runtime::instance().flush();
    Runtime::instance().finish_queued_work(); // a device's launches have run, too
  });
}

void sync(const BasePtr& base, const View* part) {
  g_recorder.flushed_elsewhere();
  try {
    without_gil([&] { Runtime::instance().sync(part ? *part : View::whole(base)); });
  } catch (const UserError& e) {
    g_failed_base = base;
    g_failed_generation = base->generation;
    g_failed_message = e.what();
    g_failed_index.reset();
    if (auto* ie = dynamic_cast<const IndexOutOfBounds*>(&e)) g_failed_index = *ie;
    throw;
  }
  if (is_failed(base)) {
    if (base->generation == g_failed_generation) return; // not written since: still failed
    g_failed_base.reset();
  }
  if (!base->data) allocate_external(*base);
}

namespace {
// sync_for_read() and sync_for_copy(): `pending` tells whether pending work may change what
// the read sees.
// With `part`, only its elements need be current afterwards (an engine with device memory may
// copy only those).
void sync_unless(const BasePtr& base, bool pending, const View* part = nullptr) {
  const bool failed = is_failed(base);
  // (A failed base with nothing pending is not synced again: when the error came before its
  // first write, it has no memory yet, and a sync would give it fresh memory and clear the error.)
  if ((!base->data && !failed) || pending || (base->device_newer && !failed)) sync(base, part);
  if (is_failed(base)) {
    const std::string msg =
        g_failed_message + " (this array's values were never computed; write it again to reuse it)";
    if (g_failed_index) throw IndexOutOfBounds(msg, g_failed_index->index, g_failed_index->bound);
    HS_USER_ERROR() << msg;
  }
}
} // namespace

void sync_for_read(const BasePtr& base) {
  sync_unless(base, !Runtime::instance().idle());
}

void sync_for_copy(const BasePtr& base) {
  sync_unless(base, Runtime::instance().writes_pending(*base));
}

bool values_ready(const BasePtr& base) {
  if (!base->data || base->device_newer) return false;
  if (is_failed(base)) return false;
  return !Runtime::instance().writes_pending(*base);
}

bool values_ready(const View& view) {
  // An empty view has no values to wait for (its base may never get memory: an empty slice's
  // gather, an empty row of a sparse matrix), so it needs no flush; borrowed_numpy_view gives
  // NumPy's empty array for it.
  if (view.size() == 0) return true;
  if (!view.base->data || view.base->device_newer || is_failed(view.base)) return false;
  return !Runtime::instance().writes_pending(view);
}

void sync_for_copy(const View& view) {
  sync_unless(view.base, Runtime::instance().writes_pending(view), &view);
}

namespace {
int g_flush_scalar_reads = -1; // -1 = [python] scalar_reads not read yet
int64_t g_eager_max = -1;      // -1 = [python] eager_max_elements not read yet
} // namespace

bool flush_scalar_reads() {
  if (g_flush_scalar_reads < 0)
    g_flush_scalar_reads = Config::global()->choice("python", "scalar_reads") == "flush";
  return g_flush_scalar_reads > 0;
}
void set_flush_scalar_reads(bool on) {
  g_flush_scalar_reads = on;
}

int64_t eager_max_elements() {
  if (g_eager_max < 0)
    g_eager_max = std::max<int64_t>(0, Config::global()->get_int("python", "eager_max_elements"));
  return g_eager_max;
}
void set_eager_max_elements(int64_t n) {
  g_eager_max = n < 0 ? 0 : n;
}

bool store_ready(const BasePtr& base) {
  // (Up to kEagerStoreBytes: a larger array is not filled element by element from Python; it
  // gets its memory at a flush, from the engine's pool, as before.)
  constexpr int64_t kEagerStoreBytes = int64_t(1) << 30;
  if (!base->data && base->last_use == 0 && !is_failed(base) &&
      base->nbytes() <= kEagerStoreBytes) {
    try {
      allocate_external(*base);
    } catch (const std::bad_alloc&) {
      return false; // recorded: the flush that allocates reports it, in NumPy's words
    }
  }
  return base->data && !base->device_newer && !is_failed(base) &&
         !Runtime::instance().uses_pending(*base);
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
void set_align_flushes(bool on) {
  g_align = on;
  g_recorder.set_align(on);
}
bool align_flushes() {
  if (g_align < 0) set_align_flushes(Config::global()->get_bool("python", "align_flushes"));
  return g_align > 0;
}
FlushPolicy::Stats flush_policy_stats() {
  return g_recorder.stats();
}
namespace {
unsigned long g_main_thread = 0; // threading.main_thread().ident (note_main_thread)

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// Takes the GIL back after without_gil's work, in plain code (never in a destructor). A daemon
// thread whose flush ends while the interpreter shuts down would be ended inside
// PyEval_RestoreThread (CPython 3.11-3.13: pthread_exit, a forced unwind through C++ frames; from
// a destructor, which is noexcept, std::terminate: the process aborted at exit). Such a thread
// waits for the process to end instead, as CPython 3.14 makes its daemon threads do. The main
// thread finalizes the interpreter and gets the GIL back as always.
void take_gil_back(PyThreadState* state) {
  if (interpreter_finalizing() && PyThread_get_thread_ident() != g_main_thread)
    for (;;) ::pause();
  PyEval_RestoreThread(state);
}
} // namespace

void note_main_thread() {
  g_main_thread = pybind11::module_::import("threading")
                      .attr("main_thread")()
                      .attr("ident")
                      .cast<unsigned long>();
}

void without_gil(const std::function<void()>& f) {
  if (!PyGILState_Check()) return f();
  PyThreadState* state = PyEval_SaveThread();
  try {
    f();
  } catch (...) {
    take_gil_back(state);
    throw;
  }
  take_gil_back(state);
}

ProfileCounters runtime_counters() {
  ProfileCounters c;
  without_gil([&] { c = Runtime::instance().counters(); });
  return c;
}

void set_shutting_down() {
  g_shutting_down = true;
}

} // namespace hassium::python
