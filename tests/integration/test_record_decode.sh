#!/usr/bin/env bash
# test_record_decode.sh - `scxprof record` with the decode backend, the
# default on this PMU-less machine, on warm-share: threads that share
# memory only after a warm-up in which the main thread made every page
# fault (so no worker thread ever faults). Checks that
#  - the default is decode, said in one warning, and metadata accounts for
#    every cpu-clock sample, none of them in kernel mode, with fewer
#    pagemap and page-flag reads than samples;
#  - perf script and perf report read perf.mem.data without a warning, and
#    process agrees with perf script on every sample;
#  - every hot-loop sample has an addr inside the thread's own region, and
#    a phys_addr that is the one pagemap gave the workload for that page,
#    or 0 for a sample drained after warm-share had exited (its page
#    tables gone: the loss decode cannot avoid, more of it the later the
#    drain runs on a loaded host): no more of those than metadata's
#    phys_addr.unresolved_exited counts;
#  - process + extract merge the sharing threads (alpha, beta) and keep
#    gamma and delta apart;
#  - the page-fault backend (`--backend software`, its old name) sees no
#    worker-thread access to the regions at all, so it cannot.
# No timing decides anything: the workload does a fixed amount of work.
# Only the recorded warm-share's own samples count (its pid, from its map
# file): other warm-shares (bench_decode) may run at the same time.
# It runs in a session of its own at autogroup nice -20 (lib.sh's
# own_session): its page-fault recording samples every fault of the host,
# and a recorder starved by other sessions overflows its ring and loses the
# workload's records with the samples ("the warm-up's faults were not seen"
# at load ~24, before and after phys_addr.unresolved_exited).
. "$(dirname "$0")/lib.sh"
own_session "$@"
WL="$TOP/$BUILD/workloads/warm-share"

if [ "$(id -u)" -ne 0 ]; then
	skip "record decode" "needs root (system-wide sampling, pagemap PFNs)"
	exit 0
fi
if ! perf record -q -e cpu-clock -F 100 --user-regs=ax,ip -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "record decode" "perf cannot sample cpu-clock with user registers here"
	exit 0
fi
if ls /sys/bus/event_source/devices/ibs_op /sys/bus/event_source/devices/arm_spe_0 \
	/sys/bus/event_source/devices/cpu/events/mem-loads >/dev/null 2>&1; then
	skip "record decode" "this host has a memory PMU: auto would not choose decode"
	exit 0
fi
cd "$WORK" || exit 1

# --- the default backend -----------------------------------------------------------------
# record_default ROUNDS: warm-share for ROUNDS rounds under the default backend, into dec/
record_default() {
	rm -rf dec dec.out "$WORK/dec.map" # a retry starts afresh (record and process refuse to overwrite)
	"$SCXPROF" record -t 120 -o dec --disable-archive --disable-sched-trace -- "$WL" -i "$1" -m "$WORK/dec.map" \
		>dec.txt 2>dec.err
}
# decode_extract: process dec/, keep warm-share's own samples in wl.jsonl, extract -v into dec.json / ext.err.
# extract sees only warm-share's own samples: the recording is system-wide,
# and other work on a shared machine may crowd its threads below extract's
# 5% floor or into other cgroups' cells
decode_extract() {
	"$SCXPROF" process -f dec >/dev/null 2>proc2.err || return 2
	python3 - dec.out/perf.jsonl "$WORK/dec.map" >wl.jsonl <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
pids = {int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("pid ")}
for l in lines:
    if json.loads(l)["pid"] in pids:
        print(l)
PY
	"$SCXPROF" extract -v -f wl.jsonl >dec.json 2>ext.err || return 3
}
# alpha~beta "cannot tell" (too few samples: the tool's honest answer below
# its detection limit, docs/clustering.md) is recorded again with twice the
# rounds (300, 600, 1200); "apart" is never retried
for rounds in 300 600 1200; do
	record_default "$rounds"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "record (default backend) -- warm-share" "exit $rc: $(tail -n 5 dec.err)"
		exit 0
	fi
	decode_extract
	xrc=$?
	[ $xrc -eq 0 ] && { grep -A1 -E '^    (alpha- ~ beta-|beta- ~ alpha-): ' ext.err | grep -q ': cannot tell' ||
		sed -n '/^  cannot tell: /,/^  [^ ]/p' ext.err | grep -qE '^    (alpha- ~ beta-|beta- ~ alpha-)$'; } &&
		{ echo "info: $rounds rounds: alpha~beta cannot tell, recording again"; continue; }
	break
