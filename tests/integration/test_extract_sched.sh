#!/usr/bin/env bash
# test_extract_sched.sh - extract sched util / stats through the CLI, on
# hand-made traces whose expected outputs were written by hand from the
# rules (upstream-behaviour.md, upstream's sched_util.rs) before the code ran:
#   util_rules.jsonl  2 CPUs: hint change split, NET_RX softirq with a nested
#                     hardirq, nmi delta_ns cut-out, idle, ksoftirqd/0 as
#                     softirq-other, a glob, automatic worker-a@hint=0,
#                     NET_TX on the other CPU, time_ns preferred over time.
#   upstream_hint_split.jsonl  upstream's own unit-test trace (50/50 split).
#   overlap.jsonl     worker-a and worker-a@hint=640 both match: error.
#   stats_basic.jsonl wakeup latency (waking kept over the later wakeup),
#                     R/R+ involuntary, migration, exit clears a pending wakeup.
#   stats_break.jsonl two broken switch chains (prev_pid is not the CPU's
#                     current task), values below worked out by hand.
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures/sched"

# same_json NAME WANT GOT [jsonl]: equal JSON values (floats within 1e-9)
same_json() {
	if python3 - "$2" "$3" <<'PY'
import json, sys
def load(p):
    with open(p) as f:
        t = f.read()
    try:
        return [json.loads(t)]
    except ValueError:
        return [json.loads(l) for l in t.splitlines() if l.strip()]
def eq(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-9 * max(1, abs(a))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
    return a == b
sys.exit(0 if eq(load(sys.argv[1]), load(sys.argv[2])) else 1)
PY
	then pass "$1"; else fail "$1" "$(diff "$2" "$3" | head -n 6 | tr '\n' ' ')"; fi
}

# --- util ---
"$SCXPROF" extract sched util -f "$FIX/util_rules.jsonl" --categories 'worker-a@hint=384,svc-*' >"$WORK/u1" 2>"$WORK/e1"
same_json "util: every rule on a 2-CPU trace, number for number" "$FIX/util_rules.expected.jsonl" "$WORK/u1"
check "util: output valid against sched-util.schema.json" validate "$TOP/schemas/sched-util.schema.json" "$WORK/u1" --jsonl
"$SCXPROF" extract sched util -f "$FIX/upstream_hint_split.jsonl" --categories 'worker-a@hint=640' >"$WORK/u2"
same_json "util: upstream's own hint-split case" "$FIX/upstream_hint_split.expected.jsonl" "$WORK/u2"
"$SCXPROF" extract sched util -v -f "$FIX/util_rules.jsonl" >/dev/null 2>"$WORK/v"
check "util: -v summary line" grep -qx "sched util: 12 intervals, 2 buckets, 2 cpus, 5 categories" "$WORK/v"
"$SCXPROF" extract sched util --window-ms 2 -f "$FIX/util_rules.jsonl" >"$WORK/u3"
check "util: --window-ms 2 gives one window, total 90%" python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; assert len(l)==1 and abs(l[0]["total"]-90.0)<1e-9, l' "$WORK/u3"
"$SCXPROF" extract sched util -f "$FIX/overlap.jsonl" --categories 'worker-a,worker-a@hint=640' >"$WORK/o" 2>"$WORK/oe"; rc=$?
check "util: overlapping categories: exit 1, nothing on stdout, asks to fix --categories" \
	bash -c "[ $rc -eq 1 ] && [ ! -s '$WORK/o' ] && grep -q 'not mutually exclusive.*Fix --categories' '$WORK/oe'"
"$SCXPROF" extract sched util -f "$FIX/overlap.jsonl" --window-ms 0 >/dev/null 2>&1; rc=$?
check "util: --window-ms 0 is a usage error" test $rc -eq 2
"$SCXPROF" extract sched util -f "$FIX/overlap.jsonl" --categories 'a@hint=x' >/dev/null 2>&1; rc=$?
check "util: bad hint selector is a usage error" test $rc -eq 2
{ head -n 1 "$FIX/util_rules.jsonl"; echo '{"comm":"x","pid":1}'; } >"$WORK/bad.jsonl"
"$SCXPROF" extract sched util -f "$WORK/bad.jsonl" >/dev/null 2>"$WORK/be"; rc=$?
check "util: malformed line: FILE:LINE: what, exit 1" bash -c "[ $rc -eq 1 ] && grep -q 'bad.jsonl:2: \"tid\": missing key' '$WORK/be'"
# number format: fixed decimals for every window size. 3 CPUs busy for
# 991.953672 ms, 0.5 s and 1 ns of a 1 s trace: 1 s windows used to print
# float noise (49.731789100000004) and 1 ms windows 2 decimals.
python3 - "$WORK/fmt.jsonl" <<'PY'
import json, sys
def sw(cpu, t, prev, nxt):
    return {"comm": "x", "pid": 0, "tid": 0, "cpu": cpu, "time": t / 1e9, "time_ns": t, "event": "sched:sched_switch",
            "trace": "", "fields": {"prev_comm": "p", "prev_pid": prev, "prev_prio": 120, "prev_state": "S",
                                    "next_comm": "w%d" % nxt if nxt else "swapper/%d" % cpu, "next_pid": nxt, "next_prio": 120}, "hint": 0}
ev = [sw(0, 0, 0, 10), sw(1, 0, 0, 11), sw(2, 0, 0, 12), sw(2, 1, 12, 0), sw(1, 500000000, 11, 0),
      sw(0, 991953672, 10, 0), sw(0, 1000000000, 0, 0)]
with open(sys.argv[1], "w") as f:
    for e in sorted(ev, key=lambda e: e["time_ns"]):
        f.write(json.dumps(e) + "\n")
PY
fmt_check() { # FILE WINDOW_NS: every number has 4 decimals and is busy/capacity rounded
	python3 - "$@" <<'PY'
import json, re, sys
from fractions import Fraction
path, win = sys.argv[1], int(sys.argv[2])
busy = [(0, 991953672), (0, 500000000), (0, 1)]
lines = open(path).read().splitlines()
assert len(lines) == 10**9 // win, len(lines)
for i, l in enumerate(lines):
    nums = re.findall(r'"(?:total|uncategorized|[a-z-]+)":(-?[0-9.eE+]+)', l)
    bad = [n for n in nums if not re.fullmatch(r"[0-9]+\.[0-9]{4}", n)]
    assert not bad, (l, bad)
    lo, hi = i * win, (i + 1) * win
    ns = sum(max(0, min(hi, e) - max(lo, s)) for s, e in busy)
    want = Fraction(ns * 100, win * 3)
    got = Fraction(json.loads(l)["total"])
    assert abs(got - want) <= Fraction(1, 2 * 10**4) + Fraction(1, 10**12), (l, float(want))
PY
}
"$SCXPROF" extract sched util -f "$WORK/fmt.jsonl" --window-ms 1000 >"$WORK/f1000"
check "util: 1 s window: 4 fixed decimals (49.7318), not float noise" \
	grep -q '"total":49.7318,"uncategorized":49.7318,' "$WORK/f1000"
check "util: 1 s window: every number has 4 decimals and is right" fmt_check "$WORK/f1000" 1000000000
"$SCXPROF" extract sched util -f "$WORK/fmt.jsonl" --window-ms 1 >"$WORK/f1"
check "util: 1 ms windows: same format (4 decimals), values right" fmt_check "$WORK/f1" 1000000
check "util: 1 ms windows: window 990: 33.3333 (1 of 3 CPUs busy)" bash -c "sed -n 991p '$WORK/f1' | grep -q '\"total\":33.3333,'"
check "util: fixed-decimal output valid against the schema" validate "$TOP/schemas/sched-util.schema.json" "$WORK/f1" --jsonl
grep -v sched_switch "$FIX/upstream_hint_split.jsonl" >"$WORK/nosw.jsonl"
"$SCXPROF" extract sched util -f "$WORK/nosw.jsonl" >/dev/null 2>"$WORK/ne"; rc=$?
check "util: no sched_switch is an error" bash -c "[ $rc -eq 1 ] && grep -q 'no sched:sched_switch' '$WORK/ne'"
"$SCXPROF" extract sched bogus >/dev/null 2>&1; rc=$?
check "extract sched: unknown subcommand is a usage error" test $rc -eq 2

# --- stats ---
for by in thread cpu; do
	"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by $by >"$WORK/s.$by"
	same_json "stats --by $by: hand-computed values" "$FIX/stats_basic.$by.expected.json" "$WORK/s.$by"
	check "stats --by $by: valid against sched-stats.schema.json" validate "$TOP/schemas/sched-stats.schema.json" "$WORK/s.$by"
done
# broken switch chains (stats_break.jsonl): cpu 0 puts tid 10 on at 0 and its
# next switch (1 ms) comes from idle; cpu 1 runs 30 and its next switch
# (0.5 ms) says prev_pid 31. Neither gap is credited to anyone.
"$SCXPROF" extract sched stats -v -f "$FIX/stats_break.jsonl" >"$WORK/sb" 2>"$WORK/sbe"
check "stats: broken chains counted in the JSON, 1.5 ms uncredited" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["broken_chains"]=={"count":2,"uncredited_ns":1500000}, d' "$WORK/sb"
check "stats: the gap after a break is credited to neither thread (10: 0 ns, was 1 ms at 0 switches; 31: 0 ns)" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); k={x["thread"]:(x["runtime_ns"],x["switches"]["total"]) for x in d["keys"]}
assert k=={20:(500000,1),30:(200000,0),10:(0,0),31:(0,1)}, k' "$WORK/sb"
check "stats: broken chains output valid against the schema" validate "$TOP/schemas/sched-stats.schema.json" "$WORK/sb"
check "stats -v: the count and each break" bash -c "grep -q '^sched stats: 2 broken switch chains .* 1.500 ms credited to no thread\$' '$WORK/sbe' &&
	grep -qx '  cpu 1 at 0.000500 s: prev_pid 31, expected 30; 0.500 ms not credited' '$WORK/sbe' &&
	grep -qx '  cpu 0 at 0.001000 s: prev_pid 0, expected 10; 1.000 ms not credited' '$WORK/sbe'"
