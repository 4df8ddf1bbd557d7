#!/usr/bin/env bash
# On a GPU machine whose Python is not the build's (3.12 there): unpacks the pack of
# test/ve/python_device_pack.sh, compiles the _hassium extension for that machine's python3
# (JOBS in parallel, objects in $WORK), links it against the carried libhassium.so, lays out a
# hassium package, then runs a smoke test and benchmarks/gpu_bench.py (from the repository in the
# current directory) on the GPU engine. Logs go to $OUT (the device tool's folder) when set.
#   bash build-device-py/run.sh            # in the repository root
# Knobs: PYTHON (default python3), CXX (default g++, else c++ or clang++), JOBS (default nproc),
# WORK (default /tmp/hassium-py), PY_INCLUDE (the dir with Python.h, looked in alone),
# PY_HEADERS_FALLBACK=0 (never use the carried Python 3.12 headers), KEEP_G=1 (compile with -g as
# the build does: slower), REBUILD=1 (compile again even where $WORK holds an extension built from
# this pack for this python), ENGINE (default cuda), SMOKE=0 / BENCH=0 (skip those), PROGRAMS
# (comma list, default all 15), SIZES (default|tiny|small|large|large-short), NUMPY=0 (no plain
# NumPy runs), BENCH_TIMEOUT (s, default 420), RUN_TIMEOUT (s a run, default 300), BENCH_ARGS.
# Exit status: 2 python or NumPy missing, 3 no Python headers, 4 no compiler, 5 compile or link
# failed, 1 a smoke or benchmark failure. After a build, `source $WORK/env.sh` gives a shell
# where `python3 -m hassium prog.py` works.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/ve/device_common.sh
source "$here/device_common.sh"
repo=$PWD
logs=${OUT:-$here/logs}
mkdir -p "$logs"
work=${WORK:-/tmp/hassium-py}
PY=${PYTHON:-python3}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
log=$logs/build.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
fail() { say "FAILED: $1"; exit "${2:-1}"; }

say "== machine"
{ grep -h PRETTY_NAME /etc/os-release; ldd --version | head -1; nproc
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
  cat "$here/PACKED"; } 2>&1 | tee -a "$log"

say "== python: $(command -v "$PY" || echo "$PY: not found")"
info=$("$PY" - <<'EOF'
import sys, sysconfig
print("version", "%d.%d" % sys.version_info[:2], sys.version.split()[0])
print("include", sysconfig.get_path("include") or "")
print("platinclude", sysconfig.get_path("platinclude") or "")
print("suffix", sysconfig.get_config_var("EXT_SUFFIX") or "")
try:
    import numpy
    print("numpy", numpy.__version__, numpy.get_include())
except Exception as e:
    print("numpy", "missing", repr(e))
EOF
) || fail "$PY does not run" 2
echo "$info" | tee -a "$log"
pyver=$(echo "$info" | awk '$1=="version"{print $2}')
suffix=$(echo "$info" | awk '$1=="suffix"{print $2}')
numpy_inc=$(echo "$info" | awk '$1=="numpy"{print $3}')
[[ $(echo "$info" | awk '$1=="numpy"{print $2}') != missing ]] || fail "NumPy is not installed for $PY" 2

ext=$work/python/hassium/_hassium$suffix
stamp="$(cksum < "$here/pack.tar.xz") $(command -v "$PY") $suffix ${CXX:-} ${KEEP_G:-0}"
if [[ ${REBUILD:-0} != 1 && -f $ext && -f $work/stamp && $(cat "$work/stamp") == "$stamp" ]]; then
  say "== reusing $ext (built from this pack for this python; REBUILD=1 rebuilds)"
