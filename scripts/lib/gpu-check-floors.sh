# Sourced by scripts/gpu-check.sh: what it checks first, in seconds, before anything slow (Python,
# ldd, a build). The pack (scripts/gpu-pack.sh) records its floors in MANIFEST.txt: the newest
# GLIBC_ symbol version a packed file asks for, and the CUDA runtime linked in. A host below them
# cannot run the pack at all (glibc) or its GPU binaries (driver): better said in seconds than
# found after a whole shot.
# Uses: $pack, $cuda_home, $logs, have(). Sets the variables named in each function's comment.

# ver_ge A B: A >= B as versions (2.36 >= 2.4; empty is never >=).
ver_ge() { [[ -n $1 && -n $2 && $(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1) == "$2" ]]; }

# manifest_field NAME: the value after "NAME: " in the pack's MANIFEST.txt, its first word.
manifest_field() { sed -n "s/^$1: *\([^ ]*\).*/\1/p" "$pack/MANIFEST.txt" 2>/dev/null | head -1; }

# glibc_floor: glibc_host, glibc_need (the pack's), glibc_short (empty, or why the pack cannot run).
# The host's version from getconf, else ldd's first line (musl or an odd libc: unknown, not a stop).
glibc_floor() {
  glibc_host=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
  [[ -n $glibc_host ]] || glibc_host=$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9][0-9]*\.[0-9][0-9]*$')
  glibc_need=$(manifest_field 'needs glibc')
  [[ -n $glibc_need ]] ||
    glibc_need=$(sed -n 's/^needs at least: GLIBC_\([0-9.]*\).*/\1/p' "$pack/MANIFEST.txt" 2>/dev/null | head -1)
  glibc_short=
  [[ -n $glibc_host && -n $glibc_need ]] || return 0
  ver_ge "$glibc_host" "$glibc_need" && return 0
  local who
  who=$(sed -n 's/^needs glibc: [^(]*(\(.*\))$/\1/p' "$pack/MANIFEST.txt" 2>/dev/null | head -1)
  glibc_short="this machine's glibc $glibc_host is older than the pack's floor $glibc_need (${who:-GLIBC_$glibc_need})"
  glibc_short+=": run it where glibc is $glibc_need or newer (Debian 12, Ubuntu 24.04, RHEL 10), or make the pack"
  glibc_short+=" (scripts/gpu-pack.sh) on a machine whose glibc is $glibc_host or older"
}

# driver_probe: nogpu (empty, or why no GPU is usable), driver, driver_cuda (the newest CUDA the
# driver supports, from nvidia-smi -q), gpu_name, arch (compute capability without the dot). One
# nvidia-smi -q, kept for the result (logs/nvidia-smi-q.txt); each call bounded (a hung driver).
driver_probe() {
  nogpu= driver= driver_cuda= gpu_name= arch=
  if have nvidia-smi; then
    if ! timeout 20 nvidia-smi -L >"$logs/nvidia-smi-L.txt" 2>&1 || ! grep -q '^GPU ' "$logs/nvidia-smi-L.txt"; then
      nogpu="nvidia-smi sees no GPU: $(head -1 "$logs/nvidia-smi-L.txt")"
      return 0
    fi
    timeout 20 nvidia-smi -q >"$logs/nvidia-smi-q.txt" 2>&1
    driver_cuda=$(sed -n 's/^ *CUDA Version *: *\([0-9][0-9.]*\).*/\1/p' "$logs/nvidia-smi-q.txt" | head -1)
    local q=(timeout 10 nvidia-smi --format=csv,noheader)
    gpu_name=$("${q[@]}" --query-gpu=name 2>/dev/null | head -1)
    driver=$("${q[@]}" --query-gpu=driver_version 2>/dev/null | head -1)
    arch=$("${q[@]}" --query-gpu=compute_cap 2>/dev/null | head -1 | tr -d ' .')
    [[ $arch =~ ^[0-9]+$ ]] || arch=
    [[ -n $gpu_name ]] || gpu_name=$(sed -n 's/^GPU 0: \(.*\) (UUID.*/\1/p' "$logs/nvidia-smi-L.txt")
  elif ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' ||
       ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
    :
  else
    nogpu="neither nvidia-smi nor libcuda.so.1 (no NVIDIA driver)"
  fi
}

