#!/usr/bin/env bash
# Measures the market's levers: runs ./gpux sim --days 7 for each seed and each setting, then prints one
# table row per run (market efficiency, GPU utilization, preemptions, cascading fills), read from the
# summary that ./gpux sim prints, so the table follows whatever measures the report has.
#
#   simulator/levers.sh [OUT_DIR]        (default target/levers; runs are kept there, one directory each)
#   SEEDS="42 7 2024" SETTINGS="base all" simulator/levers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/levers}
mkdir -p "$out"
seeds=${SEEDS:-"42 7 2024"}
declare -A flags=(
  [base]=""
  [increment]="--preempt-increment-bps 1000"
  [fragments]="--fragment-first"
  [calm]="--calm-after-notice 30"
  [clearing]="--clearing-owners"
  [night]="--night-batch 0.5"
  [all]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 0.5"
)
settings=${SETTINGS:-"base increment fragments calm clearing night all"}
./gpux sim --help > /dev/null
printf '| setting | seed | efficiency | utilization | interrupted | preempting fills | cascades |\n| --- | --- | --- | --- | --- | --- | --- |\n'
for setting in $settings; do
  for seed in $seeds; do
    run="$out/$setting-$seed"
    # shellcheck disable=SC2086
    ./gpux sim --days 7 --seed "$seed" --quiet --out "$run" ${flags[$setting]} > "$run.txt" 2>&1 || true
    awk -v setting="$setting" -v seed="$seed" '
      /^market efficiency/ { eff = $3 " %" }
      /^GPU utilization/   { util = $3 " %" }
      /^preemptions/       { pre = $2 }
      /^levers/            { for (i = 1; i <= NF; i++) { if ($i == "preempting") fills = $(i - 1); if ($i == "cascades") casc = $(i - 3) " " $(i + 1) " " $(i + 2) } }
      END { printf "| %s | %s | %s | %s | %s | %s | %s |\n", setting, seed, eff, util, pre, fills, casc }' "$run.txt"
  done
done
