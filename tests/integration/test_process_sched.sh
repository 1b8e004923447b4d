#!/usr/bin/env bash
# test_process_sched.sh - the scheduling stream of `scxprof process`:
# 1. perf.sched.data recorded here with the system perf, decoded natively and
#    compared field by field (comm, pid, tid, cpu, time, event, trace) with
#    `perf script` of the same file (the oracle nobody here wrote);
# 2. the same records as upstream's perf.sched.script text;
# 3. a synthetic sched.data (our recorder's format) with hints: trace text,
#    fields, prev_hint/next_hint, time order, a truncated tail;
# 4. input rules: sched-only and mem+sched profiles, neither -> error.
. "$(dirname "$0")/lib.sh"

# compare_perf DATA JSONL [PRECISION]: every record equals perf script's line
cat >"$WORK/compare.py" <<'PY'
import json, re, subprocess, sys
data, jsonl = sys.argv[1], sys.argv[2]
out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,cpu,time,event,trace", "--ns"],
                     capture_output=True, text=True, check=True).stdout.splitlines()
rx = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s+(.*?)\s*$')
ours = [json.loads(l) for l in open(jsonl)]
perf = [l for l in out if l.strip()]
if len(perf) != len(ours):
    sys.exit(f"record count: perf script {len(perf)}, sched.jsonl {len(ours)}")
fields = bad = 0
for i, (p, o) in enumerate(zip(perf, ours)):
    m = rx.match(p)
    if not m:
        sys.exit(f"cannot parse perf script line {p!r}")
    comm, pid, tid, cpu, s, ns, ev, trace = m.groups()
    want = {"comm": comm, "pid": int(pid), "tid": int(tid), "cpu": int(cpu),
            "time_ns": int(s) * 10**9 + int(ns), "event": ev, "trace": trace}
    got = dict(o); got["trace"] = o["trace"].rstrip()
    for k, v in want.items():
        fields += 1
        if got.get(k) != v:
            bad += 1
            if bad <= 10:
                print(f"record {i+1}: {k}: perf {v!r}, ours {got.get(k)!r}")
    fields += 1
    if abs(o["time"] - want["time_ns"] / 1e9) > 1e-6:
        bad += 1
        print(f"record {i+1}: time {o['time']} vs {want['time_ns']}")
print(f"{len(ours)} records, {fields} fields compared, {bad} mismatches")
sys.exit(1 if bad else 0)
PY

