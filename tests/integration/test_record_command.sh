#!/usr/bin/env bash
# test_record_command.sh - record's command and status lines. `record -- COMMAND` that record ends (SIGTERM here;
# -t elapsing goes through the same stop) ends what COMMAND started too: a
# pipeline's other ends, a server behind a script. Before, only COMMAND's
# first process was killed and the rest ran on after record had returned.
# The command starts two children and only then signals record, so they
# exist when record stops, whatever the load; the check is scoped to the
# test's own cgroup.
. "$(dirname "$0")/lib.sh"

if ! allotment_cgroup reccmd; then
	skip "record ends COMMAND's children" "no cgroup2 mount"
	exit 0
fi
# the inner sh's parent is record (IN_CG execs): it signals record after
# forking the two sleeps
"$SCXPROF" record -t 60 --disable-archive -o "$WORK/rec" -- "${IN_CG[@]}" \
	sh -c 'sleep 300 & sleep 300 & kill -TERM $PPID; wait' >"$WORK/out" 2>"$WORK/err"
rc=$?
check "record stopped by SIGTERM exits 130" test "$rc" = 130
check "record stopped by SIGTERM deletes its output" test ! -e "$WORK/rec"
# SIGKILL is sent before record returns; the killed processes leave the
# cgroup as they exit, which the wait below allows for (it only ends early)
left=""
for _ in $(seq 1 100); do
	left=$(cat "$cg2/$cg/cgroup.procs")
	[ -z "$left" ] && break
	sleep 0.1
done
if [ -z "$left" ]; then
	pass "record ends COMMAND's children, not only COMMAND"
else
	fail "record ends COMMAND's children, not only COMMAND" \
		"still running after record returned: $(ps -o pid=,comm= -p "$(echo $left | tr ' ' ,)" | tr '\n' ' ')"
	kill $left 2>/dev/null
fi

# The status lines (stderr not a terminal): one a second, the last not
# repeated. -t whole seconds makes the deadline a status time, where the
# final line used to print the one just printed again.
"$SCXPROF" record -t 1 --disable-mem-trace --disable-archive -o "$WORK/st" >/dev/null 2>"$WORK/st.err"
grep '^\[record\]' "$WORK/st.err" >"$WORK/st.lines"
check "record -t 1: status lines written" test -s "$WORK/st.lines"
check "record -t 1: the last status line is not repeated" \
	test "$(uniq "$WORK/st.lines" | wc -l)" = "$(wc -l <"$WORK/st.lines")"
