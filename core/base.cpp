// Base: releasing a buffer's memory, with foreign owners deferred to the current ReleaseBin.
#include "core/base.h"

#include "core/release_bin.h"

namespace hassium {

Base::~Base() {
  ReleaseBin::release(external_owner);
}

void Base::release_memory() {
  data = nullptr;
  allocation.reset();
  ReleaseBin::release(external_owner);
  synced = false;
  host_exported = false;
  device_newer = false;
}

} // namespace hassium
