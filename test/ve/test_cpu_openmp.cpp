// Tests of ve/cpu/openmp.cpp: libgomp is loaded by the engine, after the wait policy is in the
// environment, so idle threads sleep by default; the user's OMP_WAIT_POLICY/GOMP_SPINCOUNT win.
// Each case runs openmp_probe in a fresh process (libgomp initializes once per process) with
// OMP_DISPLAY_ENV=verbose, so libgomp itself prints the spin count it took: 0 when passive,
// 30000000000 when active, 300000 when nobody set anything.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "ve/cpu/openmp.h"

namespace {
// Runs the probe under `env` (a prefix for env(1)) and returns its stdout and stderr.
std::string run_probe(const std::string& env, const std::string& policy) {
  std::string cmd = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose " + env +
                    " '" HASSIUM_OPENMP_PROBE "' " + policy + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f != nullptr);
  std::string out;
  char buf[4096];
  while (size_t k = fread(buf, 1, sizeof buf, f)) out.append(buf, k);
  int status = pclose(f);
  INFO(cmd << "\n" << out);
  REQUIRE(status == 0);
  return out;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
} // namespace

TEST_CASE("openmp: passive waiting by default, libgomp loaded only by the engine",
          "[ve][cpu][openmp]") {
  std::string out = run_probe("", "passive");
  INFO(out);
  CHECK(has(out, "libgomp before engine: no"));
  CHECK(has(out, "libgomp after engine: yes"));
  CHECK(has(out, "GOMP_SPINCOUNT = '0'"));
  CHECK(has(out, "available=1 preloaded=0 source=hassium policy=PASSIVE"));
  CHECK(has(out, "result=2.5,2.5"));
}

TEST_CASE("openmp: [cpu] wait_policy = active spins", "[ve][cpu][openmp]") {
  std::string out = run_probe("", "active");
  INFO(out);
  CHECK(has(out, "GOMP_SPINCOUNT = '30000000000'"));
  CHECK(has(out, "source=hassium policy=ACTIVE"));
}

TEST_CASE("openmp: the user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins", "[ve][cpu][openmp]") {
  std::string out = run_probe("OMP_WAIT_POLICY=active", "passive");
  INFO(out);
  CHECK(has(out, "GOMP_SPINCOUNT = '30000000000'"));
  CHECK(has(out, "source=environment policy=active"));
  out = run_probe("GOMP_SPINCOUNT=1234", "passive");
  CHECK(has(out, "GOMP_SPINCOUNT = '1234'"));
  CHECK(has(out, "source=environment policy= spincount=1234"));
}

TEST_CASE("openmp: an unknown wait policy is a user error", "[ve][cpu][openmp]") {
  CHECK(hassium::wait_policy_registry().find("active").value == hassium::WaitPolicy::ACTIVE);
  CHECK_THROWS_WITH(hassium::wait_policy_registry().find("spin"),
                    Catch::Contains("'spin'; valid: passive, active"));
}