# cuda_floor: cuda_need (the pack's CUDA runtime), cuda_short (empty, or why the driver refuses the
# pack's GPU binaries). Within one major version a newer runtime runs on an older driver (CUDA's
# minor version compatibility); across majors it does not.
cuda_floor() {
  cuda_need=$(manifest_field 'needs driver CUDA')
  [[ $cuda_need =~ ^[0-9] ]] ||
    cuda_need=$(sed -n 's/^CUDA: .*cuda_\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' "$pack/MANIFEST.txt" 2>/dev/null | head -1)
  cuda_short=
  [[ -n $driver_cuda && -n $cuda_need ]] || return 0
  ver_ge "${driver_cuda%%.*}" "${cuda_need%%.*}" && return 0
  cuda_short="the driver ${driver:-?} supports CUDA $driver_cuda;"
  cuda_short+=" the pack's GPU binaries carry the CUDA $cuda_need runtime"
  cuda_short+=" and need a driver for CUDA ${cuda_need%%.*} or newer"
}

# host_toolkit: host_nvcc, host_cuda (its release), host_cublaslt (the folder holding libcublasLt),
# host_why (empty when the host can build the GPU binaries itself: nvcc, cuBLASLt, cmake, a C++
# compiler and the pack's deps/, and a toolkit the driver can run).
host_toolkit() {
  host_nvcc= host_cuda= host_cublaslt= host_why=
  if have nvcc; then host_nvcc=$(command -v nvcc)
  elif [[ -x $cuda_home/bin/nvcc ]]; then host_nvcc=$cuda_home/bin/nvcc
  fi
  [[ -n $host_nvcc ]] && host_cuda=$(timeout 20 "$host_nvcc" --version 2>/dev/null |
                                     sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -1)
  local d
  for d in "$cuda_home/lib64" "$cuda_home/targets/x86_64-linux/lib"; do
    compgen -G "$d/libcublasLt.so*" >/dev/null && { host_cublaslt=$d; break; }
  done
  local lack=()
  [[ -n $host_nvcc ]] || lack+=("nvcc")
  [[ -n $host_cublaslt ]] || lack+=("cuBLASLt ($cuda_home/lib64/libcublasLt.so*)")
  have cmake || lack+=("cmake")
  have g++ || have c++ || lack+=("g++")
  [[ -d $pack/deps/usr/include/fmt ]] || lack+=("the pack's deps/")
  if ((${#lack[@]})); then
    host_why="no CUDA toolkit to build with here (missing $(joined "${lack[@]}"))"
  elif [[ -n $driver_cuda && -n $host_cuda ]] && ! ver_ge "${driver_cuda%%.*}" "${host_cuda%%.*}"; then
    host_why="this machine's CUDA toolkit $host_cuda is newer than its driver supports (CUDA $driver_cuda)"
  fi
}

# install_hint BINARY: what this host must have for BINARY, in one phrase.
install_hint() {
  case $1 in
    gpu_gemm) echo "the CUDA ${cuda_need%%.*} toolkit's cuBLASLt (/usr/local/cuda/lib64, or pip's nvidia-cublas)" \
                   "and a driver for CUDA ${cuda_need%%.*}" ;;
    gpu_transfer) echo "a driver for CUDA ${cuda_need%%.*} (or a CUDA toolkit it supports, to build here)" ;;
    gpu_model_memory|gpu_torch_peer) echo "cmake, g++, nvcc (a CUDA toolkit) and PyTorch with CUDA" ;;
  esac
}
