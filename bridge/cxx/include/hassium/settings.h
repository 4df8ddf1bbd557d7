// Process-wide settings of the C++ frontend.
#pragma once

#include <cstdint>

namespace hassium {

// Pending instructions that make the frontend flush even when no data is read, so that a long
// loop that never reads keeps a bounded program. 0 flushes after every operation. The default
// is the configuration's [cxx] flush_threshold (1000; env HASSIUM_CXX_FLUSH_THRESHOLD); a
// negative n returns to it (reading the configuration again).
void set_flush_threshold(int64_t n);
int64_t flush_threshold();

} // namespace hassium
