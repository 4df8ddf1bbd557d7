// The pybind11 module hassium._hassium: assembles the bindings (see bindings.h).
#include "bridge/python/bindings.h"
#include "bridge/python/session.h"

#include <cstdlib>

#include "core/config.h"

#ifdef HASSIUM_HAVE_STACK
#include "ve/cpu/blas.h"
#include "vem/stack.h"
#endif

namespace {
// Under [cpu] wait_policy = passive, NumPy's OpenBLAS is started (when this module loads NumPy
// first, and OPENBLAS_THREAD_TIMEOUT is not set) with threads that sleep as soon as a product is
// done, as the engine's OpenMP threads do: by default each idle OpenBLAS thread spins ~2**28
// cycles (~0.1 s) after start-up and after every product, on the cores the fused kernels run on
// (a fifth of a short program's time on 2 cores). Read by OpenBLAS when NumPy loads it.
void blas_threads_sleep_when_idle() {
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT")) return;
  if (PyDict_GetItemString(PyImport_GetModuleDict(), "numpy")) return; // its BLAS is running
  if (hassium::Config::global()->choice("cpu", "wait_policy") != "passive") return;
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0); // 2**4 cycles: OpenBLAS's least
}
} // namespace

PYBIND11_MODULE(_hassium, m) {
  namespace hp = hassium::python;
  m.doc() = "hassium's C++ core for Python: lazy arrays recording bytecode into the runtime";
  blas_threads_sleep_when_idle(); // before anything here imports NumPy
  hp::bind_ndarray(m);
  hp::bind_ufuncs(m);
  hp::bind_functions(m);
  hp::bind_products(m);
  hp::bind_python_backend(m);
  hp::bind_profile(m);
  hp::bind_errors(m);
#ifdef HASSIUM_HAVE_STACK
  // The engine, VEM and filters the configuration names ([stack], [fuser], [cpu], [memory]).
  hassium::install_stack();
  m.attr("have_stack") = true;
  m.def(
      "blas",
      [] {
        const auto choice = hassium::Config::global()->choice("cpu", "blas");
        return hassium::cpu::blas(hassium::cpu::parse_blas_choice(choice)).description;
      },
      "Which BLAS the CPU engine's matrix products call under [cpu] blas (resolved now if no "
      "product ran yet).");
#else
  m.attr("have_stack") = false;
#endif
}
