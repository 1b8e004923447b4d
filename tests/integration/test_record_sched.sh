#!/usr/bin/env bash
# test_record_sched.sh - the scheduling stream of `scxprof record`: records a
# context-switch-heavy workload (perf bench sched pipe, frozen in its own
# cgroup once it made 40000 switches), and checks sched.data with an
# independent reader (sched_data_read.py): the header, every record's type,
# cpu and tids, no drops at the default ring size, and exactly one
# sched_switch record per switch the kernel counted for each of the
# workload's tasks. Also the metadata "sched" object, --disable-sched-trace,
# option errors, the drain loop's nice and accounting on a saturated host.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
READER="$here/sched_data_read.py"

if [ "$(id -u)" != 0 ]; then
	skip record-sched "needs root (BPF)"
	exit 0
fi
if ! command -v perf >/dev/null || ! perf bench sched pipe -l 10 >/dev/null 2>&1; then
	skip record-sched "no working perf (perf bench sched pipe)"
	exit 0
fi

# The witness for "every context switch is a record": the kernel's own
# per-task switch counts (voluntary + nonvoluntary, incremented in
# __schedule right where sched_switch fires). perf bench sched pipe runs in a
# cgroup of its own; once its tasks have made 40000 switches the cgroup is
# frozen, every CPU is visited (so no task is still inside the __schedule
# that froze it), the counts are read (twice, equal around the stamp T) and
# sched.data must hold exactly that many sched_switch records with prev =
# each task between its fork and T. No time window, no tolerance.
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=
if [ -n "$CG2" ] && mkdir "$CG2/scxprof-test-sched.$$" 2>/dev/null; then
	CG="$CG2/scxprof-test-sched.$$"
	[ -e "$CG/cgroup.freeze" ] && [ -e "$CG/cgroup.kill" ] || { rmdir "$CG"; CG=; }
fi
cleanup_cg() { [ -n "$CG" ] && [ -d "$CG" ] && { echo 1 >"$CG/cgroup.kill" 2>/dev/null; rmdir "$CG" 2>/dev/null; }; }
trap 'cleanup_cg; rm -rf "$WORK"' EXIT
cat >"$WORK/workload.py" <<'WL'
import json, os, sys, time
out, cg = sys.argv[1], sys.argv[2]
mono = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)
def cgfile(name, value=None):
    if value is None:
        return open(os.path.join(cg, name)).read()
    with open(os.path.join(cg, name), "w") as f:
        f.write(value)
bench = os.fork()
if bench == 0:
    try:
        cgfile("cgroup.procs", "0")
        os.execvp("perf", ["perf", "bench", "sched", "pipe", "-l", "100000000"])
    finally:
        os._exit(127)
def switches(tid):
    n = 0
    for line in open("/proc/%d/status" % tid):
        if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
            n += int(line.split()[1])
    return n
def counts():
    return {t: switches(t) for t in map(int, cgfile("cgroup.threads").split())}
def fail(why):
    cgfile("cgroup.kill", "1")
    os.waitpid(bench, 0)
    sys.exit("workload: " + why)
while True:  # until the pipe's two processes made 40000 switches
    if os.waitpid(bench, os.WNOHANG)[0]:
        sys.exit("workload: perf bench exited early")
    try:
        c = counts()
    except FileNotFoundError:  # a task went away while read
        continue
    if len(c) >= 2 and sum(c.values()) >= 40000:
        break
    time.sleep(0.05)
cgfile("cgroup.freeze", "1")
while "frozen 1" not in cgfile("cgroup.events"):
    time.sleep(0.01)
mask = os.sched_getaffinity(0)
for cpu in range(os.cpu_count()):
    try:
        os.sched_setaffinity(0, {cpu})  # returns on that cpu
    except OSError:
        continue  # offline or not ours: no task of the cgroup runs there either
    os.sched_yield()
os.sched_setaffinity(0, mask)
before = counts()
while True:
    t = mono()
    after = counts()
    if after == before:
        break
    before = after  # a frozen task was woken and switched again: read again
