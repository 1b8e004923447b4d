#!/usr/bin/env bash
# test_extract_bound.sh - extract mem's name bound (extract/mem/mem_agg.h, docs/clustering.md
# "Bounded names") through the CLI, on tests/tools/gen_distinct.py input:
# 5 heavy comms (web1/web2 = "web" with two hints, db, redis7, cache)
# interleaved with comms seen once each.
#   - 20k lines (~12k distinct comms) with --max-names 64: the heavy units
#     come out exactly as without the bound (configs byte for byte, -v count
#     lines equal) in both clustering modes, with and without --use-hints;
#     -v says how many names were folded and with how many samples;
#   - groups (--max-groups, gen_distinct.py --distinct-cgroups): ~12k
#     allotment groups of one sample each, with --max-groups 64: configs
#     byte for byte the unbounded ones (the "worker" unit lives only in the
#     folded groups), -v's fold line, the heavy group's -v block unchanged;
#   - threads (tests/tools/gen_sched_tids.py, 3000 short threads and 3 heavy
#     ones): sched stats --max-threads 256 keeps the heavy threads' keys
#     and the CPU keys exact, counts the rest in folded_threads and -v;
#     extract mem with it as sched.jsonl (threads never sampled are
#     dropped while reading) still counts them as unattributed;
#   - 200k lines (~120k distinct comms) at default settings: peak RSS
#     (getrusage of the child) under 100 MB where the unbounded table needs
#     far more. Skipped under ASan: its shadow memory and quarantine are not
#     the program's, and the unbounded run takes minutes there.
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"
D="$WORK/distinct.jsonl"
python3 "$TOOLS/gen_distinct.py" --lines 20000 "$D" 2>"$WORK/gen.err"
distinct=$(sed -n 's/.* \([0-9]*\) distinct comms/\1/p' "$WORK/gen.err")
BOUND="--max-names 64"
UNBOUNDED="--max-names 16777216" # more names than the input has: nothing folded

same_cfg() { # NAME INPUT BOUND UNBOUNDED ARGS...: the bound and no bound give the same config
	local name=$1 in=$2 b=$3 u=$4; shift 4
	"$SCXPROF" extract mem $b "$@" -f "$in" >"$WORK/b.json" 2>"$WORK/b.err" &&
		"$SCXPROF" extract mem $u "$@" -f "$in" >"$WORK/u.json" 2>"$WORK/u.err"
	if cmp -s "$WORK/b.json" "$WORK/u.json" && [ -s "$WORK/b.json" ]; then pass "$name"
	else fail "$name" "$(diff "$WORK/u.json" "$WORK/b.json" | head -n 6 | tr '\n' ' ') $(head -c 200 "$WORK/b.err")"; fi
}
same_out() { same_cfg "$1" "$D" "$BOUND" "$UNBOUNDED" "${@:2}"; } # NAME ARGS...: on the distinct comms
same_out "bound: --cluster comm config equals the unbounded one" --cluster comm
same_out "bound: --cluster comm --use-hints config equals the unbounded one" --cluster comm --use-hints
same_out "bound: sharing config equals the unbounded one" --use-hints
check "bound: the config has the heavy units" python3 -c '
import json,sys; c=json.load(open(sys.argv[1])); names=[s["name"] for s in c[0]["subcells"]]
assert names==["cache","db+redis","web@hint=1+web@hint=2","rest"], names' "$WORK/b.json"

"$SCXPROF" extract mem --cluster comm --use-hints -v $BOUND -f "$D" 2>"$WORK/b.v" >/dev/null
"$SCXPROF" extract mem --cluster comm --use-hints -v $UNBOUNDED -f "$D" 2>"$WORK/u.v" >/dev/null
heavy() { grep -E '^  (web|db|redis|cache)|^    hint=|^[^ ]' "$1"; }
check "bound: -v lines of the heavy names equal the unbounded ones" cmp <(heavy "$WORK/b.v") <(heavy "$WORK/u.v")
check "bound: the heavy lines are there" grep -qE '^  web\*: [0-9]+ \(1[0-9]\.[0-9]{2}%\)$' "$WORK/b.v"
check "bound: -v says names were folded, how many and their samples" grep -qE \
	'^  folded [0-9]{4,} names with [0-9]+ samples \([0-9.]+%\) into rest: names above [0-9]+ samples \(at most 1/65 of the group\) are never folded' "$WORK/b.v"
