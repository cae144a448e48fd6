#!/usr/bin/env bash
# The whole GPU check on a GPU machine, in one command of at most 6 minutes, from a pack built on a
# CPU machine (scripts/gpu-pack.sh) and carried beside this source tree:
#
#   1 precheck   (<= 60 s) what this machine has: the pack, the driver (nvidia-smi or libcuda.so.1),
#                the libraries each pack binary needs, and for the torch side cmake, g++, nvcc,
#                python3 with a CUDA torch; what is missing takes out only the parts that need it
#   2 gpu facts  nvidia-smi -q, torch's versions
#   3 configure  the LibTorch targets only, against this machine's PyTorch (torch.utils.cmake_prefix_path)
#                with the pack's fmt/Google Benchmark/CLI11/fccp (deps/); GoogleTest not needed
#   4 build      gpu_model_memory and gpu_torch_peer
#   5 peers      the suite's bf16 GEMM 8192^3 and 1 GiB device-to-device copy against LibTorch's, A B
#                alternated --rounds times (default 5), 10 repetitions each
#   6 run        rigcheck run --only gpu (inventory, gpu_gemm, gpu_transfer, gpu_model_memory, report)
#   7 finish     summary.txt (one screen) and one archive
#
# Degrade, never stop: without the torch side (cmake, g++, nvcc, python3, a CUDA torch, the pack's
# deps/) steps 3-5 are left out and the summary says `torch side: not available (missing X)`; a pack
# binary whose libraries this machine lacks (gpu_gemm without cuBLASLt) is recorded not_built with
# the reason, and the rest runs. Each step has a budget, printed as it starts, so that the whole
# check ends within --budget seconds (default 360); a step past its budget is stopped and the check
# goes on with what it has.
#
# What it leaves in OUT, and nothing else (a GPU machine gives back at most 8 files, two folders down):
#   OUT/preflight.txt                what the precheck found (written first: there even if the check is killed)
#   OUT/summary.txt                  the headline, GPU/driver/torch versions, each step's time and
#                                    outcome, the suite/torch ratios and each side's method, every GPU verdict
#   OUT/gpu-check-HOST-STAMP.tar.gz  the result folder (logs/, run/, peers/, summary.txt); it exists only
#                                    in the archive (built in a temporary folder)
#
#   scripts/gpu-check.sh [--pack DIR] [--out DIR] [--profile quick|tiny] [--budget S] [--rounds N]
#                        [--jobs N] [--no-torch]
#   --pack      the pack (default: gpu-pack/ beside this script's tree)
#   --out       where the result goes (default: $OUT when set, else gpu-check-out/)
#   --no-torch  leave out steps 3-5 (no LibTorch build: GPU-1 and the torch peer are not measured)
#   CUDA_HOME   the toolkit (default /usr/local/cuda)
#
# Exit: 0 complete; 1 done, with failures (a step failed or the run had failed benchmarks); 2 usage;
# 3 done, with parts missing (the headline names them); 4 nothing measured: no GPU here (the clean
# ending on a machine without one; the summary still names what else is missing); 5 nothing
# measured: the pack itself cannot run here (the headline says why).
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
    -h|--help) sed -n 2,42p "$0"; exit 0 ;;
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
work=$(mktemp -d "${TMPDIR:-/tmp}/rigcheck-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
res=$work/$name  # the result folder: only its archive goes to $out
logs=$res/logs
mkdir -p "$logs"
exec 3>&2
exec 2> >(tee -a "$logs/gpu-check.log" >&3)
say() { printf '[gpu-check %4ss] %s\n' "$(elapsed)" "$*" >&2; }
steps=()  # "name seconds status" per step, for the summary
parts=()  # parts of the check left out, each with why
torch_side="not checked (stopped before the precheck ended)"
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
joined() { local IFS=';'; local s="$*"; echo "${s//;/; }"; }

finish() {  # EXIT_CODE HEADLINE
  local rc=$1 headline=$2
  {
    echo "rigcheck GPU check, $host, $stamp: $headline"
    echo "GPU: ${gpu_name:-none found}; driver ${driver:-?}; ${torch_line:-torch: not found}"
    echo "torch side: $torch_side"
    ((${#parts[@]})) && echo "parts missing: $(joined "${parts[@]}")"
    echo "steps: $(joined "${steps[@]}"); total $(elapsed) s of $budget"
    [[ -s $res/peers/ratios.txt ]] && cat "$res/peers/ratios.txt"
    [[ -s $res/verdicts.txt ]] && cat "$res/verdicts.txt"
    [[ -s $res/benchmarks.txt ]] && cat "$res/benchmarks.txt"
    echo "result: $name/ inside $name.tar.gz (logs/, run/, peers/)"
  } >"$res/summary.txt"
  cp "$res/summary.txt" "$out/summary.txt"
  tar -C "$work" -czf "$out/$name.tar.gz" "$name" 2>>"$logs/gpu-check.log"
  local size
  size=$(stat -c %s "$out/$name.tar.gz" 2>/dev/null || echo 0)
  if ((size > 16 * 1048576)); then
    # Over 16 MiB: keep the logs, the summary and the run's CSVs and report, drop the rest.
    tar -C "$work" -czf "$out/$name.tar.gz" --exclude='*.html' --exclude='*.svg' "$name"
  fi
  echo >&2
  cat "$res/summary.txt" >&2
  exit "$rc"
}
# Stopped (timeout, Ctrl-C): the summary and archive of what there is. stderr back to the terminal
# first: a signal to the process group also ends the tee that copies it into the log.
trap 'exec 2>&3; trap "" PIPE; trap - TERM INT; say "stopped by a signal"
      finish 1 "stopped by a signal after $(elapsed) s (what was measured is in the archive)"' TERM INT

# ------------------------------------------------------------------ 1 precheck
step precheck 60 0
missing=()        # what the pack needs to measure anything
torch_missing=()  # what the torch side needs
nogpu=
have() { command -v "$1" >/dev/null 2>&1; }
{
  echo "PATH=$PATH"
  echo "pack: $pack"
  cat "$pack/MANIFEST.txt" 2>/dev/null || echo "no $pack/MANIFEST.txt"
} >"$logs/precheck.log"
for f in bin/rigcheck share/rigcheck/data/claims.csv; do
  [[ -e $pack/$f ]] || missing+=("the pack's $f (build it on a CPU machine: scripts/gpu-pack.sh, and carry $pack)")
done
# The driver: nvidia-smi, else libcuda.so.1 where the loader finds it.
if have nvidia-smi; then
  if ! nvidia-smi -L >"$logs/nvidia-smi-L.txt" 2>&1 || ! grep -q '^GPU ' "$logs/nvidia-smi-L.txt"; then
    nogpu="nvidia-smi sees no GPU: $(head -1 "$logs/nvidia-smi-L.txt")"
  fi
elif ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' || ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 >/dev/null 2>&1; then
  :
else
  nogpu="neither nvidia-smi nor libcuda.so.1 (no NVIDIA driver)"
fi
nvcc=
torch_prefix=
if [[ $torch == yes ]]; then
  have cmake || torch_missing+=("cmake")
  have g++ || have c++ || torch_missing+=("g++")
  if have nvcc; then nvcc=$(command -v nvcc)
  elif [[ -x $cuda_home/bin/nvcc ]]; then nvcc=$cuda_home/bin/nvcc
  else torch_missing+=("nvcc (not on PATH, not $cuda_home/bin/nvcc: set CUDA_HOME)")
  fi
  [[ -d $pack/deps/usr/include/fmt ]] || torch_missing+=("the pack's deps/ (fmt, Google Benchmark, CLI11, fccp for the LibTorch build)")
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
  cat "$work/py.txt" >>"$logs/precheck.log"
  echo "pylibs=$pylibs" >>"$logs/precheck.log"
  torch_prefix=$(sed -n 's/^torch_cmake=//p' "$work/py.txt")
  if [[ -n $torch_prefix ]]; then
    torch_line="torch $(sed -n 's/^torch_version=//p' "$work/py.txt") (CUDA $(sed -n 's/^torch_cuda=//p' "$work/py.txt"), cuDNN $(sed -n 's/^torch_cudnn=//p' "$work/py.txt"))"
  fi
  if [[ $torch == yes ]]; then
    if [[ -z $torch_prefix ]]; then
      torch_missing+=("python3 with torch ($(sed -n 's/^torch_error=//p' "$work/py.txt" | head -1))")
    elif [[ $(sed -n 's/^torch_cuda=//p' "$work/py.txt") == None ]]; then
      torch_missing+=("a CUDA build of torch (this one is CPU-only: $(sed -n 's/^torch_version=//p' "$work/py.txt"))")
    fi
  fi
else
  echo "no python3: pip's NVIDIA libraries are not looked for" >>"$logs/precheck.log"
  [[ $torch == yes ]] && torch_missing+=("python3 (with torch)")
fi
if [[ $torch == no ]]; then
  torch_side="not available (--no-torch)"
elif ((${#torch_missing[@]})); then
  torch_side="not available (missing $(joined "${torch_missing[@]}"))"
  torch=no
else
  torch_side="available"
fi
[[ $torch_side == available ]] || parts+=("the torch side: no GPU-1, no torch peer, no suite/torch ratios")
export LD_LIBRARY_PATH=${pylibs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >>"$logs/precheck.log"
# The pack's binaries, copied to where this check runs them: every library resolved (the driver's
# are opened at run time, not listed); one that is not is recorded not_built with the reason.
run_bin=$work/run/bin
mkdir -p "$run_bin"
cp -a "$pack"/bin/. "$run_bin/" 2>/dev/null
ln -s "$pack/lib" "$work/run/lib"
ln -s "$pack/share" "$work/run/share"
for b in rigcheck gpu_gemm gpu_transfer comm_allreduce_nccl; do
  if [[ ! -x $pack/bin/$b ]]; then
    [[ $b == gpu_gemm || $b == gpu_transfer ]] && parts+=("$b: not in the pack ($(cat "$pack/bin/$b.not-built" 2>/dev/null || echo 'not built'))")
    continue
  fi
  ldd "$pack/bin/$b" >"$logs/ldd-$b.txt" 2>&1
  unresolved=$(grep 'not found' "$logs/ldd-$b.txt" | sed 's/=>.*//;s/^[[:space:]]*//;s/[[:space:]]*$//' | sort -u | tr '\n' ' ')
  unresolved=${unresolved% }
  [[ -n $unresolved ]] || continue
  case $b in
    rigcheck) missing+=("$unresolved (needed by the pack's rigcheck)") ;;
    comm_allreduce_nccl) say "note: $unresolved not found: comm_allreduce_nccl will not run (not part of this check)" ;;
    *)
      rm -f "$run_bin/$b"
      printf '%s' "$unresolved not found on this machine (ldd; looked in the run path, /usr/local/cuda/lib64 and pip's nvidia/*/lib): scripts/gpu-check.sh left it out" >"$run_bin/$b.not-built"
      parts+=("$b: not_built ($unresolved not found)") ;;
  esac
done
{
  echo "rigcheck GPU check preflight, $host, $stamp"
  echo "GPU: ${nogpu:-driver found}"
  echo "pack: $pack: $( ((${#missing[@]})) && echo "cannot run: $(joined "${missing[@]}")" || echo usable)"
  echo "torch side: $torch_side"
  ((${#parts[@]})) && echo "parts missing: $(joined "${parts[@]}")"
  echo "${torch_line:-torch: not found}"
} | tee "$res/preflight.txt" >"$out/preflight.txt"
if [[ -n $nogpu ]]; then
  echo "no GPU: $nogpu" >>"$logs/precheck.log"
  step_done "no GPU"
  line="nothing measured: no GPU here: $nogpu"
  ((${#missing[@]})) && line+="; the pack also lacks: $(joined "${missing[@]}")"
  say "$line"
  finish 4 "$line"
fi
if ((${#missing[@]})); then
  line="nothing measured: the pack cannot run here: missing $(joined "${missing[@]}")"
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
say "GPU: $gpu_name, sm_$arch, driver ${driver:-?}; ${torch_line:-}; torch side: $torch_side"
step_done ok

# ------------------------------------------------------------------ 3, 4 the LibTorch targets
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
done_rounds=0
if [[ $torch_built == yes && $profile != tiny && -x $run_bin/gpu_gemm && -x $run_bin/gpu_transfer ]]; then
  step peers 120 110
  peer_deadline=$(($(date +%s) + step_budget))
  peer() {  # STEM BINARY ARGS...
    local stem=$1 exe=$2 left=$((peer_deadline - $(date +%s)))
    shift 2
    ((left > 2)) || return 1
    timeout "$left" "$run_bin/$exe" --profile quick --out "$res/peers" --stem "$stem" --run-id peers --reps 10 "$@" \
      >>"$logs/peers.log" 2>&1 || say "$stem: exit $?"
  }
  for ((r = 1; r <= rounds; r++)); do
    peer "suite_gemm_$r" gpu_gemm --filter '^gpu_gemm/bf16/n8192$' &&
      peer "torch_$r" gpu_torch_peer --filter '^torch_peer/(matmul_bf16/n8192|copy/1024MiB)$' --sizes 1G &&
      peer "suite_copy_$r" gpu_transfer --filter '^gpu_transfer/d2d/1024MiB$' --sizes 1G || break
    done_rounds=$r
  done
  step_done "$done_rounds of $rounds rounds"
fi
# The median of a case's metric over the ok repetitions of result CSVs, read by the suite's own
# reader (rigcheck median): quoting, a comma in the params column and the schema are its concern.
med() {  # [--observed] CASE METRIC FILE... -> the median, or nothing
  local how=()
  [[ $1 == --observed ]] && { how=(--observed); shift; }
  local c=$1 m=$2 f
  shift 2
  local files=()
  for f in "$@"; do [[ -s $f ]] && files+=("$f"); done
  ((${#files[@]})) || return 0
  "$run_bin/rigcheck" median "${how[@]}" --case "$c" --metric "$m" "${files[@]}" 2>>"$logs/peers.log" | cut -d' ' -f1
}
{
  printf 'suite vs torch: median over %s of %s alternation round(s) of 10 repetitions; per-round ratios in brackets\n' \
    "$done_rounds" "$rounds"
  for row in "bf16 GEMM 8192^3|suite_gemm|gpu_gemm/bf16/n8192|torch|torch_peer/matmul_bf16/n8192|gflops|1e-3|TFLOP/s|0.97" \
             "D2D copy 1 GiB|suite_copy|gpu_transfer/d2d/1024MiB|torch|torch_peer/copy/1024MiB|gbps|1|GB/s|0.95"; do
    IFS='|' read -r what sa ca sb cb metric scale unit want <<<"$row"
    a=$(med "$ca" "$metric" "$res"/peers/"$sa"_*.csv)
    b=$(med "$cb" "$metric" "$res"/peers/"$sb"_*.csv)
    per=
    for ((r = 1; r <= done_rounds; r++)); do
      x=$(med "$ca" "$metric" "$res/peers/${sa}_$r.csv")
      y=$(med "$cb" "$metric" "$res/peers/${sb}_$r.csv")
      [[ -n $x && -n $y ]] && per+=$(awk -v x="$x" -v y="$y" 'BEGIN { printf " %.3f", x / y }')
    done
    if [[ -n $a && -n $b ]]; then
      awk -v w="$what" -v a="$a" -v b="$b" -v s="$scale" -v u="$unit" -v want="$want" -v per="$per" 'BEGIN {
        r = a / b; printf "  %-16s suite %.4g %s, torch %.4g %s: suite/torch %.3f (wanted >= %s: %s) [%s ]\n",
          w, a * s, u, b * s, u, r, want, (r >= want ? "yes" : "NO"), per }'
      # The second metric: one call alone between the event pair (the host's launch inside it).
      a1=$(med --observed "$ca" "single_call_$metric" "$res"/peers/"$sa"_*.csv)
      b1=$(med --observed "$cb" "single_call_$metric" "$res"/peers/"$sb"_*.csv)
      [[ -n $a1 && -n $b1 ]] && awk -v a="$a1" -v b="$b1" -v s="$scale" -v u="$unit" 'BEGIN {
        printf "  %-16s one call alone: suite %.4g %s, torch %.4g %s: suite/torch %.3f\n", "", a * s, u, b * s, u, a / b }'
    else
      echo "  $what: not measured ($([[ $torch_built == yes ]] && echo 'see logs/peers.log' || echo "torch side $torch_side"))"
    fi
  done
  if [[ $torch_built == yes ]]; then
    echo "  methods: suite GEMM cuBLASLt, TN layout (A transposed, column-major), fastest of up to 8 heuristic algorithms;"
    echo "    torch at::matmul, row-major NN, cuBLAS's default heuristic; both timed as k back-to-back calls between"
    echo "    one CUDA event pair, per call = interval / k (docs/methodology.md, gpu); copies: cudaMemcpyAsync vs Tensor::copy_"
  fi
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
  # The verdicts with their basis, from report.md's table (| [ID](#anchor) | claim | guide | measured |
  # **verdict** (basis) | why |): the id without its link, the verdict the bold cell.
  awk -F'|' '{ id = $2; gsub(/\(#[^)]*\)|[][ ]/, "", id) }
             id ~ /^(GPU|PWR|THM)-[0-9]+$/ { v = ""; for (i = 3; i <= NF; i++) if ($i ~ /[*][*]/) { v = $i; break }
               gsub(/[*]/, "", v); gsub(/^ +| +$/, "", v); print id " " v }' "$run_dir/report.md" |
    awk 'BEGIN { line = "verdicts:" } { item = $0; if (length(line) + length(item) > 108) { print line ";"; line = "  " item } else line = line (NR > 1 && line != "verdicts:" ? "; " : " ") item }
         END { print line }' >"$res/verdicts.txt"
  # Each benchmark's status from manifest.csv (benchmark,area,command,exit_code,status,...): fields
  # split at commas outside quotes (a command or reason may hold one).
  awk 'NR > 1 { n = 0; f = ""; q = 0
         for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
           if (c == "\"") q = !q; else if (c == "," && !q) { v[++n] = f; f = "" } else f = f c }
         v[++n] = f; printf "%s %s; ", v[1], v[5] }' "$run_dir/manifest.csv" | sed 's/; $//;s/^/benchmarks: /' >"$res/benchmarks.txt"
  echo >>"$res/benchmarks.txt"
else
  step_done "failed (exit $rrc, no report; logs/run.log)"
  rrc=1
fi

# ------------------------------------------------------------------ 7 finish
failed=no
[[ $rrc -ne 0 ]] && failed=yes
for s in "${steps[@]}"; do [[ $s == *failed* ]] && failed=yes; done
if [[ $failed == yes ]]; then
  finish 1 "done, with failures$( ((${#parts[@]})) && echo "; parts missing: $(joined "${parts[@]}")")"
elif ((${#parts[@]})); then
  finish 3 "done, with parts missing: $(joined "${parts[@]}")"
fi
finish 0 complete
