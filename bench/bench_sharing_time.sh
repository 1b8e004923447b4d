#!/usr/bin/env bash
# bench_sharing_time.sh - seconds for extract to decide that two threads
# share a 32 MiB and a 256 MiB region at the default sample rate, and the
# samples a thread had then against the detection limit (issue 18's
# targets: 8 s and 30 s; bench_sharing_time.py says how).
# BENCH_RUNS recordings per size (default 3); SHARING_SIZES="MIB:SECONDS ..."
# (default "32:8 256:30"); SHARING_STEPS cuts per recording (default 16).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: bench_sharing_time: needs root (system-wide sampling, cgroups)"
	exit 0
fi
echo "== seconds to decide sharing at the default rate: warm-share alpha:A beta:A gamma:G (median of ${BENCH_RUNS:-3})"
# shellcheck disable=SC2086
setsid -w python3 "$top/bench/bench_sharing_time.py" "$top/$BUILD/scxprof" "$top/$BUILD/workloads/warm-share" \
	"${BENCH_RUNS:-3}" "${SHARING_STEPS:-16}" ${SHARING_SIZES:-32:8 256:30}
