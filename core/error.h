// Errors: UserError for bad input (names what and where; OutOfMemory, Interrupted are kinds of
// it), InternalError for broken invariants.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace hassium {

// Bad input from a user: malformed bytecode, an unknown config value, a shape mismatch.
// The runtime stays usable after one is thrown.
class UserError : public std::runtime_error {
public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

// An allocation that cannot be satisfied (Python: MemoryError). The runtime stays usable.
class OutOfMemory : public UserError {
public:
  explicit OutOfMemory(const std::string& msg) : UserError(msg) {}
};

// A flush stopped because the user asked (SIGINT: Python's KeyboardInterrupt); as after any
// UserError, the flushed program is dropped and the runtime stays usable (core/interrupt.h).
class Interrupted : public UserError {
public:
  explicit Interrupted(const std::string& msg) : UserError(msg) {}
};

// A broken invariant inside hassium: a bug, never the user's fault.
class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& msg) : std::logic_error("internal error: " + msg) {}
};

namespace detail {
// Collects a message with operator<< and throws E when it goes out of scope.
template <typename E> class ErrorBuilder {
public:
  ErrorBuilder() = default;
  ErrorBuilder(const ErrorBuilder&) = delete;
  ~ErrorBuilder() noexcept(false) { throw E(msg_.str()); }
  template <typename T> ErrorBuilder& operator<<(const T& x) {
    msg_ << x;
    return *this;
  }

private:
  std::ostringstream msg_;
};
} // namespace detail

} // namespace hassium

// user_error() << "message" throws hassium::UserError.
#define HS_USER_ERROR() ::hassium::detail::ErrorBuilder<::hassium::UserError>()
// HS_INTERNAL_ASSERT(cond) << "message" throws hassium::InternalError when cond is false.
#define HS_INTERNAL_ASSERT(cond)                                                                   \
  if (!(cond))                                                                                     \
  ::hassium::detail::ErrorBuilder<::hassium::InternalError>()                                      \
      << __FILE__ << ":" << __LINE__ << ": assertion `" #cond "` failed: "
#define HS_USER_ASSERT(cond)                                                                       \
  if (!(cond)) HS_USER_ERROR()
