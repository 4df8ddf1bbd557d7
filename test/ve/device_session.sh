#!/usr/bin/env bash
# One call on a GPU machine (the device tool), both packs: the CUDA checks and timed traces of
# build-device/ (test/ve/cuda_device_pack.sh), then the Python programs of build-device-py/
# (test/ve/python_device_pack.sh) with NumPy beside them. Each part has its own time budget, so
# whatever ran comes back; at most 8 log files go to $OUT (the tool returns no more).
#   run(command="bash test/ve/device_session.sh 2>&1", carry=["build-device", "build-device-py"],
#       timeout_s=560)
# Knobs: CXX_BUDGET (s, default 200), PY_BUDGET (s, default 300), CORPUS=1 (also the run corpus
# on the CUDA engine: ~200 s more), PROGRAMS, SIZES (default large-short), BENCH_SIZE.
set -u
out=${OUT:-/tmp/device-session}
mkdir -p "$out" /tmp/device-cxx
export PYTHONUNBUFFERED=1
echo "== CUDA checks and traces (build-device, budget ${CXX_BUDGET:-200} s)"
if [[ -x build-device/run.sh || -f build-device/run.sh ]]; then
  OUT=/tmp/device-cxx SIZE_MB=512 ENGINE=${CORPUS:-0} BENCH_SIZE=${BENCH_SIZE:-20000000} \
    BENCH_TIMEOUT=150 timeout "${CXX_BUDGET:-200}" bash build-device/run.sh > "$out/cxx.log" 2>&1
  echo "exit $?"
  cp /tmp/device-cxx/cuda_engine_bench.log "$out/" 2>/dev/null
  [[ ${CORPUS:-0} != 0 ]] && cp /tmp/device-cxx/cuda_engine_check.log "$out/" 2>/dev/null
  grep -E "^device|^versions|GB/s|launch:|passed|failed|^bench|FAIL|^test_ve_cuda|rror" \
    "$out/cxx.log" | cut -c1-400
else
  echo "no build-device/: carry it (test/ve/cuda_device_pack.sh)"
fi
echo "== Python programs (build-device-py, budget ${PY_BUDGET:-300} s)"
if [[ -f build-device-py/run.sh ]]; then
  SIZES=${SIZES:-large-short} RUN_TIMEOUT=90 BENCH_TIMEOUT=$((${PY_BUDGET:-300} - 40)) \
    PROGRAMS=${PROGRAMS:-black_scholes,heat_equation,leibnitz_pi,montecarlo_pi,rosenbrock,stencil27,shallow_water,game_of_life,sor,lbm_d3q19,nbody,nbody_nice,water_ice} \
    timeout "${PY_BUDGET:-300}" bash build-device-py/run.sh 2>&1 | tail -45
else
  echo "no build-device-py/: carry it (test/ve/python_device_pack.sh)"
fi
