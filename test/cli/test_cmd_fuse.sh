#!/usr/bin/env bash
# Tests for bridge/cli/cmd_fuse.cpp on the paper's Fig. 3 program: the costs of the issue
# (singleton 752, optimal 304 bytes, the others in between), every instruction in exactly one
# block, defaults from the config file and env, --dot, unknown names.
# Usage: test_cmd_fuse.sh HASSIUM_BINARY SOURCE_DIR
set -u
hassium=$(realpath "${1:?usage: test_cmd_fuse.sh HASSIUM_BINARY SOURCE_DIR}")
src=$(realpath "${2:?usage: test_cmd_fuse.sh HASSIUM_BINARY SOURCE_DIR}")
fig3="$src/test/corpus/valid/paper_fig3.hsb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in $(env | grep -o '^HASSIUM_[A-Z_]*'); do unset "$v"; done
export HASSIUM_CONFIG="$tmp/config.ini"
: >"$HASSIUM_CONFIG"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Every instruction 1..17 exactly once over the block lines (all lines but the last).
covers_all() {
  local got
  got=$(head -n -1 "$1" | tr ' ' '\n' | sort -n | tr '\n' ' ')
  [ "$got" = "$(seq 1 17 | tr '\n' ' ')" ]
}

for alg in singleton linear unintrusive greedy optimal; do
  if ! "$hassium" fuse --algorithm "$alg" "$fig3" >"$tmp/$alg.out" 2>"$tmp/err"; then
    fail "$alg: exit $?: $(cat "$tmp/err")"
    continue
  fi
  covers_all "$tmp/$alg.out" || fail "$alg: blocks do not cover 1..17 once: $(cat "$tmp/$alg.out")"
  last=$(tail -n 1 "$tmp/$alg.out")
  [[ "$last" =~ ^cost:\ ([0-9]+)\ bytes$ ]] || { fail "$alg: last line '$last'"; continue; }
  cost=${BASH_REMATCH[1]}
  case $alg in
  singleton) [ "$cost" -eq 752 ] || fail "singleton cost $cost, expected 752" ;;
  optimal) [ "$cost" -eq 304 ] || fail "optimal cost $cost, expected 304" ;;
  *) [ "$cost" -ge 304 ] && [ "$cost" -le 752 ] || fail "$alg cost $cost not in [304, 752]" ;;
  esac
done
[ "$(wc -l <"$tmp/singleton.out")" -eq 18 ] || fail "singleton: expected 17 blocks"

# A real program's flush stream (lbm_d3q19): greedy under every cost model partitions it in
# seconds at most (a bounded run: a blow-up fails here instead of hanging the suite), and every
# instruction is in exactly one block.
lbm="$src/test/cli/data/lbm_d3q19_trace.hsb"
n_lbm=$(grep -vc '^#\|^\.base\|^$' "$lbm")
for model in bohrium max_contract max_locality robinson; do
  timeout 60 "$hassium" fuse --algorithm greedy --cost-model "$model" "$lbm" >"$tmp/lbm.out" \
    2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "greedy/$model on lbm_d3q19's trace: exit $rc (124: over 60 s): $(head -c 300 "$tmp/err")"
    continue
  fi
  got=$(head -n -1 "$tmp/lbm.out" | tr ' ' '\n' | sort -n | tr '\n' ' ')
  [ "$got" = "$(seq 1 "$n_lbm" | tr '\n' ' ')" ] ||
    fail "greedy/$model on lbm_d3q19's trace: blocks do not cover 1..$n_lbm once"
done

# Defaults: the config file, then the env.
printf '[fuser]\nalgorithm = optimal\n' >"$HASSIUM_CONFIG"
[ "$("$hassium" fuse "$fig3" | tail -n 1)" = "cost: 304 bytes" ] || fail "config algorithm = optimal"
[ "$(HASSIUM_FUSER_ALGORITHM=singleton "$hassium" fuse "$fig3" | tail -n 1)" = "cost: 752 bytes" ] ||
  fail "HASSIUM_FUSER_ALGORITHM=singleton"
: >"$HASSIUM_CONFIG"

# Other models print their own unit.
[[ "$("$hassium" fuse --cost-model max_contract "$fig3" | tail -n 1)" =~ ^cost:\ [0-9]+\ bases$ ]] ||
  fail "max_contract unit"

# Out of budget: still a partition, and a note on stderr.
"$hassium" fuse --algorithm optimal --budget 1 "$fig3" >"$tmp/b.out" 2>"$tmp/b.err" || fail "budget 1 failed"
covers_all "$tmp/b.out" || fail "budget 1: bad blocks"
grep -q "ran out of its budget" "$tmp/b.err" || fail "budget 1: no note"

# --dot: clusters, one per block, and Graphviz accepts it.
"$hassium" fuse --algorithm greedy --dot "$tmp/g.dot" "$fig3" >"$tmp/g.out" || fail "--dot failed"
blocks=$(($(wc -l <"$tmp/g.out") - 1))
[ "$(grep -c 'subgraph cluster_' "$tmp/g.dot")" -eq "$blocks" ] || fail "--dot: clusters != blocks"
if command -v dot >/dev/null; then
  dot -Tsvg "$tmp/g.dot" >/dev/null 2>"$tmp/dot.err" || fail "dot rejects the file: $(cat "$tmp/dot.err")"
fi

# Unknown names: exit 1, the valid names listed.
"$hassium" fuse --algorithm fastest "$fig3" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "unknown algorithm: exit status"
grep -q "singleton, linear, unintrusive, greedy, optimal" "$tmp/err" || fail "unknown algorithm: $(cat "$tmp/err")"
"$hassium" fuse --cost-model cheapest "$fig3" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "unknown cost model: exit status"
grep -q "bohrium, max_contract, max_locality, robinson" "$tmp/err" || fail "unknown model: $(cat "$tmp/err")"

[ $failures -eq 0 ] && echo "all fuse tests passed"
exit $((failures > 0))
