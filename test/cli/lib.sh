#!/usr/bin/env bash
# Shared setup of the CLI test scripts: sourced as `. lib.sh HASSIUM_BINARY SOURCE_DIR`; sets
# $hassium, $src, $failures, a temporary directory $tmp (removed at exit), fail and expect_line.
set -u
hassium=$1
src=$2
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_line OUTPUT REGEX: some line of OUTPUT matches REGEX (extended regex, whole line).
expect_line() { grep -Eqx -- "$2" <<<"$1" || fail "no line matching /$2/ in:"$'\n'"$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
