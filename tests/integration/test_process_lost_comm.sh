#!/usr/bin/env bash
# test_process_lost_comm.sh - threads perf.data has no COMM record for (a
# loaded host's kernel loses records when the ring is full, COMM among them;
# perf then calls the thread ':TID') are named by the scheduling stream's
# records. A real recording of the planted workload, and the same recording
# with every COMM record cut out of perf.mem.data (corrupt_perf.py no-comm):
# the cut one names its threads, gives the same allotment cell, and differs
# from perf script only where perf prints ':TID', in exactly the threads
# process.json counts.
. "$(dirname "$0")/lib.sh"
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -z "$cg2" ] || [ ! -w "$cg2" ]; then
	skip "lost COMM records" "no writable cgroup2 hierarchy"
	exit 0
fi
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "lost COMM records" "perf_event_open of software events is refused here"
	exit 0
fi
cg=workload.slice/workload-tw-lostcomm$$.allotment.slice
allot="workload-tw-lostcomm$$\\.allotment\\.slice"
trap 'cgroup_remove "$cg2/$cg"; rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
# perf script (the oracle below) stops at the first sample under an id no
# event of the file has ("failed to process type: 9"), which another suite's
# system-wide recording of the same event can leave here; record again then,
# as perf_record_clean does
for try in 1 2 3; do
	rm -rf prof
	"$SCXPROF" record -t 60 -o prof --disable-archive --backend page-fault -- "$TOP/$BUILD/workloads/scxprof-workload" \
		-d 1 -p 32 -H 20 "alpha:2:A:$cg" "beta:2:A:$cg" "gamma:2::$cg" >rec.out 2>rec.err
	rc=$?
	cgroup_remove "$cg2/$cg" # workload.slice stays: another test may be making a cgroup in it
	[ $rc -eq 0 ] && [ -f prof/perf.mem.data ] || break
	foreign=$(python3 "$TOP/tests/tools/perf_foreign_ids.py" prof/perf.mem.data) || break
	[ "$foreign" = 0 ] && break
	echo "info: prof/perf.mem.data holds $foreign samples of another session's events (try $try); recording again"
done
if [ $rc -ne 0 ] || [ ! -f prof/sched.data ]; then
	if grep -qi "bpf\|tracepoint" rec.err && [ $rc -ne 0 ]; then
		skip "lost COMM records" "record cannot trace the scheduler here: $(tail -n 1 rec.err)"
	else
		fail "lost COMM records: record ran" "rc $rc: $(tail -n 3 rec.err)"
	fi
	exit 0
fi
cp -r prof cut
rm cut/perf.mem.data
if ! python3 "$TOP/tests/integration/corrupt_perf.py" no-comm prof/perf.mem.data cut/perf.mem.data; then
	fail "lost COMM records: COMM records cut" "corrupt_perf.py failed"
	exit 0
fi
check "the cut file has no COMM record (perf report -D)" \
	sh -c '! perf report -D -i cut/perf.mem.data 2>/dev/null | grep -q "PERF_RECORD_COMM"'
for p in prof cut; do
	if ! "$SCXPROF" process -v -f $p --no-perfetto >$p.pout 2>$p.perr ||
		! "$SCXPROF" extract --workload-allotment-cgroup-regex "$allot" -f $p.out/perf.jsonl >$p.cfg 2>$p.xerr; then
		fail "lost COMM records: $p processed and extracted" "$(tail -n 3 $p.perr $p.xerr)"
		exit 0
	fi
done
named=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads_named_from_sched"])' cut.out/process.json)
check "cut: process.json counts threads named by sched.data" test "$named" -gt 0
check "cut: -v says how many threads were named by sched.data" \
	grep -q "^$named threads had no COMM record in perf.mem.data: named by sched.data" cut.perr
check "process.json valid against its schema" validate "$TOP/schemas/process-summary.schema.json" cut.out/process.json
check "cut: every sample of the workload's cgroup has a name, none ':TID'" python3 - cut.out/perf.jsonl "$allot" <<'PY'
import json, re, sys
n = 0
for line in open(sys.argv[1]):
    s = json.loads(line)
    if re.search(sys.argv[2], s["cgroup"]):
        n += 1
        assert s["comm"] and not re.fullmatch(r":\d+", s["comm"]), s
assert n > 0, "no sample of the workload's cgroup"
PY
check "cut: the allotment cell is the intact recording's (alpha+beta together, gamma apart)" python3 - prof.cfg cut.cfg <<'PY'
import json, sys
cell = lambda f: next(c for c in json.load(open(f)) if c["name"] == "allotment")
a, b = cell(sys.argv[1]), cell(sys.argv[2])
names = {s["name"] for s in a.get("subcells", [])}
assert {"alpha-+beta-", "gamma-"} <= names, names
assert a == b, (a, b)
PY
# perf prints ':TID' for a thread without COMM: process names exactly those
"$SCXPROF" process -f cut -o cut.nf --no-filter --no-perfetto >/dev/null 2>&1
nf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads_named_from_sched"])' cut.nf/process.json)
check "cut: every sample equals perf script's but where perf says ':TID' (the $nf threads process.json counts)" \
	python3 "$TOP/tests/integration/compare_perf_script.py" --named-from-sched "$nf" cut/perf.mem.data cut.nf/perf.jsonl
assert_onepass "cut recording" "$WORK/cut" --workload-allotment-cgroup-regex "$allot"
