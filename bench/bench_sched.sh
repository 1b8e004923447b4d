#!/usr/bin/env bash
# bench_sched.sh - observer effect of the scheduling stream against perf
# record of upstream's event list (bench_sched.py says how). Five rounds by
# default (BENCH_RUNS): wall time on this kind of VM varies by +-8%.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
# the probe's file: a directory of this run's own, removed whatever the outcome
probe=$(mktemp -d /tmp/scxprof-bench-probe.XXXXXX)
if ! perf record -q -e sched:sched_switch -a -o "$probe/probe.data" -- true >/dev/null 2>&1; then
	rm -rf "$probe"
	echo "SKIP: bench_sched: perf cannot record tracepoints here"
	exit 0
fi
rm -rf "$probe"
echo "== sched: observer effect on perf bench sched pipe (${BENCH_RUNS:-5} rounds, medians)"
python3 "$top/bench/bench_sched.py" "$top/$BUILD/scxprof" "${BENCH_RUNS:-5}"
