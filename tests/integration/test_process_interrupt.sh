#!/usr/bin/env bash
# test_process_interrupt.sh - SIGINT or SIGTERM while `process` runs: exit
# 130, nothing left behind (no PROFILE.out, no temporary directory).
# No timing decides anything: the run is stopped (SIGSTOP) once its output is
# seen growing, the signal is sent only when less than half of the full
# output is written (so thousands of samples, each an interrupt check, are
# still ahead), then the run is continued and must end interrupted.
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"

mkdir -p "$WORK/big"
if ! perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -m 512 -o "$WORK/big/perf.data" \
	-- "$WL" -i 2000 -p 32 a:2 b:1 >/dev/null 2>&1; then
	skip "SIGINT mid-run" "perf cannot record here to make a large input"
	exit 0
fi
"$SCXPROF" process -f "$WORK/big" --no-filter -o "$WORK/full" >/dev/null 2>&1
full_bytes=$(stat -c %s "$WORK/full/perf.jsonl" 2>/dev/null || echo 0)
full_lines=$(wc -l < "$WORK/full/perf.jsonl" 2>/dev/null || echo 0)
rm -rf "$WORK/full"
echo "full run: $full_lines samples, $full_bytes bytes"
if [ "$full_lines" -lt 65536 ]; then
	fail "SIGINT mid-run" "the input gave only $full_lines samples; too few to stop mid-run"
	exit 0
fi

state_of() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }

# stop_mid_run PID SIG: 0 when SIG was delivered with the run stopped
# before half its output; 1 when the run got past half (or ended) first.
stop_mid_run() {
	local pid=$1 sig=$2 f size
	while kill -0 "$pid" 2>/dev/null; do
		f=$(ls "$WORK"/out-"$sig".tmp.*/perf.jsonl 2>/dev/null | head -n 1)
		if [ -n "$f" ] && [ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -gt 0 ]; then
			kill -STOP "$pid" 2>/dev/null || return 1
			while [ "$(state_of "$pid")" != T ] && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
			size=$(stat -c %s "$f" 2>/dev/null || echo "$full_bytes")
			if [ "$size" -le $((full_bytes / 2)) ]; then
				echo "SIG$sig sent at $size of $full_bytes bytes"
				kill -s "$sig" "$pid"
				kill -CONT "$pid"
				return 0
			fi
			kill -CONT "$pid"
			return 1
		fi
		sleep 0.005
	done
	return 1
}

for sig in INT TERM; do
	sent=0
	for attempt in 1 2 3 4 5; do
		rm -rf "$WORK"/out-$sig*
		"$SCXPROF" process -f "$WORK/big" --no-filter -o "$WORK/out-$sig" >/dev/null 2>"$WORK/err-$sig" &
		pid=$!
		if stop_mid_run $pid $sig; then
			sent=1
			wait $pid
			rc=$?
			break
		fi
		wait $pid
		echo "attempt $attempt: the run passed half its output before it was seen; again"
	done
	if [ $sent = 0 ]; then
		fail "SIG$sig mid-run" "five runs each passed half their output before the poll saw the file"
		continue
	fi
	left=$(ls -d "$WORK"/out-$sig* 2>/dev/null)
	if [ $rc -eq 130 ] && [ -z "$left" ]; then
		pass "SIG$sig mid-run: exit 130, nothing left behind"
	else
		fail "SIG$sig mid-run" "rc=$rc left='$left' $(cat "$WORK/err-$sig")"
	fi
done
check "interrupt message says so" grep -q "interrupted" "$WORK/err-INT"
