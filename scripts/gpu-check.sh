#!/usr/bin/env bash
# The whole GPU check on a GPU machine, in one command of at most 6 minutes, from a pack built on a
# CPU machine (scripts/gpu-pack.sh) and carried beside this source tree:
#
#   1 precheck   (<= 60 s) what this machine must have: the pack, cmake, g++, nvcc, python3 with
#                torch, the driver (nvidia-smi or libcuda.so.1), the libraries the pack's binaries
#                need; stops with one line naming everything missing
#   2 gpu facts  nvidia-smi -q, torch's versions
#   3 configure  the LibTorch targets only, against this machine's PyTorch (torch.utils.cmake_prefix_path)
#                with the pack's fmt/Google Benchmark/CLI11/fccp (deps/); GoogleTest not needed
#   4 build      gpu_model_memory and gpu_torch_peer
#   5 peers      the suite's bf16 GEMM 8192^3 and 1 GiB device-to-device copy against LibTorch's, A B
#                alternated --rounds times (default 5), 10 repetitions each
#   6 run        rigcheck run --only gpu (inventory, gpu_gemm, gpu_transfer, gpu_model_memory, report)
#   7 finish     summary.txt (one screen: suite vs torch ratios, verdicts, steps) and one archive
#
# Each step has a budget, printed as it starts, so that the whole check ends within --budget seconds
# (default 360); a step past its budget is stopped and the check goes on with what it has. Every
# log goes into the result folder: OUT/gpu-check-HOST-STAMP/ (logs/, run/, peers/, summary.txt),
# archived as OUT/gpu-check-HOST-STAMP.tar.gz, the summary also as OUT/summary.txt.
#
#   scripts/gpu-check.sh [--pack DIR] [--out DIR] [--profile quick|tiny] [--budget S] [--rounds N]
#                        [--jobs N] [--no-torch]
#   --pack      the pack (default: gpu-pack/ beside this script's tree)
#   --out       where the result goes (default: $OUT when set, else gpu-check-out/)
#   --no-torch  skip steps 3-5 (no LibTorch build: GPU-1 and the torch peer are not measured);
#               then cmake, g++, nvcc and python3 are not needed
#   CUDA_HOME   the toolkit (default /usr/local/cuda)
#
# Exit: 0 done, 1 done with failures (a step failed or the run had failed benchmarks), 2 usage,
# 4 no GPU here (the clean ending on a machine without one), 5 something missing (the line says what).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

pack=$root/gpu-pack
out=${OUT:-$root/gpu-check-out}
profile=quick
budget=360
rounds=5
jobs=$(nproc 2>/dev/null || echo 4)
torch=yes
while [[ $# -gt 0 ]]; do
  case $1 in
    --pack) pack=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --copy-to) out=$2; shift 2 ;;  # the old name
    --profile) profile=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-torch) torch=no; shift ;;
    -h|--help) sed -n 2,33p "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $budget =~ ^[0-9]+$ && $rounds =~ ^[0-9]+$ && $jobs =~ ^[0-9]+$ ]] || { echo "gpu-check: --budget, --rounds and --jobs want whole numbers" >&2; exit 2; }
[[ $profile == quick || $profile == tiny ]] || { echo "gpu-check: --profile quick or tiny" >&2; exit 2; }
pack=$(cd "$pack" 2>/dev/null && pwd || echo "$pack")
cuda_home=${CUDA_HOME:-/usr/local/cuda}

