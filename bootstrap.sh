#!/usr/bin/env bash
# Set up a Debian 12 machine, build hassium into build/, then run the main job or every test.
#
#   ./bootstrap.sh main   install what is missing, build, run the main job
#   ./bootstrap.sh test   install what is missing, build, run every test (what .ci/run calls)
#
# Reruns are fast: packages are installed only when missing, the build is incremental.
# Environment: JOBS (parallel build and test jobs, default 2); CI=true is fine (no stdin used).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"

mode=${1:-}
if [[ $mode != main && $mode != test ]]; then
  echo "usage: $0 main|test" >&2
  exit 2
fi
jobs=${JOBS:-2}

# System libraries (DESIGN.md section 8); clang + libclang-rt for the libFuzzer target.
apt_packages=(cmake ninja-build g++ ccache clang libclang-rt-14-dev llvm-16-dev
  libboost-graph-dev libboost-dev catch2 librandom123-dev libxxhash-dev libcli11-dev
  libopenblas-dev libopenmpi-dev openmpi-bin graphviz python3-venv)
# Python packages, from PyPI into .venv.
pip_packages=(numpy pybind11 scikit-build-core pytest hypothesis matplotlib)

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
  local missing
  # A package is present when its module imports by name (scikit-build-core: scikit_build_core).
  missing=$(.venv/bin/python - "${pip_packages[@]}" <<'EOF'
import importlib.util, sys
print(" ".join(p for p in sys.argv[1:] if importlib.util.find_spec(p.replace("-", "_")) is None))
EOF
  )
  [[ -z $missing ]] && return
  step "pip install $missing"
  # shellcheck disable=SC2086  # one word per package
  .venv/bin/python -m pip install --quiet --disable-pip-version-check $missing </dev/null
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
}

# The main job. Until the engine runs NumPy programs: check and print an example program.
run_main() {
  build hassium
  # The example of DESIGN.md section 3 when it is there, else the first valid program.
  local examples=(test/corpus/valid/design_example.hsb test/corpus/valid/*.hsb)
  local example=${examples[0]}
  [[ -f $example ]] || example=${examples[1]}
  if [[ ! -f $example ]]; then
    echo "bootstrap: no example program: test/corpus/valid/*.hsb does not exist yet" >&2
    exit 1
  fi
  step "build/bin/hassium check $example"
  build/bin/hassium check "$example"
  step "build/bin/hassium print $example"
  build/bin/hassium print "$example"
}

# Every test: the CTest suite (Catch2 unit tests, CLI tests), then pytest over test/python.
run_tests() {
  build
  step "ctest --test-dir build --output-on-failure -j$jobs"
  ctest --test-dir build --output-on-failure -j "$jobs"
  if compgen -G 'test/python/test_*.py' >/dev/null || compgen -G 'test/python/*_test.py' >/dev/null; then
    step "pytest test/python"
    local rc=0
    PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" .venv/bin/python -m pytest -q test/python </dev/null || rc=$?
    # Exit code 5: pytest collected no tests. Not a failure.
    [[ $rc == 0 || $rc == 5 ]] || exit "$rc"
  fi
  step "all tests passed"
}

install_system_packages
install_python_packages
case $mode in
main) run_main ;;
test) run_tests ;;
esac
