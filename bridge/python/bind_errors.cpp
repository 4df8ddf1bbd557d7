// Errors as Python sees them: HassiumError (ValueError), MemoryError, IndexError for an index
// array out of bounds, KeyboardInterrupt from a SIGINT that stopped a flush.
#include <csignal>
#include <string>

#include "bridge/python/bindings.h"
#include "core/error.h"
#include "core/index_error.h"
#include "core/interrupt.h"

namespace hassium::python {

namespace {
struct sigaction g_python_sigint; // the handler Python had installed (its C-level trip)

// Asks the running flush to stop, then lets Python's handler trip its flag as before: Python
// raises KeyboardInterrupt (or runs the user's handler) once the flush has returned.
void on_sigint(int sig, siginfo_t* info, void* context) {
  request_interrupt();
  if (g_python_sigint.sa_flags & SA_SIGINFO)
    g_python_sigint.sa_sigaction(sig, info, context);
  else if (g_python_sigint.sa_handler != SIG_DFL && g_python_sigint.sa_handler != SIG_IGN)
    g_python_sigint.sa_handler(sig);
}

// Chains to Python's SIGINT handler when Python has one (not when SIGINT is ignored or kills
// the process: then nothing would raise KeyboardInterrupt). Python installs its C handler once
// at start; signal.signal() swaps only the Python-level function, so this stays in place.
void install_sigint_chain() {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  const bool handled = (current.sa_flags & SA_SIGINFO) ||
                       (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
  if (!handled) return;
  g_python_sigint = current;
  struct sigaction ours = current;
  ours.sa_flags = (current.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
  ours.sa_sigaction = on_sigint;
  sigaction(SIGINT, &ours, nullptr);
}
} // namespace

void bind_errors(py::module_& m) {
  // Runtime errors (bad data found while executing, a bad configuration) keep the runtime
  // usable; Python sees them as ValueError, like NumPy's data errors.
  py::register_exception<UserError>(m, "HassiumError", PyExc_ValueError);
  // Registered later, so tried first (pybind11 tries translators newest first).
  py::register_exception<OutOfMemory>(m, "OutOfMemoryError", PyExc_MemoryError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const IndexOutOfBounds& e) {
      // NumPy's IndexError, with NumPy's message (also when reading a failed array again, see
      // session.cpp). Only the lazy x[idx] / x[idx] = v of indexing.cpp (lazy_index) records
      // indices that can be out of bounds: on axis 0, negative ones wrapped once (idx + n), and
      // checked against the axis' size n; so an index still negative after the wrap was
      // idx = value - n.
      const int64_t index = e.index < 0 ? e.index - e.bound : e.index;
      const std::string msg = "index " + std::to_string(index) +
                              " is out of bounds for axis 0 with size " + std::to_string(e.bound);
      PyErr_SetString(PyExc_IndexError, msg.c_str());
    } catch (const Interrupted&) {
      // Python's handler has tripped: running it raises KeyboardInterrupt (or what the user's
      // handler raises). A handler that raises nothing still gets KeyboardInterrupt: the
      // flush did not finish.
      if (PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  install_sigint_chain();
}

} // namespace hassium::python
