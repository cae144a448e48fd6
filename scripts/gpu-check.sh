#!/usr/bin/env bash
# The whole GPU check on a GPU machine, in one command of at most 8 minutes (--budget), from a pack
# built on a CPU machine (scripts/gpu-pack.sh) and carried beside this source tree:
#
#   1 precheck   (<= 20 s) the floors first, in seconds: the pack's files, this machine's glibc
#                against the pack's (MANIFEST.txt), the driver (nvidia-smi) and the CUDA version it
#                supports against the pack's CUDA runtime, a CUDA toolkit to build with; a floor
#                that nothing here can get round stops the check there (exit 5) with the reason.
#                Then python3 with a CUDA torch, the libraries each pack binary needs. Then the plan
#                (scripts/lib/gpu-check-plan.sh): each step's cap, in the order that protects the
#                claims, what it leaves out for time and what this host cannot measure, printed
#                before anything runs
#   2 configure  this machine's build, only when the plan has one: the LibTorch targets against its
#                PyTorch (torch.utils.cmake_prefix_path), and gpu_gemm/gpu_transfer with its own CUDA
#                toolkit where the pack's cannot run here; the pack's fmt/Google Benchmark/CLI11/fccp
#   3 build      those targets
#   4 run        rigcheck run of the planned gpu benchmarks, in the plan's order, each stopped at its
#                cap: gpu_gemm (GPU-3/4, PWR-1/2, THM-1), gpu_model_memory (GPU-1), gpu_transfer
#   5 peers      the suite's bf16 GEMM 8192^3 and 1 GiB device-to-device copy against LibTorch's, A B
#                alternated up to --rounds times in the time left (10 repetitions each)
#   6 finish     summary.txt (one screen) and one archive
#
# Degrade where a part can go without: without the torch side GPU-1 and the peers are left out and
# the summary says `torch side: not available (missing X)`; a GPU binary neither the pack nor this
# machine's toolkit gives is recorded not_built with the reason, and the summary names the claims
# this host cannot measure and what it needs.
#
# What it leaves in OUT, and nothing else (a GPU machine gives back at most 8 files, two folders down):
#   OUT/preflight.txt                what the precheck found and the plan (written first: there even if
#                                    the check is killed)
#   OUT/summary.txt                  the headline, GPU/driver/torch versions, the plan, each step's time
#                                    and outcome, the suite/torch ratios and each side's method, every GPU verdict
#   OUT/gpu-check-HOST-STAMP.tar.gz  the result folder (logs/, run/, peers/, summary.txt); it exists only
#                                    in the archive (built in a temporary folder)
#
#   scripts/gpu-check.sh [--pack DIR] [--out DIR] [--profile quick|tiny] [--budget S] [--rounds N]
#                        [--jobs N] [--no-torch] [--plan-only]
#   --pack       the pack (default: gpu-pack/ beside this script's tree)
#   --out        where the result goes (default: $OUT when set, else gpu-check-out/)
#   --budget     seconds for the whole check (default 480): the plan takes what fits
#   --no-torch   no LibTorch build: GPU-1 and the torch peer are not measured
#   --plan-only  the precheck and the plan, then stop (exit 0 when the check could start)
#   CUDA_HOME    the toolkit (default /usr/local/cuda)
#
# Exit: 0 complete; 1 done, with failures (a step failed or the run had failed benchmarks); 2 usage;
# 3 done, with parts missing (the headline names them); 4 nothing measured: no GPU here (the clean
# ending on a machine without one; the summary still names what else is missing); 5 nothing
# measured: the pack cannot run here (a floor: glibc, the driver's CUDA; or its files; the headline
# says why).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

pack=$root/gpu-pack
out=${OUT:-$root/gpu-check-out}
profile=quick
budget=480
rounds=5
jobs=$(nproc 2>/dev/null || echo 4)
torch=yes
plan_only=no
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
    --plan-only) plan_only=yes; shift ;;
    -h|--help) sed -n 2,49p "$0"; exit 0 ;;
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
joined() { local s= x; for x; do s+=${s:+; }$x; done; echo "$s"; }

have() { command -v "$1" >/dev/null 2>&1; }
source "$root/scripts/lib/gpu-check-floors.sh"
source "$root/scripts/lib/gpu-check-plan.sh"
source "$root/scripts/lib/gpu-check-peers.sh"
declare -A bin_src=() bin_why=()  # per GPU binary: pack, host (built here) or none, and why not the pack's

