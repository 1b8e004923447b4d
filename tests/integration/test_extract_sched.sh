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
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by process --limit 1 >"$WORK/sp"
check "stats --by process --limit 1: pid 100 = threads 100+200" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=d["keys"]; assert d["keys_total"]==3 and len(k)==1 and k[0]["process"]==100 and k[0]["runtime_ns"]==900000 and k[0]["latency_ns"]["count"]==2, d' "$WORK/sp"
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by llc --topology "$TOP/tests/fixtures/extract/topology-8cpu-2llc.json" >"$WORK/sl"
check "stats --by llc: CPUs 0,1 in llc 0 (4 CPUs), llc 4 idle" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [(k["llc"],k["cpus"],k["runtime_ns"]) for k in d["keys"]]==[(0,4,1450000),(4,4,0)], d' "$WORK/sl"
"$SCXPROF" extract sched stats -f "$FIX/stats_basic.jsonl" --by node >/dev/null 2>&1; rc=$?
check "stats --by node without --topology is a usage error" test $rc -eq 2