done
pass "record (default backend) -- warm-share exits 0"
check "default backend here is decode" grep -q '"backend":"decode"' dec/metadata.json
check "one warning says what decode is and lacks" bash -c \
	'test "$(grep -c "no memory-sampling PMU" dec.err)" -eq 1 && grep -q "no latency, no data source level" dec.err'
check "metadata.json valid against its schema" validate "$TOP/schemas/metadata.schema.json" dec/metadata.json
check "metadata: every cpu-clock sample accounted for, samples = accesses" python3 - dec/metadata.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["mem"]
d = m["decode"]
assert d["decoder"].startswith("zydis "), d["decoder"]
assert d["freq_hz"] and d["freq_hz"] > 0, d
parts = d["decoded"] + d["decoded_previous"] + sum(d["skipped"].values())
assert parts == d["ticks"], (parts, d)
assert m["samples"] == d["accesses"] >= d["decoded"] + d["decoded_previous"], (m["samples"], d)
assert d["loads"] > 0 and d["stores"] > 0, d
assert d["phys_resolved"] + d["phys_unresolved"] == d["accesses"], d
p = m["phys_addr"]
assert p["unresolved_exited"] <= p["unresolved"] == d["phys_unresolved"], p
PY
check "metadata: no kernel-mode tick reaches the recorder; one pagemap pread serves several samples, page flags only for huge-page candidates" python3 - dec/metadata.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["mem"]["decode"]
assert d["skipped"]["kernel_mode"] == 0, d["skipped"]  # exclude_kernel, exclude_idle
assert d["drain_passes"] > 0, d
assert d["pagemap_reads"] < d["accesses"], d
assert d["kpageflags_reads"] * 4 < d["phys_resolved"], d  # warm-share's regions are not huge
PY

# --- perf reads it, process agrees ---------------------------------------------------------
perf script -i dec/perf.mem.data >perf.script 2>perf.script.err
check "perf script reads perf.mem.data" test -s perf.script
check "perf script prints no warning" test ! -s perf.script.err
perf report -i dec/perf.mem.data --stdio >perf.report 2>perf.report.err
check "perf report prints no warning" test ! -s perf.report.err
perf script -i dec/perf.mem.data -F data_src >perf.dsrc 2>&1
check "perf script: data_src has an op and level N/A" bash -c \
	'grep -q "|OP LOAD|LVL N/A" perf.dsrc && grep -q "|OP STORE|LVL N/A" perf.dsrc'
if ! "$SCXPROF" process -f dec --no-filter -o all >/dev/null 2>proc.err; then
	fail "process of the decode recording" "$(tail -n 3 proc.err)"
	exit 0
fi
# a thread perf.mem.data has no COMM for (lost under load, or a task whose
# records came before the recording's) perf calls ':TID'; process names it
# from sched.data and counts it in process.json: those and only those differ
NAMED=(--named-from-sched "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["threads_named_from_sched"])' all/process.json)")
check "process agrees with perf script on every sample" \
	python3 "$TOP/tests/integration/compare_perf_script.py" "${NAMED[@]}" dec/perf.mem.data all/perf.jsonl
check "perf.jsonl valid against its schema" validate "$TOP/schemas/perf-sample.schema.json" all/perf.jsonl --jsonl

# --- addresses and physical addresses of the hot loop --------------------------------------
check "hot loop: every sample in the thread's region, phys_addr = pagemap's or 0 after the exit (counted in metadata)" python3 - dec.map all/perf.jsonl dec/metadata.json <<'PY'
import json, sys
regions, phys, pid = {}, {}, None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "pid":
        pid = int(f[1])
    elif f[0] == "region":
        regions[f[1]] = (int(f[2], 16), int(f[3], 16))
    else:
        phys[int(f[1], 16)] = int(f[2], 16)
