#!/usr/bin/env bash
# Runs ./gpux bench-resend-stall in the shared thread layout with the exchange's event loop (the engine thread in
# that layout) alone on the last CPU and every other thread of the JVM on the others, and records every page fault
# the engine thread takes, with its stack, then prints the 2 ms windows with the most faults and the frame each
# came from. What it found is in results/scale.md ("Where the rare millisecond comes from").
#
#   benchmarks/engine-alone.sh [OUT_DIR] [bench-resend-stall options]   (default target/engine-alone)
#   PIN=0 benchmarks/engine-alone.sh      (no pinning: the plain run, faults still recorded)
#   PERF=0 benchmarks/engine-alone.sh     (no perf: pinning only)
#
# Needs taskset, jstack and, for the faults, perf (run as root or with kernel.perf_event_paranoid <= 1). The
# JIT's symbols come from -XX:+DumpPerfMapAtExit (/tmp/perf-PID.map). Every other thread is moved every half
# second, so that threads started later follow.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/engine-alone}
shift || true
mkdir -p "$out"
cpus=$(nproc)
if (( cpus < 2 )); then
  echo "engine-alone: needs 2 CPUs or more (this machine has $cpus)" >&2
  exit 2
fi
engine_cpu=$((cpus - 1))
others="0-$((cpus - 2))"
export GPUX_JAVA_OPTS="${GPUX_JAVA_OPTS:-} -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
./gpux bench-resend-stall --threads SHARED --accounts 10000 --events 1000000 --seconds 10 --json "$out/run.json" "$@" \
  > "$out/run.txt" 2>&1 &
launcher=$!
pid=""
tid=""
for _ in $(seq 1 1200); do
  pid=$(pgrep -n -f "scale.ResendStall" || true)
  if [[ -n "$pid" ]]; then
    nid=$(jstack "$pid" 2>/dev/null | awk '/^"/{header=$0} /SharedLoop/{print header; exit}' | sed -n 's/.*nid=\(0x[0-9a-f]*\).*/\1/p')
    if [[ -n "$nid" ]]; then
      tid=$((nid))
      break
    fi
  fi
  if ! kill -0 "$launcher" 2>/dev/null; then
    break
  fi
  sleep 0.5
done
if [[ -z "$tid" ]]; then
  wait "$launcher" || true
  echo "engine-alone: the exchange's event loop was not found (see $out/run.txt)" >&2
  exit 1
fi
echo "engine thread: tid $tid of pid $pid; CPU $engine_cpu for it, $others for the rest (PIN=${PIN:-1})" | tee "$out/threads.txt"
perf_pid=""
if [[ "${PERF:-1}" != 0 ]]; then
  perf record -e page-faults -c 1 -g -d -T -t "$tid" -o "$out/faults.perf" > "$out/perf.log" 2>&1 &
  perf_pid=$!
fi
while kill -0 "$pid" 2>/dev/null; do
  if [[ "${PIN:-1}" != 0 ]]; then
    for task in /proc/"$pid"/task/*; do
      t=${task##*/}
      if [[ "$t" == "$tid" ]]; then
        taskset -p -c "$engine_cpu" "$t" > /dev/null 2>&1 || true
      else
        taskset -p -c "$others" "$t" > /dev/null 2>&1 || true
      fi
    done
  fi
  sleep 0.5
done
wait "$launcher" || true
if [[ -n "$perf_pid" ]]; then
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" 2>/dev/null || true
fi
grep -v '^{' "$out/run.txt" || true
if [[ -n "$perf_pid" && -s "$out/faults.perf" ]]; then
  # one record per fault: its time, then its stack; the first frame named by the JIT's map or a library is kept
  perf script -i "$out/faults.perf" -F time,addr,ip,sym 2>/dev/null | awk -v RS= -F'\n' -v summary="$out/faults.txt" '
    {
      split($1, head, ":"); t = head[1] + 0
      if (first == "") first = t
      frame = "?"
      for (i = 2; i <= NF; i++) {
        f = $i; sub(/^[ \t]*[0-9a-f]+ /, "", f)
        if (f != "[unknown]" && f !~ /^Interpreter/ && f !~ /^StubRoutines/) { frame = f; break }
      }
      w = int((t - first) * 500); count[w]++; top[w, frame]++; total++
    }
    END {
      printf "page faults of the engine thread: %d over %.1f s\n", total, (t - first) > summary
      for (k in top) {
        split(k, kk, SUBSEP)
        if (top[k] > bestn[kk[1]]) { bestn[kk[1]] = top[k]; best[kk[1]] = kk[2] }
      }
      # one line per 2 ms window, sorted by its faults below
      for (w in count) {
        printf "%d\t  at %.3f s: %d faults in 2 ms, %d of them under %s\n", count[w], w / 500, count[w], bestn[w],
          substr(best[w], 1, 110)
      }
    }' | sort -rn | head -8 | cut -f2- >> "$out/faults.txt"
  cat "$out/faults.txt"
fi