else
  rm -f "$work/stamp"
  say "== unpack into $work"
  rm -rf "$work"
  mkdir -p "$work/obj"
  if command -v xz >/dev/null; then
    tar -C "$work" -xJf "$here/pack.tar.xz" || fail "unpack"
  else
    "$PY" -c "import sys, tarfile; tarfile.open(sys.argv[1], 'r:xz').extractall(sys.argv[2])" \
      "$here/pack.tar.xz" "$work" || fail "unpack (python tarfile)"
  fi

  # Python headers: the main unknown of the machine.
  looked=()
  py_inc=
  dirs=$(echo "$info" | awk '$1=="include"||$1=="platinclude"{print $2}')
  for d in ${PY_INCLUDE:-$dirs /usr/include/python$pyver /usr/local/include/python$pyver}; do
    looked+=("$d")
    [[ -f $d/Python.h ]] && { py_inc=$d; break; }
  done
  if [[ -z $py_inc ]]; then
    say "Python headers (Python.h) for $pyver are missing: looked in ${looked[*]}"
    if [[ ${PY_HEADERS_FALLBACK:-1} != 0 && -f $work/inc/python$pyver/Python.h ]]; then
      py_inc=$work/inc/python$pyver
      say "  using the CARRIED headers instead: $(cat "$py_inc/CARRIED_FROM") (same minor version;"
      say "  set PY_HEADERS_FALLBACK=0 to refuse them, or PY_INCLUDE to a dir with Python.h)"
    else
      fail "no Python headers for $PY ($pyver): install python$pyver-dev or set PY_INCLUDE" 3
    fi
  fi
  say "Python headers: $py_inc"
  if [[ ! -f $numpy_inc/numpy/arrayobject.h ]]; then
    say "NumPy headers missing in $numpy_inc: using the carried ones ($(grep -h numpy "$here/PACKED"))"
    numpy_inc=$work/inc/numpy
  fi
  say "NumPy headers: $numpy_inc"

  cxx=${CXX:-}
  if [[ -z $cxx ]]; then
    for c in g++ c++ clang++; do command -v $c >/dev/null && { cxx=$c; break; }; done
  fi
  [[ -n $cxx ]] && command -v "$cxx" >/dev/null || fail "no C++ compiler (g++, c++, clang++)" 4
  say "compiler: $(command -v "$cxx"): $("$cxx" --version | head -1)"

  say "== compile _hassium ($(ls "$work"/src/bridge/python/*.cpp | wc -l) sources, -j$jobs)"
  cd "$work" || exit 1
  # shellcheck source=/dev/null
  source "$work/flags.sh"
  flags=()
  for x in "${CXXFLAGS[@]}"; do [[ $x == -g && ${KEEP_G:-0} != 1 ]] || flags+=("$x"); done
  for x in "${INCLUDES[@]}"; do
    x=${x//@PYTHON_INCLUDE@/$py_inc}; flags+=("${x//@NUMPY_INCLUDE@/$numpy_inc}")
  done
  echo "$cxx ${flags[*]} -c SOURCE" >> "$log"
  t0=$(date +%s.%N)
  for s in "${SOURCES[@]}"; do
    o=$work/obj/$(basename "$s" .cpp).o
    ( s0=$(date +%s.%N)
      "$cxx" "${flags[@]}" -c "$s" -o "$o" > "$o.log" 2>&1 || echo "exit $?" >> "$o.log"
      awk "BEGIN{printf \"%.1f %s\\n\", $(date +%s.%N) - $s0, \"$(basename "$s")\"}" > "$o.time" ) &
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  done
  wait
  bad=0
  for s in "${SOURCES[@]}"; do
    o=$work/obj/$(basename "$s" .cpp).o
    [[ -f $o ]] && ! grep -q "^exit [0-9]" "$o.log" || bad=1
    if [[ -s $o.log ]]; then { echo "-- $s"; head -c 20000 "$o.log"; } >> "$log"; fi
  done
  t1=$(date +%s.%N)
  ((bad == 0)) || { grep -h -m5 "error" "$work"/obj/*.log | head -20; fail "compile (log: $log)" 5; }
  lflags=()
  for x in "${LINK_FLAGS[@]}"; do [[ $x == -g && ${KEEP_G:-0} != 1 ]] || lflags+=("$x"); done
  "$cxx" "${lflags[@]}" -o "$ext" "$work"/obj/*.o "${LINK_LIBS[@]}" -Wl,-rpath,"$work/lib" \
    >> "$log" 2>&1 || fail "link (log: $log)" 5
  say "slowest: $(sort -rn "$work"/obj/*.time | head -3 | awk '{printf "%s %s s; ", $2, $1}')"
  say "compiled in $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s, linked $(ls -la "$ext" | awk '{print $5}') bytes: $ext"
  echo "$stamp" > "$work/stamp"
  cd "$repo" || exit 1
fi

export PYTHONPATH=$work/python${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export HASSIUM_CONFIG=$work/config.ini
# NVRTC, as the CUDA check's run.sh finds it (device_common.sh).
find_nvrtc
say "NVRTC: ${nvrtc:-not found here, the search of hassium itself runs}"
{ declare -p PYTHONPATH LD_LIBRARY_PATH HASSIUM_CONFIG
  [[ -n $nvrtc ]] && declare -p HASSIUM_CUDA_NVRTC_LIBRARY; } | sed 's/^declare -x/export/' \
  > "$work/env.sh"
engine=${ENGINE:-cuda}
status=0

if [[ ${SMOKE:-1} != 0 ]]; then
  say "== smoke (engine $engine)"
  (
    "$PY" -c "import hassium; print('import hassium:', hassium.__file__)" || exit 1
    "$PY" -m hassium --help || exit 1
    cat > "$work/smoke.py" <<'EOF'
import numpy as np
a = np.arange(1_000_000, dtype=np.float64)
b = np.sqrt(a) * 2.0 + 1.0
print("smoke sum:", float(b.sum()), "expected:", float(sum(2.0 * i ** 0.5 + 1.0 for i in range(1_000_000))))
EOF
    HASSIUM_STACK_ENGINE=$engine HASSIUM_PROFILE=1 timeout 120 "$PY" -m hassium "$work/smoke.py" 2>&1 |
      grep -vE "^\s+[a-z(].*:\s+0$"
    exit "${PIPESTATUS[0]}"
  ) > "$logs/smoke.log" 2>&1
  rc=$?
  sed "/slowest kernels/q" "$logs/smoke.log"
  ((rc == 0)) || { status=1; say "smoke: FAILED (exit $rc)"; }
fi

if [[ ${BENCH:-1} != 0 ]]; then
  if [[ ! -f $repo/benchmarks/gpu_bench.py ]]; then
    say "no benchmarks/gpu_bench.py in $repo (run this from the repository root)"; exit 1
  fi
  args=(--engine "$engine" --sizes "${SIZES:-default}" --timeout "${RUN_TIMEOUT:-300}")
  [[ ${NUMPY:-1} != 0 ]] && args+=(--numpy)
  [[ -n ${PROGRAMS:-} ]] && args+=(--programs "$PROGRAMS")
  say "== benchmarks/gpu_bench.py ${args[*]} ${BENCH_ARGS:-}"
  # shellcheck disable=SC2086
  timeout "${BENCH_TIMEOUT:-420}" "$PY" -u "$repo/benchmarks/gpu_bench.py" "${args[@]}" \
    ${BENCH_ARGS:-} 2>&1 | tee "$logs/gpu_bench.log"
  rc=${PIPESTATUS[0]}
  ((rc == 0)) || { status=1; say "gpu_bench: exit $rc$( ((rc == 124)) && echo ' (BENCH_TIMEOUT)')"; }
fi
exit $status
