# Sourced by scripts/gpu-check.sh: the plan of one shot. Each step has a cap (it is stopped there);
# the plan takes steps in the order that protects the claims (the measurement benchmarks first:
# gpu_gemm for GPU-3/4, PWR-1/2, THM-1, then gpu_model_memory for GPU-1, each with the build it
# needs; then gpu_transfer and the torch peer comparison, which judge no claim) while the sum of
# their caps fits the budget, and names what it leaves out for time before anything starts.
# The caps are for an H100/H200-class GPU on 16 cores, with room: the quick profile's gpu_gemm
# (10 GEMMs and the sustained one, 20 s of it held) and gpu_model_memory (the zoo's training steps
# at batch 16), the LibTorch build (two translation units of ~20 s each, in parallel).
# Uses: $budget, $profile, $pack, $torch, bin_src/bin_why (from the precheck). Sets plan_* below.
declare -A cap=([precheck]=20 [configure]=40 [build]=100 [inventory+report]=20 [gpu_gemm]=120 [gpu_model_memory]=150
                [gpu_transfer]=60 [peers]=120 [finish]=5)
peers_min=40  # one alternation round of the peer comparison, with room

# claims_of BENCHMARK: the claim ids its registry description names, space-separated.
claims_of() {
  grep "^$1," "$pack/share/rigcheck/data/benchmarks.csv" 2>/dev/null | grep -oE '\b(GPU|PWR|THM)-[0-9]+' |
    sort -u | paste -sd' '
}

# plan_make: plan_steps ("NAME CAP" in the order they run), plan_bench (the benchmarks the run
# starts, in order: planned ones and those recorded not_built), plan_build (targets built here),
# plan_out ("NAME CAP" left out for time), plan_total (seconds of caps), plan_peers (yes/no).
plan_make() {
  plan_steps=("precheck ${cap[precheck]}") plan_bench=() plan_build=() plan_out=() plan_peers=no
  plan_total=$((cap[precheck] + cap[inventory+report] + cap[finish]))
  local built=no b cost
  # take NAME COST: into the plan when COST still fits the budget.
  take() { ((plan_total + $2 <= budget)) && plan_total=$((plan_total + $2)); }
  for b in gpu_gemm gpu_model_memory gpu_transfer; do
    case ${bin_src[$b]} in
      pack) cost=${cap[$b]} ;;
      host) cost=${cap[$b]}
            [[ $built == yes ]] || cost=$((cost + cap[configure] + cap[build])) ;;
      *) plan_bench+=("$b"); continue ;;  # not_built: the run records it with the reason
    esac
    if take "$b" "$cost"; then
      plan_bench+=("$b")
      if [[ ${bin_src[$b]} == host ]]; then
        built=yes
        plan_build+=("$b")
        [[ $b == gpu_model_memory ]] && plan_build+=(gpu_torch_peer)
      fi
    else
      plan_out+=("$b $cost")
      bin_why[$b]="left out for time"
    fi
  done
  if ((${#plan_build[@]})); then
    plan_steps+=("configure ${cap[configure]}" "build ${cap[build]}")
  fi
  for b in "${plan_bench[@]}"; do
    [[ ${bin_src[$b]} == pack || ${bin_src[$b]} == host ]] && plan_steps+=("$b ${cap[$b]}")
  done
  plan_steps+=("inventory+report ${cap[inventory+report]}")
  # The peers want the suite's GEMM and copy and torch's: after the run, in what time is left.
  if [[ $profile != tiny && " ${plan_build[*]} " == *" gpu_torch_peer "* && ${bin_src[gpu_gemm]} != none &&
        ${bin_src[gpu_transfer]} != none ]]; then
    if ((plan_total + peers_min <= budget)); then
      plan_peers=yes
      local p=$((budget - plan_total))
      ((p > cap[peers])) && p=${cap[peers]}
      plan_steps+=("peers $p")
      plan_total=$((plan_total + p))
    else
      plan_out+=("peers $peers_min")
    fi
  fi
  plan_steps+=("finish ${cap[finish]}")
}

# plan_lines: the plan in three lines (printed before the first step, kept in preflight.txt and
# the summary): what runs with its cap, in order; what is left out for time; what this host cannot
# measure and what it would need.
plan_lines() {
  local s items=() out=() lost=() b ids
  for s in "${plan_steps[@]}"; do
    ids=
    [[ ${s% *} == gpu_* ]] && ids=$(claims_of "${s% *}")
    items+=("${s% *} ${s##* } s${ids:+ ($ids)}")
  done
  echo "plan: $(joined "${items[@]}") = $plan_total s of $budget (caps, in this order)"
  for s in "${plan_out[@]}"; do
    if [[ ${s% *} == peers ]]; then out+=("peers (${s##* } s or more; they run if the steps before end early)")
    else out+=("${s% *} (${s##* } s)")
    fi
  done
  ((${#out[@]})) && echo "left out for time: $(joined "${out[@]}")"
  local here=()
  for b in "${plan_build[@]}"; do [[ $b == gpu_gemm || $b == gpu_transfer ]] && here+=("$b"); done
  ((${#here[@]})) && echo "built here: $(IFS=,; echo "${here[*]}" | sed 's/,/, /g') (${bin_why[${here[0]}]})"
  for b in gpu_gemm gpu_model_memory; do
    [[ ${bin_src[$b]} == none ]] || continue
    ids=$(claims_of "$b")
    lost+=("${ids:-no claim} (${b}: ${bin_why[$b]}; needs $(install_hint "$b"))")
  done
  ((${#lost[@]})) && echo "cannot measure here: $(joined "${lost[@]}")"
  return 0
}

# plan_registry FILE: the pack's registry rows of the run's benchmarks, in the plan's order, each
# timeout (tiny, quick, full) set to the plan's cap: the run stops each where the plan does.
plan_registry() {
  local f=$1 reg=$pack/share/rigcheck/data/benchmarks.csv b c
  head -1 "$reg" >"$f"
  for b in "${plan_bench[@]}"; do
    c=${cap[$b]}
    grep "^$b," "$reg" | head -1 |
      sed "s/^\(\([^,]*,\)\{6\}\)[0-9]*,[0-9]*,[0-9]*,/\1$c,$c,$c,/" >>"$f"
  done
}
