#!/usr/bin/env bash
# bench_perfetto.sh - what writing trace.pftrace costs `scxprof process`:
# the same profile processed with and without --no-perfetto, runs paired and
# alternating (compare.py), medians of BENCH_RUNS (5). The profile is
# recorded here by scxprof record (root): perf bench sched pipe (about a
# million scheduling records) beside the workload generator (page-fault
# samples). Then the trace's size per sched_switch on a sched-only copy.
# Targets (issue 12): trace costs <= 15% of process time; <= 10 bytes per
# sched_switch.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
wl="$top/$BUILD/workloads/scxprof-workload"
runs=${BENCH_RUNS:-5}
w=$(mktemp -d /tmp/scxprof-bench.XXXXXX)
trap 'rm -rf "$w"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench_perfetto: needs root (scxprof record)"
	exit 0
fi
echo "== perfetto: process with and without trace.pftrace (median of $runs, paired)"
if ! "$bin" record -t 60 -o "$w/p" --disable-archive -- sh -c \
	"perf bench sched pipe -l 150000 >/dev/null & '$wl' -d 2 -p 256 'alpha worker:2:A' beta:2:A gamma:2 >/dev/null; wait" \
	>/dev/null 2>"$w/rec.err"; then
	echo "bench_perfetto: recording failed: $(tail -n 2 "$w/rec.err")"
	exit 1
fi
"$bin" process -f "$w/p" -o "$w/out" --no-filter >"$w/proc.out" 2>&1 || { cat "$w/proc.out"; exit 1; }
grep -E '^Parsed|^Perfetto' "$w/proc.out"
echo "trace.pftrace: $(stat -c %s "$w/out/trace.pftrace") bytes; sched.jsonl: $(stat -c %s "$w/out/sched.jsonl") bytes"
python3 "$top/bench/compare.py" "$runs" "no-perfetto" "with-trace" -- \
	sh -c "rm -rf '$w/o1'; exec '$bin' process -f '$w/p' -o '$w/o1' --no-filter --no-perfetto" ---- \
	sh -c "rm -rf '$w/o2'; exec '$bin' process -f '$w/p' -o '$w/o2' --no-filter" | tee "$w/cmp.txt"
awk '/^no-perfetto/ {wa = $3; ca = $6} /^with-trace/ {wb = $3; cb = $6}
	END {printf "trace cost: wall %+.1f%%, cpu %+.1f%% of process without it (target <= 15%%)\n",
	     (wb / wa - 1) * 100, (cb / ca - 1) * 100}' "$w/cmp.txt"

# size: the scheduling stream alone
mkdir "$w/s"
cp "$w/p/sched.data" "$w/p/metadata.json" "$w/s/"
"$bin" process -f "$w/s" -o "$w/s.out" >"$w/s.txt" 2>&1 || { cat "$w/s.txt"; exit 1; }
bytes=$(stat -c %s "$w/s.out/trace.pftrace")
sed -n 's/^Perfetto trace: \([0-9]*\) sched_switch.*, \([0-9]*\) sched_waking, \([0-9]*\) irq.*/\1 \2 \3/p' "$w/s.txt" |
	{ read -r sw wk irq; awk -v b="$bytes" -v sw="$sw" -v wk="$wk" -v irq="$irq" 'BEGIN {
		printf "sched-only trace: %d bytes for %d sched_switch, %d sched_waking, %d irq/softirq/timer events\n", b, sw, wk, irq
		printf "  %.1f bytes per event; all bytes / sched_switch: %.1f (target <= 10 per sched_switch)\n", b / (sw + wk + irq), b / sw }'; }
