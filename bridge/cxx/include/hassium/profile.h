// hassium::profile(): the runtime's profile counters, the figures HASSIUM_PROFILE=1 prints.
#pragma once

#include "core/profile.h"

namespace hassium {

// Runs what is pending, then returns the counters of the whole stack: flushes, instructions,
// blocks, partition and singleton cost, merge-cache and kernel-cache hits, compile and execution
// seconds, bytes moved, the slowest kernels with their bytecode (core/profile.h says which are
// gathered only while profiling is on: [profile] enabled, HASSIUM_PROFILE=1). The same names as
// Python's hassium.profile() dict.
ProfileCounters profile();

} // namespace hassium
