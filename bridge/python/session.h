// The Python frontend's link to the Runtime: new bases, recording, FREE at the last reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "bridge/common/recording.h"
#include "core/flush_policy.h"
#include "core/instruction.h"
#include "core/profile.h"
#include "core/view.h"

namespace hassium::python {

// Co-owned by every ndarray that views the base: when the last one dies, FREE is recorded.
struct BaseOwner {
  explicit BaseOwner(BasePtr b) : base(std::move(b)) {}
  BaseOwner(const BaseOwner&) = delete;
  BaseOwner& operator=(const BaseOwner&) = delete;
  ~BaseOwner();
  BasePtr base;
};
using OwnerPtr = std::shared_ptr<BaseOwner>;

// A fresh base (unique name, no memory until the runtime writes it).
OwnerPtr new_base(DType t, int64_t nelem);
// An empty operand vector with room for n, reusing executed instructions' storage
// (Runtime::operand_storage).
std::vector<Operand> operand_storage(size_t n);
// The operands of an instruction, each moved (or copied, for an lvalue) straight into place: a
// braced list copies every view twice (into the list, then out of it).
template <typename... T> std::vector<Operand> operands(T&&... x) {
  std::vector<Operand> v = operand_storage(sizeof...(T));
  (v.emplace_back(std::forward<T>(x)), ...);
  return v;
}

// Appends an instruction to the pending program; flushes once more than the threshold
// ([python] flush_threshold) are pending, at the loop phase of the previous flush when
// [python] align_flushes is on (core/flush_policy.h: at most twice the threshold).
void record(Opcode op, std::vector<Operand> operands);
// Runs everything pending, and waits until a device has run it (Runtime::finish_queued_work).
void flush();
// Flushes and makes the base's memory hold its values; allocates the memory of a base nothing
// ever wrote (numpy.empty), so that the frontend can always look at it.
// With `part`, a view of the base: only its elements need be current afterwards.
void sync(const BasePtr& base, const View* part = nullptr);
// What the frontend calls before reading a base's memory: sync when something is pending or the
// base has no memory yet; raises again the error of a failed flush that left the base's values
// unspecified (until a later sync of the base succeeds).
void sync_for_read(const BasePtr& base);
// The same before copying values out of the base (a scalar read: item(), an index): no flush
// while the pending instructions only read the base (Runtime::writes_pending), so reading an
// input array's elements in a loop does not flush the loop's pending work every time.
void sync_for_copy(const BasePtr& base);
// The base's memory holds its values now: it has memory, no pending instruction writes it
// (Runtime::writes_pending), and no failed flush left it unspecified.
bool values_ready(const BasePtr& base);
// The same for the elements of one view: no pending write overlaps it
// (Runtime::writes_pending(view)), though others of its base may be pending; an empty view is
// always ready (it has no values; its base may have no memory).
bool values_ready(const View& view);
// sync_for_copy() for the elements of one view: no flush unless a pending write overlaps it.
void sync_for_copy(const View& view);
// The frontend may write values into the base's memory directly: it has memory, no pending
// instruction reads or writes it (Runtime::uses_pending), and no failed flush left it unspecified.
// A base no instruction ever used (np.empty's, up to 1 GiB) gets its memory here, zeros as a sync
// would give it, so that a loop filling it element by element stores directly.
bool store_ready(const BasePtr& base);
// [python] scalar_reads = flush: an element read of a base with a write pending flushes
// (read from the configuration at the first use unless set first).
bool flush_scalar_reads();
void set_flush_scalar_reads(bool on);
// [python] eager_max_elements: the longest operands of a scalar product that runs at once.
int64_t eager_max_elements();
void set_eager_max_elements(int64_t n);
// Instructions recorded since the last flush.
size_t pending_count();
void set_flush_threshold(int64_t n);
int64_t flush_threshold();
// Cut at the previous flush's loop phase (true) or right at the threshold (false).
void set_align_flushes(bool on);
bool align_flushes();
// The cuts the policy made so far, by kind.
FlushPolicy::Stats flush_policy_stats();
// Calls f with the GIL released when this thread holds it. Whatever may wait for a flush on
// another thread goes through it (core/runtime.h): that flush may need the GIL to finish.
void without_gil(const std::function<void()>& f);
// Remembers the interpreter's main thread (without_gil: daemon threads at shutdown); once, at
// module init.
void note_main_thread();
// Runtime::instance().counters(), without the GIL.
ProfileCounters runtime_counters();
// Set when the interpreter shuts down: owners stop recording FREEs.
void set_shutting_down();

// Memory the frontend allocates itself (for arrays built from Python data): zero-filled,
// 64-byte aligned, owned through base->external_owner (bridge/common/recording.h).
using frontend::allocate_external;

} // namespace hassium::python
