#!/usr/bin/env bash
# Synthetic runs of two machines over time, for the history page's test and its timing: NOT
# measurements. Made from one run folder (a fixture) by rewriting its values and inventory:
#   make_history_runs.sh BASE OUT N [RIGCHECK]
# N runs alternate between machine A (BASE's CPU) and machine B (another CPU model text, family,
# model number and core count, so that any fingerprint tells them apart; MACHINES=1: machine A
# only), ten minutes apart. Every
# rate or time of an ok row moves by a few percent from run to run (a fixed pseudo-random pattern
# per run). Of each machine's runs, from index DRIVER_AT on the NVIDIA driver is 580.65.06 (before:
# 570.86.15), from LIB_AT the oneDNN version is 3.1.0 (before: 2.6.3); on machine A only, from
# REGRESS_AT, the case HIST_REGRESS (benchmark/case, default gemm_matmul_f32/m256n256k256/t1) is 15%
# slower. OUT/expected.txt names the run of each (regression, driver, library). With RIGCHECK, a
# verdicts.csv is made by `rigcheck report` on the first run of each machine before and after the
# regression and copied to the others of that kind (one report per kind keeps it fast: the copies'
# verdicts are their kind's, not their own small noise's). A manifest with checksums gets new ones.
set -euo pipefail
base="$1" out="$2" n="$3" rigcheck="${4:-}"
machines=${MACHINES:-2}  # 1: machine A only
per=$(((n + machines - 1) / machines))
driver_at=${DRIVER_AT:-$((per * 2 / 5))} lib_at=${LIB_AT:-$((per * 7 / 10))}
regress_at=${REGRESS_AT:-$((per * 11 / 20))}
regress="${HIST_REGRESS:-gemm_matmul_f32/m256n256k256/t1}"
t0=$(date -u -d 2026-11-01T00:00:00Z +%s)
mkdir -p "$out"
name() { printf 'vm-%s-%04d' "$([[ $1 == 0 ]] && echo a || echo b)" "$2"; }  # machine, index

# The folders and their inventories.
for ((r = 0; r < n; ++r)); do
  m=$((r % machines)) k=$((r / machines))
  d="$out/$(name $m $k)"
  mkdir -p "$d"
  echo "Synthetic history run made by tests/bench/compare/make_history_runs.sh: NOT a measurement." >"$d/README.md"
  TZ=UTC printf -v when '%(%Y-%m-%dT%H:%M:%SZ)T' $((t0 + r * 600))
  driver=$([[ $k -ge $driver_at ]] && echo 580.65.06 || echo 570.86.15)
  onednn=$([[ $k -ge $lib_at ]] && echo "3.1.0 (N/A)" || echo "2.6.3 (N/A)")
  machine_b=""
  [[ $m == 1 ]] && machine_b='s/^cpu_model,.*/cpu_model,AMD EPYC 9R45/; s/^cpu_family,.*/cpu_family,26/;
    s/^cpu_model_number,.*/cpu_model_number,2/; s/^cpu_microarch,.*/cpu_microarch,zen5/;
    s/^physical_cores,.*/physical_cores,4/; s/^hardware_threads,.*/hardware_threads,4/'
  sed -e "s/^inventory_time_utc,.*/inventory_time_utc,$when/" -e "s/^hostname,.*/hostname,vm-$m/" \
      -e "s|^nvidia_driver_version,.*|nvidia_driver_version,$driver|" \
      -e "s|^onednn_version,.*|onednn_version,$onednn|" \
      -e "${machine_b:-s/^//}" "$base/inventory.csv" >"$d/inventory.csv"
  grep -q '^nvidia_driver_version,' "$d/inventory.csv" || echo "nvidia_driver_version,$driver" >>"$d/inventory.csv"
  cp "$base/manifest.csv" "$d/manifest.csv"
done

