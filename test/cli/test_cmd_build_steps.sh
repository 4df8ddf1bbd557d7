#!/usr/bin/env bash
# Tests for bridge/cli/cmd_build_steps.cpp: `hassium build-steps DIR` compiles the interpreter's
# step kernels into DIR; a second run finds them all and compiles nothing; objects of DIR that
# are not step kernels (an older build's) are removed, other files kept; `hassium run` with
# [cpu] step_dir = DIR and the interpreter interprets with nothing compiled.
# Usage: test_cmd_build_steps.sh HASSIUM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
out=$("$hassium" build-steps "$tmp/steps" 2>&1) || fail "build-steps exited non-zero: $out"
expect_line "$out" "([0-9]+) step kernels in $tmp/steps \(\1 compiled, 0 there already, 0 stale removed\) in .* s"
n=$(find "$tmp/steps" -name '*.o' | wc -l)
((n > 1000)) || fail "only $n step kernels written"
head -c 100 /dev/zero >"$tmp/steps/hs_stale.o"
echo keep >"$tmp/steps/notes.txt"
out=$("$hassium" build-steps "$tmp/steps" 2>&1) || fail "second build-steps exited non-zero: $out"
expect_line "$out" "$n step kernels in $tmp/steps \(0 compiled, $n there already, 1 stale removed\) in .* s"
[[ ! -e "$tmp/steps/hs_stale.o" && -e "$tmp/steps/notes.txt" ]] || fail "stale object kept or other file removed"
# An element-wise program on the interpreter, every step from DIR.
cat >"$tmp/p.hsb" <<'HSB'
.base a float64 4000
.base b float64 4000
.base t float64 4000
IDENTITY a, 1.5:float64
IDENTITY b, 2.0:float64
MULTIPLY t, a, b
ADD b, t, 0.25:float64
FREE t
SYNC b
HSB
out=$(env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" HASSIUM_PROFILE=1 \
  HASSIUM_CPU_KERNEL_CACHE=memory HASSIUM_CPU_INTERPRETER=always HASSIUM_CPU_STEP_DIR="$tmp/steps" \
  "$hassium" run "$tmp/p.hsb" 2>&1) || fail "run exited non-zero: $out"
expect_line "$out" "b: 3.25 3.25 3.25 .*"
expect_line "$out" "  kernels compiled: +0"
expect_line "$out" "  blocks run by the interpreter.*: +[1-9][0-9]*"
[[ $failures == 0 ]] && echo "all hassium build-steps checks passed"
exit $((failures > 0))
