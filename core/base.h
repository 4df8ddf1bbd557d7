// Base: a contiguous 1-D buffer of n elements of one dtype, allocated lazily at its first write.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "core/dims.h"
#include "core/dtype.h"

namespace hassium {

// enable_shared_from_this: an engine keeping per-base state (a GPU's device copies) tells a dead
// base from a new one at the same address.
struct Base : std::enable_shared_from_this<Base> {
  Base(std::string name, DType dtype, int64_t nelem)
      : name(std::move(name)), dtype(dtype), nelem(nelem) {}
  Base(const Base&) = delete;
  Base& operator=(const Base&) = delete;
  // Hands external_owner to the current ReleaseBin (core/release_bin.h): a Base that dies inside
  // a flush must not run the frontend's code there.
  ~Base();

  std::string name; // for the text format and messages; unique within a Program
  DType dtype;
  int64_t nelem;
  // The memory, owned by the engine's allocator; null until the first write executes
  // (and again after FREE). Frontends that wrap existing memory set it themselves.
  void* data = nullptr;
  // Non-null when the memory belongs to someone else (e.g. a NumPy array): never freed here.
  // Dropped only through ReleaseBin::release (release_memory(), ~Base): its deleter is foreign.
  std::shared_ptr<void> external_owner;
  // The VEM's buffer behind `data` when the VEM allocated it: dropping the last reference (at
  // FREE, or when the Base dies) hands the block back to the memory pool.
  std::shared_ptr<void> allocation;
  // Set when a SYNC has executed and `data` holds the base's values for the frontend; cleared
  // when a later block writes the base.
  bool synced = false;
  // Counts the times a frontend may have written `data` outside a flush (a store into a synced
  // array, a writable buffer handed out): an engine keeping a device copy (ve/gpu) uploads the
  // host's values again when it changed since the engine last copied either way.
  uint64_t host_writes = 0;
  // Set when a frontend handed out a writable pointer into `data` that outlives the call (a NumPy
  // array over it): every flush may find the host's values changed. Cleared by release_memory().
  bool host_exported = false;
  // Set by an engine with memory of its own while its device copy is newer than `data` (a device
  // write to a base that has host memory): `data` is stale until a SYNC, which a frontend reading
  // `data` must run first. Cleared by the SYNC and by release_memory().
  bool device_newer = false;
  // Writes recorded to this base by the Python frontend (bridge/python/session.cpp record()):
  // a lazy boolean-mask selection (hassium/_masked.py) is assigned back under its mask only
  // while its mask's base has not been written since.
  uint64_t generation = 0;
  // The Runtime's number of the last instruction recorded to write or FREE this base
  // (Runtime::writes_pending()).
  uint64_t last_write = 0;
  // The number of the last instruction recorded to read, write or FREE it
  // (Runtime::uses_pending()).
  uint64_t last_use = 0;
  // Where the instructions recorded since its writes last all ran write it, for
  // Runtime::writes_pending(view): view geometry (base-less), each entry a run of `count`
  // views `delta` elements apart (a loop writing column j, then j + 1, ... is one entry), with
  // the number of its last write; at most kTrackedWrites entries, after which
  // `untracked_writes` says any view of the base may be written.
  struct PendingWrite {
    uint64_t number;
    int64_t offset;
    Dims shape, stride;
    int64_t count = 1, delta = 0;
  };
  static constexpr size_t kTrackedWrites = 16;
  // (One entry inline: most bases, a flush's temporaries, are written once; no allocation.)
  boost::container::small_vector<PendingWrite, 1> pending_writes;
  bool untracked_writes = false;

  int64_t nbytes() const { return nelem * dtype_size(dtype); }
  // Forgets the memory (FREE): the allocation goes back to its pool, a foreign owner to the
  // current ReleaseBin; data null, not synced.
  void release_memory();
};

using BasePtr = std::shared_ptr<Base>;

inline BasePtr make_base(std::string name, DType dtype, int64_t nelem) {
  return std::make_shared<Base>(std::move(name), dtype, nelem);
}

} // namespace hassium
