#!/usr/bin/env bash
# Judges a run folder made inside the emulated 2-socket machine of scripts/vm-numa.sh against what QEMU
# was told there (2 sockets x 4 cores x 2 threads, NUMA node 0 = CPUs 0-7, node 1 = CPUs 8-15; QEMU
# numbers the two threads of a core together, so CPUs 2k and 2k+1 are siblings):
#   inventory   sockets 2, physical_cores 8, hardware_threads 16, threads_per_core 2, numa_nodes 2,
#               and numa_node_layout's CPUs per node as above;
#   sweep       cpu_gemm has a row of 8 threads on 8 distinct cores, compact (the physical cores) and
#               one of 16 threads placed +smt (the SMT point);
#   one node    every row of 4 threads or fewer (one node's cores) names one NUMA node, its CPUs are
#               as many as its threads and all on that node (by QEMU's map, not the suite's own), and
#               its note says nothing of a failed memory binding (set_mempolicy), and its memory_nodes
#               say its memory was bound to that node (or, for a remote-memory case, to its memory_node);
#   per node    memory_bandwidth has rows on each NUMA node alone (node 0 and node 1);
#   matrix      memory_latency_numa has ns_per_load rows from each node's cores to each node's memory
#               (cpu0/mem0, cpu0/mem1, cpu1/mem0, cpu1/mem1), each bound as its name says;
#   emulated    the inventory's `emulated` is `yes: ...`, every timing row (unit s or a rate, x/s) is
#               not ok and its note says it was timed under emulation;
#   kernel      io_fio_tmpfs (fio on tmpfs, whose O_DIRECT Linux refuses before 6.6: the guest boots
#               Debian 12's 6.1) ended ok or skipped with a reason in manifest.csv, never failed;
#   verdicts    no verdict of verdicts.csv rests on timings (basis measured, predicted or emulated)
#               unless it is not_measurable or no_benchmark.
# Prints ok/FAIL per assertion, the offending rows (at most 5 each); exit 1 when one fails, 2 on usage.
#   tests/vm/vm_numa_check.sh RUN_FOLDER
set -euo pipefail
run=${1:?usage: vm_numa_check.sh RUN_FOLDER}
[[ -d $run ]] || { echo "vm_numa_check: $run is not a folder" >&2; exit 2; }
for f in inventory.csv cpu_gemm.csv memory_bandwidth.csv memory_latency.csv manifest.csv verdicts.csv; do
  [[ -f $run/$f ]] || { echo "vm_numa_check: no $f in $run" >&2; exit 2; }