own = {"alpha": "A", "beta": "A", "gamma": "G", "delta": "D"}
n = good = inr = zero = 0
for line in open(sys.argv[2]):
    s = json.loads(line)
    g = s["comm"].rsplit("-", 1)[0]
    if s["pid"] != pid or g not in own or s["sym"] != "hot_loop":  # other warm-shares may run
        continue
    n += 1
    a, (lo, hi) = int(s["addr"], 16), regions[own[g]]
    page = a & ~0xfff
    want = phys.get(page, 0) + (a & 0xfff) if phys.get(page) else None
    p = int(s["phys_addr"], 16)
    inr += lo <= a < hi
    good += lo <= a < hi and want is not None and p == want
    zero += lo <= a < hi and p == 0
exited = json.load(open(sys.argv[3]))["mem"]["phys_addr"]["unresolved_exited"]
print("hot-loop samples: %d, in region %d, with pagemap's phys_addr %d, phys_addr 0 %d (metadata: %d samples "
      "of exited processes)" % (n, inr, good, zero, exited))
assert n >= 200, "only %d hot-loop samples" % n
assert inr == n, "%d of %d in the thread's region" % (inr, n)
assert good + zero == n, "%d with another phys_addr than pagemap's" % (n - good - zero)
assert zero <= exited, "%d without phys_addr, metadata counts %d of exited processes" % (zero, exited)
PY

# --- sharing after warm-up: process + extract ------------------------------------------------
# extract sees only warm-share's own samples: the recording is system-wide,
# and other work on a shared machine may crowd its threads below extract's
# 5% floor or into other cgroups' cells
if [ $xrc -eq 2 ]; then
	fail "process of the decode recording" "$(tail -n 3 proc2.err)"
elif [ $xrc -eq 3 ]; then
	fail "extract of warm-share's samples" "$(tail -n 3 ext.err)"
else
	check "extract: alpha and beta merge, gamma and delta stay apart" python3 - dec.json ext.err <<'PY'
import json, sys
subcells = [s["name"] for c in json.load(open(sys.argv[1])) for s in c.get("subcells", [])]
why = [l.strip() for l in open(sys.argv[2]) if "alpha" in l and "beta" in l][:2]
assert "alpha-+beta-" in subcells, (subcells, why)
assert "gamma-" in subcells and "delta-" in subcells, subcells
assert not any(("gamma" in s or "delta" in s) and "+" in s for s in subcells), subcells
PY
	assert_onepass "decode recording" "$WORK/dec"
fi

# --- the page-fault backend cannot see it ----------------------------------------------------
"$SCXPROF" record -t 120 -o pf --disable-archive --disable-sched-trace --backend software -- "$WL" -i 300 \
	-m "$WORK/pf.map" >pf.txt 2>pf.err
rc=$?
if [ $rc -ne 0 ]; then
	fail "record --backend software -- warm-share" "exit $rc: $(tail -n 5 pf.err)"
	exit 0
fi
check "--backend software is the page-fault backend" grep -q '"backend":"page-fault"' pf/metadata.json
if "$SCXPROF" process -f pf --no-filter -o pfall >/dev/null 2>pfproc.err; then
	check "page-fault backend: no worker-thread sample touches the shared regions" python3 - pf.map pfall/perf.jsonl <<'PY'
import json, sys
regions = [tuple(int(x, 16) for x in l.split()[2:4]) for l in open(sys.argv[1]) if l.startswith("region")]
pid = [int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("pid ")][0]
workers = warm = 0
for line in open(sys.argv[2]):
    s = json.loads(line)
    a = int(s["addr"], 16)
    if s["pid"] != pid or not any(lo <= a < hi for lo, hi in regions):
        continue
    if s["comm"].rsplit("-", 1)[0] in ("alpha", "beta", "gamma", "delta"):
        workers += 1
    else:
        warm += 1
print("region samples: warm-up (main thread) %d, worker threads %d" % (warm, workers))
assert warm > 0, "the warm-up's faults were not seen"
assert workers == 0, workers
PY
	assert_onepass "page-fault recording" "$WORK/pf"
else
	fail "process of the page-fault recording" "$(tail -n 3 pfproc.err)"
fi