finish() {  # EXIT_CODE HEADLINE
  local rc=$1 headline=$2
  {
    echo "rigcheck GPU check, $host, $stamp: $headline"
    echo "GPU: ${gpu_name:-none found}; driver ${driver:-?} (CUDA ${driver_cuda:-?}); ${torch_line:-torch: not found}"
    echo "torch side: $torch_side"
    ((${#parts[@]})) && echo "parts missing: $(joined "${parts[@]}")"
    [[ -s $res/plan.txt ]] && cat "$res/plan.txt"
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
# preflight: what the precheck found, to the result folder and (first, alone) to OUT.
preflight() {
  {
    echo "rigcheck GPU check preflight, $host, $stamp"
    echo "GPU: ${nogpu:-${gpu_name:-driver found}}; driver ${driver:-?} (CUDA ${driver_cuda:-?})"
    echo "floors: glibc ${glibc_host:-?} (the pack needs ${glibc_need:-?});" \
      "driver CUDA ${driver_cuda:-?} (the pack's runtime ${cuda_need:-?})"
    echo "CUDA toolkit here: ${host_nvcc:-none}${host_cuda:+ ($host_cuda)}${host_why:+: $host_why}"
    echo "pack: $pack: $( ((${#missing[@]})) && echo "cannot run: $(joined "${missing[@]}")" || echo usable)"
    echo "torch side: $torch_side"
    ((${#parts[@]})) && echo "parts missing: $(joined "${parts[@]}")"
    echo "${torch_line:-torch: not found}"
    [[ -s $res/plan.txt ]] && cat "$res/plan.txt"
  } | tee "$res/preflight.txt" >"$out/preflight.txt"
}

# ------------------------------------------------------------------ 1 precheck: the floors, in seconds
step precheck "${cap[precheck]}" 0
missing=()        # what the pack needs to measure anything
torch_missing=()  # what the torch side needs
{
  echo "PATH=$PATH"
  echo "pack: $pack"
  cat "$pack/MANIFEST.txt" 2>/dev/null || echo "no $pack/MANIFEST.txt"
} >"$logs/precheck.log"
for f in bin/rigcheck share/rigcheck/data/claims.csv; do
  [[ -e $pack/$f ]] || missing+=("the pack's $f (build it on a CPU machine: scripts/gpu-pack.sh, and carry $pack)")
done
glibc_floor
[[ -n $glibc_short ]] && missing+=("$glibc_short")
driver_probe
cuda_floor
host_toolkit
{
  echo "glibc: host ${glibc_host:-?}, pack ${glibc_need:-?};" \
    "driver ${driver:-?} CUDA ${driver_cuda:-?}, pack ${cuda_need:-?}"
  echo "toolkit: nvcc ${host_nvcc:-none} ${host_cuda:-}; cuBLASLt ${host_cublaslt:-none}; ${host_why:-can build here}"
} >>"$logs/precheck.log"
# A floor nothing here gets round: stop now, before Python and ldd (the GPU binaries of a pack the
# driver refuses can still come from this machine's toolkit, when it has one the driver runs).
if [[ -z $nogpu ]] && { ((${#missing[@]})) || [[ -n $cuda_short && -n $host_why ]]; }; then
  [[ -n $cuda_short && -n $host_why ]] && missing+=("$cuda_short; and $host_why")
  torch_side="not checked (stopped at the floors)"
  line="nothing measured: the pack cannot run here: $(joined "${missing[@]}")"
  preflight
  echo "$line" >>"$logs/precheck.log"
  step_done "stopped"
  say "STOP: $line"
  finish 5 "$line"
fi

# ------------------------------------------------------------------ 1 precheck: the torch side
torch_prefix=
if [[ $torch == yes ]]; then
  have cmake || torch_missing+=("cmake")
  have g++ || have c++ || torch_missing+=("g++")
  [[ -n $host_nvcc ]] || torch_missing+=("nvcc (not on PATH, not $cuda_home/bin/nvcc: set CUDA_HOME)")
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
  torch_cuda=$(sed -n 's/^torch_cuda=//p' "$work/py.txt")
  if [[ -n $torch_prefix ]]; then
    torch_line="torch $(sed -n 's/^torch_version=//p' "$work/py.txt") (CUDA $torch_cuda, cuDNN $(sed -n 's/^torch_cudnn=//p' "$work/py.txt"))"
  fi
  if [[ $torch == yes ]]; then
    if [[ -z $torch_prefix ]]; then
      torch_missing+=("python3 with torch ($(sed -n 's/^torch_error=//p' "$work/py.txt" | head -1))")
    elif [[ $torch_cuda == None ]]; then
      torch_missing+=("a CUDA build of torch (this one is CPU-only: $(sed -n 's/^torch_version=//p' "$work/py.txt"))")
    elif [[ -n $driver_cuda ]] && ! ver_ge "${driver_cuda%%.*}" "${torch_cuda%%.*}"; then
      torch_missing+=("a torch the driver runs (torch is built for CUDA $torch_cuda," \
                      "the driver supports CUDA $driver_cuda)")
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

# ------------------------------------------------------------------ 1 precheck: where each GPU binary comes from
# The pack's binaries, copied to where this check runs them: every library resolved (the driver's
# are opened at run time, not listed) and a driver for their CUDA runtime; else this machine's
# toolkit builds them; else not_built with the reason.
run_bin=$work/run/bin
mkdir -p "$run_bin"
cp -a "$pack"/bin/. "$run_bin/" 2>/dev/null
ln -s "$pack/lib" "$work/run/lib"
ln -s "$pack/share" "$work/run/share"
for b in rigcheck gpu_gemm gpu_transfer comm_allreduce_nccl; do
  why=
  if [[ ! -x $pack/bin/$b ]]; then
    why="not in the pack ($(cat "$pack/bin/$b.not-built" 2>/dev/null || echo 'not built'))"
  else
    ldd "$pack/bin/$b" >"$logs/ldd-$b.txt" 2>&1
    unresolved=$(grep 'not found' "$logs/ldd-$b.txt" | sed 's/=>.*//;s/^[[:space:]]*//;s/[[:space:]]*$//' | sort -u | tr '\n' ' ')
    unresolved=${unresolved% }
    [[ -n $unresolved ]] && why="$unresolved not found"
  fi
  case $b in
    rigcheck) [[ -n $why ]] && missing+=("$why (needed by the pack's rigcheck)"); continue ;;
    comm_allreduce_nccl)
      [[ -n $why ]] && say "note: comm_allreduce_nccl: $why: it will not run (not part of this check)"
      continue ;;
  esac
  [[ -z $why && -n $cuda_short ]] && why=$cuda_short
  if [[ -z $why ]]; then bin_src[$b]=pack; continue; fi
  rm -f "$run_bin/$b"
  if [[ -z $host_why ]]; then
    bin_src[$b]=host bin_why[$b]="the pack's: $why; built here with CUDA $host_cuda"
  else
    bin_src[$b]=none bin_why[$b]="the pack's: $why; $host_why"
    printf '%s (ldd; looked in the run path, %s and pip'"'"'s nvidia/*/lib): scripts/gpu-check.sh left it out' \
      "${bin_why[$b]}" "$cuda_home/lib64" >"$run_bin/$b.not-built"
    parts+=("$b: not_built ($why)")
  fi
done
if [[ $torch == yes ]]; then
  bin_src[gpu_model_memory]=host
else
  bin_src[gpu_model_memory]=none bin_why[gpu_model_memory]="torch side $torch_side"
  printf 'needs LibTorch, built here by scripts/gpu-check.sh: torch side %s' "$torch_side" \
    >"$run_bin/gpu_model_memory.not-built"
fi
arch=${arch:-90}
if [[ -z $nogpu ]] && ! ((${#missing[@]})); then
  plan_make
  plan_lines >"$res/plan.txt"
fi
preflight
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
while read -r l; do say "$l"; done <"$res/plan.txt"
say "GPU: $gpu_name, sm_$arch, driver ${driver:-?} (CUDA ${driver_cuda:-?}); ${torch_line:-}; torch side: $torch_side"
[[ $plan_only == yes ]] && finish 0 "plan only (--plan-only): nothing run"
for b in "${plan_out[@]}"; do
  [[ ${b% *} == gpu_gemm || ${b% *} == gpu_model_memory ]] && parts+=("${b% *}: left out for time")
done

# ------------------------------------------------------------------ 2, 3 this machine's build
torch_built=no
if ((${#plan_build[@]})); then
  step configure "${cap[configure]}" 0
  bt=$work/build-here
  gen=()
  have ninja && gen=(-G Ninja)
  with_cuda=OFF
  [[ " ${plan_build[*]} " == *" gpu_gemm "* || " ${plan_build[*]} " == *" gpu_transfer "* ]] && with_cuda=ON
  # fmt first: LibTorch ships newer fmt headers in its include folder, which would otherwise be
  # found before the pack's and not match its libfmt.
  timeout "$step_budget" cmake -S "$root" -B "$bt" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$pack/deps/usr${torch_prefix:+;$torch_prefix}" -DCMAKE_CXX_FLAGS="-I$pack/deps/fmt-first" \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DRIGCHECK_WITH_CUDA=$with_cuda \
    -DRIGCHECK_WITH_NCCL=OFF -DRIGCHECK_WITH_MPI=OFF \
    -DRIGCHECK_WITH_DNNL=OFF -DRIGCHECK_WITH_OPENBLAS=OFF -DRIGCHECK_WITH_HWLOC=OFF -DRIGCHECK_WITH_CPUINFO=OFF \
    -DRIGCHECK_WITH_TORCH=$([[ $torch == yes ]] && echo ON || echo OFF) \
    -DCUDAToolkit_ROOT="$cuda_home" -DCMAKE_CUDA_COMPILER="$host_nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DTORCH_CUDA_ARCH_LIST="${arch:0:-1}.${arch: -1}" >"$logs/configure.log" 2>&1
  crc=$?
  keys='^(fmt|benchmark|Torch|Caffe2|CUDAToolkit)_DIR|^CUDAToolkit_|^RIGCHECK_WITH_(TORCH|CUDA)'
  grep -E "$keys" "$bt/CMakeCache.txt" >>"$logs/configure.log" 2>/dev/null
  ok=yes
  [[ $crc -eq 0 ]] || ok=no
  [[ $torch == no ]] || grep -q "^RIGCHECK_WITH_TORCH:BOOL=ON" "$bt/CMakeCache.txt" 2>/dev/null || ok=no
  [[ $with_cuda == OFF ]] || grep -q "^RIGCHECK_WITH_CUDA:BOOL=ON" "$bt/CMakeCache.txt" 2>/dev/null || ok=no
  brc=$crc
  if [[ $ok == yes ]]; then
    step_done ok
    step build "${cap[build]}" 0
    timeout "$step_budget" cmake --build "$bt" -j "$jobs" --target "${plan_build[@]}" >"$logs/build.log" 2>&1
    brc=$?
  else
    tail -15 "$logs/configure.log" >&2
    step_done "failed (exit $crc$([[ $crc -eq 124 ]] && echo ': over budget'); logs/configure.log)"
  fi
  built_all=yes
  for b in "${plan_build[@]}"; do
    if [[ $ok == yes && -x $bt/bin/$b ]]; then
      cp "$bt/bin/$b" "$run_bin/$b" && rm -f "$run_bin/$b.not-built"
    else
      built_all=no
      echo -n "not built by scripts/gpu-check.sh: see logs/configure.log and logs/build.log in the check's result" \
        >"$run_bin/$b.not-built"
    fi
  done
  [[ -x $run_bin/gpu_model_memory && -x $run_bin/gpu_torch_peer && $torch == yes ]] && torch_built=yes
  if [[ $ok == yes ]]; then
    if [[ $brc -eq 0 && $built_all == yes ]]; then
      step_done ok
    else
      grep -E "error|Error" "$logs/build.log" | head -10 >&2
      step_done "failed (exit $brc$([[ $brc -eq 124 ]] && echo ': over budget'); logs/build.log)"
    fi
  fi
fi

# ------------------------------------------------------------------ 4 rigcheck run, in the plan's order
# The plan's registry: its benchmarks in its order, each timeout the plan's cap.
mkdir -p "$res/run"
plan_registry "$work/plan-benchmarks.csv"
run_cap=${cap[inventory+report]}
for b in "${plan_bench[@]}"; do [[ -x $run_bin/$b ]] && run_cap=$((run_cap + cap[$b])); done
step run "$run_cap" 0
timeout -k 10 "$step_budget" "$run_bin/rigcheck" run --profile "$profile" --out "$res/run" \
  --benchmarks "$work/plan-benchmarks.csv" --select "$(IFS=,; echo "${plan_bench[*]}")" --budget 0 \
  >"$logs/run.log" 2>&1
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

# ------------------------------------------------------------------ 5 peers, A B alternated, in the time left
run_peers
peer_ratios
[[ -s $res/peers/ratios.txt ]] && cat "$res/peers/ratios.txt" >&2

# ------------------------------------------------------------------ 6 finish
failed=no
[[ $rrc -ne 0 ]] && failed=yes
for s in "${steps[@]}"; do [[ $s == *failed* ]] && failed=yes; done
if [[ $failed == yes ]]; then
  finish 1 "done, with failures$( ((${#parts[@]})) && echo "; parts missing: $(joined "${parts[@]}")")"
elif ((${#parts[@]})); then
  finish 3 "done, with parts missing: $(joined "${parts[@]}")"
fi
finish 0 complete
