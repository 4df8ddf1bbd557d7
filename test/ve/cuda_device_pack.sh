#!/usr/bin/env bash
# Packs what a GPU machine needs to run the CUDA device check from this build, into one folder
# (default build-device/, < 1 MB): stripped binaries, the check kernels precompiled for sm_90
# (for a machine without NVRTC), config.ini and run.sh. Usage: test/ve/cuda_device_pack.sh [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/ve/device_common.sh
source "$root/test/ve/device_common.sh"
out=${1:-$root/build-device}
build=${BUILD:-$root/build}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/work}
# cuda_engine_check exists where ve/gpu (the GPU engine) is built.
targets=(cuda_device_check test_ve_cuda)
ninja -C "$build" -t targets all | grep -q '^cuda_engine_check:' && targets+=(cuda_engine_check)
ninja -C "$build" -j"${JOBS:-2}" "${targets[@]}"
rm -rf "$out"
mkdir -p "$out/bin" "$out/kernels" "$out/lib"
for b in "${targets[@]}"; do
  strip -o "$out/bin/$b" "$build/bin/$b"
done
if [[ -x $out/bin/cuda_engine_check ]]; then
  mkdir -p "$out/cases"
  cp "$root"/test/run/cases/*.hsb "$out/cases/"
  cp -r "$root/benchmarks/traces" "$out/traces"
  # The CPU engine opens libgomp at run time (ve/cpu/openmp.cpp).
  cp -L "$(gcc -print-file-name=libgomp.so.1)" "$out/lib/"
fi
"$build/bin/cuda_device_check" --emit-binaries "$out/kernels" sm_90 compute_90 >/dev/null
cp "$root/config.ini" "$out/config.ini"
cp "$root/test/ve/cuda_device_run.sh" "$out/run.sh"
cp "$root/test/ve/device_common.sh" "$out/"
chmod +x "$out/run.sh"
# What the binaries need beyond what every Ubuntu has: carried in lib/ (libxxhash, the OpenCL
# ICD loader).
for b in "$out"/bin/*; do carry_libraries "$b" "$out/lib"; done
if ldd "$out/bin/cuda_device_check" | grep -q libLLVM; then
  echo "cuda_device_check needs libLLVM, which GPU machines lack" >&2
  exit 1
fi
echo "packed $(du -sh "$out" | cut -f1) into $out:"
(cd "$out" && find . -type f | sort | sed 's/^/  /')
