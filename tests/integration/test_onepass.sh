#!/usr/bin/env bash
# test_onepass.sh - `extract -f PROFILE` (a profile directory or .tar.gz):
# one pass from the profile to the config, no JSONL written, byte for byte
# what `process` then `extract` print (assert_onepass in lib.sh), on the
# fixture profiles, an archive of one, a perf.data with a perf.sched.data
# recorded by the system perf (upstream's inputs), and with -j 1 and -j 2;
# -j 1, 2, 3, 4 and 8 give the same outputs (assert_jobs in lib.sh);
# PROFILE.out/ as -f reads its perf.jsonl; bad inputs fail cleanly.
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures"

# --- fixtures (perf script text, hints) --------------------------------------
for p in profile_basic profile_unordered; do
	cp -r "$FIX/$p" "$WORK/$p"
	assert_onepass "$p" "$WORK/$p"
	assert_onepass "$p --cluster comm --use-hints" "$WORK/$p" --cluster comm --use-hints
	assert_onepass "$p --use-hints -vv" "$WORK/$p" --use-hints -vv
	assert_jobs "$p" "$WORK/$p"
	assert_jobs "$p --use-hints" "$WORK/$p" --use-hints
done
mkdir -p "$WORK/arc/myprofile"
cp "$FIX/profile_basic/"* "$WORK/arc/myprofile/"
(cd "$WORK/arc" && tar czf myprofile.tar.gz myprofile && rm -rf myprofile)
assert_onepass "archive of profile_basic" "$WORK/arc/myprofile.tar.gz"
check "archive: one pass wrote no JSONL" test -z "$(find "$WORK/arc" -name '*.jsonl' ! -name hints.jsonl)"

# --- PROFILE.out/ is read as its perf.jsonl (and sched.jsonl) ----------------
"$SCXPROF" process -f "$WORK/profile_basic" -o "$WORK/pb.out" >/dev/null 2>&1
"$SCXPROF" extract -v -f "$WORK/pb.out/perf.jsonl" >"$WORK/file.json" 2>"$WORK/file.err"
"$SCXPROF" extract -v -f "$WORK/pb.out" >"$WORK/dir.json" 2>"$WORK/dir.err"
check "PROFILE.out/ as -f: the same config and report as its perf.jsonl" \
	bash -c "cmp '$WORK/file.json' '$WORK/dir.json' && cmp '$WORK/file.err' '$WORK/dir.err'"
"$SCXPROF" process -z -f "$WORK/profile_basic" -o "$WORK/pbz.out" >/dev/null 2>&1
"$SCXPROF" extract -v -f "$WORK/pbz.out" >"$WORK/dirz.json" 2>/dev/null
check "PROFILE.out/ of process -z as -f: the same config as its perf.jsonl" cmp "$WORK/file.json" "$WORK/dirz.json"

# --- perf record's perf.data and perf sched's perf.sched.data -----------------
if perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	mkdir -p "$WORK/sp"
	perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -a -k CLOCK_MONOTONIC \
		-o "$WORK/sp/perf.data" -- "$TOP/$BUILD/workloads/scxprof-workload" -d 1 -p 32 alpha:2:A beta:2:A gamma:1 \
		>/dev/null 2>&1
	if perf record -q -a -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking \
		-e sched:sched_migrate_task -o "$WORK/sp/perf.sched.data" -- perf bench sched pipe -l 2000 >/dev/null 2>&1; then
		assert_onepass "perf record perf.data + perf.sched.data" "$WORK/sp"
		assert_onepass "perf record perf.data + perf.sched.data, --cluster comm" "$WORK/sp" --cluster comm
		# the sched stream's filter comes while its thread aggregates: the threads dropped are the same
		assert_jobs "perf record perf.data + perf.sched.data" "$WORK/sp"
		"$SCXPROF" extract -v -j 2 -f "$WORK/sp" 2>&1 >/dev/null | grep 'sched attribution' >"$WORK/sp.attr"
		check "perf.sched.data: -v counts threads the samples do not explain (the sched thread's late filter has threads to drop)" \
			grep -q 'unattributed.*: [1-9][0-9]* threads' "$WORK/sp.attr"
		# the two steps: extract -f perf.jsonl reads sched.jsonl on a thread of its own from -j 2
		"$SCXPROF" process -f "$WORK/sp" -o "$WORK/sp.two" >/dev/null 2>&1
		"$SCXPROF" process -z -f "$WORK/sp" -o "$WORK/sp.twoz" >/dev/null 2>&1
		check "two steps: process wrote a sched.jsonl from perf.sched.data" test -s "$WORK/sp.two/sched.jsonl"
		assert_jobs "two steps, perf.jsonl + sched.jsonl" "$WORK/sp.two/perf.jsonl"
		assert_jobs "two steps, perf.jsonl.zst + sched.jsonl.zst" "$WORK/sp.twoz/perf.jsonl.zst"
		"$SCXPROF" extract -v -j 2 -f "$WORK/sp.two/perf.jsonl" 2>&1 >/dev/null | grep 'sched attribution' >"$WORK/sp.two.attr"
		check "two steps -j 2: the late filter drops the threads one pass drops" cmp "$WORK/sp.attr" "$WORK/sp.two.attr"
	else
		skip "perf.sched.data" "perf record of sched tracepoints refused here"
	fi
	rm -f "$WORK/sp/perf.sched.data"
	assert_onepass "perf record perf.data alone" "$WORK/sp"
	# --sched FILE replaces the profile's stream, as with perf.jsonl
	"$SCXPROF" process -f "$WORK/sp" -o "$WORK/sp.out" >/dev/null 2>&1
	printf '{"comm":"x","pid":1,"tid":1,"cpu":0,"time":1.0,"event":"sched:sched_switch","trace":"","fields":{}}\n' >"$WORK/s.jsonl"
	"$SCXPROF" extract -v --sched "$WORK/s.jsonl" -f "$WORK/sp.out/perf.jsonl" >"$WORK/s1.json" 2>"$WORK/s1.err"
	"$SCXPROF" extract -v --sched "$WORK/s.jsonl" -f "$WORK/sp" >"$WORK/s2.json" 2>/dev/null
	check "--sched FILE with a profile: the same config as with its perf.jsonl" cmp "$WORK/s1.json" "$WORK/s2.json"
