#!/usr/bin/env bash
# test_process_data_id.sh - the identity of sampled data (perf.jsonl data_map,
# data_id) on real recordings made here: a parent and a child map one file
# and one memfd MAP_SHARED at different addresses and write private memory
# (tests/workloads/shared-maps). The shared pages must get the same F: ids in
# both processes, private ones A: ids of their own pid; data objects must
# match perf report --mem-mode (the oracle) sample for sample. Also: process
# drops the recorder's own samples (metadata.json recorder).
# scxprof record samples every page fault of the host: a fault storm of
# another test beside it overflowed its ring (record: "the kernel lost 8348
# events"; 2 of 8 recordings beside a loop of record, the workload's file
# samples and MMAP2 gone). So the test runs in a session of its own at
# autogroup nice -20 (lib.sh's own_session; 8 of 8 then), and a recording
# whose record reports lost events is made again (up to 3 times).
. "$(dirname "$0")/lib.sh"
own_session "$@"
WL="$TOP/$BUILD/workloads/shared-maps"
PAGES=16

pf_ok=1
if ! perf record -q -e page-faults -c 1 -d -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	pf_ok=0
	skip "data identity (perf record)" "perf cannot record page-fault samples here"
else
	mkdir -p "$WORK/pf"
	perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/pf/perf.data" \
		-- "$WL" "$WORK/shared.bin" "$PAGES" >"$WORK/pf.wl" 2>"$WORK/pf.err"
	if "$SCXPROF" process -f "$WORK/pf" --no-filter >"$WORK/pf.log" 2>&1; then
		check "perf record: shared file and memfd pages have equal F: ids across processes, private A: ids own" \
			python3 "$TOP/tests/integration/check_data_id.py" "$WORK/pf.out/perf.jsonl" "$WORK/pf.wl" \
			"$WORK/shared.bin" "$PAGES" "$WORK/pf/perf.data"
		check "perf record: perf.jsonl with data keys valid against its schema" \
			validate "$TOP/schemas/perf-sample.schema.json" "$WORK/pf.out/perf.jsonl" --jsonl
	else
		fail "perf record: process ran" "$(tail -n 3 "$WORK/pf.log")"
	fi
fi

# the same through our own recorder (page-fault backend: the workload shares through its faults)
# record_whole OUT STDOUT STDERR ARGS...: scxprof record -o OUT ARGS, made
# again (up to 3 times) while record says the kernel lost events; record's status
record_whole() {
	local out=$1 so=$2 se=$3 try rc
	shift 3
	for try in 1 2 3; do
		rm -rf "$out" "$out.out"
		"$SCXPROF" record -o "$out" "$@" >"$so" 2>"$se"
		rc=$?
		[ $rc -eq 0 ] && grep -q "WARNING: the kernel lost [1-9]" "$se" || return $rc
		echo "info: $out: $(grep -m1 "the kernel lost" "$se") (try $try); recording again"
	done
	return $rc
}
if record_whole "$WORK/sp" "$WORK/sp.wl" "$WORK/sp.err" -t 20 --disable-archive --disable-sched-trace \
	--backend page-fault -- "$WL" "$WORK/shared2.bin" "$PAGES"; then
	if "$SCXPROF" process -f "$WORK/sp" --no-filter >"$WORK/sp.log" 2>&1; then
		check "scxprof record: equal F: ids across processes, private A: ids own" \
			python3 "$TOP/tests/integration/check_data_id.py" "$WORK/sp.out/perf.jsonl" "$WORK/sp.wl" \
			"$WORK/shared2.bin" "$PAGES"
	else
		fail "scxprof record: process ran" "$(tail -n 3 "$WORK/sp.log")"
	fi
	# the recorder's own samples: listed in metadata.json, counted and dropped
	check "scxprof record: metadata.json with recorder valid against its schema" \
		validate "$TOP/schemas/metadata.schema.json" "$WORK/sp/metadata.json"
	if "$SCXPROF" process -f "$WORK/sp" -o "$WORK/sp.filtered" -v >"$WORK/spf.log" 2>&1; then
		assert_onepass "shared-maps recording" "$WORK/sp"
		check "scxprof record: the recorder's samples are counted under skipped.recorder and dropped" python3 -c '
