// The pybind11 module hassium._hassium: assembles the bindings (see bindings.h).
#include "bridge/python/bindings.h"
#include "bridge/python/session.h"

#ifdef HASSIUM_HAVE_STACK
#include "core/config.h"
#include "ve/cpu/blas.h"
#include "ve/cpu/openmp.h"
#include "vem/stack.h"
#endif

namespace {
// Under [cpu] wait_policy = passive, NumPy's OpenBLAS threads spin briefly when idle
// (ve/cpu/blas.h), when this module loads NumPy first (else its BLAS is running already).
void blas_threads_wait_as_configured() {
#ifdef HASSIUM_HAVE_STACK
  if (PyDict_GetItemString(PyImport_GetModuleDict(), "numpy")) return;
  if (hassium::Config::global()->component("cpu", "wait_policy", hassium::wait_policy_registry()) ==
      hassium::WaitPolicy::PASSIVE)
    hassium::cpu::blas_threads_spin_briefly();
#endif
}
} // namespace

PYBIND11_MODULE(_hassium, m) {
  namespace hp = hassium::python;
  m.doc() = "hassium's C++ core for Python: lazy arrays recording bytecode into the runtime";
#ifdef HASSIUM_HAVE_STACK
  // Before the configuration is first read: it may only name components built in.
  hassium::publish_builtin_registries();
#endif
  blas_threads_wait_as_configured(); // before anything here imports NumPy
  hp::note_main_thread();
  hp::bind_ndarray(m);
  hp::bind_ufuncs(m);
  hp::bind_functions(m);
  hp::bind_products(m);
  hp::bind_python_backend(m);
  hp::bind_profile(m);
  hp::bind_errors(m);
  hp::bind_numpy_guard(m);
#ifdef HASSIUM_HAVE_STACK
  // The engine, VEM and filters the configuration names ([stack], [fuser], [cpu], [memory]).
  hassium::install_stack();
  m.attr("have_stack") = true;
  m.def(
      "blas",
      [] {
        const auto choice =
            hassium::Config::global()->component("cpu", "blas", hassium::cpu::blas_registry());
        return hassium::cpu::blas(choice).description;
      },
      "Which BLAS the CPU engine's matrix products call under [cpu] blas (resolved now if no "
      "product ran yet).");
#else
  m.attr("have_stack") = false;
#endif
}
