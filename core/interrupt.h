// Interrupt requests: a frontend's signal handler asks the running flush to stop between steps.
#pragma once

namespace hassium {

// Sets the request. Async-signal-safe: a SIGINT handler may call it.
void request_interrupt() noexcept;
bool interrupt_requested() noexcept;
// Clears the request: each flush starts with none (one that came between flushes is the
// frontend's to handle, e.g. Python raises KeyboardInterrupt at its next bytecode).
void clear_interrupt() noexcept;
// Throws Interrupted (core/error.h) when a request is pending, clearing it. The VEM calls it
// between kernel compiles and between blocks; the CPU launcher skips chunks not yet started.
void check_interrupt();

} // namespace hassium
