// hassium::profile(): flush, then the Runtime's counters.
#include "hassium/profile.h"

#include "core/runtime.h"
#include "hassium/detail/node.h"

namespace hassium {

ProfileCounters profile() {
  detail::flush(); // installs the stack on first use, like every other call
  return Runtime::instance().counters();
}

} // namespace hassium
