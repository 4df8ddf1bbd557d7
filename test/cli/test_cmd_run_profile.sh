#!/usr/bin/env bash
# HASSIUM_PROFILE and HASSIUM_DOT_DIR under `hassium run`: the report's figures for a program
# whose counts are known, and the Graphviz files of its distinct partitions.
# Usage: test_cmd_run_profile.sh HASSIUM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
value_of() { sed -nE "s/^ +$2: +//p" <<<"$1" | head -1; }
# No step kernels built ahead of time (a one-instruction kernel would load from there): the
# counts below are compiles.
run() {
  env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" HASSIUM_CPU_KERNEL_CACHE=memory \
    HASSIUM_CPU_STEP_DIR= "$@"
}

# One flush of 5 instructions: A (kept), B (a temporary), S (the sum of 2*A).
cat >"$tmp/sum.hsb" <<'HSB'
.base A float64 1000
.base B float64 1000
.base S float64 1
RANGE A
MULTIPLY B, A, 2
ADD_REDUCE S{0;;}, B, 0
FREE B
SYNC S
HSB

# Singleton: three kernels; bytes moved = A written (8000) + A read, B written (16000) + B read,
# S written (8008).
out=$(run HASSIUM_PROFILE=1 "$hassium" run --algorithm singleton "$tmp/sum.hsb" 2>"$tmp/err") ||
  fail "singleton run failed: $(cat "$tmp/err")"
[[ $out == "S: 999000" ]] || fail "stdout: $out"
err=$(cat "$tmp/err")
expect_line "$err" "hassium profile:"
expect_line "$err" " +flushes: +1"
expect_line "$err" " +instructions: +5"
expect_line "$err" " +blocks: +5"
expect_line "$err" " +bytes moved: +32008"
expect_line "$err" " +kernels compiled: +3"
expect_line "$err" " +merge-cache hit rate: +0\.0% \(0 of 1\)"
expect_line "$err" " +kernel-cache hit rate: +0\.0% \(0 of 3\)"
expect_line "$err" " +fused / singleton cost: +1\.000 \(.*\)"
for label in "compile time \(s\)" "execution time \(s\)" "fusion time \(s\)"; do
  expect_line "$err" " +$label: +[0-9.e+-]+"
done
expect_line "$err" "  slowest kernels \(execution, compilation excluded\):"
expect_line "$err" "  #3: [0-9.e+-]+ s in 1 run, [0-9]+ bytes moved per run"
expect_line "$err" " +RANGE a0"
expect_line "$err" " +ADD_REDUCE a0\{0;;\}, a1, 0"
expect_line "$err" " +\.base a0 float64 1000"

# Greedy fuses: fewer blocks, a lower cost than singleton's, B never in memory.
out=$(run HASSIUM_PROFILE=1 "$hassium" run --algorithm greedy "$tmp/sum.hsb" 2>"$tmp/err") ||
  fail "greedy run failed"
err=$(cat "$tmp/err")
blocks=$(value_of "$err" blocks)
part=$(value_of "$err" "partition cost \(model units\)")
single=$(value_of "$err" "singleton cost \(model units\)")
bytes=$(value_of "$err" "bytes moved")
((blocks < 5)) || fail "greedy blocks: $blocks"
((part > 0 && part < single)) || fail "greedy cost $part vs singleton $single"
((bytes < 32008)) || fail "greedy bytes moved: $bytes"
expect_line "$err" " +fused / singleton cost: +0\.[0-9]+ \($part / $single\)"

# Profiling off: no report.
run "$hassium" run "$tmp/sum.hsb" >/dev/null 2>"$tmp/err" || fail "plain run failed"
[[ ! -s $tmp/err ]] || fail "report without HASSIUM_PROFILE: $(cat "$tmp/err")"

# HASSIUM_DOT_DIR: three flushes of two structures -> two pictures.
cat >"$tmp/flushes.hsb" <<'HSB'
.base X float64 100
.base T float64 100
.base U float64 100
RANGE X
SYNC X
MULTIPLY T, X, 3
ADD X, T, X
FREE T
SYNC X
MULTIPLY U, X, 5
ADD X, U, X
FREE U
SYNC X
HSB
run HASSIUM_DOT_DIR="$tmp/dots" HASSIUM_PROFILE=1 "$hassium" run "$tmp/flushes.hsb" \
  >/dev/null 2>"$tmp/err" || fail "dot run failed: $(cat "$tmp/err")"
expect_line "$(cat "$tmp/err")" " +flushes: +3"
ndot=$(ls "$tmp/dots"/partition-*.dot 2>/dev/null | wc -l)
[[ $ndot == 2 ]] || fail "expected 2 .dot files, got $ndot: $(ls "$tmp/dots")"
for f in "$tmp/dots"/partition-*.dot; do
  head -1 "$f" | grep -q "^digraph flush {$" || fail "$f: not a digraph"
  grep -q "subgraph cluster_0 {" "$f" || fail "$f: no block cluster"
  # Every instruction box sits in a cluster: as many boxes as `label="N: ...` lines.
  nodes=$(grep -cE '^    i[0-9]+ \[label="[0-9]+: ' "$f")
  ((nodes >= 2)) || fail "$f: $nodes instruction boxes"
  if command -v dot >/dev/null; then
    dot -Tcanon "$f" >/dev/null 2>&1 || fail "$f: dot cannot parse it"
    png=${f%.dot}.png
    [[ -s $png ]] || fail "no $png"
    [[ $(head -c 4 "$png" | tail -c 3) == PNG ]] || fail "$png is not a PNG"
  fi
done
grep -q "MULTIPLY T, X, 3" "$tmp/dots"/*.dot || fail "the .dot files lack the bytecode"

# Without dot on PATH: .dot files only, no error.
mkdir -p "$tmp/bin"
ln -s "$(command -v env)" "$tmp/bin/env"
env -i PATH="$tmp/bin" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" \
  HASSIUM_CPU_KERNEL_CACHE=memory HASSIUM_DOT_DIR="$tmp/nodot" "$hassium" run "$tmp/flushes.hsb" \
  >/dev/null 2>"$tmp/err" || fail "run without dot failed: $(cat "$tmp/err")"
[[ $(ls "$tmp/nodot"/*.dot | wc -l) == 2 ]] || fail "no .dot files without dot on PATH"
[[ $(ls "$tmp/nodot"/*.png 2>/dev/null | wc -l) == 0 ]] || fail "png without dot on PATH"
[[ ! -s $tmp/err ]] || fail "warnings without dot: $(cat "$tmp/err")"

[[ $failures == 0 ]] && echo "all hassium run profile checks passed"
exit $((failures > 0))
