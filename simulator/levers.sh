#!/usr/bin/env bash
# Measures the market's levers: runs ./gpux sim --days 7 for each seed and each setting, then prints one
# table row per run (market efficiency, GPU utilization of the whole fleet and of the offered GPU-hours,
# interruptions, the strict notice check, preempting and cascading fills), read from the
# summary that ./gpux sim prints, so the table follows whatever measures the report has.
#
#   simulator/levers.sh [OUT_DIR]        (default target/levers; runs are kept there, one directory each)
#   SEEDS="42 7 2024" SETTINGS="base all" simulator/levers.sh
#   REUSE=1 simulator/levers.sh          (prints the table from the runs already in OUT_DIR, running only missing ones)
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
  [increment500]="--preempt-increment-bps 500"
  [night25]="--night-batch 0.25"
  [night100]="--night-batch 1.0"
  [all]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0"
  [all2000]="--preempt-increment-bps 2000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0"
  [move]="--move-when-cheaper 1000"
  [allmove]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --move-when-cheaper 1000"
  [handover]="--hand-over-on-notice"
  [allfast]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --move-when-cheaper 200 --move-every 5 --hand-over-on-notice"
  [allfast2]="--preempt-increment-bps 500 --fragment-first --calm-after-notice 0 --clearing-owners --night-batch 1.0 --move-when-cheaper 200 --move-every 5 --hand-over-on-notice"
  [allhand]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --move-when-cheaper 1000 --hand-over-on-notice"
  [baser3]="--restart-minutes 3"
  [allr3]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --restart-minutes 3"
  [allhandr3]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --move-when-cheaper 1000 --hand-over-on-notice --restart-minutes 3"
  [allstayr3]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --hand-over-on-notice --restart-minutes 3"
  [allstay2000r3]="--preempt-increment-bps 2000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --hand-over-on-notice --restart-minutes 3"
  [allfastr3]="--preempt-increment-bps 1000 --fragment-first --calm-after-notice 30 --clearing-owners --night-batch 1.0 --move-when-cheaper 200 --move-every 5 --hand-over-on-notice --restart-minutes 3"
  [allfast2r3]="--preempt-increment-bps 500 --fragment-first --calm-after-notice 0 --clearing-owners --night-batch 1.0 --move-when-cheaper 200 --move-every 5 --hand-over-on-notice --restart-minutes 3"
)
settings=${SETTINGS:-"base increment increment500 fragments calm clearing night night25 night100 all all2000 move allmove handover allhand allfast allfast2 baser3 allr3 allstayr3 allstay2000r3 allhandr3 allfastr3 allfast2r3"}
./gpux sim --help > /dev/null
printf '| setting | seed | efficiency | utilization: whole fleet | offered | interrupted | notice check | preempting fills | cascades |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for setting in $settings; do
  for seed in $seeds; do
    run="$out/$setting-$seed"
    if [[ "${REUSE:-0}" != 1 || ! -s "$run.txt" ]]; then
      # shellcheck disable=SC2086
      ./gpux sim --days 7 --seed "$seed" --quiet --out "$run" ${flags[$setting]} > "$run.txt" 2>&1 || true
    fi
    awk -v setting="$setting" -v seed="$seed" '
      /^market efficiency/ { eff = $3 " %" }
      /^GPU utilization/   { util = $3 " %"; for (i = 1; i <= NF; i++) if ($i == "offered") offered = $(i - 4) " %" }
      /^preemptions/       { pre = $2 }
      /^notice check/      { notice = $3; sub(/:$/, "", notice) }
      /^levers/            { for (i = 1; i <= NF; i++) { if ($i == "preempting") fills = $(i - 1); if ($i == "cascades") casc = $(i - 3) " " $(i + 1) " " $(i + 2) } }
      END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", setting, seed, eff, util, offered, pre, notice, fills, casc }' "$run.txt"
  done
done
