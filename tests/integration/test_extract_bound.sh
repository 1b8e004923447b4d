#!/usr/bin/env bash
# test_extract_bound.sh - extract mem's name bound (mem_agg.h, docs/clustering.md
# "Bounded names") through the CLI, on tests/tools/gen_distinct.py input:
# 5 heavy comms (web1/web2 = "web" with two hints, db, redis7, cache)
# interleaved with comms seen once each.
#   - 20k lines (~12k distinct comms) with --max-names 64: the heavy units
#     come out exactly as without the bound (configs byte for byte, -v count
#     lines equal) in both clustering modes, with and without --use-hints;
#     -v says how many names were folded and with how many samples;
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

same_out() { # NAME ARGS...: default bound and unbounded give the same config
	local name=$1; shift
	"$SCXPROF" extract mem $BOUND "$@" -f "$D" >"$WORK/b.json" 2>"$WORK/b.err" &&
		"$SCXPROF" extract mem $UNBOUNDED "$@" -f "$D" >"$WORK/u.json" 2>"$WORK/u.err"
	if cmp -s "$WORK/b.json" "$WORK/u.json" && [ -s "$WORK/b.json" ]; then pass "$name"
	else fail "$name" "$(diff "$WORK/u.json" "$WORK/b.json" | head -n 6 | tr '\n' ' ') $(head -c 200 "$WORK/b.err")"; fi
}
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
