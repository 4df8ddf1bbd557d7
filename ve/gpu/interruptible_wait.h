// wait_interruptibly: a device wait that an interrupt request (SIGINT) ends, as it ends a flush on
// the CPU engine: polls, spinning first, then sleeping up to a millisecond between polls.
#pragma once

#include <chrono>
#include <thread>

#include "core/interrupt.h"

namespace hassium::gpu {

// Returns once done() is true; throws Interrupted (check_interrupt()) when an interrupt is
// requested first. The device's queued work goes on (an in-order queue makes later work wait
// for it), so the engine stays usable.
template <typename Done> void wait_interruptibly(Done&& done) {
  for (int i = 0; !done(); ++i) {
    check_interrupt();
    if (i < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(i < 256 ? 50 : 1000));
  }
}

} // namespace hassium::gpu