# 1. perf.sched.data from the system perf
if perf record -q -a -k CLOCK_MONOTONIC -e sched:sched_switch -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	mkdir -p "$WORK/ps"
	evs=""
	for e in sched:sched_switch sched:sched_wakeup sched:sched_waking sched:sched_wakeup_new \
		sched:sched_migrate_task sched:sched_process_fork sched:sched_process_exec sched:sched_process_exit \
		sched:sched_stat_runtime irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry \
		irq:softirq_exit irq:softirq_raise irq_vectors:local_timer_entry irq_vectors:local_timer_exit \
		nmi:nmi_handler; do
		perf list "$e" 2>/dev/null | grep -q "${e#*:}" && evs="$evs -e $e"
	done
	# -T: the two workers are threads, and perf bench sched messaging -t
	# starts and ends 40 more; each one's last switch-out, after it exited,
	# has tid -1 (checked in 2.): /bin/true after them keeps perf recording
	# a while longer. perf prints the seconds with %5lu: on a host up less
	# than 10,000 s (a fresh CI machine) they are padded with spaces, which
	# a pattern with one space after the cpu never matched (the check
	# skipped there). A recording where none of those lines is there (the
	# kernel dropped them: perf lost chunks) is made again, up to 3 times,
	# and then fails: the check in 2. never skips.
	for try in 1 2 3; do
		perf_record_clean "$WORK/ps/perf.sched.data" -q -a -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_wakeup \
			-- sh -c 'perf bench sched pipe -T -l 2000; perf bench sched messaging -t -g 1 -l 1 >/dev/null; /bin/true'
		nneg=$(perf script -i "$WORK/ps/perf.sched.data" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null |
			grep -cE '^ *:-1 +-?[0-9]+/-1 +\[[0-9]+\] +[0-9]+\.[0-9]+: sched:sched_switch: .*prev_state=X')
		[ "$nneg" -gt 0 ] && break
		echo "info: recording $try holds no exited thread's last switch-out (tid -1); recording again"
	done
	if "$SCXPROF" process -f "$WORK/ps" >"$WORK/ps.log" 2>&1; then
		check "perf.sched.data: every record equals perf script" \
			python3 "$WORK/compare.py" "$WORK/ps/perf.sched.data" "$WORK/ps.out/sched.jsonl"
		python3 "$WORK/compare.py" "$WORK/ps/perf.sched.data" "$WORK/ps.out/sched.jsonl" | tail -n 1
		check "perf.sched.data: upstream's summary line" grep -qE '^Parsed ([0-9]+) of \1 sched trace records \(0 unparseable\)$' "$WORK/ps.log"
		check "perf.sched.data: sched.jsonl valid against its schema" validate "$TOP/schemas/sched-event.schema.json" "$WORK/ps.out/sched.jsonl" --jsonl
		check "perf.sched.data: process.json valid against its schema" validate "$TOP/schemas/process-summary.schema.json" "$WORK/ps.out/process.json"
		check "perf.sched.data: no memory stream, no perf.jsonl" test ! -e "$WORK/ps.out/perf.jsonl"
		n=$(wc -l <"$WORK/ps.out/sched.jsonl")
		if [ "$n" -gt 4000 ]; then pass "perf.sched.data: recorded a real workload ($n records)"; else fail "perf.sched.data: record count" "only $n"; fi
	else
		fail "perf.sched.data: process ran" "$(tail -n 3 "$WORK/ps.log")"
	fi
	# every tracepoint upstream records, with forks/execs/exits in the window
	mkdir -p "$WORK/all"
	# shellcheck disable=SC2086
	perf_record_clean "$WORK/all/perf.sched.data" -q -a -k CLOCK_MONOTONIC $evs -- \
		sh -c 'perf bench sched pipe -l 300 >/dev/null; for i in 1 2 3; do /bin/true; done'
	if "$SCXPROF" process -f "$WORK/all" >"$WORK/all.log" 2>&1; then
		check "all sched/irq tracepoints: every record equals perf script" \
			python3 "$WORK/compare.py" "$WORK/all/perf.sched.data" "$WORK/all.out/sched.jsonl"
		check "all sched/irq tracepoints: valid against the schema" validate "$TOP/schemas/sched-event.schema.json" "$WORK/all.out/sched.jsonl" --jsonl
	else
		fail "all sched/irq tracepoints: process ran" "$(tail -n 3 "$WORK/all.log")"
	fi

	# 2. the same records as upstream's text (perf script's default 6 decimals)
	mkdir -p "$WORK/txt"
	perf script -i "$WORK/ps/perf.sched.data" -F comm,pid,tid,cpu,time,event,trace >"$WORK/txt/perf.sched.script" 2>"$WORK/txt.perf.err"
	if "$SCXPROF" process -f "$WORK/txt" >"$WORK/txt.log" 2>&1; then
		check "perf.sched.script: same records as perf.sched.data" python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
