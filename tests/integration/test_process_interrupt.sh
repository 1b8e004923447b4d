#!/usr/bin/env bash
# test_process_interrupt.sh - SIGINT or SIGTERM while `process` runs: exit
# 130, nothing left behind (no PROFILE.out, no temporary directory).
# A full run is timed first, so the signal lands mid-run on any machine.
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"

mkdir -p "$WORK/big"
if ! perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -a -m 512 -o "$WORK/big/perf.data" \
	-- "$WL" -d 2 -p 128 a:2 b:1 >/dev/null 2>&1; then
	skip "SIGINT mid-run" "perf cannot record here to make a large input"
	exit 0
fi
start=$(date +%s%N)
"$SCXPROF" process -f "$WORK/big" --no-filter -o "$WORK/full" >/dev/null 2>&1
full_ms=$(( ($(date +%s%N) - start) / 1000000 ))
rm -rf "$WORK/full"
echo "full run: $full_ms ms"
if [ "$full_ms" -lt 60 ]; then
	skip "SIGINT mid-run" "a full run takes only $full_ms ms here; too short to interrupt reliably"
	exit 0
fi
for sig in INT TERM; do
	"$SCXPROF" process -f "$WORK/big" --no-filter -o "$WORK/out-$sig" >/dev/null 2>"$WORK/err-$sig" &
	pid=$!
	sleep "$(awk -v ms="$full_ms" 'BEGIN {printf "%.3f", ms / 3000}')"
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	left=$(ls -d "$WORK"/out-$sig* 2>/dev/null)
	if [ $rc -eq 130 ] && [ -z "$left" ]; then
		pass "SIG$sig mid-run: exit 130, nothing left behind"
	else
		fail "SIG$sig mid-run" "rc=$rc left='$left' $(cat "$WORK/err-$sig")"
	fi
done
check "interrupt message says so" grep -q "interrupted" "$WORK/err-INT"