json.dump({"t": t, "counts": after}, open(out + "/switches.json", "w"))
cgfile("cgroup.kill", "1")
os.waitpid(bench, 0)
WL

out="$WORK/p1"
if [ -n "$CG" ]; then
	cmd=(python3 "$WORK/workload.py" "$WORK" "$CG")
else
	cmd=(perf bench sched pipe -l 20000)
	skip record-sched-switches-vs-kernel-counts "no cgroup v2 with cgroup.freeze and cgroup.kill to freeze the workload in"
fi
if ! "$SCXPROF" record -o "$out" --disable-archive --disable-mem-trace -t 600 -- "${cmd[@]}" \
	>"$WORK/rec.out" 2>"$WORK/rec.err"; then
	fail record-sched-run "$(tail -n 5 "$WORK/rec.err" | tr '\n' ' ')"
	exit 0
fi
pass record-sched-run

if [ -f "$out/sched.data" ] && [ "$(stat -c %a "$out/sched.data")" = 600 ]; then
	pass record-sched-file
else
	fail record-sched-file "no sched.data, or not mode 0600"
fi
grep -q '^Sched records: ' "$WORK/rec.out" && pass record-sched-summary || fail record-sched-summary "$(cat "$WORK/rec.out")"

if [ -n "$CG" ]; then
	readargs=(--switches-out "$WORK/switches.json")
else
	readargs=()
fi
if ! python3 "$READER" "$out/sched.data" "${readargs[@]}" >"$WORK/read.json" 2>"$WORK/read.err"; then
	fail record-sched-read "$(tail -n 3 "$WORK/read.err" | tr '\n' ' ')"
	exit 0
fi
python3 - "$WORK/read.json" "$out/metadata.json" "${CG:+$WORK/switches.json}" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))["sched"]

def res(name, ok, why):
    print(("PASS: %s" % name) if ok else ("FAIL: %s: %s" % (name, why)))

res("record-sched-header", r["header"]["magic"] == "SCXSCHED" and r["header"]["clock_id"] == 1,
    json.dumps(r["header"]))
res("record-sched-records-valid", not r["bad"], "; ".join(r["bad"][:5]))
res("record-sched-count-matches-metadata", m is not None and m["records"] == r["records"],
    "file has %d records, metadata %s" % (r["records"], m and m["records"]))
res("record-sched-no-drops", m is not None and m["drops"] == 0, "drops %s" % (m and m["drops"]))
want = {"sched_switch", "sched_wakeup", "sched_waking", "sched_process_fork", "sched_process_exec",
        "sched_process_exit", "sched_wakeup_new"}
seen = set(r["counts"])
res("record-sched-types", want <= seen, "missing types %s (seen %s)" % (sorted(want - seen), r["counts"]))
att = set(m["attached"]) if m else set()
res("record-sched-attached", m is not None and "sched_switch" in att and not (att & set(m["missing"])) and
    len(att) + len(m["missing"]) == 15, json.dumps(m))
if sys.argv[3]:
    k = {int(t): n for t, n in json.load(open(sys.argv[3]))["counts"].items()}
    got = {int(t): n for t, n in r["switches_out"].items()}
    print("info: switches out per task, kernel %s, sched.data %s" % (k, got))
    res("record-sched-switches-vs-kernel-counts",
        not r["no_fork"] and got == k and sum(k.values()) >= 40000 and len(k) >= 2,
        "kernel counts %s, sched_switch records %s, tasks without a fork record %s" % (k, got, r["no_fork"]))
PY

if [ -x "$TOP/tests/validate.js" ] || [ -f "$TOP/tests/validate.js" ]; then
	check record-sched-metadata-schema validate "$TOP/schemas/metadata.schema.json" "$out/metadata.json"
fi

