#!/usr/bin/env bash
# The disk caches (kernels, partitions) under `hassium run` and faults: eight processes starting
# together on empty directories, damaged files, a full disk, a read-only directory. Every run
# must print the values of a run with memory caches only.
# Usage: test_cmd_run_cache_faults.sh HASSIUM_BINARY SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"

# run_in KERNEL_DIR PARTITION_DIR COMMAND...: both caches on disk in those directories; one
# object per kernel (no tiered compilation: its fast and optimized objects are tested in
# test/ve/test_cpu_tiers.cpp).
run_in() {
  local kdir=$1 fdir=$2
  shift 2
  env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" HASSIUM_CPU_KERNEL_CACHE=disk \
    HASSIUM_CPU_CACHE_DIR="$kdir" HASSIUM_FUSER_CACHE=disk HASSIUM_FUSER_CACHE_DIR="$fdir" \
    HASSIUM_CPU_TIERED_COMPILE=false HASSIUM_CPU_STEP_DIR= "$@"
}
# What a directory holds that is not a complete cache file (temporary files, anything else).
strays() { find "$1" -mindepth 1 ! -name 'hs_*.o' ! -name '*.hsfp' -printf '%f\n' 2>/dev/null; }

# The programs (those of the corpus with the most kernels, 37 in all) and their reference
# outputs, with memory caches only.
programs=(reductions indexing views generators constants paper_fig3)
mkdir -p "$tmp/ref"
for name in "${programs[@]}"; do
  env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" HASSIUM_CPU_KERNEL_CACHE=memory \
    HASSIUM_FUSER_CACHE=memory "$hassium" run "$src/test/corpus/valid/$name.hsb" \
    >"$tmp/ref/$name" 2>&1 || fail "$name: $(cat "$tmp/ref/$name")"
done

