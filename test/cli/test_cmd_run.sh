#!/usr/bin/env bash
# Tests for bridge/cli/cmd_run.cpp: `hassium run` output order, flush splits, options, profile.
# Usage: test_cmd_run.sh HASSIUM_BINARY SOURCE_DIR
# (Values for every opcode are checked by test/run; this checks the command itself.)
. "$(dirname "$0")/lib.sh" "$@"
run() {
  env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" HASSIUM_CPU_KERNEL_CACHE=memory \
    "$@"
}

# SYNCs print in program order, each with the values at its SYNC (the second SYNC of A sees
# the later write; FREE after SYNC is fine). Float formats: %.17g, float32 %.9g.
cat >"$tmp/order.hsb" <<'HSB'
.base A float64 3
.base B float32 2
.base C bool 2
.base D complex64 1
RANGE A
IDENTITY B, 0.1
SYNC A
ADD A, A, 0.5
IDENTITY C{0;1;1}, true
IDENTITY C{1;1;1}, false
IDENTITY D, (1.5,-0.25)
SYNC B
SYNC A
SYNC C
FREE A
SYNC D
HSB
out=$(run "$hassium" run "$tmp/order.hsb" 2>&1) || fail "run exited non-zero: $out"
expected=$'A: 0 1 2\nB: 0.100000001 0.100000001\nA: 0.5 1.5 2.5\nC: true false\nD: (1.5,-0.25)'
[[ $out == "$expected" ]] || fail "output:"$'\n'"$out"$'\n'"expected:"$'\n'"$expected"

# The same output under another algorithm and cost model.
out2=$(run "$hassium" run --algorithm singleton --cost-model max_contract "$tmp/order.hsb" 2>&1)
[[ $out2 == "$expected" ]] || fail "singleton/max_contract output differs: $out2"

# --list-algorithms names the registry.
out=$(run "$hassium" run --list-algorithms)
expect_line "$out" "singleton"
expect_line "$out" "greedy"
expect_line "$out" "optimal"

# HASSIUM_PROFILE=1: the counters on stderr at exit, stdout unchanged.
out=$(run HASSIUM_PROFILE=1 "$hassium" run "$tmp/order.hsb" 2>"$tmp/err")
[[ $out == "$expected" ]] || fail "profile run changed stdout: $out"
err=$(cat "$tmp/err")
for label in "flushes" "instructions" "blocks" "merge-cache hits" "kernels compiled" \
  "kernel cache hits \(memory\)" "kernel cache hits \(disk\)" "compile time \(s\)" \
  "execution time \(s\)"; do
  expect_line "$err" " +$label: +[0-9.e+-]+"
done
expect_line "$err" " +flushes: +3" # split after the two SYNCs of A
expect_line "$err" " +instructions: +12"

# Errors: exit 1 and a message naming the problem.
rc=0
out=$(run "$hassium" run --algorithm fastest "$tmp/order.hsb" 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "unknown algorithm: expected exit 1, got $rc"
expect_line "$out" "hassium: error: .*fastest.*greedy.*"
rc=0
out=$(run "$hassium" run "$tmp/missing.hsb" 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "missing file: expected exit 1, got $rc"
printf '.base A int8 2\n.base B int8 2\nIDENTITY B, 1\nSYNC A\n' >"$tmp/unwritten.hsb"
rc=0
out=$(run "$hassium" run "$tmp/unwritten.hsb" 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "SYNC of an unwritten base: expected exit 1, got $rc"
expect_line "$out" "hassium: error: .*unwritten\.hsb:4: SYNC A: nothing writes base A.*"

[[ $failures == 0 ]] && echo "all hassium run checks passed"
exit $((failures > 0))