import json,sys
meta=json.load(open(sys.argv[1]))["recorder"]
pids=set(meta["pids"])
assert meta["comm"]=="scxprof" and meta["command_pid"], meta
def own(d): return d["pid"] in pids or (d["pid"]==meta["command_pid"] and d["comm"]==meta["comm"])
every=[json.loads(l) for l in open(sys.argv[2])]
kept=[json.loads(l) for l in open(sys.argv[3])]
summary=json.load(open(sys.argv[4]))["samples"]
n=sum(1 for d in every if own(d))
assert n>0, "no samples of the recorder in the --no-filter output"
# upstream filters first (phys_addr 0, comm perf/swapper), then the recorder
n_after=sum(1 for d in every if own(d) and int(d["phys_addr"],16)!=0 and d["comm"] not in ("perf","swapper"))
assert summary["skipped"]["recorder"]==n_after, (summary, n_after)
assert not [d for d in kept if own(d)], "recorder samples kept"
log=open(sys.argv[5]).read()
assert log.count("skipped (recorder)")==n_after, "-v lines"
' "$WORK/sp/metadata.json" "$WORK/sp.out/perf.jsonl" "$WORK/sp.filtered/perf.jsonl" "$WORK/sp.filtered/process.json" "$WORK/spf.log"
	else
		fail "scxprof record: process without --no-filter ran" "$(tail -n 3 "$WORK/spf.log")"
	fi
elif [ $pf_ok = 0 ]; then
	skip "data identity (scxprof record)" "perf cannot record page-fault samples here"
else
	# the kernel gives page-fault samples (the probe above): record failing is a defect
	fail "data identity (scxprof record): record ran" "$(tail -n 3 "$WORK/sp.err" | tr '\n' ' ')"
fi

# a file mapped before the recording (its MMAP2 synthesized from /proc) and by
# a process started during it: the same F: ids, so the synthesized record
# must carry the inode generation the kernel puts in its own
pre_vs_new() { # TAG NAME FILE
	local out=$WORK/pre-$1 name=$2 file=$3 p1 i
	"$WL" -w "$file" 8 >"$out.wl1" 2>&1 &
	p1=$!
	# until it says ready or exits (an observable state, no time limit)
	while ! grep -q '^ready' "$out.wl1" && kill -0 $p1 2>/dev/null; do sleep 0.05; done
	if ! grep -q '^ready' "$out.wl1"; then
		kill $p1 2>/dev/null; fail "$name: file mapped before recording" "the -w workload did not start"; return
	fi
	if "$SCXPROF" record -t 30 -o "$out" --disable-archive --disable-sched-trace --backend page-fault -- sh -c \
		"kill -USR1 $p1; while ! grep -q '^done' '$out.wl1'; do sleep 0.05; done; exec '$WL' -1 '$file' 8" \
		>"$out.wl2" 2>"$out.err" && "$SCXPROF" process -f "$out" --no-filter >"$out.log" 2>&1; then
		check "$name: a file mapped before recording has the F: ids of the same file mapped during it" python3 -c '
import json,sys,re
p1=int(re.search(r"ready (\d+)",open(sys.argv[2]).read()).group(1))
p2=int(re.search(r"once (\d+)",open(sys.argv[3]).read()).group(1))
ids={p1:set(),p2:set()}
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d["pid"] in ids and d.get("data_map")==sys.argv[4]:
        assert d["data_id"].startswith("F:"), d
        ids[d["pid"]].add(d["data_id"])
assert len(ids[p1])==8 and ids[p1]==ids[p2], (sorted(ids[p1]), sorted(ids[p2]))' \
			"$out.out/perf.jsonl" "$out.wl1" "$out.wl2" "$file"
	else
		fail "$name: record/process ran" "$(tail -n 2 "$out.err" "$out.log" | tr '\n' ' ')"
	fi
	kill $p1 2>/dev/null; wait $p1 2>/dev/null
}
pre_vs_new disk "pre-existing map (disk file)" "$WORK/pre.bin"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	pre_vs_new shm "pre-existing map (/dev/shm)" "/dev/shm/scxprof-it-$$"
	rm -f "/dev/shm/scxprof-it-$$"
else
	skip "pre-existing map (/dev/shm)" "no writable /dev/shm"
fi

# text input (upstream's perf script output, a fixture in the tree): no
# mapping, data_id null
mkdir -p "$WORK/txt"
cp "$TOP/tests/fixtures/profile_basic/"* "$WORK/txt/"
"$SCXPROF" process -f "$WORK/txt" >/dev/null 2>&1
check "text input: data_id null, no data_map" python3 -c '
import json,sys
lines=[json.loads(l) for l in open(sys.argv[1])]
assert lines and all(d["data_id"] is None and "data_map" not in d for d in lines)' "$WORK/txt.out/perf.jsonl"
