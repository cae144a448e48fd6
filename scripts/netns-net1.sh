#!/usr/bin/env bash
# NET-1 on a shaped link: the all-reduce of 100M float32 (400 MB) over TCP on a namespace cluster
# (scripts/netns-cluster.sh) of 2 and 4 nodes at each link rate, Open MPI's ring algorithm forced
# and its default beside it, plus the 8-byte all-reduce (NET-2 context: TCP latency across the
# link, delay 0). Per case: time per all-reduce, bytes sent per node (the nodes' /proc/net/dev,
# one rank per node) against the ring formula 2(n-1)/n x S, the time the link alone would allow
# (ring bytes x 8 / rate) and which limit the figure hit.
#
#   scripts/netns-net1.sh [--nodes "2 4"] [--rates "1gbit 10gbit 25gbit"] [--reps 3] [--out DIR]
#   scripts/netns-net1.sh --summarize DIR     (the summary of an earlier sweep again)
#
# Root only (network namespaces). Writes DIR/net1-N-RATE.csv (the benchmark's rows) and
# DIR/summary.md. The link is shaped on one machine: every "node" shares its CPUs and memory, so at
# high rates the CPUs (TCP copies, the reduction) and not the link may be the limit; the summary
# says which. Takes minutes (a 1 Gbit/s 400 MB all-reduce on 4 nodes is ~5 s a call).
set -euo pipefail
nodes_list="2 4"
rates="1gbit 10gbit 25gbit"
reps=3
out=""
summarize_only=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) nodes_list=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --summarize) out=$2; summarize_only=1; shift 2 ;;  # only the summary of an earlier sweep's folder
    *) sed -n "9,10p" "$0" >&2; exit 2 ;;
  esac
done
src="$(cd "$(dirname "$0")/.." && pwd)"
bin="${RIGCHECK_BIN_DIR:-$src/build/bin}/comm_allreduce_mpi"
[[ -x $bin ]] || { echo "netns-net1: $bin not built (./scripts/build.sh)" >&2; exit 1; }
out=${out:-$src/results/netns-net1-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
id=net1
cluster="$src/scripts/netns-cluster.sh"
trap '"$cluster" --id $id down >/dev/null 2>&1 || true' EXIT
for n in $nodes_list; do
  for rate in $rates; do
    [[ $summarize_only -eq 0 ]] || continue
    "$cluster" --id $id --subnet 10.213.90 up "$n" "$rate" 0ms >"$out/up.log"
    head -1 "$out/up.log"
    # shellcheck disable=SC2046
    $(cat /run/rigcheck-netns/$id/launcher) "$bin" --profile quick --sizes 8,400000000 --algorithms ring,default \
      --modes out --transport tcp --no-net1 --reps "$reps" --min-time 0.001 --warmup 1 \
      --out "$out" --stem "net1-$n-$rate" 2>&1 | grep -v '^#'
    "$cluster" --id $id down >/dev/null
  done
done

# The summary: medians over the repetitions of each case.
{
  echo "# NET-1 on a shaped link (netns cluster, one machine: $(nproc) CPUs shared by every node)"
  echo
  echo "summarized $(date -u +%FT%TZ) from $out, $(uname -r), $(mpirun --version 2>/dev/null | head -1); $reps repetitions per case (median [min to max]); 400 MB = 100M float32, out of place, TCP (btl tcp,self) over a veth star shaped by tc tbf in both directions, delay 0"
  echo
  echo "| nodes | link | algorithm | time per all-reduce (s) | sent per node (MB) | ring formula (MB) | measured/formula | link-only time (s) | limit |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for f in "$out"/net1-*.csv; do
    awk -F, -v file="$(basename "$f")" '
      function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      function param(p, k,   m) { if (match(p, k "=[^;\"]*")) return substr(p, RSTART + length(k) + 1, RLENGTH - length(k) - 1); return "" }
      $3 == "mpi_allreduce_f32" && $0 ~ /size_bytes=400000000;/ {
        alg = param($0, "algorithm"); n = param($0, "ranks"); link = param($0, "link")
        if ($6 == "time_per_iter") { k = alg; v = $7 + 0; t[k, ++nt[k]] = v; if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
        if ($6 == "net_tx_bytes_per_rank") { k = alg; b[k, ++nb[k]] = $7 + 0 }
        if ($0 ~ /oversubscribed=yes/) over = 1
      }
      END {
        split(file, w, /[-.]/); rate = w[3]; r = rate; sub(/gbit/, "", r); bps = r * 1e9
        for (k in nt) {
          for (i = 1; i <= nt[k]; i++) tt[i] = t[k, i]; mt = median(tt, nt[k])
          for (i = 1; i <= nb[k]; i++) bb[i] = b[k, i]; mb = median(bb, nb[k])
          ring = 2 * (n - 1) / n * 400e6
          linkt = mb * 8 / bps
          x = mt / linkt
          lim = sprintf(x <= 1.5 ? "the link (%.1fx the link-only time)" : x <= 3 ? "the link and the CPUs (%.1fx the link-only time)" : "the CPUs (%.1fx the link-only time)", x)
          printf "| %d | %s | %s | %.3f [%.3f to %.3f] | %.1f | %.1f | %.3f | %.3f | %s%s |\n", n, rate, k, mt, lo[k], hi[k], mb / 1e6, ring / 1e6, mb / ring, linkt, lim, over ? "; oversubscribed: " n " ranks on " NPROC " CPUs" : ""
        }
      }' NPROC="$(nproc)" "$f"
  done | sort -t'|' -k2,2n -k3,3V -k4,4
  echo
  echo "Limit: the measured time against the time the link alone allows (bytes sent per node x 8 / rate): up to 1.5x the link, 1.5-3x the link and the CPUs, above 3x the CPUs (TCP copies through the kernel, the reduction, and with 4 nodes more ranks than CPUs). The rows' cpu_utilization and status say more."
  echo
  echo "NET-2 context: TCP 8-byte all-reduce across the link (delay 0), median per case:"
  echo
  for f in "$out"/net1-*.csv; do
    awk -F, -v file="$(basename "$f" .csv)" '
      function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      $3 == "mpi_allreduce_f32" && $0 ~ /size_bytes=8;/ && $6 == "time_per_iter" && $0 ~ /algorithm=default;/ { v[++n] = $7 + 0; st = st " " $10 }
      END { if (n) printf "- %s: %.1f us (%d repetitions; status:%s)\n", file, 1e6 * median(v, n), n, st }' "$f"
  done
} >"$out/summary.md"
cat "$out/summary.md"
