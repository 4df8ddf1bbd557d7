#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: runs the packed CUDA device check (test/ve/cuda_device_pack.sh)
# in one command and prints a summary. Finds NVRTC itself (or honours HASSIUM_CUDA_NVRTC_LIBRARY),
# runs the check with NVRTC, again with the carried sm_90 cubins only, a failed launch, the run
# corpus on the GPU engine against the CPU engine (where packed), then the CUDA unit tests.
# Logs go to $OUT (the device tool's folder) when it is set. Usage: bash build-device/run.sh
# Knobs: SIZE_MB (bandwidth arrays), ENGINE=0 / BENCH=0 skip the corpus / the timed traces,
# ENGINE_ARGS (e.g. "--match op_ADD --verbose"), ENGINE_TIMEOUT, BENCH_SIZE, BENCH_TIMEOUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/ve/device_common.sh
source "$here/device_common.sh"
logs=${OUT:-$here/logs}
mkdir -p "$logs"
export HASSIUM_CONFIG=$here/config.ini
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

echo "== machine"
grep -h PRETTY_NAME /etc/os-release 2>/dev/null
ldd --version 2>/dev/null | head -1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader \
  2>&1 | head -4
ls -l /usr/lib/x86_64-linux-gnu/libcuda.so.1 2>/dev/null || ldconfig -p | grep libcuda.so.1

echo "== NVRTC"
find_nvrtc
if [[ -n $nvrtc ]]; then
  echo "NVRTC: $nvrtc"
else
  echo "NVRTC: not found here; hassium's own search runs, else the carried cubins are used"
fi
echo "== libraries"
ldd "$here/bin/cuda_device_check" | grep -E "not found|=>"

status=0
echo "== cuda_device_check (NVRTC compiles)"
timeout 300 "$here/bin/cuda_device_check" --binaries "$here/kernels" --size-mb "${SIZE_MB:-1024}" \
  2>&1 | tee "$logs/cuda_device_check.log"
rc=${PIPESTATUS[0]}; ((rc == 0)) || status=1
echo "== cuda_device_check (carried sm_90 cubins, no NVRTC)"
HASSIUM_CUDA_NVRTC_LIBRARY=/nonexistent timeout 120 "$here/bin/cuda_device_check" \
  --binaries "$here/kernels" --size-mb 256 2>&1 | tee "$logs/cuda_device_check_cubins.log" |
  grep -E "loaded|FAIL|passed|triad|SKIP|error" | head -20
rc2=${PIPESTATUS[0]}; ((rc2 == 0)) || status=1
echo "== cuda_device_check --fault (a failed launch is reported)"
timeout 60 "$here/bin/cuda_device_check" --fault 2>&1 | tee "$logs/cuda_device_check_fault.log"
rc4=${PIPESTATUS[0]}; ((rc4 == 0)) || status=1
rc5=skipped
if [[ -x $here/bin/cuda_engine_check && ${ENGINE:-1} != 0 ]]; then
  echo "== cuda_engine_check (the run corpus: GPU engine on CUDA vs the CPU engine)"
  timeout "${ENGINE_TIMEOUT:-300}" "$here/bin/cuda_engine_check" --cases "$here/cases" \
    ${ENGINE_ARGS:-} 2>&1 | tee "$logs/cuda_engine_check.log"
  rc5=${PIPESTATUS[0]}; ((rc5 == 0 || rc5 == 77)) || status=1
fi
rc6=skipped
if [[ -x $here/bin/cuda_engine_check && -d $here/traces && ${BENCH:-1} != 0 ]]; then
  echo "== cuda_engine_check --bench (benchmarks/traces scaled up: GPU engine vs CPU engine)"
  timeout "${BENCH_TIMEOUT:-120}" "$here/bin/cuda_engine_check" \
    --bench "$here/traces/black_scholes.hsb" --bench "$here/traces/nbody.hsb" \
    --bench "$here/traces/heat_equation.hsb" --size "${BENCH_SIZE:-20000000}" --repeat 5 2>&1 |
    tee "$logs/cuda_engine_bench.log"
  rc6=${PIPESTATUS[0]}; ((rc6 == 0 || rc6 == 77)) || status=1
fi
echo "== test_ve_cuda (unit tests, with the driver)"
timeout 120 "$here/bin/test_ve_cuda" 2>&1 | tee "$logs/test_ve_cuda.log" | tail -15
rc3=${PIPESTATUS[0]}; ((rc3 == 0)) || status=1

echo "== summary"
grep -hE "^device:|^versions:" "$logs/cuda_device_check.log"
grep -hE "GB/s|launch:" "$logs/cuda_device_check.log"
grep -hE "FAIL" "$logs"/*.log
echo "cuda_device_check (NVRTC): $(grep -h 'cuda_device_check:' "$logs/cuda_device_check.log") (exit $rc)"
echo "cuda_device_check (cubins): $(grep -h 'cuda_device_check:' "$logs/cuda_device_check_cubins.log") (exit $rc2)"
echo "cuda_device_check --fault: $(grep -h 'fault:' "$logs/cuda_device_check_fault.log") (exit $rc4)"
[[ $rc5 == skipped ]] ||
  echo "cuda_engine_check: $(grep -h '^cuda_engine_check: [0-9]' "$logs/cuda_engine_check.log") (exit $rc5)"
[[ $rc6 == skipped ]] || grep -h '^bench' "$logs/cuda_engine_bench.log"
echo "test_ve_cuda: $(grep -hE '^(All tests passed|test cases:)' "$logs/test_ve_cuda.log") (exit $rc3)"
exit $status
