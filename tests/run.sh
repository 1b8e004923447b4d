#!/usr/bin/env bash
# run.sh - runs every test: the criterion unit binary and each integration
# script in tests/integration/, JOBS at a time (default 2), then prints a
# wall-time table (slowest first) and one closing line
# "N passed, N failed, N skipped" that sums both.
#
# Integration scripts report each check on its own line as
#   PASS: name | FAIL: name: why | SKIP: name: reason
# (helpers in tests/integration/lib.sh). A script that exits non-zero without
# reporting a FAIL counts as one failure. Each script's lines are printed
# together when it ends, so two running at once never interleave.
#
# Scripts scope what they record and check to cgroups, bpffs mounts and
# directories of their own, so two can run at once. Lines in a script's
# first 60 lines tell this runner more:
#   # suite: alone  it cannot run beside another (it measures the machine
#                   as a whole): the alone scripts run first, one at a
#                   time, and nothing starts beside one, in this run or in
#                   another run on the machine (two suites at once, from
#                   two worktrees: the lock below);
#   # suite: long   it takes the longest (half a minute and more under
#                   ASan): it starts next, so the short ones fill the other
#                   slot meanwhile and the run does not end on one slot;
#   # suite: once   what it checks does not depend on the build under test
#                   (source files, the fuzz targets' own ASan build): with
#                   SUITE_SECOND_PASS=1 (make asan after make test, .ci/run)
#                   it is not run again, and the runner says so.
# Scripts that only read a recording share one (lib.sh's shared_recording):
# it is made on first use into SCX_SHARED_DIR (default: a directory of this
# run's, removed at the end; .ci/run gives both passes the same one).
# TESTS=WORDS runs the scripts whose names contain one of the words (and
# the unit tests unless UNIT_TESTS=0).
# Two runs at once: every job holds a shared flock(1) on SCX_SUITE_LOCK
# (default /run/lock/scxprof-suite.lock, /tmp's when /run/lock is not
# writable) while it runs, an alone script an exclusive one, so an alone
# script never runs beside another run's jobs. Who waits for the exclusive
# lock holds SCX_SUITE_LOCK.gate, which new jobs pass through: a run that
# keeps its two slots busy cannot starve another run's alone script. A job
# that waited says so in its log ("info: waited N s").
# Each run's logs go to a directory /tmp/scxprof-tests.XXXXXX: removed at the
# end when nothing failed, kept (its path in the closing lines) when
# something did, and removed on an interrupt.
set -u
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export SCXPROF="$top/$BUILD/scxprof" BUILD TOP="$top"
passed=0 failed=0 skipped=0
logdir=$(mktemp -d /tmp/scxprof-tests.XXXXXX)
lockdir=/run/lock
[ -d "$lockdir" ] && [ -w "$lockdir" ] || lockdir=/tmp
lock=${SCX_SUITE_LOCK:-$lockdir/scxprof-suite.lock}
# keep_logs: set once the run ends with a failure; otherwise the logs go
keep_logs=
declare -A name_of=() start_of=()
if [ -z "${SCX_SHARED_DIR:-}" ]; then
	export SCX_SHARED_DIR="$logdir/shared"
fi
# shellcheck disable=SC2317 # run by the traps
end_run() {
	if [ -n "$keep_logs" ]; then rm -rf "$logdir/shared"; else rm -rf "$logdir"; fi
}
trap end_run EXIT
# an interrupt: the running scripts (started in the background, so they
# ignore SIGINT) get SIGTERM, their own EXIT traps clean up, then the logs go
# shellcheck disable=SC2317 # run by the traps
interrupted() {
	local pid
	trap - INT TERM
	for pid in "${!name_of[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	wait
	exit 130
}
trap interrupted INT TERM
t_start=$(date +%s%N)

# now_ms: milliseconds since the run started
now_ms() { echo $((($(date +%s%N) - t_start) / 1000000)); }
# secs MS: MS as seconds with one decimal
secs() { printf '%d.%d' $(($1 / 1000)) $((($1 % 1000) / 100)); }

# locked MODE CMD...: CMD holding the suite lock (MODE -s shared, -x
# exclusive), neither lock file open in CMD (a daemon a test leaves must not
# hold it); a SIGTERM is passed on to CMD; exits with CMD's status
locked() {
	local mode=$1 c="" rc fd t0=$SECONDS
	shift
	trap '[ -n "$c" ] && kill -TERM "$c" 2>/dev/null && wait "$c"; exit 143' TERM
	# this job's subshell holds the lock until it returns; flock waits in
	# the background, so a SIGTERM ends the wait at once
	exec 8>>"$lock.gate" 9>>"$lock" || return 1
	for fd in 8 9; do
		flock "$mode" $fd &
		c=$!
		wait "$c" || return 1
	done
	flock -u 8
	[ $((SECONDS - t0)) -eq 0 ] || echo "info: waited $((SECONDS - t0)) s for the suite lock $lock (an alone script waiting or running, or the jobs of another run or a bench beside an alone one)"
	"$@" 8>&- 9>&- &
	c=$!
	while :; do
		wait "$c"
		rc=$?
		kill -0 "$c" 2>/dev/null || return $rc
	done
}

