// The pybind11 module hassium._hassium: assembles the bindings (see bindings.h).
#include "bridge/python/bindings.h"
#include "bridge/python/session.h"

#ifdef HASSIUM_HAVE_STACK
#include "core/config.h"
#include "ve/cpu/blas.h"
#include "vem/stack.h"
#endif

PYBIND11_MODULE(_hassium, m) {
  namespace hp = hassium::python;
  m.doc() = "hassium's C++ core for Python: lazy arrays recording bytecode into the runtime";
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