check "bound: nothing folded, nothing said" bash -c "! grep -q folded '$WORK/u.v'"
check "bound: most comms seen once were folded (more than 64% of all distinct comms)" python3 -c '
import re,sys; t=open(sys.argv[1]).read(); folded=int(re.search(r"folded (\d+) names", t).group(1))
assert folded > 0.8 * int(sys.argv[2]) * 0.8, (folded, sys.argv[2])' "$WORK/b.v" "$distinct"

# --max-names bounds: a k that cannot keep a 5% unit is refused
"$SCXPROF" extract mem --max-names 19 -f "$D" >/dev/null 2>&1
check "bound: --max-names below 20 is a usage error (1/(k+1) must stay under 5%)" test $? -eq 2
"$SCXPROF" extract mem --help >"$WORK/help" 2>&1
check "bound: --help lists --max-names" grep -q -- "--max-names" "$WORK/help"

# --- groups: allotment groups are bounded the same way (--max-groups) ---
# 20k lines, ~12k of them each in an allotment cgroup of its own with comm
# worker1..worker7: "worker" is a unit of the allotment cell only through
# all those small groups together, so folding groups must keep their comms.
G="$WORK/groups.jsonl"
python3 "$TOOLS/gen_distinct.py" --lines 20000 --distinct-cgroups "$G" 2>"$WORK/gen-g.err"
ngroups=$(sed -n 's/.* \([0-9]*\) distinct cgroups/\1/p' "$WORK/gen-g.err")
GBOUND="--max-groups 64"
GUNBOUNDED="--max-groups 262144"
same_groups() { same_cfg "$1" "$G" "$GBOUND" "$GUNBOUNDED" "${@:2}"; } # NAME ARGS...: on the distinct groups
same_groups "groups: --cluster comm config equals the unbounded one" --cluster comm
same_groups "groups: --cluster comm --use-hints config equals the unbounded one" --cluster comm --use-hints
same_groups "groups: sharing config equals the unbounded one" --use-hints
check "groups: the allotment cell has the worker unit made of the folded groups" python3 -c '
import json,sys; c=json.load(open(sys.argv[1])); a=[x for x in c if x["name"]=="allotment"][0]
names=[s["name"] for s in a["subcells"]]
assert any("worker" in n for n in names) and names[-1]=="rest", names' "$WORK/b.json"
"$SCXPROF" extract mem --cluster comm -v $GBOUND -f "$G" 2>"$WORK/gb.v" >/dev/null
"$SCXPROF" extract mem --cluster comm -v $GUNBOUNDED -f "$G" 2>"$WORK/gu.v" >/dev/null
check "groups: -v says groups were folded, how many, their samples and the bound" grep -qE \
	'^  folded [0-9]{4,} allotment groups with [0-9]+ samples \([0-9.]+% of the allotment samples\) into this record: groups above [0-9]+ samples \(at most 1/65 of the allotment samples\) are never folded' "$WORK/gb.v"
check "groups: the folded record comes last among the allotment groups, with the worker comms" python3 -c '
import re,sys; t=open(sys.argv[1]).read()
blocks=re.findall(r"^(\S.*): \d+ samples", t, re.M)
i=blocks.index("(folded allotment groups)")
assert blocks[i+1:]==["workload.slice","rest"] or blocks[i+1:]==["rest"], blocks[i-2:]
assert re.search(r"^\(folded allotment groups\): \d+ samples.*\n  worker\*: ", t, re.M)' "$WORK/gb.v"
check "groups: the heavy group's -v block is the unbounded one" cmp \
	<(sed -n '/^workload-tw-a.allotment.slice:/,/^$/p' "$WORK/gb.v") <(sed -n '/^workload-tw-a.allotment.slice:/,/^$/p' "$WORK/gu.v")
check "groups: unbounded, nothing folded, nothing said" bash -c "! grep -q 'folded allotment' '$WORK/gu.v'"
check "groups: the unbounded -v lists every group ($ngroups + the heavy one)" test \
	"$(grep -c '^workload-tw-.*samples' "$WORK/gu.v")" -eq $((ngroups + 1))
"$SCXPROF" extract mem --max-groups 0 -f "$G" >/dev/null 2>&1
check "groups: --max-groups 0 is a usage error" test $? -eq 2