# 1. Eight processes start together on empty directories, each running every program (one
# process per program; process w starts at program w mod 6, so some compile the same kernels at
# once and some read what others just wrote). A file read while partly written would be rejected
# and warned about; so: no warning, every output right, only complete files at the end, and
# some kernels came from another process's files.
K=$tmp/kernels F=$tmp/partitions
worker() {
  local w=$1 i name
  mkdir -p "$tmp/w$w"
  for ((i = 0; i < ${#programs[@]}; ++i)); do
    name=${programs[(i + w) % ${#programs[@]}]}
    run_in "$K" "$F" HASSIUM_PROFILE=1 "$hassium" run "$src/test/corpus/valid/$name.hsb" \
      >"$tmp/w$w/$name" 2>"$tmp/w$w/$name.err" || echo "exit $?" >>"$tmp/w$w/$name.err"
  done
}
for w in 1 2 3 4 5 6 7 8; do worker "$w" & done
wait
disk_hits=0
for w in 1 2 3 4 5 6 7 8; do
  for name in "${programs[@]}"; do
    cmp -s "$tmp/ref/$name" "$tmp/w$w/$name" || fail "process $w, $name: output differs"
    if grep -Eq "warning|error|exit" "$tmp/w$w/$name.err"; then
      fail "process $w, $name: $(grep -E "warning|error|exit" "$tmp/w$w/$name.err")"
    fi
    hits=$(sed -nE 's/^ +kernel cache hits \(disk\): +//p' "$tmp/w$w/$name.err")
    disk_hits=$((disk_hits + ${hits:-0}))
  done
done
((disk_hits > 0)) || fail "no process loaded a kernel another one compiled"
[[ -z $(strays "$K") && -z $(strays "$F") ]] || fail "stray files: $(strays "$K") $(strays "$F")"
nk=$(ls "$K" | wc -l) nf=$(ls "$F" | wc -l)
((nk >= 30 && nf >= 6)) || fail "$nk kernel files, $nf partition files"

# A rerun finds everything on disk: nothing compiled, the same outputs.
for name in "${programs[@]}"; do
  out=$(run_in "$K" "$F" HASSIUM_PROFILE=1 "$hassium" run "$src/test/corpus/valid/$name.hsb" \
    2>"$tmp/err")
  [[ $out == "$(cat "$tmp/ref/$name")" ]] || fail "rerun of $name: output differs"
  expect_line "$(cat "$tmp/err")" " +kernels compiled: +0"
done

# 2. Damaged files: every cache file cut to half its size. Ignored with one warning per cache,
# rebuilt, the outputs right; the next run loads the rebuilt files without a word.
for f in "$K"/* "$F"/*; do truncate -s $(($(stat -c %s "$f") / 2)) "$f"; done
p=reductions
out=$(run_in "$K" "$F" "$hassium" run "$src/test/corpus/valid/$p.hsb" 2>"$tmp/err")
[[ $out == "$(cat "$tmp/ref/$p")" ]] || fail "$p on damaged caches: output differs"
err=$(cat "$tmp/err")
expect_line "$err" "hassium: warning: kernel cache $K: ignored hs_[0-9a-f]+\.o \(.*\); .*"
expect_line "$err" "hassium: warning: merge cache $F: ignored [0-9a-f]+\.hsfp \(.*\); .*"
[[ $(grep -c warning <<<"$err") == 2 ]] || fail "damaged caches: not one warning per cache: $err"
out=$(run_in "$K" "$F" "$hassium" run "$src/test/corpus/valid/$p.hsb" 2>"$tmp/err")
[[ $out == "$(cat "$tmp/ref/$p")" && ! -s $tmp/err ]] ||
  fail "$p after the repair: $(cat "$tmp/err")"

# 3. A full disk: `ulimit -f 0` makes every write to a file fail (EFBIG, as ENOSPC would), and
# SIGXFSZ is ignored so the write returns the error. Output and warnings go to a pipe. One
# warning per cache naming the directory and the error, right values, no file left.
p=paper_fig3
out=$( (
  ulimit -f 0
  trap '' XFSZ
  exec env -i PATH="$PATH" HOME="$tmp" HASSIUM_CONFIG="$src/config.ini" \
    HASSIUM_CPU_TIERED_COMPILE=false HASSIUM_CPU_CACHE_DIR="$tmp/full-k" HASSIUM_FUSER_CACHE=disk \
    HASSIUM_FUSER_CACHE_DIR="$tmp/full-f" "$hassium" run "$src/test/corpus/valid/$p.hsb"
) 2>&1) || fail "$p on a full disk failed: $out"
[[ $(grep -v '^hassium: warning' <<<"$out") == "$(cat "$tmp/ref/$p")" ]] ||
  fail "$p on a full disk: output differs: $out"
expect_line "$out" "hassium: warning: kernel cache $tmp/full-k: cannot write .*: File too large; .*"
expect_line "$out" "hassium: warning: merge cache $tmp/full-f: cannot write .*: File too large; .*"
[[ $(grep -c warning <<<"$out") == 2 ]] || fail "full disk: not one warning per cache: $out"
left=$(find "$tmp/full-k" "$tmp/full-f" -mindepth 1 2>/dev/null)
[[ -z $left ]] || fail "files left on the full disk: $left"

# 4. A read-only directory: the filled caches made 0555. Root ignores permission bits
# (CAP_DAC_OVERRIDE), so as root the run drops that capability (setpriv's bounding set; it
# stays root otherwise), and the test checks that a write there really fails. Hits still come
# from the directory; a program not seen before warns once per cache and runs.
run_in "$K" "$F" "$hassium" run "$src/test/corpus/valid/$p.hsb" >/dev/null 2>&1 # repaired
chmod 0555 "$K" "$F"
as_user=()
if ((EUID == 0)); then
  if command -v setpriv >/dev/null; then
    as_user=(setpriv --bounding-set -dac_override,-dac_read_search,-fowner --)
  else
    echo "note: root without setpriv: the read-only directory part is skipped"
    K=
  fi
fi
if [[ -n $K ]]; then
  "${as_user[@]}" sh -c "touch '$K/probe'" 2>/dev/null && fail "$K is writable: no read-only test"
  out=$(run_in "$K" "$F" HASSIUM_PROFILE=1 "${as_user[@]}" "$hassium" run \
    "$src/test/corpus/valid/$p.hsb" 2>"$tmp/err")
  [[ $out == "$(cat "$tmp/ref/$p")" ]] || fail "$p from a read-only cache: output differs"
  expect_line "$(cat "$tmp/err")" " +kernels compiled: +0"
  grep -q warning "$tmp/err" && fail "read-only cache, all hits: $(grep warning "$tmp/err")"
  cat >"$tmp/new.hsb" <<'HSB'
.base A float64 10
.base B float64 10
RANGE A
MULTIPLY B, A, 7
ADD B, B, 0.5
SYNC B
FREE A
HSB
  out=$(run_in "$K" "$F" "${as_user[@]}" "$hassium" run "$tmp/new.hsb" 2>"$tmp/err")
  [[ $out == "B: 0.5 7.5 14.5 21.5 28.5 35.5 42.5 49.5 56.5 63.5" ]] ||
    fail "a new program on read-only caches: $out"
  err=$(cat "$tmp/err")
  expect_line "$err" "hassium: warning: kernel cache $K: cannot create .*: Permission denied; .*"
  expect_line "$err" "hassium: warning: merge cache $F: cannot create .*: Permission denied; .*"
  [[ $(grep -c warning <<<"$err") == 2 ]] || fail "read-only: not one warning per cache: $err"
  chmod 0755 "$K" "$F"
  [[ -z $(strays "$K") && -z $(strays "$F") ]] || fail "stray files: $(strays "$K") $(strays "$F")"
fi

[[ $failures == 0 ]] && echo "all cache fault checks passed"
exit $((failures > 0))
