// Interrupt requests: one lock-free flag, set from signal handlers, polled between flush steps.
#include "core/interrupt.h"

#include <atomic>

#include "core/error.h"

namespace hassium {

namespace {
std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
} // namespace

void request_interrupt() noexcept {
  g_requested.store(true, std::memory_order_relaxed);
}

bool interrupt_requested() noexcept {
  return g_requested.load(std::memory_order_relaxed);
}

void clear_interrupt() noexcept {
  g_requested.store(false, std::memory_order_relaxed);
}

void check_interrupt() {
  if (g_requested.exchange(false, std::memory_order_relaxed))
    throw Interrupted("interrupted: the flush stopped at the user's request; the arrays it "
                      "was computing hold unspecified values");
}

} // namespace hassium
