// hassium_runtime_probe: a Python extension module built on libhassium (hassium::array), as a
// user's would be; test_one_runtime.cpp loads it next to hassium._hassium.
#include <cstdint>
#include <optional>

#include <pybind11/pybind11.h>

#include "core/runtime.h"
#include "hassium/hassium.h"

namespace {
std::optional<hassium::array<double>> g_kept;
} // namespace

PYBIND11_MODULE(hassium_runtime_probe, m) {
  // The address of the Runtime this module records into.
  m.def("runtime_address",
        [] { return reinterpret_cast<std::uintptr_t>(&hassium::Runtime::instance()); });
  // Records (0 + 1 + ... + 9) * 2 without running it; kept alive until release().
  m.def("record", [] { g_kept = hassium::arange<double>(0.0, 10.0) * 2.0; });
  m.def("pending", [] { return hassium::detail::pending(); });
  m.def("total", [] { return hassium::sum(*g_kept).item(); });
  m.def("release", [] { g_kept.reset(); });
}
