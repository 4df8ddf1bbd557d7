// One Runtime per process: hassium._hassium (the Python module) and C++ code using
// hassium::array (libhassium) record into the same Runtime when both are in a process.
//
// An embedded interpreter loads _hassium and hassium_runtime_probe (a Python extension built on
// libhassium, runtime_probe.cpp) as Python loads extensions (each dlopen'ed privately). Built
// twice: test_one_runtime links only libpython, as a Python process; test_one_runtime_embed
// also links libhassium, as a C++ program that embeds Python.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>
#include <pybind11/embed.h>

#ifdef HASSIUM_TEST_EMBEDDER
#include "core/runtime.h"
#include "hassium/hassium.h"
#endif

namespace py = pybind11;

namespace {
// Loads an extension module from its file, as `import` does.
const char* kLoader = R"(
import ctypes, importlib.util, sys
sys.path.insert(0, site_packages)   # NumPy, which the module imports
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
hs = load("_hassium", hassium_module)
probe = load("hassium_runtime_probe", probe_module)
# The Runtime the Python module calls: Runtime::instance() as the dynamic linker resolves it
# from the module (the module's own copy, if it had one).
symbol = "_ZN7hassium7Runtime8instanceEv"
handle = ctypes.CDLL(hassium_module)
python_runtime = ctypes.cast(getattr(handle, symbol), ctypes.CFUNCTYPE(ctypes.c_void_p))() \
    if hasattr(handle, symbol) else 0
)";
} // namespace

TEST_CASE("the Python module and libhassium share one Runtime", "[cxx][runtime]") {
#ifdef HASSIUM_TEST_EMBEDDER
  // The embedder's arrays from before Python imports the module (which finds the stack
  // installed) stay valid after it.
  hassium::array<double> early = hassium::arange<double>(0.0, 10.0) * 2.0;
  CHECK(hassium::sum(early).item() == 90.0);
#endif
  py::scoped_interpreter interpreter;
  py::dict scope = py::globals();
  scope["site_packages"] = HASSIUM_PYTHON_SITE;
  scope["hassium_module"] = HASSIUM_PY_MODULE;
  scope["probe_module"] = HASSIUM_PROBE_MODULE;
  py::exec(kLoader, scope);
  py::object hs = scope["hs"], probe = scope["probe"];

  // The same object, seen from both modules.
  auto probe_runtime = probe.attr("runtime_address")().cast<std::uintptr_t>();
  CHECK(scope["python_runtime"].cast<std::uintptr_t>() == probe_runtime);
#ifdef HASSIUM_TEST_EMBEDDER
  CHECK(reinterpret_cast<std::uintptr_t>(&hassium::Runtime::instance()) == probe_runtime);
#endif

  // What C++ records is pending for Python, and a flush from Python runs it.
  hs.attr("flush")();
  probe.attr("record")();
  auto pending = probe.attr("pending")().cast<size_t>();
  CHECK(pending > 0);
  CHECK(hs.attr("pending")().cast<size_t>() == pending);
  hs.attr("flush")();
  CHECK(probe.attr("pending")().cast<size_t>() == 0);
  CHECK(probe.attr("total")().cast<double>() == 90.0);

  // What Python records is pending for C++.
  py::object r = hs.attr("range")(7);
  CHECK(probe.attr("pending")().cast<size_t>() == hs.attr("pending")().cast<size_t>());
  CHECK(probe.attr("pending")().cast<size_t>() > 0);
#ifdef HASSIUM_TEST_EMBEDDER
  // C++ code of the embedder itself: its flush runs Python's instruction too.
  hassium::array<int64_t> c = hassium::arange<int64_t>(0, 4) + int64_t(1);
  CHECK(hassium::detail::pending() == hs.attr("pending")().cast<size_t>());
  hassium::flush();
  CHECK(hs.attr("pending")().cast<size_t>() == 0);
  CHECK(hassium::sum(c).item() == 10);
  early += 1.0;
  CHECK(hassium::sum(early).item() == 100.0);
#endif
  probe.attr("release")();
  r = py::none();
  hs.attr("flush")();
}
