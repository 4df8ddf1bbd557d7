#!/usr/bin/env bash
# Builds the libFuzzer parser target with clang in build-fuzz and fuzzes it for a while,
# seeded from test/corpus; exits non-zero when it finds a crash.
# Usage: test/fuzz/run_fuzz.sh [SECONDS=60] [BUILD_DIR=<repo>/build-fuzz]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
build=${2:-$src/build-fuzz}

# The tree's other parts must configure too; the Python bridge finds pybind11 in the venv.
python_arg=()
[ -x "$src/.venv/bin/python" ] && python_arg=(-DPython_EXECUTABLE="$src/.venv/bin/python")
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHASSIUM_FUZZ=ON "${python_arg[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
ninja -C "$build" -j2 fuzz_parser

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$build/fuzz-artifacts"
cp "$src"/test/corpus/valid/*.hsb "$src"/test/corpus/invalid/*.hsb "$work/corpus/"
# A dictionary of the format's words: opcodes (from core/opcodes.def), dtypes, punctuation.
{
  sed -n 's/^HS_OPCODE(\([A-Z0-9_]*\),.*/"\1"/p' "$src/core/opcodes.def"
  for w in bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 \
    complex128 true false nan inf -inf .base "{0;" ";;}" ", " ":" "(1,2)" "1e-3" "-1" \
    "18446744073709551615" "9223372036854775808" "#" "\\x0a"; do
    printf '"%s"\n' "$w"
  done
} >"$work/hsb.dict"

# -timeout: one input taking this long is a bug too (the parser and verifier are linear-ish).
"$build/bin/fuzz_parser" "$work/corpus" -max_total_time="$seconds" -timeout=10 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/" \
  -dict="$work/hsb.dict"