if len(a) != len(b):
    # say which records one side lacks, so a miss is explained, not tolerated
    key = lambda x: (x["time_ns"] // 1000, x["cpu"], x["event"], x["tid"])
    ka, kb = {key(x): x for x in a}, {key(x): x for x in b}
    why = ["only in perf.sched.data: " + json.dumps(ka[k]) for k in ka if k not in kb][:3]
    why += ["only in the text: " + json.dumps(kb[k]) for k in kb if k not in ka][:3]
    why.append("perf script stderr: " + open(sys.argv[3], errors="replace").read()[-400:])
    why.append("process of the text: " + open(sys.argv[4], errors="replace").read()[-300:])
    print(" | ".join(why).replace("\n", " "))
assert len(a) == len(b) > 0, (len(a), len(b))
for x, y in zip(a, b):
    for k in ("comm", "pid", "tid", "cpu", "event", "trace", "fields", "hint"):
        assert x[k] == y[k], (k, x[k], y[k])
    assert x["time_ns"] // 1000 == y["time_ns"] // 1000, (x["time_ns"], y["time_ns"])
' "$WORK/ps.out/sched.jsonl" "$WORK/txt.out/sched.jsonl" "$WORK/txt.perf.err" "$WORK/txt.log"
		# perf script prints the sample's pid/tid (u32) with %d. The kernel
		# gives -1 for a task it has no id for (perf_event_pid_type): a
		# thread exits, is unhashed, then switches out one last time
		# (prev_state=X); perf prints that ":-1 PID/-1". The text reader once
		# called such lines unparseable, so the text came out 1-17 records
		# short of perf.sched.data whenever threads exited while recording
		# (other programs' threads under load; perf bench -T's, nearly always).
		nneg=$(grep -cE '^ *:-1 +-?[0-9]+/-1 +\[[0-9]+\] +[0-9]+\.[0-9]+: sched:sched_switch: .*prev_state=X' "$WORK/txt/perf.sched.script")
		if [ "$nneg" -gt 0 ]; then
			check "perf.sched.script: every tid -1 line is a record ($nneg last switch-outs of exited threads)" python3 -c '
import json, re, sys
rx = re.compile(r"\s-?\d+/-1\s+\[\d+\]\s+\d+\.\d+: ")
t = sum(1 for l in open(sys.argv[2]) if rx.search(l))
n = sum(1 for l in open(sys.argv[1]) if json.loads(l)["tid"] == -1)
assert n == t, ("tid -1 records", n, "lines", t)' "$WORK/txt.out/sched.jsonl" "$WORK/txt/perf.sched.script"
			check "perf.sched.script: no line unparseable" grep -qE '^Parsed ([0-9]+) of \1 sched trace records \(0 unparseable\)$' "$WORK/txt.log"
		else
			fail "perf.sched.script: tid -1 lines" "3 recordings of 42 exiting threads held no last switch-out with tid -1 (a kernel without perf_event_pid_type's -1?)"
		fi
		check "perf.sched.script: process.json names the text input" python3 -c '
import json, sys; p = json.load(open(sys.argv[1]))
assert p["inputs"]["sched"] == {"file": "perf.sched.script", "format": "perf-script-text"}, p["inputs"]' "$WORK/txt.out/process.json"
	else
		fail "perf.sched.script: process ran" "$(tail -n 3 "$WORK/txt.log")"
	fi
else
	skip "perf.sched.data equals perf script" "perf cannot record tracepoints here"
fi

# 3. synthetic sched.data (schemas/sched-data.md) + hints
mkdir -p "$WORK/sd"
python3 - "$WORK/sd" <<'PY'
import json, struct, sys
d = sys.argv[1]
def rec(ts, cpu, typ, pid=0, tgid=0, pid2=0, tgid2=0, prio=0, prio2=0, a0=0, a1=0, comm=b"", comm2=b""):
    return struct.pack("<QIHHIIIIiiQQ16s16s", ts, cpu, typ, 0, pid, tgid, pid2, tgid2, prio, prio2, a0, a1, comm, comm2)
hdr = b"SCXSCHED" + struct.pack("<IIIIQII", 1, 64, 1, 88, 1000, 4, 15) + bytes(24)
recs = [
    rec(2000, 1, 1, 0, 0, 2001, 1000, 120, 120, 0, 0, b"swapper/1", b"alpha worker"),   # idle -> 2001
    rec(1500, 1, 2, 2001, 1000, a0=1, prio=120, comm=b"alpha worker"),                  # wakeup before any switch: unknown current
    rec(2500, 1, 2, 3002, 3000, a0=2, prio=110, comm=b"beta"),                          # woken by 2001 (current on cpu 1)
    rec(3000, 1, 1, 2001, 1000, 3002, 3000, 120, 110, 1, 0, b"alpha worker", b"beta"),   # S ==> beta
    rec(3500, 1, 11, 3002, 3000, a0=3, comm=b"beta"),                                   # softirq NET_RX
    rec(3600, 1, 9, 3002, 3000, a0=24, comm=b"beta", comm2=b"eth0"),                    # irq entry
    rec(3700, 1, 10, 3002, 3000, a0=24, a1=1, comm=b"beta", comm2=b"eth0"),
    rec(4000, 1, 1, 3002, 3000, 0, 0, 110, 120, 0, 1, b"beta", b"swapper/1"),           # preempted R+ ==> idle
    rec(4100, 0, 1, 5, 5, 6, 6, 120, 120, 0x402, 0, b"kworker/0:1", b"kworker/0:2"),     # TASK_IDLE -> I
    rec(4200, 0, 13, 6, 6, a0=12345, a1=0xffffffff81000000, comm=b"kworker/0:2"),        # nmi
    rec(4300, 0, 99, 6, 6),                                                             # unknown type
]
open(d + "/sched.data", "wb").write(hdr + b"".join(recs) + b"\0" * 10)
with open(d + "/hints.jsonl", "w") as f:
    f.write(json.dumps({"pid": 2001, "tgid": 1000, "hints": 7, "timestamp": 100}) + "\n")
    f.write(json.dumps({"pid": 3002, "tgid": 3000, "hints": 5, "timestamp": 2800}) + "\n")
PY
if "$SCXPROF" process -f "$WORK/sd" >"$WORK/sd.log" 2>&1; then
	check "sched.data: summary line counts the unknown type" grep -qx 'Parsed 10 of 11 sched trace records (1 unparseable)' "$WORK/sd.log"
	check "sched.data: warns about the partial record" grep -q 'last 10 bytes are not whole records' "$WORK/sd.log"
	check "sched.data: sched.jsonl valid against its schema" validate "$TOP/schemas/sched-event.schema.json" "$WORK/sd.out/sched.jsonl" --jsonl
	check "sched.data: process.json valid against its schema" validate "$TOP/schemas/process-summary.schema.json" "$WORK/sd.out/process.json"
	check "sched.data: lines, order, trace text, fields and hints" python3 -c '
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
ts = [l["time_ns"] for l in L]
assert ts == sorted(ts), ts
by = {l["time_ns"]: l for l in L}
w = by[1500]
assert (w["comm"], w["pid"], w["tid"]) == ("[unknown]", -1, -1), w
assert w["trace"] == "comm=alpha worker pid=2001 prio=120 target_cpu=001", w["trace"]
s = by[2000]
assert (s["comm"], s["pid"], s["tid"], s["cpu"]) == ("swapper", 0, 0, 1), s
assert s["trace"] == "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=alpha worker next_pid=2001 next_prio=120", s["trace"]
f = s["fields"]
assert f["next_comm"] == "alpha worker" and f["prev_idle"] is True and f["cpu_idle"] is False, f
assert f["prev_hint"] == 0 and f["next_hint"] == 7, f
w = by[2500]
assert (w["comm"], w["pid"], w["tid"], w["hint"]) == ("alpha worker", 1000, 2001, 7), w
assert w["fields"] == {"comm": "beta", "pid": 3002, "prio": 110, "target_cpu": 2}, w["fields"]
s = by[3000]
assert s["fields"]["prev_state"] == "S" and s["fields"]["prev_hint"] == 7 and s["fields"]["next_hint"] == 5, s
assert s["event"] == "sched:sched_switch" and s["time"] == 3e-06, s
x = by[3500]
assert x["event"] == "irq:softirq_entry" and x["trace"] == "vec=3 [action=NET_RX]", x
assert x["fields"] == {"vec": 3, "action": "NET_RX"} and x["hint"] == 5, x
assert by[3600]["trace"] == "irq=24 name=eth0" and by[3700]["trace"] == "irq=24 ret=handled"
s = by[4000]
assert s["fields"]["prev_state"] == "R+" and s["fields"]["cpu_idle"] is True, s
assert by[4100]["fields"]["prev_state"] == "I"
n = by[4200]
assert n["event"] == "nmi:nmi_handler" and n["fields"]["delta_ns"] == 12345, n
' "$WORK/sd.out/sched.jsonl"
	check "sched.data: process.json sched counts" python3 -c '
import json, sys; p = json.load(open(sys.argv[1])); s = p["sched"]
assert p["inputs"]["mem"] is None and p["inputs"]["sched"]["format"] == "sched.data", p["inputs"]
assert (s["total"], s["parsed"], s["unparseable"], s["unknown_types"], s["truncated_bytes"]) == (11, 10, 1, 1, 10), s
assert s["events"]["sched:sched_switch"] == 4, s' "$WORK/sd.out/process.json"
	check "sched.data: hints.jsonl copied" cmp "$WORK/sd/hints.jsonl" "$WORK/sd.out/hints.jsonl"
else
	fail "sched.data: process ran" "$(tail -n 3 "$WORK/sd.log")"
fi

# 3b. the same records in version 2 (what record writes: chunks of packed
# records, comms referring back within a chunk), in a different chunk order,
# plus a damaged record and a chunk the end of the file cuts short: every
# record both files share must come out byte for byte as from version 1
mkdir -p "$WORK/sd2"
cp "$WORK/sd/hints.jsonl" "$WORK/sd2/"
python3 - "$WORK/sd/sched.data" "$WORK/sd2/sched.data" <<'PY'
import struct, sys
v1 = open(sys.argv[1], "rb").read()
R1 = struct.Struct("<QIHHIIIIiiQQ16s16s")
recs = [R1.unpack_from(v1, 64 + i * 88) for i in range((len(v1) - 64) // 88)]
def pack(r, chunk, flags_extra=0):
    ts, cpu, typ, _, pid, tgid, pid2, tgid2, prio, prio2, a0, a1, comm, comm2 = r
    flags, tail, refs = flags_extra, b"", [0, 0]
    if a0 > 0xffffffff:
        flags |= 1; tail += struct.pack("<Q", a0); a0 = 0
    if typ == 1 and a1 == 1:
        flags |= 16
    elif a1:
        flags |= 2; tail += struct.pack("<Q", a1)
    rel = len(chunk)
    for i, (c, f) in enumerate(((comm, 4), (comm2, 8))):
        c = c.ljust(16, b"\0")
        if c == bytes(16):
            continue
        at = chunk.find(c, 8)
        if 8 <= at and at + 16 <= rel:
            refs[i] = at
        else:
            flags |= f; tail += c
    base = struct.pack("<QBBHHHIIIIhhI", ts, typ, flags, cpu, refs[0], refs[1], pid, tgid, pid2, tgid2, prio, prio2, a0)
    return base + tail
def chunk(cpu, rs, flags_extra=None):
    body = bytearray(8)
    for i, r in enumerate(rs):
        body += pack(r, bytes(body), (flags_extra or {}).get(i, 0))
    struct.pack_into("<IHH", body, 0, len(body), cpu, len(rs))
    return bytes(body)
cpu1 = [r for r in recs if r[1] == 1]
cpu0 = [r for r in recs if r[1] == 0]
hdr = b"SCXSCHED" + struct.pack("<IIIIQII", 2, 64, 1, 0, 1000, 4, 15) + bytes(24)
extra = (4400, 0, 1, 0, 7, 7, 8, 8, 120, 120, 1, 0, b"gamma", b"delta")
damaged = chunk(0, [extra, extra, extra], {1: 0x80})  # record 2: unknown flags
last = chunk(0, [(4500,) + extra[1:], extra])
out = hdr + chunk(0, cpu0) + chunk(1, cpu1[:3]) + chunk(1, cpu1[3:5]) + chunk(1, cpu1[5:]) + damaged + last[:-30]
open(sys.argv[2], "wb").write(out)
PY
if "$SCXPROF" process -f "$WORK/sd2" >"$WORK/sd2.log" 2>&1; then
	check "sched.data v2: summary line counts unknown type and damaged records" grep -qx 'Parsed 12 of 15 sched trace records (3 unparseable)' "$WORK/sd2.log"
	check "sched.data v2: warns about the cut chunk" grep -q 'last 10 bytes are not whole records' "$WORK/sd2.log"
	check "sched.data v2: sched.jsonl valid against its schema" validate "$TOP/schemas/sched-event.schema.json" "$WORK/sd2.out/sched.jsonl" --jsonl
	check "sched.data v2: every record also in version 1 decodes identically" python3 -c '
import json, sys
v1 = open(sys.argv[1]).read().splitlines()
v2 = open(sys.argv[2]).read().splitlines()
rest = [l for l in v2 if json.loads(l)["time_ns"] not in (4400, 4500)]
assert rest == v1, "\n".join(a + "\n" + b for a, b in zip(rest, v1) if a != b)
x = [json.loads(l) for l in v2 if json.loads(l)["time_ns"] in (4400, 4500)]
assert [l["trace"] for l in x] == ["prev_comm=gamma prev_pid=7 prev_prio=120 prev_state=S ==> next_comm=delta next_pid=8 next_prio=120"] * 2, x
' "$WORK/sd.out/sched.jsonl" "$WORK/sd2.out/sched.jsonl"
	check "sched.data v2: process.json counts" python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))["sched"]
assert (s["total"], s["parsed"], s["unparseable"], s["unknown_types"], s["truncated_bytes"]) == (15, 12, 3, 1, 10), s' "$WORK/sd2.out/process.json"
else
	fail "sched.data v2: process ran" "$(tail -n 3 "$WORK/sd2.log")"
fi
# a damaged chunk header: the chunk before it (cpu 0: 2 records and the
# unknown type) is read, the rest reported
python3 - "$WORK/sd2/sched.data" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
size, = struct.unpack_from("<I", d, 64)
first = d[:64 + size]
open(sys.argv[1], "wb").write(first + struct.pack("<IHH", 12, 0, 1) + bytes(100))
PY
rm -rf "$WORK/sd2.out"
if "$SCXPROF" process -f "$WORK/sd2" >"$WORK/sd2b.log" 2>&1; then
	check "sched.data v2: records before a damaged chunk header kept" grep -qx 'Parsed 2 of 3 sched trace records (1 unparseable)' "$WORK/sd2b.log"
	check "sched.data v2: the rest after it reported" grep -q 'last 108 bytes are not whole records' "$WORK/sd2b.log"
else
	fail "sched.data v2: damaged chunk header" "$(tail -n 3 "$WORK/sd2b.log")"
fi

# hostile sched.data headers are refused with a message, never a crash
mkdir -p "$WORK/bad"
for case in magic version recsize short; do
	python3 - "$WORK/bad/sched.data" "$case" <<'PY'
import struct, sys
p, c = sys.argv[1], sys.argv[2]
h = {"magic": b"NOTSCHED" + struct.pack("<IIIIQII", 1, 64, 1, 88, 0, 4, 15),
     "version": b"SCXSCHED" + struct.pack("<IIIIQII", 9, 64, 1, 88, 0, 4, 15),
     "recsize": b"SCXSCHED" + struct.pack("<IIIIQII", 1, 64, 1, 16, 0, 4, 15),
     "short": b"SCXSCHED"}[c]
open(p, "wb").write(h + bytes(64 - len(h) if c != "short" else 0))
PY
	rm -rf "$WORK/bad.out"
	"$SCXPROF" process -f "$WORK/bad" >"$WORK/bad.log" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'sched.data' "$WORK/bad.log" && [ ! -e "$WORK/bad.out" ]; then
		pass "sched.data: bad $case refused"
	else
		fail "sched.data: bad $case refused" "exit $rc: $(tail -n 2 "$WORK/bad.log")"
	fi
done

# 4. input rules
mkdir -p "$WORK/both"
cp "$TOP/tests/fixtures/profile_basic/"* "$WORK/both/"
cp "$WORK/sd/sched.data" "$WORK/both/"
if "$SCXPROF" process -f "$WORK/both" >"$WORK/both.log" 2>&1; then
	check "mem + sched: both summary lines" sh -c "grep -q '^Parsed .* of .* records (' '$WORK/both.log' && grep -q 'sched trace records' '$WORK/both.log'"
	check "mem + sched: perf.jsonl and sched.jsonl" test -s "$WORK/both.out/perf.jsonl" -a -s "$WORK/both.out/sched.jsonl"
	check "mem + sched: process.json valid" validate "$TOP/schemas/process-summary.schema.json" "$WORK/both.out/process.json"
else
	fail "mem + sched: process ran" "$(tail -n 3 "$WORK/both.log")"
fi
mkdir -p "$WORK/prec"
cp "$WORK/sd/sched.data" "$WORK/prec/"
printf 'garbage\n' >"$WORK/prec/perf.sched.script"
"$SCXPROF" process -f "$WORK/prec" >"$WORK/prec.log" 2>&1
check "sched.data wins over perf.sched.script" grep -q '"file":"sched.data"' "$WORK/prec.out/process.json"
mkdir -p "$WORK/none"
touch "$WORK/none/hints.jsonl"
if "$SCXPROF" process -f "$WORK/none" >"$WORK/none.log" 2>&1; then
	fail "no stream at all: error" "exit 0"
else
	check "no stream at all: error names both streams" grep -q 'no memory stream found.*no scheduling stream' "$WORK/none.log"
fi