host=$(hostname 2>/dev/null | tr -c 'A-Za-z0-9.\n-' - || echo host)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name=gpu-check-$host-$stamp
mkdir -p "$out" || { echo "gpu-check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
res=$out/$name
logs=$res/logs
mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/rigcheck-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
exec 3>&2
exec 2> >(tee -a "$logs/gpu-check.log" >&3)
say() { printf '[gpu-check %4ss] %s\n' "$(elapsed)" "$*" >&2; }
steps=()  # "name seconds status" per step, for the summary
step_start=0
step_name=
# step NAME CAP MIN_AFTER: starts a step whose budget is CAP seconds, less if the steps after it
# need MIN_AFTER seconds of what is left; prints the budget; sets $step_budget.
step() {
  step_name=$1
  local cap=$2 after=$3 left=$((budget - $(elapsed)))
  step_budget=$((left - after))
  ((step_budget > cap)) && step_budget=$cap
  ((step_budget < 5)) && step_budget=5
  step_start=$(date +%s)
  say "step $step_name: budget ${step_budget} s (${left} s of ${budget} left)"
}
step_done() {  # STATUS
  steps+=("$step_name $(($(date +%s) - step_start))s $1")
  say "step $step_name: $1 after $(($(date +%s) - step_start)) s"
}

finish() {  # EXIT_CODE HEADLINE
  local rc=$1 headline=$2
  {
    echo "rigcheck GPU check, $host, $stamp: $headline"
    [[ -n ${gpu_name:-} ]] && echo "GPU: $gpu_name; driver ${driver:-?}; ${torch_line:-no torch}"
    local joined
    joined=$(printf '%s | ' "${steps[@]}")
    echo "steps: ${joined% | }; total $(elapsed) s of $budget"
    [[ -s $res/peers/ratios.txt ]] && cat "$res/peers/ratios.txt"
    [[ -s $res/verdicts.txt ]] && cat "$res/verdicts.txt"
    [[ -s $res/benchmarks.txt ]] && cat "$res/benchmarks.txt"
    echo "result: $res (logs in logs/)"
    echo "archive: $out/$name.tar.gz"
  } >"$res/summary.txt"
  cp "$res/summary.txt" "$out/summary.txt"
  tar -C "$out" -czf "$out/$name.tar.gz" "$name" 2>>"$logs/gpu-check.log"
  local size
  size=$(stat -c %s "$out/$name.tar.gz" 2>/dev/null || echo 0)
  if ((size > 16 * 1048576)); then
    # Over 16 MiB: keep the logs, the summary and the run's CSVs and report, drop the rest.
    tar -C "$out" -czf "$out/$name.tar.gz" --exclude='*.html' --exclude='*.svg' "$name"
  fi
  echo >&2
  cat "$res/summary.txt" >&2
  exit "$rc"
}

# ------------------------------------------------------------------ 1 precheck
step precheck 60 0
missing=()
nogpu=
have() { command -v "$1" >/dev/null 2>&1; }
{
  echo "PATH=$PATH"
  echo "pack: $pack"
  cat "$pack/MANIFEST.txt" 2>/dev/null || echo "no $pack/MANIFEST.txt"
} >"$logs/precheck.log"
for f in bin/rigcheck bin/gpu_gemm bin/gpu_transfer share/rigcheck/data/claims.csv; do
  [[ -e $pack/$f ]] || missing+=("the pack's $f (build it on a CPU machine: scripts/gpu-pack.sh, and carry $pack)")
done
# The driver: nvidia-smi, else libcuda.so.1 where the loader finds it.
driver_how=
if have nvidia-smi; then
  driver_how=nvidia-smi
  if ! nvidia-smi -L >"$logs/nvidia-smi-L.txt" 2>&1 || ! grep -q '^GPU ' "$logs/nvidia-smi-L.txt"; then
    nogpu="nvidia-smi sees no GPU: $(head -1 "$logs/nvidia-smi-L.txt")"
  fi
elif ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
  driver_how=libcuda.so.1
else
  nogpu="neither nvidia-smi nor libcuda.so.1 (no NVIDIA driver)"
fi
nvcc=
torch_prefix=
if [[ $torch == yes ]]; then
  have cmake || missing+=("cmake")
  have g++ || have c++ || missing+=("g++")
  if have nvcc; then nvcc=$(command -v nvcc)
  elif [[ -x $cuda_home/bin/nvcc ]]; then nvcc=$cuda_home/bin/nvcc
  else missing+=("nvcc (not on PATH, not $cuda_home/bin/nvcc: set CUDA_HOME)")
  fi
fi
# Python: torch (its version, CUDA, CMake prefix) and the folders of pip's NVIDIA libraries
# (cuBLAS, NCCL, cuDNN for the pack's binaries and the inventory).
pylibs=
if have python3; then
  # The only Python run: where pip's packages are, and torch's facts (key=value lines).
  timeout 45 python3 -c 'import site; print("site=" + ":".join(site.getsitepackages() + [site.getusersitepackages()]))
try:
    import torch; print("torch_version=" + torch.__version__); print("torch_cuda=" + str(torch.version.cuda))
    print("torch_cmake=" + torch.utils.cmake_prefix_path); print("torch_cudnn=" + str(torch.backends.cudnn.version()))
except Exception as e: print("torch_error=" + str(e).split("\n")[0])' >"$work/py.txt" 2>"$logs/python.log" </dev/null
  IFS=: read -ra sites <<<"$(sed -n 's/^site=//p' "$work/py.txt")"
  for sp in "${sites[@]}"; do
    for d in "$sp"/nvidia/*/lib; do [[ -d $d ]] && pylibs+=${pylibs:+:}$d; done
  done
  echo "pylibs=$pylibs" >>"$work/py.txt"
  cat "$work/py.txt" >>"$logs/precheck.log"
  pylibs=$(sed -n 's/^pylibs=//p' "$work/py.txt")
  torch_prefix=$(sed -n 's/^torch_cmake=//p' "$work/py.txt")
  torch_line="torch $(sed -n 's/^torch_version=//p' "$work/py.txt") (CUDA $(sed -n 's/^torch_cuda=//p' "$work/py.txt"), cuDNN $(sed -n 's/^torch_cudnn=//p' "$work/py.txt"))"
  if [[ $torch == yes ]]; then
    if [[ -z $torch_prefix ]]; then
      missing+=("python3 with torch ($(sed -n 's/^torch_error=//p' "$work/py.txt" | head -1))")
    elif [[ $(sed -n 's/^torch_cuda=//p' "$work/py.txt") == None ]]; then
      missing+=("a CUDA build of torch (this one is CPU-only: $(sed -n 's/^torch_version=//p' "$work/py.txt"))")
    fi
  fi
elif [[ $torch == yes ]]; then
  missing+=("python3 (with torch)")
fi
if [[ $torch == yes && ! -d $pack/deps/usr/include/fmt ]]; then missing+=("the pack's deps/ (fmt, Google Benchmark, CLI11, fccp for the LibTorch build)"); fi
export LD_LIBRARY_PATH=${pylibs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >>"$logs/precheck.log"
# The pack's binaries: every library resolved (the driver's are opened at run time, not listed).
for b in rigcheck gpu_gemm gpu_transfer comm_allreduce_nccl; do
  [[ -x $pack/bin/$b ]] || continue
  ldd "$pack/bin/$b" >"$logs/ldd-$b.txt" 2>&1
  while read -r lib _; do
    [[ $b == comm_allreduce_nccl ]] && { say "note: $lib not found: comm_allreduce_nccl will not run (not part of this check)"; continue; }
    missing+=("$lib (needed by the pack's $b)")
  done < <(grep 'not found' "$logs/ldd-$b.txt" | sed 's/=>.*//;s/^[[:space:]]*//' | sort -u)
done
if [[ -n $nogpu ]]; then
  echo "no GPU: $nogpu" >>"$logs/precheck.log"
  step_done "no GPU"
  line="no GPU here: $nogpu"
  ((${#missing[@]})) && line+="; also missing: $(IFS=';'; echo "${missing[*]}")"
  say "$line"
  finish 4 "$line"
fi
if ((${#missing[@]})); then
  line="missing: $(IFS=';'; echo "${missing[*]}")"
  echo "$line" >>"$logs/precheck.log"
  step_done "stopped"
  say "STOP: $line"
  finish 5 "$line"
fi
step_done ok

# ------------------------------------------------------------------ 2 gpu facts
step "gpu facts" 15 200
if have nvidia-smi; then
  timeout "$step_budget" nvidia-smi -q >"$logs/nvidia-smi-q.txt" 2>&1
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
fi
gpu_name=${gpu_name:-unknown (no nvidia-smi)}
arch=${arch:-90}
say "GPU: $gpu_name, sm_$arch, driver ${driver:-?}; ${torch_line:-}"
step_done ok

# ------------------------------------------------------------------ 3, 4 the LibTorch targets
run_bin=$work/run/bin
mkdir -p "$run_bin"
cp -a "$pack"/bin/. "$run_bin/"
ln -s "$pack/lib" "$work/run/lib"
ln -s "$pack/share" "$work/run/share"
torch_built=no
if [[ $torch == yes ]]; then
  step configure 60 200
  bt=$work/build-torch
  gen=()
  have ninja && gen=(-G Ninja)
  # fmt first: LibTorch ships newer fmt headers in its include folder, which would otherwise be
  # found before the pack's and not match its libfmt.
  timeout "$step_budget" cmake -S "$root" -B "$bt" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$pack/deps/usr;$torch_prefix" -DCMAKE_CXX_FLAGS="-I$pack/deps/fmt-first" \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DRIGCHECK_WITH_CUDA=OFF -DRIGCHECK_WITH_NCCL=OFF -DRIGCHECK_WITH_MPI=OFF \
    -DRIGCHECK_WITH_DNNL=OFF -DRIGCHECK_WITH_OPENBLAS=OFF -DRIGCHECK_WITH_HWLOC=OFF -DRIGCHECK_WITH_CPUINFO=OFF \
    -DCUDAToolkit_ROOT="$cuda_home" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DTORCH_CUDA_ARCH_LIST="${arch:0:-1}.${arch: -1}" >"$logs/configure.log" 2>&1
  crc=$?
  grep -E '^(fmt|benchmark|Torch|Caffe2|CUDAToolkit)_DIR|^CUDAToolkit_|^RIGCHECK_WITH_TORCH' "$bt/CMakeCache.txt" >>"$logs/configure.log" 2>/dev/null
  if [[ $crc -eq 0 ]] && grep -q "^RIGCHECK_WITH_TORCH:BOOL=ON" "$bt/CMakeCache.txt" 2>/dev/null; then
    grep -E "gpu: LibTorch with CUDA|NCCL library|TORCH" "$logs/configure.log" | head -3 >&2
    step_done ok
    step build 150 150
    timeout "$step_budget" cmake --build "$bt" -j "$jobs" --target gpu_model_memory gpu_torch_peer >"$logs/build.log" 2>&1
    brc=$?
    for b in gpu_model_memory gpu_torch_peer; do
      if [[ -x $bt/bin/$b ]]; then
        cp "$bt/bin/$b" "$run_bin/$b" && rm -f "$run_bin/$b.not-built"
      else
        printf %s "not built by scripts/gpu-check.sh: see logs/build.log in the check's result" >"$run_bin/$b.not-built"
      fi
    done
    if [[ $brc -eq 0 && -x $run_bin/gpu_model_memory && -x $run_bin/gpu_torch_peer ]]; then
      torch_built=yes
      step_done ok
    else
      grep -E "error|Error" "$logs/build.log" | head -10 >&2
      step_done "failed (exit $brc$([[ $brc -eq 124 ]] && echo ': over budget'); logs/build.log)"
    fi
  else
    tail -15 "$logs/configure.log" >&2
    step_done "failed (exit $crc$([[ $crc -eq 124 ]] && echo ': over budget'); logs/configure.log: no GPU-1, no torch peer)"
  fi
fi

# ------------------------------------------------------------------ 5 peers, A B alternated
mkdir -p "$res/peers"
if [[ $torch_built == yes && $profile != tiny ]]; then
  step peers 75 110
  peer_deadline=$(($(date +%s) + step_budget))
  peer() {  # STEM BINARY ARGS...
    local stem=$1 exe=$2 left=$((peer_deadline - $(date +%s)))
    shift 2
    ((left > 2)) || return 1
    timeout "$left" "$run_bin/$exe" --profile quick --out "$res/peers" --stem "$stem" --run-id peers --reps 10 "$@" \
      >>"$logs/peers.log" 2>&1 || say "$stem: exit $?"
  }
  done_rounds=0
  for ((r = 1; r <= rounds; r++)); do
    peer "suite_gemm_$r" gpu_gemm --filter '^gpu_gemm/bf16/n8192$' &&
      peer "torch_$r" gpu_torch_peer --filter '^torch_peer/(matmul_bf16/n8192|copy/1024MiB)$' --sizes 1G &&
      peer "suite_copy_$r" gpu_transfer --filter '^gpu_transfer/d2d/1024MiB$' --sizes 1G || break
    done_rounds=$r
  done
  step_done "$done_rounds of $rounds rounds"
fi
# Medians over every ok repetition of a case and metric in files STEM_*.csv, and per round.
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.6g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
vals() {  # FILES CASE METRIC
  cat $1 2>/dev/null | awk -F, -v c="$2" -v m="$3" '$4 == c && $6 == m && $10 == "ok" && $9 >= 0 { print $7 }'
}
{
  printf 'suite vs torch (%s): median over rounds of 10 repetitions; per-round ratios in brackets\n' \
    "$(ls "$res"/peers/suite_gemm_*.csv 2>/dev/null | wc -l) alternation(s)"
  for row in "bf16 GEMM 8192^3|suite_gemm|bf16/n8192|torch|matmul_bf16/n8192|gflops|1e-3|TFLOP/s|0.97" \
             "D2D copy 1 GiB|suite_copy|d2d/1024MiB|torch|copy/1024MiB|gbps|1|GB/s|0.95"; do
    IFS='|' read -r what sa ca sb cb metric scale unit want <<<"$row"
    a=$(vals "$res/peers/${sa}_*.csv" "$ca" "$metric" | med)
    b=$(vals "$res/peers/${sb}_*.csv" "$cb" "$metric" | med)
    per=
    for ((r = 1; r <= rounds; r++)); do
      x=$(vals "$res/peers/${sa}_$r.csv" "$ca" "$metric" | med)
      y=$(vals "$res/peers/${sb}_$r.csv" "$cb" "$metric" | med)
      [[ -n $x && -n $y ]] && per+=$(awk -v x="$x" -v y="$y" 'BEGIN { printf " %.3f", x / y }')
    done
    if [[ -n $a && -n $b ]]; then
      awk -v w="$what" -v a="$a" -v b="$b" -v s="$scale" -v u="$unit" -v want="$want" -v per="$per" 'BEGIN {
        r = a / b; printf "  %-16s suite %.4g %s, torch %.4g %s: suite/torch %.3f (wanted >= %s: %s) [%s ]\n",
          w, a * s, u, b * s, u, r, want, (r >= want ? "yes" : "NO"), per }'
    else
      echo "  $what: not measured ($([[ $torch_built == yes ]] && echo 'see logs/peers.log' || echo 'no torch peer built'))"
    fi
  done
} >"$res/peers/ratios.txt"
[[ -s $res/peers/ratios.txt ]] && cat "$res/peers/ratios.txt" >&2

# ------------------------------------------------------------------ 6 rigcheck run --only gpu
step run 300 15
mkdir -p "$res/run"
timeout -k 10 "$step_budget" "$run_bin/rigcheck" run --profile "$profile" --only gpu --out "$res/run" \
  --timeout-scale 0.5 >"$logs/run.log" 2>&1
rrc=$?
run_dir=$(ls -d "$res"/run/*/ 2>/dev/null | head -1)
run_dir=${run_dir%/}
if [[ -n $run_dir && $rrc -ge 124 ]]; then
  # Stopped at its budget: the report of what was measured (rigcheck report finishes the folder).
  say "the run went past its budget (exit $rrc): reporting what it measured"
  timeout 20 "$run_bin/rigcheck" report "$run_dir" >>"$logs/run.log" 2>&1
fi
if [[ -n $run_dir && -f $run_dir/verdicts.csv ]]; then
  step_done "exit $rrc"
  # The verdicts with their basis, from report.md's table (| id | section | claim | guide | measured | verdict | ...).
  awk -F'|' '$2 ~ /^ (GPU|PWR|THM)-[0-9]+ $/ { v = $7; gsub(/[*]/, "", v); gsub(/^ +| +$/, "", v); id = $2; gsub(/ /, "", id)
               printf "%s %s; ", id, v }' "$run_dir/report.md" | sed 's/; $//' | fold -s -w 110 | sed '1s/^/verdicts: /;2,$s/^/  /' >"$res/verdicts.txt"
  echo >>"$res/verdicts.txt"
  awk -F, 'NR > 1 { printf "%s %s; ", $1, $5 }' "$run_dir/manifest.csv" | sed 's/; $//;s/^/benchmarks: /' >"$res/benchmarks.txt"
  echo >>"$res/benchmarks.txt"
else
  step_done "failed (exit $rrc, no report; logs/run.log)"
  rrc=1
fi

# ------------------------------------------------------------------ 7 finish
failed=no
[[ $rrc -ne 0 ]] && failed=yes
for s in "${steps[@]}"; do [[ $s == *failed* ]] && failed=yes; done
finish $([[ $failed == yes ]] && echo 1 || echo 0) "$([[ $failed == yes ]] && echo 'done, with failures' || echo done)"
