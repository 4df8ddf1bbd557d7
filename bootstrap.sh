#!/usr/bin/env bash
# Set up a Debian 12 machine, build hassium into build/, then run the main job or every test.
#
#   ./bootstrap.sh main   install what is missing, build, run the main job
#   ./bootstrap.sh test   install what is missing, build, run every test (what .ci/run calls)
#
# Reruns are fast: packages are installed only when missing, the build is incremental.
# Environment: JOBS (parallel build and test jobs, default 2); SANITIZE (test mode: which part of
# test/sanitize.sh runs after the tests: asan (default), tsan, all, none); CI=true is fine.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

mode=${1:-}
if [[ $mode != main && $mode != test ]]; then
  echo "usage: $0 main|test" >&2
  exit 2
fi
jobs=${JOBS:-2}

# System libraries (DESIGN.md section 8); clang + libclang-rt for the libFuzzer target; the
# OpenCL ICD loader, headers and PoCL (the OpenCL engine's device on machines without a GPU).
apt_packages=(cmake ninja-build g++ ccache clang libclang-rt-14-dev llvm-16-dev
  libboost-graph-dev libboost-dev catch2 librandom123-dev libxxhash-dev libcli11-dev
  libopenblas-dev libopenmpi-dev openmpi-bin graphviz python3-venv
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers)
# Python packages, from PyPI into .venv. pybind11 stays on 3.1.x, the version the bindings are
# tested with (they use its public API: hassium.ndarray and hassium.ufunc are plain CPython types,
# bridge/python/plain_type.h). pytest-xdist: the Python suite runs on $JOBS worker processes.
pip_packages=(numpy 'pybind11>=3.1,<3.2' scikit-build-core pytest pytest-xdist hypothesis matplotlib)

step() { echo "== bootstrap: $*"; }

install_system_packages() {
  local missing=() p
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return
  local sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  step "apt-get install ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" </dev/null
}

install_python_packages() {
  if [[ ! -x .venv/bin/python ]]; then
    step "python3 -m venv .venv"
    python3 -m venv .venv
  fi
  local missing=()
  # A package is present when its distribution is installed in a version the requirement allows.
  mapfile -t missing < <(.venv/bin/python - "${pip_packages[@]}" <<'EOF'
import importlib.metadata as md, sys
from pip._vendor.packaging.requirements import Requirement
for spec in sys.argv[1:]:
    r = Requirement(spec)
    try:
        ok = r.specifier.contains(md.version(r.name), prereleases=True)
    except md.PackageNotFoundError:
        ok = False
    if not ok:
        print(spec)
EOF
  )
  ((${#missing[@]})) || return 0
  step "pip install ${missing[*]}"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "${missing[@]}" </dev/null
}

build() {
  step "configure and build into build/ (-j$jobs${*:+, targets: $*})"
  # Paths relative to the checkout, so every clone (CI's fresh one too) shares ccache hits.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  cmake -S . -B build -G Ninja -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
  if (($#)); then
    cmake --build build -j "$jobs" --target "$@"
  else
    cmake --build build -j "$jobs"
  fi
  link_venv
}

# After setup, `.venv/bin/python -m hassium script.py` and `import hassium` work without
# PYTHONPATH: a .pth file in the venv's site-packages names the built package (build/python).
# A `pip install .` into the venv (README, Installing) takes precedence once made.
link_venv() {
  local site
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  echo "$PWD/build/python" >"$site/hassium-build.pth"
}

# The main job: a NumPy program from benchmarks/python, unmodified, with plain NumPy (as users run
# it, and with glibc's malloc thresholds raised: NumPy's best case here) and with
# `python3 -m hassium`; prints the three times (the program's own `elapsed:` line) and the
# speedups, and checks that the checksums agree. MAIN_PROGRAM / MAIN_SIZE choose another one.
main_malloc_env=(MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184
  MALLOC_TOP_PAD_=1073741824)
run_main() {
  build hassium _hassium hassium_step_kernels
  local program=benchmarks/python/${MAIN_PROGRAM:-black_scholes.py} size=${MAIN_SIZE:-2000000*10}
  local py=.venv/bin/python out_np out_tuned out_hs
  step "NumPy:               $py $program --size $size"
  out_np=$("$py" "$program" --size "$size")
  echo "$out_np"
  step "NumPy, malloc tuned: env ${main_malloc_env[*]} $py $program --size $size"
  out_tuned=$(env "${main_malloc_env[@]}" "$py" "$program" --size "$size")
  echo "$out_tuned"
  step "hassium:             $py -m hassium $program --size $size"
  out_hs=$("$py" -m hassium "$program" --size "$size")
  echo "$out_hs"
  "$py" - "$out_np" "$out_tuned" "$out_hs" <<'EOF'
import re, sys
def field(text, name):
    return float(re.search(rf"^{name}: (\S+)", text, re.M).group(1))
t_np, t_tuned, t_hs = (field(o, "elapsed") for o in sys.argv[1:])
c_np, c_hs = field(sys.argv[1], "checksum"), field(sys.argv[3], "checksum")
same = abs(c_np - c_hs) <= 1e-9 * max(abs(c_np), abs(c_hs))
print(f"== main: NumPy {t_np:.3f} s, NumPy with raised malloc thresholds {t_tuned:.3f} s, "
      f"hassium {t_hs:.3f} s")
print(f"== main: hassium is {t_np / t_hs:.2f}x faster than NumPy, {t_tuned / t_hs:.2f}x faster than "
      f"NumPy with raised malloc thresholds; checksums {'agree' if same else 'DIFFER'} "
      f"({c_np!r}, {c_hs!r})")
sys.exit(0 if same else 1)
EOF
}

# Every test: the CTest suite (Catch2 unit tests, CLI tests), then pytest over test/python.
run_tests() {
  build
  step "the venv finds hassium without PYTHONPATH"
  env -u PYTHONPATH .venv/bin/python -m hassium --help >/dev/null
  env -u PYTHONPATH .venv/bin/python -c 'import hassium as np; assert int(np.arange(5).sum()) == 10'
  step "ctest --test-dir build --output-on-failure -j$jobs"
  ctest --test-dir build --output-on-failure -j "$jobs"
  if compgen -G 'test/python/test_*.py' >/dev/null || compgen -G 'test/python/*_test.py' >/dev/null; then
    # One worker process per job, each test file on one worker (the files' tests run in order,
    # in one process, as they do without workers).
    step "pytest -n $jobs --dist loadfile test/python"
    local rc=0
    PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" .venv/bin/python -m pytest -q \
      -n "$jobs" --dist loadfile test/python </dev/null || rc=$?
    # Exit code 5: pytest collected no tests. Not a failure.
    [[ $rc == 0 || $rc == 5 ]] || exit "$rc"
  fi
  # The sanitizers over the same tests (test/sanitize.sh; CI runs the ASan + UBSan part).
  if [[ ${SANITIZE:-asan} != none ]]; then
    step "test/sanitize.sh ${SANITIZE:-asan}"
    JOBS=$jobs test/sanitize.sh "${SANITIZE:-asan}"
  fi
  step "all tests passed"
}

install_system_packages
install_python_packages
case $mode in
main) run_main ;;
test) run_tests ;;
esac
