# Sourced by scripts/gpu-check.sh: the suite against LibTorch on this GPU, its bf16 GEMM 8192^3 and
# 1 GiB device-to-device copy, A B alternated in the time the plan leaves, and the ratios read
# through the suite's own CSV reader (rigcheck median).
# Uses: $run_bin, $res, $logs, $rounds, $torch_built, $profile, $budget, cap[], peers_min, step(),
# step_done(), say(), elapsed(). Sets done_rounds.

# run_peers: the rounds that fit, each suite GEMM, torch, suite copy, 10 repetitions each.
run_peers() {
  mkdir -p "$res/peers"
  done_rounds=0
  local peer_left=$((budget - $(elapsed) - cap[finish]))
  [[ $torch_built == yes && $profile != tiny && -x $run_bin/gpu_gemm && -x $run_bin/gpu_transfer ]] || return 0
  if ((peer_left < peers_min)); then
    say "peers: left out for time ($peer_left s left, one round wants $peers_min)"
    steps+=("peers left out for time")
    return 0
  fi
  step peers "${cap[peers]}" "${cap[finish]}"
  peer_deadline=$(($(date +%s) + step_budget))
  local r
  for ((r = 1; r <= rounds; r++)); do
    peer "suite_gemm_$r" gpu_gemm --filter '^gpu_gemm/bf16/n8192$' &&
      peer "torch_$r" gpu_torch_peer --filter '^torch_peer/(matmul_bf16/n8192|copy/1024MiB)$' --sizes 1G &&
      peer "suite_copy_$r" gpu_transfer --filter '^gpu_transfer/d2d/1024MiB$' --sizes 1G || break
    done_rounds=$r
  done
  step_done "$done_rounds of $rounds rounds"
}
peer() {  # STEM BINARY ARGS...
  local stem=$1 exe=$2 left=$((peer_deadline - $(date +%s)))
  shift 2
  ((left > 2)) || return 1
  timeout "$left" "$run_bin/$exe" --profile quick --out "$res/peers" --stem "$stem" --run-id peers --reps 10 "$@" \
    >>"$logs/peers.log" 2>&1 || say "$stem: exit $?"
}
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

# peer_ratios: the suite/torch lines of the summary (peers/ratios.txt).
peer_ratios() {
  local row what sa ca sb cb metric scale unit want a b per r x y a1 b1
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
}
