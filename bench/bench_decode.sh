#!/usr/bin/env bash
# bench_decode.sh - overhead of `record --backend decode` at its default
# rate against perf record of the same raw samples (bench_decode.py says
# how). DECODE_RATES="250 1000 4000" sweeps several rates instead.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! perf record -q -e cpu-clock -F 100 --user-regs=ax,ip -a -o /tmp/scxprof-bench-probe.data -- true >/dev/null 2>&1; then
	echo "SKIP: bench_decode: perf cannot sample cpu-clock with user registers system-wide here"
	exit 0
fi
rm -f /tmp/scxprof-bench-probe.data
rate=$(awk '/#define MEM_BACKEND_DECODE_FREQ/ {print $3}' "$top/record/backend.h")
echo "== record --backend decode vs perf record -e cpu-clock --user-regs -a (median of ${BENCH_RUNS:-5} paired rounds)"
python3 "$top/bench/bench_decode.py" "$top/$BUILD/scxprof" "$top/$BUILD/workloads/warm-share" "${BENCH_RUNS:-5}" \
	${DECODE_RATES:-$rate}
