#!/usr/bin/env bash
# test_line_limits.sh - every text reader bounds a line's length and never
# takes a failure for the end of its input; signals while extract waits on
# a FIFO end it as "interrupted" (exit 130).
#
# An endless line (/dev/zero, or a sparse file of 64 GiB of zeros where the
# input must be a regular file) must give one line of error naming the file,
# line 1 and the bound, exit 1, nothing on stdout and no output left. Where
# `ulimit -v` works (not under ASan), the runs are held to 256 MiB of address
# space: a reader that buffered the whole line would fail there for lack of
# memory (and, as before this test, could print "[]" with exit 0).
# Allocation failures inside each reader are unit-tested (test_linereader.c).
. "$(dirname "$0")/lib.sh"
LIMIT_KB=262144
BOUND="line longer than 1048576 bytes"

if (ulimit -v $LIMIT_KB && "$SCXPROF" --version) >/dev/null 2>&1; then
	limited() { (ulimit -v $LIMIT_KB && exec "$@"); }
	echo "runs limited to $LIMIT_KB KiB of address space"
else
	limited() { "$@"; }
	skip "endless line under ulimit -v" "the binary cannot start under ulimit -v $LIMIT_KB (ASan?); run unlimited"
fi

# expect_bound NAME WANT_MESSAGE OUTPUT_LEFT CMD...: exit 1, one stderr line equal
# to WANT_MESSAGE, empty stdout, OUTPUT_LEFT (a path; "" for none) absent.
expect_bound() {
	local name=$1 want=$2 left=$3 rc
	shift 3
	limited "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	if [ $rc -ne 1 ]; then fail "$name" "exit $rc (want 1): $(head -c 300 "$WORK/err")"
	elif [ "$(cat "$WORK/err")" != "$want" ]; then fail "$name" "stderr '$(head -c 300 "$WORK/err")', want '$want'"
	elif [ -s "$WORK/out" ]; then fail "$name" "stdout not empty: $(head -c 100 "$WORK/out")"
	elif [ -n "$left" ] && [ -e "$left" ]; then fail "$name" "output left behind: $left"
	else pass "$name"; fi
}

expect_bound "extract mem -f /dev/zero: bounded, clear error" \
	"scxprof extract: /dev/zero:1: $BOUND" "" "$SCXPROF" extract mem -f /dev/zero
expect_bound "extract mem < /dev/zero (stdin): bounded, clear error" \
	"scxprof extract: -:1: $BOUND" "" bash -c 'exec "$0" extract mem -f - </dev/zero' "$SCXPROF"
expect_bound "extract sched stats -f /dev/zero: bounded, clear error" \
	"scxprof extract sched stats: /dev/zero:1: $BOUND" "" "$SCXPROF" extract sched stats -f /dev/zero
expect_bound "extract sched util -f /dev/zero: bounded, clear error" \
	"scxprof extract sched util: /dev/zero:1: $BOUND" "" "$SCXPROF" extract sched util -f /dev/zero

# a line past the bound after good lines: the line number is the long one's
{ head -n 3 "$TOP/tests/fixtures/extract/groups.jsonl"; head -c 2000000 /dev/zero | tr '\0' ' '; echo; } \
	>"$WORK/long.jsonl"
expect_bound "extract mem: a long 4th line is named" \
	"scxprof extract: $WORK/long.jsonl:4: $BOUND" "" "$SCXPROF" extract mem -f "$WORK/long.jsonl"

# topology.json next to the input: read whole (json-c), so size-capped and
# regular files only
mkdir -p "$WORK/topo"
head -n 3 "$TOP/tests/fixtures/extract/groups.jsonl" >"$WORK/topo/perf.jsonl"
ln -s /dev/zero "$WORK/topo/topology.json"
expect_bound "extract mem: topology.json -> /dev/zero is refused" \
	"scxprof extract: $WORK/topo/topology.json: not a regular file of at most 16 MB" "" \
	"$SCXPROF" extract mem -f "$WORK/topo/perf.jsonl"

# process: each text input of a profile directory as an endless line
for name in perf.mem.script perf.sched.script hints.jsonl; do
	d="$WORK/p-$name"
	mkdir -p "$d"
	[ "$name" = hints.jsonl ] && cp "$TOP/tests/fixtures/profile_basic/perf.mem.script" "$d/"
	truncate -s 64G "$d/$name"
	expect_bound "process: endless $name is bounded, clear error, no output" \
		"scxprof process: $d/$name:1: $BOUND" "$d.out" "$SCXPROF" process -f "$d"
done

# --- a signal while extract waits on a FIFO -----------------------------------
# wait_blocked PID: until the process sleeps in a FIFO open or a pipe read
# (its wchan); 1 if it exited first or never got there in 600 s (a guard
# against a hang, not a time limit).
wait_blocked() {
	local pid=$1 i w
	for ((i = 0; i < 6000; i++)); do
		w=$(cat "/proc/$pid/wchan" 2>/dev/null) || return 1
		case $w in *partner* | fifo_open* | *pipe_read* | pipe_wait*) return 0 ;; esac
		sleep 0.1
	done
	return 1
}

# expect_interrupted NAME CMD...: CMD (reading $WORK/fifo) is signalled once
# blocked; want exit 130 and "scxprof ...: interrupted".
expect_interrupted() {
	local name=$1 pid rc
	shift
	"$@" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	if ! wait_blocked $pid; then
		kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
		fail "$name" "never blocked on the FIFO (wchan $(cat /proc/$pid/wchan 2>/dev/null))"
		return
	fi
	kill -INT $pid
	wait $pid
	rc=$?
	if [ $rc -ne 130 ]; then fail "$name" "exit $rc (want 130): $(cat "$WORK/err")"
	elif ! grep -qx "scxprof extract.*: interrupted" "$WORK/err"; then fail "$name" "stderr: $(cat "$WORK/err")"
	else pass "$name"; fi
}

mkfifo "$WORK/fifo"
expect_interrupted "extract mem on a FIFO with no writer: SIGINT -> interrupted, 130" \
	"$SCXPROF" extract mem -f "$WORK/fifo"
expect_interrupted "extract sched stats on a FIFO with no writer: SIGINT -> interrupted, 130" \
	"$SCXPROF" extract sched stats -f "$WORK/fifo"
# a writer that holds the FIFO open and writes nothing: extract blocks in read
sleep 600 >"$WORK/fifo" &
writer=$!
expect_interrupted "extract mem reading an idle FIFO: SIGINT -> interrupted, 130" \
	"$SCXPROF" extract mem -f "$WORK/fifo"
expect_interrupted "extract sched util reading an idle FIFO: SIGINT -> interrupted, 130" \
	"$SCXPROF" extract sched util -f "$WORK/fifo"
kill $writer 2>/dev/null
wait $writer 2>/dev/null
exit 0
