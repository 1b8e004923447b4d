#!/usr/bin/env bash
# bench_perfetto.sh - what writing trace.pftrace costs `scxprof process`:
# the same profile processed with the trace and with --no-perfetto, in
# pairs (A B A B ..., so machine noise hits both alike), BENCH_RUNS pairs
# (5); the cost is the median over pairs of CPU (user + sys) with the trace
# / without, minus 1 (wall the same). Two profiles, both recorded here:
#  - memory-heavy: >= 1M page-fault samples of the workload generator
#    (system perf, -c 1, as bench_process.sh), no scheduling stream;
#  - sched-heavy: scxprof record of perf bench sched pipe (about a million
#    scheduling records) beside the workload generator.
# Then the trace's size per sched_switch on a sched-only copy.
# Targets (issue 12): the trace costs <= 15% of process time; <= 10 bytes
# per sched_switch.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
wl="$top/$BUILD/workloads/scxprof-workload"
runs=${BENCH_RUNS:-5}
w=$(mktemp -d /tmp/scxprof-bench.XXXXXX)
trap 'rm -rf "$w"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench_perfetto: needs root (scxprof record, perf record -a)"
	exit 0
fi

# pairs NAME PROFILE: process PROFILE with and without the trace, paired;
# prints the medians and the cost line
pairs() {
	python3 - "$runs" "$1" "$bin" "$2" "$w" <<'EOF'
import os, statistics, subprocess, sys, time
runs, name, bin_, prof, w = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]

def run(trace):
    out = os.path.join(w, "o-trace" if trace else "o-none")
    subprocess.run(["rm", "-rf", out], check=True)
    cmd = [bin_, "process", "-f", prof, "-o", out, "--no-filter"] + ([] if trace else ["--no-perfetto"])
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(cmd[0], cmd)
    _, st, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(st):
        sys.exit("bench_perfetto: %s failed" % " ".join(cmd))
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime

run(True), run(False)  # warm-up, not counted
res = [(run(True), run(False)) for _ in range(runs)] if runs else []
wall = statistics.median(a[0] / b[0] for a, b in res)
cpu = statistics.median(a[1] / b[1] for a, b in res)
print("%s: cpu without %.2f s, with %.2f s; wall without %.2f s, with %.2f s (medians of %d pairs)" % (
    name, statistics.median(b[1] for a, b in res), statistics.median(a[1] for a, b in res),
    statistics.median(b[0] for a, b in res), statistics.median(a[0] for a, b in res), runs))
print("%s: trace cost: cpu %+.1f%%, wall %+.1f%% of process without it (median of pair ratios; "
      "cpu ratios %s; target <= 15%%)" % (name, (cpu - 1) * 100, (wall - 1) * 100,
                                         " ".join("%.3f" % (a[1] / b[1]) for a, b in res)))
EOF
}

echo "== perfetto: process with and without trace.pftrace ($runs pairs, alternating)"
# 1. memory-heavy: >= 1M page-fault samples
if perf record -q -e page-faults -c 1 -o "$w/probe.data" -- true >/dev/null 2>&1; then
	secs=4
	while :; do
		rm -rf "$w/m"; mkdir -p "$w/m"
		perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -a -k CLOCK_MONOTONIC -m 1024 \
			-o "$w/m/perf.data" -- "$wl" -d "$secs" -p 256 "alpha worker:2:A" beta:2:A gamma:2 >/dev/null 2>&1 ||
			{ echo "bench_perfetto: perf record failed"; exit 1; }
		"$bin" process -f "$w/m" -o "$w/m.out" --no-filter >"$w/m.txt" 2>&1 || { cat "$w/m.txt"; exit 1; }
		n=$(sed -n 's/^Perfetto trace: .* \([0-9]*\) memory samples.*/\1/p' "$w/m.txt")
		[ "${n:-0}" -ge 1000000 ] || [ $secs -ge 64 ] && break
		secs=$((secs * 2)); rm -rf "$w/m.out"
	done
	echo "memory-heavy: $n memory samples; trace.pftrace $(stat -c %s "$w/m.out/trace.pftrace") bytes" \
		"($(awk -v b="$(stat -c %s "$w/m.out/trace.pftrace")" -v n="$n" 'BEGIN {printf "%.1f", b / n}') per sample)," \
		"perf.jsonl $(stat -c %s "$w/m.out/perf.jsonl") bytes"
	rm -rf "$w/m.out"
	pairs memory-heavy "$w/m" || exit 1
	rm -rf "$w/m"
else
	echo "SKIP: bench_perfetto memory-heavy: perf cannot record page faults here"
fi

# 2. sched-heavy, recorded by scxprof
if ! "$bin" record -t 60 -o "$w/p" --disable-archive -- sh -c \
	"perf bench sched pipe -l 150000 >/dev/null & '$wl' -d 2 -p 256 'alpha worker:2:A' beta:2:A gamma:2 >/dev/null; wait" \
	>/dev/null 2>"$w/rec.err"; then
	echo "bench_perfetto: recording failed: $(tail -n 2 "$w/rec.err")"
	exit 1
fi
"$bin" process -f "$w/p" -o "$w/out" --no-filter >"$w/proc.out" 2>&1 || { cat "$w/proc.out"; exit 1; }
echo "sched-heavy: $(grep -E '^Perfetto' "$w/proc.out")"
echo "sched-heavy: trace.pftrace $(stat -c %s "$w/out/trace.pftrace") bytes; sched.jsonl $(stat -c %s "$w/out/sched.jsonl") bytes"
rm -rf "$w/out"
pairs sched-heavy "$w/p" || exit 1

# size: the scheduling stream alone
mkdir "$w/s"
cp "$w/p/sched.data" "$w/p/metadata.json" "$w/s/"
"$bin" process -f "$w/s" -o "$w/s.out" >"$w/s.txt" 2>&1 || { cat "$w/s.txt"; exit 1; }
bytes=$(stat -c %s "$w/s.out/trace.pftrace")
sed -n 's/^Perfetto trace: \([0-9]*\) sched_switch.*, \([0-9]*\) sched_waking, \([0-9]*\) irq.*/\1 \2 \3/p' "$w/s.txt" |
	{ read -r sw wk irq; awk -v b="$bytes" -v sw="$sw" -v wk="$wk" -v irq="$irq" 'BEGIN {
		printf "sched-only trace: %d bytes for %d sched_switch, %d sched_waking, %d irq/softirq/timer events\n", b, sw, wk, irq
		printf "  %.1f bytes per event; all bytes / sched_switch: %.1f (target <= 10 per sched_switch)\n", b / (sw + wk + irq), b / sw }'; }
