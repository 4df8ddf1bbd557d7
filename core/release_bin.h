// ReleaseBin: owners of foreign memory that a flush lets go of, released after its locks are
// dropped.
#pragma once

#include <memory>
#include <vector>

namespace hassium {

// A Base may borrow memory from a frontend (a NumPy array): Base::external_owner keeps it alive,
// and dropping that owner runs the frontend's code (Py_DECREF, then whatever finalizers follow,
// which may record instructions or even flush). Such code must never run while the Runtime holds
// a lock (core/runtime.h). While a ReleaseBin is the calling thread's current bin, release()
// moves owners into it instead of dropping them; the bin drops them when it is destroyed, which
// the Runtime arranges to happen after it has released its locks.
//
// Bins nest (a release may flush again, with a bin of its own); each is the current bin of the
// thread that made it from construction until destruction.
class ReleaseBin {
public:
  ReleaseBin();
  ~ReleaseBin(); // stops being current, then drops what it holds (foreign code may run)
  ReleaseBin(const ReleaseBin&) = delete;
  ReleaseBin& operator=(const ReleaseBin&) = delete;

  // Drops the owner: into this thread's current bin when there is one, right away otherwise.
  // Leaves `owner` empty either way.
  static void release(std::shared_ptr<void>& owner);

  size_t size() const { return kept_.size(); }

private:
  std::vector<std::shared_ptr<void>> kept_;
  ReleaseBin* previous_;
};

} // namespace hassium
