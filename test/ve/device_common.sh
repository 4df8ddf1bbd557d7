# Shell functions the GPU-machine packs share (sourced): here by the pack scripts
# (cuda_device_pack.sh, python_device_pack.sh), there by their run.sh (each pack carries a copy).

# Copies into DEST the shared libraries FILE needs beyond those every Ubuntu has (libc, libm,
# libstdc++, libgcc_s, libdl, libpthread, librt, libz, libzstd, libtinfo).
carry_libraries() { # FILE DEST
  ldd "$1" | awk '/=> \// {print $3}' | while read -r so; do
    case $(basename "$so") in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libdl.so.*|libpthread.so.*|librt.so.* | \
      libz.so.*|libzstd.so.*|libtinfo.so.*) ;;
    *) cp -L "$so" "$2/" ;;
    esac
  done
}

# Sets `nvrtc` to NVRTC's library (HASSIUM_CUDA_NVRTC_LIBRARY, else the loader's cache, CUDA's
# folders, pip's nvidia packages in /opt/*/.venv or the system Python); where found, exports
# HASSIUM_CUDA_NVRTC_LIBRARY and adds its folder to LD_LIBRARY_PATH. Empty when none is there.
find_nvrtc() {
  nvrtc=${HASSIUM_CUDA_NVRTC_LIBRARY:-}
  if [[ -z $nvrtc ]]; then
    local f
    for f in $(ldconfig -p 2>/dev/null | awk '/libnvrtc\.so\.1[23] /{print $NF}') \
             /usr/local/cuda/lib64/libnvrtc.so.1[23] /usr/local/cuda-*/lib64/libnvrtc.so.1[23] \
             /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13 \
             /opt/*/.venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.1[23] \
             /usr/local/lib/python3*/dist-packages/nvidia/cu13/lib/libnvrtc.so.13 \
             /usr/local/lib/python3*/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.1[23]; do
      [[ -e $f ]] && { nvrtc=$f; break; }
    done
  fi
  if [[ -n $nvrtc ]]; then
    export HASSIUM_CUDA_NVRTC_LIBRARY=$nvrtc
    export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$([[ -d $nvrtc ]] && echo "$nvrtc" || dirname "$nvrtc")
  fi
}
