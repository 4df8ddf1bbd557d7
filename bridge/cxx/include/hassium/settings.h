// Process-wide settings of the C++ frontend.
#pragma once

#include <cstdint>

namespace hassium {

// Pending instructions that make the frontend flush even when no data is read (default 1000),
// so that a long loop that never reads keeps a bounded program. 0 flushes after every operation.
void set_flush_threshold(int64_t n);
int64_t flush_threshold();

} // namespace hassium
