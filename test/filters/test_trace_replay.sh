#!/usr/bin/env bash
# `hassium run` with the trace filter, then `hassium run` of the trace: the same output.
# Usage: test_trace_replay.sh HASSIUM SOURCE_DIR
set -euo pipefail
hassium=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HASSIUM_CONFIG="$root/config.ini" HASSIUM_CPU_KERNEL_CACHE=memory
fail() { echo "FAIL: $*" >&2; exit 1; }

for prog in "$root/test/filters/cases/remove_dead/chains.before.hsb" \
            "$root/test/run/cases/prog_paper_fig3.hsb" "$root/test/run/cases/prog_chain.hsb" \
            "$root/test/filters/data/view_sync.hsb"; do
  rm -f "$tmp"/trace-*.hsb
  HASSIUM_STACK_FILTERS=trace HASSIUM_FILTERS_TRACE_FILE="$tmp/trace-%p.hsb" \
    "$hassium" run "$prog" > "$tmp/direct.txt"
  traces=("$tmp"/trace-*.hsb)
  [ ${#traces[@]} -eq 1 ] && [ -f "${traces[0]}" ] || fail "no trace-<pid>.hsb for $prog"
  head -1 "${traces[0]}" | grep -qx '# flush 1' || fail "trace of $prog does not start with '# flush 1'"
  "$hassium" run "${traces[0]}" > "$tmp/replay.txt" || fail "replay of the trace of $prog"
  diff "$tmp/direct.txt" "$tmp/replay.txt" > /dev/null || fail "replay of $prog differs"
done
# The trace writes a SYNC of part of a base as that view (what the replay above read back).
grep -qx 'SYNC b{2;3;1}' "$tmp"/trace-*.hsb || fail "trace of view_sync.hsb lacks 'SYNC b{2;3;1}'"
# A SYNC that ends a flush early gives two flushes in the trace (chains: SYNC S, then FREE S).
HASSIUM_STACK_FILTERS=trace HASSIUM_FILTERS_TRACE_FILE="$tmp/t.hsb" \
  "$hassium" run "$root/test/filters/cases/remove_dead/chains.before.hsb" > /dev/null
[ "$(grep -c '^# flush' "$tmp/t.hsb")" -eq 2 ] || fail "expected 2 flushes in the trace"
# Filters listed before trace have run: the dead `ADD T, X, 2` is not in the file.
HASSIUM_STACK_FILTERS=remove_dead,trace HASSIUM_FILTERS_TRACE_FILE="$tmp/u.hsb" \
  "$hassium" run "$root/test/filters/cases/remove_dead/overwrite.before.hsb" > /dev/null
grep -q '^ADD T, X, 1' "$tmp/u.hsb" || fail "trace lacks the live ADD T, X, 1"
if grep -q '^ADD T, X, 2' "$tmp/u.hsb"; then fail "trace shows an instruction remove_dead removed"; fi
echo "trace replay: ok"