else
	skip "perf record profiles" "perf_event_open of software events is refused here"
fi

# --- bad inputs: one clear line, exit 1, nothing on stdout --------------------
expect_fail() { # NAME PATTERN -f PATH...
	local name=$1 pat=$2
	shift 2
	"$SCXPROF" extract "$@" >"$WORK/bad.json" 2>"$WORK/bad.err"
	local rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$WORK/bad.json" ] && grep -q "$pat" "$WORK/bad.err" && [ "$(wc -l <"$WORK/bad.err")" -eq 1 ]; then
		pass "$name"
	else
		fail "$name" "rc=$rc $(head -c 300 "$WORK/bad.err")"
	fi
}
mkdir -p "$WORK/schedonly" "$WORK/empty"
printf '{"comm":"x","pid":1,"tid":1,"cpu":0,"time":1.0,"event":"sched:sched_switch","trace":"","fields":{}}\n' >"$WORK/schedonly/x"
cp "$FIX/profile_basic/perf.mem.script" "$WORK/schedonly/perf.sched.script"
rm "$WORK/schedonly/x"
expect_fail "a profile without a memory stream is refused" "no memory stream" -f "$WORK/schedonly"
expect_fail "an empty directory is refused" "no memory stream found" -f "$WORK/empty"
printf 'not gzip\n' >"$WORK/broken.tar.gz"
expect_fail "a damaged archive is refused" "broken.tar.gz" -f "$WORK/broken.tar.gz"
# the two steps with sched.jsonl read beside perf.jsonl (-j 2): the same error line as -j 1
mkdir -p "$WORK/sdbad"
cp "$FIX/extract/sched-demand/perf.jsonl" "$FIX/extract/sched-demand/sched.jsonl" "$WORK/sdbad/"
assert_jobs "two steps, sched-demand perf.jsonl + sched.jsonl" "$WORK/sdbad/perf.jsonl"
printf '{"comm":"x","pid":1,"tid":1,"cpu":-1,"time":1.0,"event":"e:f","trace":"","fields":{},"hint":0}\n' >>"$WORK/sdbad/sched.jsonl"
for j in 1 2; do
	expect_fail "two steps -j $j: a bad sched.jsonl line is named" "sdbad/sched.jsonl:21: \"cpu\": integer out of range" \
		-j $j -f "$WORK/sdbad/perf.jsonl"
done
printf '{"comm": 3}\n' >>"$WORK/sdbad/perf.jsonl"
for j in 1 2; do
	expect_fail "two steps -j $j: a bad perf.jsonl is named before a bad sched.jsonl" "sdbad/perf.jsonl:" \
		-j $j -f "$WORK/sdbad/perf.jsonl"
done
mkdir -p "$WORK/badperf"
printf 'PERFILE2 but not really\n' >"$WORK/badperf/perf.data"
expect_fail "a damaged perf.data is refused" "perf.data" -f "$WORK/badperf" -j 2