"$SCXPROF" extract sched stats -f "$FIX/stats_break.jsonl" --by cpu >"$WORK/sbc" 2>"$WORK/sbce"
check "stats --by cpu: no break runtime on the CPUs either; no -v text without -v" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); k={x["cpu"]:x["runtime_ns"] for x in d["keys"]}
assert k=={0:500000,1:200000}, k; assert open(sys.argv[2]).read()=="", "stderr"' "$WORK/sbc" "$WORK/sbce"
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by process --limit 1 >"$WORK/sp"
check "stats --by process --limit 1: pid 100 = threads 100+200" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=d["keys"]; assert d["keys_total"]==3 and len(k)==1 and k[0]["process"]==100 and k[0]["runtime_ns"]==900000 and k[0]["latency_ns"]["count"]==2, d' "$WORK/sp"
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by llc --topology "$TOP/tests/fixtures/extract/topology-8cpu-2llc.json" >"$WORK/sl"
check "stats --by llc: CPUs 0,1 in llc 0 (4 CPUs), llc 4 idle" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [(k["llc"],k["cpus"],k["runtime_ns"]) for k in d["keys"]]==[(0,4,1450000),(4,4,0)], d' "$WORK/sl"
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by node >"$WORK/sn.out" 2>"$WORK/sn.err"; rc=$?
check "stats --by node, no topology.json next to the input nor --topology: one line, exit 1" bash -c \
	"[ $rc -eq 1 ] && [ \$(wc -l <'$WORK/sn.err') = 1 ] && grep -q 'the recording has no topology' '$WORK/sn.err' && ! test -s '$WORK/sn.out'"