done
failed=0
ok() { echo "ok: $*"; }
bad() {
  echo "FAIL: $*"
  failed=1
}
# One result file's rows, one a line, tab-separated: file, benchmark, case, metric, unit, status,
# threads, cpus (expanded, comma-separated), numa_nodes, placement, note, memory_nodes, memory_node
# (a per-node case's requested memory node). Quoted CSV fields may hold
# commas (params and notes do; mawk has no FPAT): tests/support/split_csv.awk.
split_csv=$(cat "$(dirname "$0")/../support/split_csv.awk")
rows_of() {
  awk -v file="$(basename "$1")" "$split_csv"'
    function expand(list,   parts, n, i, ab, j, out) {
      out = ""
      n = split(list, parts, ",")
      for (i = 1; i <= n; i++) {
        if (split(parts[i], ab, "-") == 2) { for (j = ab[1] + 0; j <= ab[2] + 0; j++) out = out (out == "" ? "" : ",") j }
        else out = out (out == "" ? "" : ",") parts[i]
      }
      return out
    }
    NR == 1 { if ($0 !~ /^schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status,note/) exit; next }
    {
      split_csv($0, f)
      delete p
      np = split(f[5], kv, ";")
      for (i = 1; i <= np; i++) { k = kv[i]; sub(/=.*/, "", k); v = kv[i]; sub(/^[^=]*=/, "", v); p[k] = v }
      note = f[11]; gsub(/\t/, " ", note)
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", file, f[3], f[4], f[6], f[8], f[10], p["threads"], expand(p["cpus"]), p["numa_nodes"], p["placement"], note, p["memory_nodes"], p["memory_node"]
    }' "$1"
}
rows=$(for csv in "$run"/*.csv; do rows_of "$csv"; done)
fact() { awk -F, -v k="$1" '$1 == k { sub(/^[^,]*,/, ""); gsub(/"/, ""); print; exit }' "$run/inventory.csv"; }
first5() { head -5 | sed 's/^/    /'; }

# ------------------------------------------------------------------ inventory: what QEMU was told
want="sockets=2 physical_cores=8 hardware_threads=16 threads_per_core=2 numa_nodes=2"
got=$(for kv in $want; do echo -n "${kv%%=*}=$(fact "${kv%%=*}") "; done)
if [[ ${got% } == "$want" ]]; then ok "inventory: $want (machine_shape: $(fact machine_shape))"; else bad "inventory: expected $want, found ${got% }"; fi
layout=$(fact numa_node_layout | tr ';' '\n' | awk -F: '{ print $1 ":" $3 }' | tr '\n' ' ')
if [[ $layout == "0:0-7 1:8-15 " ]]; then ok "inventory: node 0 holds CPUs 0-7, node 1 CPUs 8-15"; else bad "inventory: numa_node_layout's CPUs are '$layout', expected '0:0-7 1:8-15'"; fi

# ------------------------------------------------------------------ cpu_gemm's sweep: 8 cores, then SMT
gemm=$(awk -F'\t' '$1 == "cpu_gemm.csv" && $7 != ""' <<<"$rows")
# 8 threads on 8 distinct cores (CPU c is on core int(c/2)), placed compactly without siblings.
cores8=$(awk -F'\t' '$7 == 8 && $10 == "compact" {
  n = split($8, c, ","); delete core; k = 0
  for (i = 1; i <= n; i++) if (!(int(c[i] / 2) in core)) { core[int(c[i] / 2)] = 1; k++ }
  if (n == 8 && k == 8) { print $3; exit } }' <<<"$gemm")
if [[ -n $cores8 ]]; then ok "cpu_gemm reaches the 8 physical cores ($cores8)"; else bad "cpu_gemm has no row of 8 threads on 8 distinct cores placed compact (threads seen: $(cut -f7 <<<"$gemm" | sort -nu | tr '\n' ' '))"; fi
smt16=$(awk -F'\t' '$7 == 16 && $10 ~ /\+smt$/ && split($8, c, ",") == 16 { print $3; exit }' <<<"$gemm")
if [[ -n $smt16 ]]; then ok "cpu_gemm reaches the SMT point, 16 threads on 16 CPUs ($smt16)"; else bad "cpu_gemm does not reach the SMT point: no row of 16 threads placed +smt on 16 CPUs"; fi

# ------------------------------------------------------------------ rows of one node's cores or fewer
# node_of(c): 0 for CPUs 0-7, 1 for 8-15 (QEMU's -numa node,cpus=).
one_node=$(awk -F'\t' '$7 != "" && $7 + 0 <= 4 {
  n = split($8, c, ","); why = ""
  if ($9 !~ /^[01]$/) why = "numa_nodes=" $9
  else if (n != $7) why = n " CPUs (" $8 ") for " $7 " threads"
  else for (i = 1; i <= n; i++) if (int(c[i] / 8) != $9 + 0) why = "CPU " c[i] " is not on node " $9
  if (why == "" && $11 ~ /set_mempolicy/) why = "memory binding failed: " $11
  if (why == "" && $12 != ($13 != "" ? $13 : $9)) why = "memory_nodes=" $12 " (expected " ($13 != "" ? $13 : $9) ")"
  if (why != "") printf "BAD %s %s/%s %s: %s\n", $1, $2, $3, $4, why; else print "GOOD"
}' <<<"$rows")
n_good=$(grep -c '^GOOD' <<<"$one_node" || true)
n_bad=$(grep -c '^BAD' <<<"$one_node" || true)
per_file=$(awk -F'\t' '$7 != "" && $7 + 0 <= 4 { n[$1]++ } END { for (f in n) printf "%s %d, ", f, n[f] }' <<<"$rows")
if ((n_bad > 0)); then
  bad "$n_bad of $((n_good + n_bad)) rows of 4 threads or fewer are not on one NUMA node:"
  grep '^BAD' <<<"$one_node" | cut -c5- | first5
elif [[ $per_file != *cpu_gemm.csv* || $per_file != *memory_bandwidth.csv* ]]; then
  bad "rows of 4 threads or fewer: cpu_gemm and memory_bandwidth must both have some (found: ${per_file:-none})"
else
  ok "$n_good rows of 4 threads or fewer each on one NUMA node, CPUs and memory (${per_file%, })"
fi

# ------------------------------------------------------------------ memory_bandwidth per node
for node in 0 1; do
  c=$(awk -F'\t' -v n="$node" '$1 == "memory_bandwidth.csv" && $9 == n && $4 != "check_wrong"' <<<"$rows" | cut -f3 | sort -u | wc -l)
  if ((c > 0)); then ok "memory_bandwidth has cases on NUMA node $node alone: $c"
  else bad "memory_bandwidth has no case on NUMA node $node alone (per-node STREAM rows: threads and memory on that node)"; fi
done

# ------------------------------------------------------------------ the latency matrix
for pair in 0:0 0:1 1:0 1:1; do
  cpu=${pair%:*} mem=${pair#*:}
  c=$(awk -F'\t' -v name="cpu$cpu/mem$mem" -v cpu="$cpu" -v mem="$mem" '$1 == "memory_latency.csv" &&
    $2 == "memory_latency_numa" && $3 == name && $4 == "ns_per_load" && $9 == cpu && $12 == mem' <<<"$rows" | wc -l)
  if ((c > 0)); then ok "memory_latency_numa cpu$cpu/mem$mem: $c ns_per_load rows, CPU on node $cpu, memory on node $mem"
  else bad "memory_latency_numa has no ns_per_load row cpu$cpu/mem$mem with its CPU on node $cpu and its memory on node $mem"; fi
done

# ------------------------------------------------------------------ emulation: every timing mistrusted
emulated=$(fact emulated)
if [[ $emulated == yes* ]]; then ok "inventory: emulated = $emulated"; else bad "inventory: emulated = '$emulated' under QEMU TCG, expected 'yes: ...' (virtualization: $(fact virtualization))"; fi
timing=$(awk -F'\t' '$5 == "s" || $5 ~ /\/s$/' <<<"$rows")
n_timing=$(grep -c . <<<"$timing" || true)
trusted=$(awk -F'\t' '$6 == "ok" || tolower($11) !~ /emulat/ { printf "%s %s/%s %s: %s, note \"%s\"\n", $1, $2, $3, $4, $6, substr($11, 1, 100) }' <<<"$timing")
if ((n_timing == 0)); then bad "no timing rows (unit s or x/s) in the run"
elif [[ -n $trusted ]]; then
  bad "$(grep -c . <<<"$trusted") of $n_timing timing rows are ok or not said to be emulated:"
  first5 <<<"$trusted"
else ok "all $n_timing timing rows are mistrusted as emulated"; fi

# ------------------------------------------------------------------ fio on tmpfs under the guest's kernel
fio_line=$(grep '^io_fio_tmpfs,' "$run/manifest.csv" || true)
fio_status=$(awk -F, '{ print $5 }' <<<"$fio_line")
if [[ $fio_status == ok ]]; then ok "io_fio_tmpfs ran under kernel $(fact kernel)"
elif [[ $fio_status == skipped && $fio_line == *needs* || $fio_status == skipped && $fio_line == *O_DIRECT* ]]; then
  ok "io_fio_tmpfs skipped with its reason under kernel $(fact kernel)"
else bad "io_fio_tmpfs under kernel $(fact kernel): status '${fio_status:-absent}' (expected ok, or skipped with a reason): ${fio_line:0:200}"; fi

# ------------------------------------------------------------------ verdicts: none from a timing
judged=$(sed 's/"[^"]*"/Q/g' "$run/verdicts.csv" | awk -F, 'NR > 1 && ($15 == "measured" || $15 == "predicted" || $15 == "emulated") && $4 != "not_measurable" && $4 != "no_benchmark" { print $1 " " $4 " (basis " $15 ")" }')
if [[ -n $judged ]]; then
  bad "verdicts measured from emulated timings:"
  first5 <<<"$judged"
else ok "no verdict rests on a timing ($(tail -n +2 "$run/verdicts.csv" | wc -l) verdicts)"; fi

echo "vm_numa_check: $run: $( ((failed)) && echo FAILED || echo passed)"
exit "$failed"