# --- threads: sched stats bounds live threads (--max-threads) ---
# 3000 short threads never seen again and 3 heavy ones that run all along
S="$WORK/tids.jsonl"
python3 "$TOOLS/gen_sched_tids.py" --threads 3000 "$S" 2>/dev/null
"$SCXPROF" extract sched stats -v --max-threads 256 -f "$S" >"$WORK/tb.json" 2>"$WORK/tb.err"
"$SCXPROF" extract sched stats -v -f "$S" >"$WORK/tu.json" 2>"$WORK/tu.err"
check "threads: the heavy threads' keys equal the unbounded ones" python3 -c '
import json,sys; b=json.load(open(sys.argv[1])); u=json.load(open(sys.argv[2]))
heavy=lambda d: [k for k in d["keys"] if k["thread"] in (101,102,201)]
assert len(heavy(u))==3 and heavy(b)==heavy(u), (heavy(b), heavy(u))
assert b["keys"][:3]==u["keys"][:3]' "$WORK/tb.json" "$WORK/tu.json"
check "threads: folded_threads counts what is in no key" python3 -c '
import json,sys; b=json.load(open(sys.argv[1])); u=json.load(open(sys.argv[2]))
f=b["folded_threads"]; assert f["count"]>=2000 and u["keys_total"]==3003, (f, u["keys_total"])
assert b["keys_total"]<=256 and sum(k["runtime_ns"] for k in b["keys"])+f["runtime_ns"]==sum(k["runtime_ns"] for k in u["keys"])
assert "folded_threads" not in u' "$WORK/tb.json" "$WORK/tu.json"
check "threads: -v says threads were folded and why" grep -qE \
	'^sched stats: folded [0-9]+ threads with [0-9.]+ ms runtime .* more than 256 threads live \(--max-threads\)' "$WORK/tb.err"
check "threads: unbounded, nothing folded, nothing said" bash -c "! grep -q folded '$WORK/tu.err'"
for by in cpu process; do
	"$SCXPROF" extract sched stats --by $by --max-threads 256 -f "$S" | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("folded_threads",None); print(json.dumps(d["keys"] if sys.argv[1]=="cpu" else [k for k in d["keys"] if k["process"] in (100,200)]))' $by >"$WORK/tb.$by"
	"$SCXPROF" extract sched stats --by $by -f "$S" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["keys"] if sys.argv[1]=="cpu" else [k for k in d["keys"] if k["process"] in (100,200)]))' $by >"$WORK/tu.$by"
	check "threads: --by $by keys of the heavy threads equal the unbounded ones" cmp "$WORK/tb.$by" "$WORK/tu.$by"
done

# --- extract mem with sched.jsonl: only sampled threads (or processes) keep state ---
mkdir -p "$WORK/ms"
python3 - "$WORK/ms/perf.jsonl" <<'PY'
import sys
L=('{"comm":"%s","tid":%d,"pid":%d,"time":"1.%06d","addr":"0","cgroup":"/workload.slice/workload-tw-a.allotment.slice",'
   '"ip":"0","sym":"s","dso":"d","phys_addr":"%x","data_page_size":4096,"hint":0}\n')
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        comm, tid, pid = [("web1", 101, 100), ("web2", 102, 100), ("db", 201, 200)][i % 3]
        f.write(L % (comm, tid, pid, i, (0x1000 + i % 64) << 12))
PY
cp "$S" "$WORK/ms/sched.jsonl"
"$SCXPROF" extract mem -v -f "$WORK/ms/perf.jsonl" >/dev/null 2>"$WORK/ms/err"
check "sched: the unsampled threads dropped while reading still count as unattributed" grep -qE \
	'^sched attribution: 0 threads \(0\.0 ms\) charged through their process \(never sampled themselves\); unattributed \(neither the thread nor its process sampled\): 3000 threads, 63\.0 ms$' "$WORK/ms/err"

# peak RSS of one run, in MB (getrusage of the child)
peak_mb() {
	python3 - "$SCXPROF" "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
if os.waitstatus_to_exitcode(st) != 0:
    sys.exit("failed")
print(int(ru.ru_maxrss / 1024))
PY
}
if ldd "$SCXPROF" 2>/dev/null | grep -q libasan; then
	skip "bound: peak RSS under 100 MB" "ASan build (shadow memory and quarantine are not the program's)"
else
	python3 "$TOOLS/gen_distinct.py" --lines 200000 "$WORK/big.jsonl" 2>/dev/null
	b=$(peak_mb extract mem -f "$WORK/big.jsonl") u=$(peak_mb extract mem $UNBOUNDED -f "$WORK/big.jsonl")
	check "bound: peak RSS ${b} MB < 100 MB at the default bound (unbounded: ${u} MB)" test "${b:-999}" -lt 100
	check "bound: the input needs the bound (unbounded ${u} MB > 2 x ${b} MB)" test "${u:-0}" -gt $((2 * ${b:-999}))
fi