# The result files: one awk per file of BASE writes that file of every run.
for f in "$base"/*.csv; do
  file=$(basename "$f")
  [[ $file == inventory.csv || $file == manifest.csv || $file == verdicts.csv ]] && continue
  awk -F, -v OFS=, -v n="$n" -v machines="$machines" -v out="$out" -v file="$file" -v regress="$regress" \
    -v regress_at="$regress_at" '
    { line[NR] = $0 }
    END {
      for (r = 0; r < n; ++r) {
        m = r % machines; k = int(r / machines)
        id = sprintf("vm-%s-%04d", m == 0 ? "a" : "b", k)
        path = out "/" id "/" file
        srand(r * 7919 + 17)
        level = 1 + 0.01 * (rand() - 0.5) + (m == 1 ? 0.25 : 0)   # machine B: a quarter faster
        for (i = 1; i <= NR; ++i) {
          $0 = line[i]
          if (i == 1 || NF < 11) { print > path; continue }
          $2 = id
          u = $8
          if ($10 == "ok" && $9 >= 0 && (u ~ /\/s$/ || u == "IOPS" || u ~ /^(s|ms|us|ns)$/)) {
            k2 = level * (1 + 0.03 * (rand() + rand() + rand() - 1.5))
            if (m == 0 && k >= regress_at && $3 "/" $4 == regress) k2 = k2 * 0.85
            if (u ~ /^(s|ms|us|ns)$/) k2 = 1 / k2
            $7 = sprintf("%.10g", $7 * k2)
          }
          print > path
        }
        close(path)
      }
    }' "$f"
done

# A manifest with checksums: each result file's rows and SHA-256 again (the line of a file found by
# its SHA-256 in BASE, since a command may hold commas).
if head -1 "$base/manifest.csv" | grep -q ',rows,sha256$'; then
  declare -A base_sum
  for f in "$base"/*.csv; do base_sum[$(sha256sum <"$f" | cut -c1-64)]=$(basename "$f"); done
  files=("${base_sum[@]}")
  for ((r = 0; r < n; ++r)); do
    d="$out/$(name $((r % machines)) $((r / machines)))"
    declare -A now=() rows=()  # one sha256sum and one wc over the run's files
    while read -r s f; do now[${f##*/}]=$s; done < <(sha256sum -- "${files[@]/#/$d/}")
    while read -r c f; do [[ $f == total ]] || rows[${f##*/}]=$((c - 1)); done < <(wc -l -- "${files[@]/#/$d/}")
    map=""
    for sum in "${!base_sum[@]}"; do
      f="${base_sum[$sum]}"
      map+="$sum ${rows[$f]} ${now[$f]}"$'\n'
    done
    awk -F, -v OFS=, -v map="$map" '
      BEGIN { split(map, L, "\n"); for (i in L) { split(L[i], p, " "); rows[p[1]] = p[2]; sum[p[1]] = p[3] } }
      NR > 1 && ($NF in sum) { s = $NF; $(NF - 1) = rows[s]; $NF = sum[s] }
      { print }' "$d/manifest.csv" >"$d/manifest.tmp"
    mv "$d/manifest.tmp" "$d/manifest.csv"
  done
fi

{
  echo "regression $(name 0 "$regress_at") $regress"
  echo "driver $(name 0 "$driver_at")$( ((machines > 1)) && echo " $(name 1 "$driver_at")")"
  echo "library $(name 0 "$lib_at")$( ((machines > 1)) && echo " $(name 1 "$lib_at")")"
} >"$out/expected.txt"

if [[ -n $rigcheck ]]; then
  kinds=("0 0" "0 $regress_at")
  ((machines > 1)) && kinds+=("1 0")
  for kind in "${kinds[@]}"; do
    read -r m k <<<"$kind"
    "$rigcheck" report "$out/$(name "$m" "$k")" --quiet >/dev/null
    cp "$out/$(name "$m" "$k")/verdicts.csv" "$out/verdicts-$m-$k.csv"
  done
  for ((r = 0; r < n; ++r)); do
    m=$((r % machines)) k=$((r / machines))
    from="$out/verdicts-$m-0.csv"
    [[ $m == 0 && $k -ge $regress_at ]] && from="$out/verdicts-0-$regress_at.csv"
    cp "$from" "$out/$(name $m $k)/verdicts.csv"
  done
  rm -f "$out"/verdicts-*.csv
fi
echo "$n synthetic runs in $out"
