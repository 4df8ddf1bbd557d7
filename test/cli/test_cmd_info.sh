#!/usr/bin/env bash
# Tests for bridge/cli/cmd_info.cpp: `hassium info` shows the configured stack, the engines and
# VEMs with their availability, the cache directories with their sizes, and versions.
# Usage: test_cmd_info.sh HASSIUM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$tmp/kernels/sub"
head -c 1000 /dev/zero >"$tmp/kernels/a.o"
head -c 24 /dev/zero >"$tmp/kernels/sub/b.o"
run() {
  env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" \
    HASSIUM_CPU_CACHE_DIR="$tmp/kernels" HASSIUM_FUSER_CACHE_DIR="$tmp/nothing-here" "$@"
}

out=$(run HASSIUM_STACK_FILTERS=expand_power,remove_dead HASSIUM_FUSER_ALGORITHM=optimal \
  "$hassium" info 2>&1) || fail "info exited non-zero: $out"
version=$(sed -nE 's/^project\(hassium VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
expect_line "$out" "hassium $version"
expect_line "$out" "config file: $src/config.ini"
# The stack as configured, env overrides included.
expect_line "$out" "  engine = cpu, vem = node, filters = expand_power,remove_dead"
expect_line "$out" "  fuser: algorithm optimal, cost model bohrium, merge cache memory"
expect_line "$out" "  filters in this build: .*expand_power.*trace.*"
# Engines and VEMs: those built in (their registries), with availability and the reason.
llvm=$(llvm-config-16 --version 2>/dev/null || echo "[0-9.]+")
expect_line "$out" "  cpu: available \(LLVM $llvm, x86_64-.*, host CPU [a-z0-9_-]+, [0-9]+ OpenMP threads\)"
expect_line "$out" "      features: .*"
expect_line "$out" "engines:"
expect_line "$out" "vems:"
# The GPU engines, built here (CUDA: no driver on the build machines; OpenCL: PoCL).
expect_line "$out" "  cuda: (available \(.*\)|unavailable: .*)"
expect_line "$out" "  opencl: (available \(.*\)|unavailable: .*)"
expect_line "$out" "  node: available \(this machine\)"
# The cluster VEM where CMake found MPI: one rank without mpirun.
if grep -qE "^  cluster:" <<<"$out"; then
  expect_line "$out" "  cluster: available \(.*, 1 rank\)"
fi
# Nothing that is not built in is offered.
if grep -qE "^  (mesh):" <<<"$out"; then fail "info lists a component not built in: $out"; fi
if grep -q " sse2" <<<"$(grep 'features:' <<<"$out")"; then :; else
  fail "x86-64 host without sse2 among its features: $(grep 'features:' <<<"$out")"
fi
# Cache directories and their sizes.
expect_line "$out" "  kernels .*: $tmp/kernels: 2 files, 1024 bytes \(0\.0 MiB\)"
expect_line "$out" "  partitions .*: $tmp/nothing-here: absent"
# Versions.
expect_line "$out" "  LLVM $llvm"
expect_line "$out" "  python: (Python [0-9.]+, .*|python3 not found on PATH)"

# A bad configuration is an error that names the key.
rc=0
out=$(run HASSIUM_CPU_THREADS=many "$hassium" info 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "bad config: expected exit 1, got $rc"
expect_line "$out" "hassium: error: \[cpu\] threads 'many' .*"

[[ $failures == 0 ]] && echo "all hassium info checks passed"
exit $((failures > 0))
