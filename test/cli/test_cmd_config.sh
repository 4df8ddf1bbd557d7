#!/usr/bin/env bash
# Tests for bridge/cli/cmd_config.cpp: `hassium config` output, sources, exit codes.
# Usage: test_cmd_config.sh HASSIUM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
# A clean environment: no HASSIUM_* from the caller, an empty HOME.
run() { env -i PATH="$PATH" HOME="$tmp" "$@" "$hassium" config; }

out=$(run HASSIUM_CONFIG="$src/config.ini" HASSIUM_FUSER_ALGORITHM=optimal HASSIUM_PROFILE=1 2>&1) ||
  fail "hassium config exited non-zero: $out"
expect_line "$out" "# config file: $src/config.ini"
expect_line "$out" "fuser\.algorithm = optimal +\(env HASSIUM_FUSER_ALGORITHM\)"
expect_line "$out" "profile\.enabled = 1 +\(env HASSIUM_PROFILE\)"
expect_line "$out" "cpu\.threads = 0 +\($src/config\.ini:[0-9]+\)"
expect_line "$out" "fuser\.cache_dir = $tmp/\.cache/hassium/fuser +\($src/config\.ini:[0-9]+\)"
nkeys=$(grep -c '^HS_CONFIG_KEY' "$src/core/config_keys.def")
nlines=$(grep -vc '^#' <<<"$out")
[[ $nlines == "$nkeys" ]] || fail "expected $nkeys key lines, got $nlines"

# The user's file wins over the installed and source copies; keys it lacks are defaults.
mkdir -p "$tmp/.config/hassium"
printf '[cpu]\nthreads = 3\n' >"$tmp/.config/hassium/config.ini"
out=$(run 2>&1)
expect_line "$out" "cpu\.threads = 3 +\($tmp/\.config/hassium/config\.ini:2\)"
expect_line "$out" "cpu\.opt_level = 3 +\(default\)"

# A bad configuration: exit 1 and the error naming key, value and source.
rc=0
out=$(run HASSIUM_CPU_THREADS=many 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "bad int: expected exit 1, got $rc"
expect_line "$out" "hassium: error: \[cpu\] threads 'many' \(from env HASSIUM_CPU_THREADS\) is not an integer"
printf '[cpu]\nthreads = 3\nthraeds = 4\n' >"$tmp/.config/hassium/config.ini"
rc=0
out=$(run 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "unknown key: expected exit 1, got $rc"
expect_line "$out" "hassium: error: $tmp/\.config/hassium/config\.ini:3: unknown key 'thraeds' in \[cpu\]; valid: .*"

# Names from a registry are checked too (no such filter).
rm "$tmp/.config/hassium/config.ini"
rc=0
out=$(run HASSIUM_STACK_FILTERS=no_such_filter 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "unknown filter: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown 'no_such_filter' in \[stack\] filters 'no_such_filter' \(from env HASSIUM_STACK_FILTERS\); valid: .*"
rc=0
out=$(run HASSIUM_FUSER_ALGORITHM=gredy 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "unknown algorithm: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[fuser\] algorithm 'gredy' \(from env HASSIUM_FUSER_ALGORITHM\); valid: .*greedy.*"
rc=0
out=$(run HASSIUM_FUSER_COST_MODEL=robinsn 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "unknown cost model: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[fuser\] cost_model 'robinsn' \(from env HASSIUM_FUSER_COST_MODEL\); valid: .*robinson.*"

# Components must be built in: no gpu engine (cuda and opencl are), no mesh VEM, each error
# listing what is (the cluster VEM where CMake found MPI).
rc=0
out=$(run HASSIUM_STACK_ENGINE=gpu 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "engine gpu: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[stack\] engine 'gpu' \(from env HASSIUM_STACK_ENGINE\); valid: cpu, cuda, opencl"
rc=0
out=$(run HASSIUM_STACK_VEM=mesh 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "vem mesh: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[stack\] vem 'mesh' \(from env HASSIUM_STACK_VEM\); valid: node(, cluster)?"
printf '[cpu]\nkernel_cache = sometimes\n' >"$tmp/.config/hassium/config.ini"
rc=0
out=$(run 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "kernel_cache: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[cpu\] kernel_cache 'sometimes' \(from $tmp/\.config/hassium/config\.ini:2\); valid: none, memory, disk"
rm "$tmp/.config/hassium/config.ini"
# A fixed choice: [cluster] overlap.
rc=0
out=$(run HASSIUM_CLUSTER_OVERLAP=sometimes 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "cluster overlap: expected exit 1, got $rc"
expect_line "$out" "hassium: error: unknown \[cluster\] overlap 'sometimes' \(from env HASSIUM_CLUSTER_OVERLAP\); valid: auto, on, off"

# --doc: every key; a component key lists the components built in, each with its doc.
out=$(env -i PATH="$PATH" HOME="$tmp" "$hassium" config --doc 2>&1) || fail "config --doc exited non-zero: $out"
ndoc=$(grep -cE '^[a-z]+\.[a-z_]+  ' <<<"$out")
[[ $ndoc == "$nkeys" ]] || fail "--doc: expected $nkeys keys, got $ndoc"
expect_line "$out" "stack\.engine  component \(cpu, cuda, opencl\), default 'cpu', env HASSIUM_STACK_ENGINE"
expect_line "$out" "      cpu: .+"
expect_line "$out" "stack\.vem  component \(node(, cluster)?\), default 'node', env HASSIUM_STACK_VEM"
expect_line "$out" "stack\.filters  component_list \(expand_power, .*trace\), .*"
expect_line "$out" "fuser\.algorithm  component \(singleton, linear, unintrusive, greedy, optimal\), .*"
expect_line "$out" "cpu\.wait_policy  component \(passive, active\), .*"
expect_line "$out" "python\.scalar_reads  choice \(flush\|lazy\), .*"
expect_line "$out" "cluster\.overlap  choice \(auto\|on\|off\), default 'auto', env HASSIUM_CLUSTER_OVERLAP"
if grep -qiE "mesh" <<<"$out"; then fail "--doc offers a component not built in: $(grep -iE 'mesh' <<<"$out")"; fi

[[ $failures == 0 ]] && echo "all hassium config tests passed"
exit $((failures > 0))