# --disable-sched-trace: no sched.data, "sched": null
out2="$WORK/p2"
if "$SCXPROF" record -o "$out2" --disable-archive --disable-sched-trace -t 1 >/dev/null 2>"$WORK/rec2.err" &&
	[ ! -e "$out2/sched.data" ] &&
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["sched"] is not None)' "$out2/metadata.json"; then
	pass record-sched-disable
else
	fail record-sched-disable "$(tail -n 3 "$WORK/rec2.err" | tr '\n' ' ')"
fi

# the sched stream alone is enough to record; all three off is a usage error
out3="$WORK/p3"
if "$SCXPROF" record -o "$out3" --disable-archive --disable-mem-trace -t 1 >/dev/null 2>"$WORK/rec3.err" &&
	[ -s "$out3/sched.data" ] && [ ! -e "$out3/perf.mem.data" ]; then
	pass record-sched-only
else
	fail record-sched-only "$(tail -n 3 "$WORK/rec3.err" | tr '\n' ' ')"
fi
"$SCXPROF" record -o "$WORK/p4" --disable-mem-trace --disable-sched-trace -t 1 >/dev/null 2>"$WORK/rec4.err"
rc=$?
if [ $rc = 2 ] && grep -q "at least one of" "$WORK/rec4.err" && [ ! -e "$WORK/p4" ]; then
	pass record-sched-nothing-to-record
else
	fail record-sched-nothing-to-record "exit $rc: $(head -n 1 "$WORK/rec4.err")"
fi
"$SCXPROF" record -o "$WORK/p5" --sched-ring-sz 3 -t 1 >/dev/null 2>"$WORK/rec5.err"
rc=$?
if [ $rc = 2 ] && grep -q "sched-ring-sz" "$WORK/rec5.err"; then
	pass record-sched-ring-size-checked
else
	fail record-sched-ring-size-checked "exit $rc: $(head -n 1 "$WORK/rec5.err")"
fi

# the drain loop yields to the workload: nice 19 with only BPF rings to drain
# (the command keeps its own priority), its own priority with the memory
# stream on (physical addresses need prompt drains). The command reads the
# nice values once the recorder waits in its drain loop's poll() (its wchan;
# -t is only a bound). Relative to the nice this test runs at: under nice 19
# already there is nothing to yield (drain_nice null).
nice_of() { # DIR ARGS...: record with ARGS; print "<recorder nice> <command nice> <drain_nice>"
	local d=$1; shift
	"$SCXPROF" record -o "$d" --disable-archive -t 600 "$@" -- \
		sh -c 'until case $(cat /proc/$PPID/wchan) in *poll*) true;; *) false;; esac; do sleep 0.05; done
			echo "$(ps -o ni= -p $PPID) $(ps -o ni= -p $$)" >"$0.nice"' "$d" >/dev/null 2>"$d.err" &&
		python3 -c 'import json,sys; print(open(sys.argv[1]+".nice").read().split(), json.load(open(sys.argv[1]+"/metadata.json"))["drain_nice"])' "$d"
}
base=$(($(ps -o ni= -p $$)))
if [ "$base" -lt 19 ]; then want="['19', '$base'] 19"; else want="['$base', '$base'] None"; fi
got=$(nice_of "$WORK/n1" --disable-mem-trace)
if [ "$got" = "$want" ]; then
	pass record-sched-drain-nice
else
	fail record-sched-drain-nice "run at nice $base: want $want (recorder, command, metadata), got '$got' $(tail -n 2 "$WORK/n1.err" | tr '\n' ' ')"
fi
got=$(nice_of "$WORK/n2")
if [ "$got" = "['$base', '$base'] None" ]; then
	pass record-sched-drain-nice-mem
else
	fail record-sched-drain-nice-mem "run at nice $base: want ['$base', '$base'] None with the memory stream on, got '$got' $(tail -n 2 "$WORK/n2.err" | tr '\n' ' ')"
fi

