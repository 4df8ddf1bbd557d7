#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz and fuzzes them one after the other,
# growing and minimizing the kept corpus test/fuzz/corpus/<target>; exits non-zero on a finding.
#
# Usage: test/fuzz/run_fuzz.sh [--target parser|fuser|all] [--seconds N | --runs N]
#                              [--build DIR] [--no-keep] [-- LIBFUZZER_FLAGS...]
#   --target   which target (default all: parser, then fuser)
#   --seconds  fuzz each target this long (default 60); --runs: this many executions instead
#   --build    the clang build directory (default <repo>/build-fuzz)
#   --no-keep  leave test/fuzz/corpus alone (the working corpus in the build dir still grows)
# Each run starts from the kept corpus, the working corpus of earlier runs, the regression
# inputs (test/fuzz/regressions/<target>) and, for the parser, test/corpus. At the end the kept
# corpus is replaced by a minimized merge (libFuzzer -merge=1) of all of them. Findings are
# written to <build>/fuzz-artifacts/<target>-*; replay one with <build>/bin/fuzz_<target> FILE.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=(parser fuser)
seconds=60
runs=
build=$src/build-fuzz
keep=1
extra=()
while [ $# -gt 0 ]; do
  case $1 in
  --target)
    case ${2:-} in
    all) targets=(parser fuser) ;;
    parser | fuser) targets=("$2") ;;
    *) echo "run_fuzz.sh: --target takes parser, fuser or all" >&2; exit 2 ;;
    esac
    shift 2 ;;
  --seconds) seconds=$2; runs=; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  --no-keep) keep=0; shift ;;
  --) shift; extra=("$@"); break ;;
  -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "run_fuzz.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

# The tree's other parts must configure too; the Python bridge finds pybind11 in the venv.
python_arg=()
[ -x "$src/.venv/bin/python" ] && python_arg=(-DPython_EXECUTABLE="$src/.venv/bin/python")
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHASSIUM_FUZZ=ON "${python_arg[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
ninja -C "$build" -j2 "${targets[@]/#/fuzz_}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A dictionary of the format's words: opcodes (from core/opcodes.def), dtypes, punctuation.
{
  sed -n 's/^HS_OPCODE(\([A-Z0-9_]*\),.*/"\1"/p' "$src/core/opcodes.def"
  for w in bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 \
    complex128 true false nan inf -inf .base "{0;" ";;}" ", " ":" "(1,2)" "1e-3" "-1" \
    "18446744073709551615" "9223372036854775808" "#" "\\x0a"; do
    printf '"%s"\n' "$w"
  done
} >"$work/hsb.dict"

# No allocation stacks in ASan reports: malloc is the fuser target's main cost, and a finding's
# full report comes back when its input is replayed (<build>/bin/fuzz_<target> FILE).
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
status=0
summary=()
for t in "${targets[@]}"; do
  kept=$src/test/fuzz/corpus/$t
  corpus=$build/fuzz-corpus/$t
  regressions=$src/test/fuzz/regressions/$t
  mkdir -p "$kept" "$corpus" "$build/fuzz-artifacts"
  seeds=("$kept")
  [ -d "$regressions" ] && seeds+=("$regressions")
  # Per target: input size limit and what else it reads.
  flags=(-timeout=10 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-")
  if [ "$t" = parser ]; then
    mkdir -p "$work/hsb"
    cp "$src"/test/corpus/valid/*.hsb "$src"/test/corpus/invalid/*.hsb "$work/hsb/"
    seeds+=("$work/hsb")
    flags+=(-max_len=4096 -dict="$work/hsb.dict")
  else
    flags+=(-max_len=256)
  fi
  if [ -n "$runs" ]; then
    flags+=(-runs="$runs")
  else
    flags+=(-max_total_time="$seconds")
  fi
  if [ -n "$runs" ]; then what="$runs executions"; else what="$seconds s"; fi
  echo "=== fuzz_$t: $what, working corpus $corpus"
  log=$build/fuzz-$t.log
  rc=0
  "$build/bin/fuzz_$t" "${flags[@]}" "${extra[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  tail -n 25 "$log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  findings=$(sed -n "s|.*Test unit written to \(.*\)|\1|p" "$log")
  line="fuzz_$t: ${execs:-?} executions, ${rate:-?} exec/s"
  # libFuzzer's -timeout is wall-clock time: on a shared machine a starved process times out on
  # any input. A timeout (or slow unit) whose input, rerun alone, finishes within the timeout is
  # reported as not reproduced, not as a finding.
  if [ "$rc" -ne 0 ] && [ -n "$findings" ]; then
    real=
    for f in $findings; do
      case $(basename "$f") in
      "$t"-timeout-* | "$t"-slow-unit-*)
        if timeout 10 "$build/bin/fuzz_$t" "$f" >/dev/null 2>&1; then
          real+=" (timeout not reproduced: $f reruns within the timeout)"
        else
          real=; break
        fi
        ;;
      *) real=; break ;;
      esac
    done
    if [ -n "$real" ]; then
      line+=", no finding$real"
      rc=0
    fi
  fi
  if [ "$rc" -ne 0 ]; then
    status=1
    line+=", FINDING (exit $rc): ${findings:-see $log}"
  elif [[ $line != *"no finding"* ]]; then
    line+=", no finding"
  fi
  if [ "$keep" = 1 ]; then
    # Minimize: the smallest inputs that keep every feature of the kept and working corpora.
    rm -rf "$work/merged" && mkdir "$work/merged"
    "$build/bin/fuzz_$t" -merge=1 "${flags[@]:0:1}" "$work/merged" "$kept" "$corpus" \
      >"$build/fuzz-$t-merge.log" 2>&1 || { tail -n 20 "$build/fuzz-$t-merge.log"; exit 1; }
    rm -rf "$kept" && mv "$work/merged" "$kept"
    line+="; kept corpus $(ls "$kept" | wc -l) files, $(cat "$kept"/* | wc -c) bytes"
  fi
  summary+=("$line")
done
echo "=== summary"
printf '%s\n' "${summary[@]}"
exit $status
