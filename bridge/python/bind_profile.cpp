// hassium.profile(): the profile counters of core/profile.h as a dict (the names of the struct).
#include <pybind11/stl.h>

#include "bridge/python/bindings.h"
#include "bridge/python/session.h"
#include "core/profile.h"
#include "core/runtime.h"

namespace hassium::python {

namespace {
py::dict profile_dict() {
  flush(); // what was recorded so far counts
  ProfileCounters c = runtime_counters();
  py::dict d;
#define HS_X(field, type, label) d[#field] = c.field;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  d["merge_cache_hit_rate"] = c.merge_cache_hit_rate();
  d["kernel_cache_hit_rate"] = c.kernel_cache_hit_rate();
  d["fused_to_singleton"] = c.fused_to_singleton();
  py::list kernels;
  for (const KernelTime& k : c.slowest_kernels) {
    py::dict kd;
    kd["bytecode"] = k.bytecode;
    kd["runs"] = k.runs;
    kd["seconds"] = k.seconds;
    kd["bytes"] = k.bytes;
    kernels.append(kd);
  }
  d["slowest_kernels"] = kernels;
  auto compiles = [](const DurationHistogram& h) {
    py::dict c;
    c["kernels"] = h.total;
    c["median_seconds"] = h.quantile(0.5);
    c["p95_seconds"] = h.quantile(0.95);
    return c;
  };
  d["fast_compiles"] = compiles(c.fast_compiles);
  d["optimized_compiles"] = compiles(c.optimized_compiles);
  return d;
}
} // namespace

void bind_profile(py::module_& m) {
  m.def(
      "wait_background_work",
      [] {
        flush();
        without_gil([] { Runtime::instance().wait_background_work(); });
      },
      "Runs what is pending, then waits until the engine's background work is done: kernels "
      "compiled by the fast code generator have their optimized code from the next flush on "
      "([cpu] tiered_compile). For tests and benchmarks that measure the steady state.");
  m.def(
      "_finish_queued_work", [] { without_gil([] { Runtime::instance().finish_queued_work(); }); },
      "Waits for work queued on a device (the GPU engine's asynchronous launches); the exit hook "
      "calls it after the last flush.");
  m.def("profile", &profile_dict,
        "Runs what is pending, then returns the runtime's profile counters as a dict: the "
        "figures HASSIUM_PROFILE=1 prints at exit (flushes, instructions, blocks, partition and "
        "singleton cost, cache hits, compile and execution seconds, bytes moved, ...), the hit "
        "rates, and slowest_kernels (dicts of bytecode, runs, seconds, bytes). singleton_cost, "
        "bytes_moved and slowest_kernels are gathered only with HASSIUM_PROFILE=1 "
        "([profile] enabled).");
}

} // namespace hassium::python
