// The C++ frontend's link to the Runtime: base names, FREE at the last reference, recording
// with loop-aligned flushes past the threshold, sync, and the stack installed on first use.
#include "bridge/cxx/session.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "bridge/common/recording.h"
#include "bridge/common/views.h"
#include "core/config.h"
#include "core/error.h"
#include "core/runtime.h"
#include "hassium/settings.h"
#include "vem/stack.h"

namespace hassium {

namespace {
std::atomic<int64_t> g_next_name{0};

// The process's configuration, first read once every registry is published: it may only name
// components built in.
std::shared_ptr<const Config> config() {
  publish_builtin_registries();
  return Config::global();
}

// The flush threshold: set_flush_threshold()'s value, or [cxx] flush_threshold read at the first
// use after -1 (the start, or set_flush_threshold(-1)).
std::atomic<int64_t> g_threshold{-1};
// Counts the flushes this frontend completed. A base whose last write was recorded in the
// current epoch may still be pending; an older one has run. Flushes that others start (the
// Python frontend, Runtime::install) are not counted: the bases then merely look dirty.
std::atomic<int64_t> g_epoch{0};

// Where the pending program is cut (bridge/common/recording.h), with [cxx] align_flushes read
// once. Never destroyed: base_refs may die during static destruction.
frontend::Recorder& recorder() {
  static frontend::Recorder* r = [] {
    auto* p = new frontend::Recorder(/*locked=*/true);
    p->set_align(config()->get_bool("cxx", "align_flushes"));
    return p;
  }();
  return *r;
}

// The process's Runtime, with an execution stack: the one the configuration names, unless a
// frontend (the Python module, a test) installed one first.
Runtime& runtime() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!Runtime::instance().installed()) install_stack();
  });
  return Runtime::instance();
}

// Flushes (with a SYNC of `base` first when given) and starts a new epoch.
void run_pending(const BasePtr& base) {
  int64_t epoch = g_epoch;
  recorder().flushed_elsewhere();
  if (base)
    runtime().sync(base);
  else
    runtime().flush();
  g_epoch = epoch + 1;
}
} // namespace

void set_flush_threshold(int64_t n) {
  g_threshold = n < 0 ? -1 : n;
}
int64_t flush_threshold() {
  int64_t n = g_threshold;
  if (n >= 0) return n;
  n = std::max<int64_t>(0, config()->get_int("cxx", "flush_threshold"));
  int64_t unset = -1;
  return g_threshold.compare_exchange_strong(unset, n) ? n : int64_t(g_threshold);
}

namespace detail {

base_ref::~base_ref() {
  if (!used) return;
  try {
    recorder().record_free(Runtime::instance(), base);
  } catch (...) {
    // A destructor must not throw; an unrecorded FREE only keeps the memory until exit.
  }
}

bool base_ref::dirty() const {
  return written_epoch == g_epoch;
}

int64_t node::size() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

View to_view(const node& n) {
  View v;
  v.base = n.base->base;
  v.offset = n.offset;
  v.shape.assign(n.shape.begin(), n.shape.end());
  v.stride.assign(n.stride.begin(), n.stride.end());
  return v;
}

instr& instr::out(const node& n) {
  n.base->used = true;
  n.base->written_epoch = g_epoch;
  ins_.operands.emplace_back(to_view(n));
  return *this;
}
instr& instr::in(const node& n) {
  n.base->used = true;
  ins_.operands.emplace_back(to_view(n));
  return *this;
}
instr& instr::in(const Scalar& s) {
  ins_.operands.emplace_back(s);
  return *this;
}

void record(instr&& i) {
  Runtime& rt = runtime();
  const int64_t threshold = flush_threshold();
  if (!recorder().record(rt, i.take(), threshold)) return;
  const int64_t epoch = g_epoch;
  rt.flush();
  g_epoch = epoch + 1;
}

node make(DType t, const shape_type& shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0)
      HS_USER_ERROR() << "negative dimensions are not allowed: shape " << shape_text(shape);
    n *= e;
  }
  node r;
  r.base = std::make_shared<base_ref>(make_base("x" + std::to_string(g_next_name++), t, n));
  r.dtype = t;
  r.shape = shape;
  Dims stride;
  frontend::contiguous_strides(shape, stride);
  r.stride.assign(stride.begin(), stride.end());
  return r;
}

void* sync(const node& n, bool for_write) {
  base_ref& b = *n.base;
  if (b.dirty() || !b.base->data || b.base->device_newer ||
      (for_write && !Runtime::instance().idle())) {
    b.used = true;
    run_pending(b.base);
  }
  if (for_write) ++b.base->host_writes; // the caller writes it: an engine's device copy is stale
  return b.base->data;
}

int serve_cluster_ranks() noexcept {
  // A Python process (an extension built on this API, imported): `import hassium` serves.
  using IsInitialized = int (*)();
  if (auto f = reinterpret_cast<IsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized")); f && f())
    return 0;
  try {
    hassium::serve_cluster_ranks();
  } catch (const std::exception&) {
    // A configuration error: main's first array operation reports it.
  }
  return 0;
}

void flush() {
  run_pending(nullptr);
  runtime().finish_queued_work(); // a device's launches have run, too
}
size_t pending() {
  return Runtime::instance().pending_size();
}

std::string shape_text(const shape_type& s) {
  return dims_text(s.data(), s.size());
}

int normalize_axis(int axis, int ndim) {
  auto a = frontend::normalize_axis(axis, ndim);
  if (!a) HS_USER_ERROR() << "axis " << axis << " is out of bounds for array of dimension " << ndim;
  return *a;
}

node with_view(const node& like, const View& v) {
  node r;
  r.base = like.base;
  r.dtype = like.dtype;
  r.offset = v.offset;
  r.shape.assign(v.shape.begin(), v.shape.end());
  r.stride.assign(v.stride.begin(), v.stride.end());
  return r;
}

} // namespace detail
} // namespace hassium