# Unit tests (criterion). TAP output gives exact pass/fail/skip counts.
unit_job() {
	"$top/$BUILD/unit-tests" --tap="$logdir/unit.tap" -j2 >"$logdir/unit.log" 2>&1
}
unit_report() {
	echo "== unit tests ($(secs "$1") s)"
	tail -n 30 "$logdir/unit.log"
	local p s f
	p=$(grep -cE '^ok ' "$logdir/unit.tap" 2>/dev/null); s=$(grep -cE '^ok .*# SKIP' "$logdir/unit.tap" 2>/dev/null)
	f=$(grep -cE '^not ok' "$logdir/unit.tap" 2>/dev/null)
	grep -E '^ok .*# SKIP' "$logdir/unit.tap" 2>/dev/null | sed 's/^/  SKIP: /'
	grep -E '^not ok' "$logdir/unit.tap" 2>/dev/null | sed 's/^/  FAIL: /'
	# a crashed suite may leave fewer tap lines than tests; criterion reports it
	if ! grep -qE '^1\.\.[0-9]+' "$logdir/unit.tap" 2>/dev/null; then f=$((f + 1)); echo "  FAIL: unit-tests produced no TAP plan"; fi
	passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
}

script_report() {
	local name=$1 rc=$2 ms=$3 out="$logdir/$1.log" p f s
	echo "== $name ($(secs "$ms") s)"
	grep -E '^(PASS|FAIL|SKIP): |^info: waited ' "$out"
	p=$(grep -cE '^PASS: ' "$out"); f=$(grep -cE '^FAIL: ' "$out"); s=$(grep -cE '^SKIP: ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL: $name: exited $rc"; tail -n 20 "$out" | sed 's/^/    /'
	elif [ "$f" -gt 0 ]; then
		echo "    (log: $out)"; grep -vE '^(PASS|SKIP): ' "$out" | tail -n 25 | sed 's/^/    /'
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

# marked NAME WORD: the script NAME has the line "# suite: WORD"
marked() { [ "$1" != unit ] && head -n 60 "$here/integration/$1.sh" | grep -qx "# suite: $2"; }
alone() { marked "$1" alone; }
# wanted NAME: TESTS is empty or one of its words is in NAME
wanted() {
	local w
	[ -z "${TESTS:-}" ] && return 0
	for w in $TESTS; do [[ "$1" == *$w* ]] && return 0; done
	return 1
}

# the queue: the alone scripts (nothing runs yet, so no slot idles while the
# running jobs drain before one), the long scripts, the unit tests (beside
# the first long script), then the rest in name order
first=() long=() rest=() again=()
for t in "$here"/integration/test_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	if [ -n "${SUITE_SECOND_PASS:-}" ] && marked "$name" once; then again+=("$name"); continue; fi
	if alone "$name"; then first+=("$name")
	elif marked "$name" long; then long+=("$name")
	else rest+=("$name"); fi
done
queue=("${first[@]}" "${long[@]:0:1}")
if [ -x "$top/$BUILD/unit-tests" ] && [ "${UNIT_TESTS:-1}" != 0 ]; then queue+=(unit); fi
queue+=("${long[@]:1}" "${rest[@]}")
for name in "${again[@]}"; do
	echo "== $name: not run again (# suite: once: the same checks ran in the first pass)"
done

times=()
running=0
# reap: wait for one job to end, print its report and record its time
reap() {
	local pid rc name ms
	wait -n -p pid
	rc=$?
	name=${name_of[$pid]}
	ms=$(($(now_ms) - ${start_of[$pid]}))
	unset "name_of[$pid]" "start_of[$pid]"
	running=$((running - 1))
	if [ "$name" = unit ]; then unit_report "$ms"; else script_report "$name" "$rc" "$ms"; fi
	times+=("$ms $name")
}
for name in "${queue[@]}"; do
	lim=$JOBS
	if alone "$name"; then lim=1; fi
	while [ "$running" -ge "$lim" ]; do reap; done
	if [ "$name" = unit ]; then
		locked -s unit_job >"$logdir/unit.wait" 2>&1 &
	else
		mode=-s
		if alone "$name"; then mode=-x; fi
		locked $mode bash "$here/integration/$name.sh" >"$logdir/$name.log" 2>&1 &
	fi
	name_of[$!]=$name start_of[$!]=$(now_ms)
	running=$((running + 1))
	# an alone script ends before the next starts
	if alone "$name"; then while [ "$running" -gt 0 ]; do reap; done; fi
done
while [ "$running" -gt 0 ]; do reap; done

echo "== wall time per script (JOBS=$JOBS), slowest first; total $(secs "$(now_ms)") s"
printf '%s\n' "${times[@]}" | sort -rn | while read -r ms name; do
	printf '  %7s s  %s\n' "$(secs "$ms")" "$name"
done
if [ $failed -gt 0 ]; then
	keep_logs=1
	echo "logs of this run: $logdir (kept: something failed)"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
