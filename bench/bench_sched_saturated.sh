#!/usr/bin/env bash
# bench_sched_saturated.sh - does the scheduling stream's drain loop keep up
# on a saturated host? A busy loop per cpu besides `perf bench sched pipe`,
# the sched stream alone with a 4 MB ring: the drain loop runs at nice 19
# (record/yield_prio.h) and a watchdog raises it when the ring is a quarter
# full. Target: no record dropped (it was 837k before the watchdog). A
# statement about speed under load, so a benchmark, not a test (the test,
# test_record_sched.sh, checks that every record is written or counted).
# Prints per round the records, the fraction dropped and the raises, then
# the median fraction over BENCH_RUNS rounds (default 3).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
SCXPROF="$top/$BUILD/scxprof"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: bench_sched_saturated: needs root (BPF)"
	exit 0
fi
work=$(mktemp -d /tmp/scxprof-bench-sat.XXXXXX)
hogs=()
cleanup() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
echo "== sched: saturated host, 4 MB ring (${BENCH_RUNS:-3} rounds)"
fractions=()
for r in $(seq "${BENCH_RUNS:-3}"); do
	hogs=()
	for _ in $(seq "$(nproc)"); do (exec yes >/dev/null) & hogs+=($!); done
	"$SCXPROF" record -o "$work/r$r" --disable-archive --disable-mem-trace --sched-ring-sz 4 -t 60 -- \
		perf bench sched pipe -l 300000 >/dev/null 2>"$work/r$r.err"
	rc=$?
	kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; hogs=()
	if [ $rc != 0 ]; then
		echo "FAIL: bench_sched_saturated: record exited $rc: $(tail -n 2 "$work/r$r.err" | tr '\n' ' ')"
		exit 1
	fi
	f=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); s=m["sched"]
print("%.6f" % (s["drops"] / max(1, s["records"] + s["drops"])))
print("round %s: %d records, %d dropped (%.3f%%), drain loop raised %d times" % (sys.argv[2], s["records"], s["drops"],
      100.0 * s["drops"] / max(1, s["records"] + s["drops"]), m["drain_boosts"]))' "$work/r$r/metadata.json" "$r")
	echo "$f" | sed -n 2p
	fractions+=("$(echo "$f" | head -n 1)")
done
python3 -c 'import statistics,sys; m=statistics.median(map(float, sys.argv[1:]))
print("saturated: median %.3f%% of records dropped (target 0)%s" % (100 * m, "" if m == 0 else ": MISSED"))' "${fractions[@]}"
