#!/usr/bin/env bash
# bench_decode.sh - overhead of `record --backend decode` at its default
# rate against perf record of the same raw samples and against the
# kernel's share alone (bench_decode.py says how). DECODE_RATES="250 1000
# 4000" sweeps several rates; BENCH_RUNS rounds each (default 5).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench_decode: needs root (system-wide sampling, autogroup nice -20)"
	exit 0
fi
# the probe's file: a directory of this run's own, removed whatever the outcome
probe=$(mktemp -d /tmp/scxprof-bench-probe.XXXXXX)
if ! perf record -q -e cpu-clock -F 100 --user-regs=ax,ip -a -o "$probe/probe.data" -- true >/dev/null 2>&1; then
	rm -rf "$probe"
	echo "SKIP: bench_decode: perf cannot sample cpu-clock with user registers system-wide here"
	exit 0
fi
rm -rf "$probe"
rate=$(awk '/#define MEM_BACKEND_DECODE_FREQ/ {print $3}' "$top/record/backend/backend.h")
echo "== record --backend decode vs perf record -e cpu-clock --user-regs -a vs the kernel alone (median of ${BENCH_RUNS:-5} rounds)"
setsid -w python3 "$top/bench/bench_decode.py" "$top/$BUILD/scxprof" "$top/$BUILD/workloads/warm-share" \
	"$top/$BUILD/workloads/sample-sink" "${BENCH_RUNS:-5}" "$rate" ${DECODE_RATES:-$rate}
