// ReleaseBin: owners of foreign memory that a flush lets go of, released after its locks are
// dropped.
#include "core/release_bin.h"

namespace hassium {

namespace {
thread_local ReleaseBin* t_current = nullptr;
} // namespace

ReleaseBin::ReleaseBin() : previous_(t_current) {
  t_current = this;
}

ReleaseBin::~ReleaseBin() {
  t_current = previous_;
  // Dropped one by one, in the order they came, with this bin no longer current: an owner whose
  // release drops another Base lands in the enclosing bin (if any) or is released right away.
  std::vector<std::shared_ptr<void>> kept = std::move(kept_);
  for (auto& owner : kept) owner.reset();
}

void ReleaseBin::release(std::shared_ptr<void>& owner) {
  if (!owner) return;
  if (t_current) {
    try {
      t_current->kept_.push_back(std::move(owner));
      return;
    } catch (...) {
      // Out of memory for the list: released right away (the rule bends only here).
    }
  }
  owner.reset();
}

} // namespace hassium
