#!/usr/bin/env bash
# bench_sched.sh - observer effect of the scheduling stream against perf
# record of upstream's event list (bench_sched.py says how). Five rounds by
# default (BENCH_RUNS): wall time on this kind of VM varies by +-8%.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! perf record -q -e sched:sched_switch -a -o /tmp/scxprof-bench-probe.data -- true >/dev/null 2>&1; then
	echo "SKIP: bench_sched: perf cannot record tracepoints here"
	exit 0
fi
rm -f /tmp/scxprof-bench-probe.data
echo "== sched: observer effect on perf bench sched pipe (${BENCH_RUNS:-5} rounds, medians)"
python3 "$top/bench/bench_sched.py" "$top/$BUILD/scxprof" "${BENCH_RUNS:-5}"
