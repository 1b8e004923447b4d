#!/usr/bin/env bash
# bench_record.sh - recording overhead of `scxprof record` against
# `perf record` on a page-fault-heavy workload (bench_record.py says how).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
# the probe's file: a directory of this run's own, removed whatever the outcome
probe=$(mktemp -d /tmp/scxprof-bench-probe.XXXXXX)
if ! perf record -q -e page-faults -c 1 -o "$probe/probe.data" -- true >/dev/null 2>&1; then
	rm -rf "$probe"
	echo "SKIP: bench_record: perf cannot record page faults here"
	exit 0
fi
rm -rf "$probe"
echo "== record: scxprof record vs perf record (median of ${BENCH_RUNS:-3})"
python3 "$top/bench/bench_record.py" "$top/$BUILD/scxprof" "$top/$BUILD/workloads/scxprof-workload" "${BENCH_RUNS:-3}"