# saturated host: a busy loop per cpu besides the pipe, a 4 MB ring. Whether
# the drain loop keeps up (the watchdog raises it from nice 19 when the ring
# is a quarter full: tests/unit/test_yield_prio.c) is a statement about speed
# and load, measured by `make bench` (bench/bench_sched_saturated.sh). What
# must hold however loaded the host is the accounting: every run of our
# programs is a record in sched.data or a counted drop (hits = records +
# drops, nothing lost unaccounted), and drops are warned about.
hogs=()
for _ in $(seq "$(nproc)"); do (exec yes >/dev/null) & hogs+=($!); done
"$SCXPROF" record -o "$WORK/sat" --disable-archive --disable-mem-trace --sched-ring-sz 4 -t 30 -- \
	perf bench sched pipe -l 300000 >/dev/null 2>"$WORK/sat.err"
rc=$?
kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null
got=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); s=m["sched"]
print(s["drops"], s["lost"], sum(s["hits_by_tracepoint"].values()), s["records"], m["drain_boosts"])' \
	"$WORK/sat/metadata.json" 2>/dev/null)
read -r drops lost hits records boosts <<<"$got"
echo "info: saturated: $records records, $drops dropped, drain loop raised $boosts times"
warned=1
[ "${drops:-x}" != 0 ] && ! grep -q "^WARNING: $drops scheduling records were dropped" "$WORK/sat.err" && warned=0
if [ $rc = 0 ] && [ "${lost:-x}" = 0 ] && [ -n "${hits:-}" ] && [ "$hits" = $((records + drops)) ] && [ $warned = 1 ]; then
	pass record-sched-saturated-accounted
else
	fail record-sched-saturated-accounted "exit $rc, hits ${hits:-?} = records ${records:-?} + drops ${drops:-?}? lost ${lost:-?}, drops warned $warned: $(tail -n 2 "$WORK/sat.err" | tr '\n' ' ')"
fi

# process repeats what the recording lost (from metadata.json), since the
# analysis host never saw record's warnings; an unreadable metadata.json is said
losses() { # DIR: process it, print its warnings about losses
	rm -rf "$1.out"
	"$SCXPROF" process -f "$1" -o "$1.out" >/dev/null 2>&1 &&
		python3 -c 'import json,sys; print([w for w in json.load(open(sys.argv[1]))["warnings"] if "recording" in w])' \
			"$1.out/process.json"
}
cp -r "$out3" "$WORK/lossy"
clean=$(losses "$WORK/lossy")
python3 - "$WORK/lossy/metadata.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["sched"]["drops"], m["sched"]["skipped_nested"] = 128, 3
json.dump(m, open(sys.argv[1], "w"))
PY
lossy=$(losses "$WORK/lossy")
python3 - "$WORK/lossy/metadata.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["sched"]["drops"] = -1
json.dump(m, open(sys.argv[1], "w"))
PY
negative=$(losses "$WORK/lossy")
python3 - "$WORK/lossy/metadata.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["sched"]["drops"], m["sched"]["skipped_nested"] = 0, "3"
json.dump(m, open(sys.argv[1], "w"))
PY
stringy=$(losses "$WORK/lossy")
echo '{"sched": 5}' >"$WORK/lossy/metadata.json"
broken=$(losses "$WORK/lossy")
if [ "$clean" = "[]" ] && [[ "$lossy" == *"dropped 128 scheduling records"*"skipped 3 nested"* ]] &&
	[[ "$broken" == *"cannot tell what the recording lost"*"no sched.drops"* ]]; then
	pass process-warns-record-losses
else
	fail process-warns-record-losses "clean: $clean; with losses: $lossy; broken metadata: $broken"
fi
# a negative count is invalid, not 2^64-1 records dropped
if [[ "$negative" == *"cannot tell what the recording lost"*"sched.drops is -1: invalid"* ]] &&
	[[ "$negative" != *18446744073709551615* ]] && [[ "$stringy" == *'sched.skipped_nested is "3", not a count'* ]]; then
	pass process-record-losses-invalid-counts
else
	fail process-record-losses-invalid-counts "drops -1: $negative; skipped_nested \"3\": $stringy"
fi
