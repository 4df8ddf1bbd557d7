#!/usr/bin/env bash
# Tests for bridge/cli/cmd_check.cpp and cmd_print.cpp on the .hsb corpus: every file under
# test/corpus/valid must pass silently (and print, then re-check, to the same canonical text);
# every file under test/corpus/invalid must fail with exactly the message on its first line
# (`# expect: MESSAGE`). Files are named relative to SOURCE_DIR, as the messages expect.
# Usage: test_cmd_check.sh HASSIUM_BINARY SOURCE_DIR
set -u
hassium=$(realpath "${1:?usage: test_cmd_check.sh HASSIUM_BINARY SOURCE_DIR}")
cd "${2:?usage: test_cmd_check.sh HASSIUM_BINARY SOURCE_DIR}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

valid=(test/corpus/valid/*.hsb)
invalid=(test/corpus/invalid/*.hsb)
[ -e "${valid[0]}" ] || { echo "no corpus under $(pwd)/test/corpus"; exit 1; }

for f in "${valid[@]}"; do
  if ! "$hassium" check "$f" >"$tmp/out" 2>"$tmp/err"; then
    fail "$f: expected success, got: $(cat "$tmp/err")"
    continue
  fi
  [ -s "$tmp/out" ] || [ -s "$tmp/err" ] && fail "$f: check printed output on success"
  # The canonical form is valid and a fixed point of print.
  "$hassium" print "$f" >"$tmp/p1.hsb" || { fail "$f: print failed"; continue; }
  "$hassium" check "$tmp/p1.hsb" 2>"$tmp/err" || fail "$f: printed form does not check: $(cat "$tmp/err")"
  "$hassium" print "$tmp/p1.hsb" >"$tmp/p2.hsb" || { fail "$f: reprint failed"; continue; }
  cmp -s "$tmp/p1.hsb" "$tmp/p2.hsb" || fail "$f: print is not stable: $(diff "$tmp/p1.hsb" "$tmp/p2.hsb")"
done

for f in "${invalid[@]}"; do
  first=$(head -n 1 "$f")
  expected=${first#\# expect: }
  if [ "$expected" = "$first" ]; then
    fail "$f: the first line must be '# expect: MESSAGE'"
    continue
  fi
  "$hassium" check "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  got=$(cat "$tmp/err")
  if [ $rc -eq 0 ]; then
    fail "$f: expected failure, but check passed"
  elif [ "$got" != "$expected" ]; then
    fail "$f: wrong message (exit $rc)"
    echo "  expected: $expected"
    echo "  got:      $got"
  fi
done

echo "${#valid[@]} valid, ${#invalid[@]} invalid corpus files, $failures failure(s)"
[ $failures -eq 0 ]
