#!/usr/bin/env bash
# test_check_demands.sh - `scxprof check CONFIG --topology FILE --demands DIR`
# (issue 34 item 4): the scx_mitosis layout at equal weights and at the
# recording's demands (the --enable-rebalancing fixed point), on the planted
# profile of tests/tools/gen_allot_programs.py (24 CPUs in LLCs of 4; alpha
# and beta busy in workload-tw-a, delta and gamma in workload-tw-b, one CPU
# each). Worked out by hand from the reader's allocator: equal weights give
# the root cell and the two allotment cells 8 CPUs each; at the demands the
# idle root keeps its 1-CPU floor and the two cells split the other 23
# equally (largest remainder, ids ascending: 12, 11); in each, the idle rest
# and the other program's subcell keep one CPU each, the busy one the rest.
. "$(dirname "$0")/lib.sh"
P="$WORK/prof"
python3 "$TOP/tests/tools/gen_allot_programs.py" "$P" >/dev/null || { fail "gen_allot_programs.py" "generator failed"; exit 0; }
"$SCXPROF" extract -f "$P/perf.jsonl" >"$WORK/cfg.json" 2>/dev/null
"$SCXPROF" check "$WORK/cfg.json" --topology "$P/topology.json" --demands "$P" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$WORK/err" ] && python3 - "$WORK/out" <<'PY'; then
import sys
lines = open(sys.argv[1]).read().splitlines()
eq = lines.index(next(l for l in lines if l.endswith(" at equal weights:")))
at = lines.index(next(l for l in lines if " (--enable-rebalancing's fixed point): 4 threads, 4.00 CPUs over 10.000 s" in l))
assert eq < at, lines
want_eq = ["# scx_mitosis cell 0 / CPUs 0-7: ",
           "# scx_mitosis cell 1 /workload.slice/workload-tw-a.allotment.slice CPUs 8-15: allotment/rest 8-10 (LLC 8), allotment/alpha+beta 11-13 (LLC 8, 12), allotment/delta+gamma 14-15 (LLC 12)",
           "# scx_mitosis cell 2 /workload.slice/workload-tw-b.allotment.slice CPUs 16-23: "]
want_at = ["# scx_mitosis cell 0 / CPUs 0: ",
           "# scx_mitosis cell 1 /workload.slice/workload-tw-a.allotment.slice CPUs 1-12: allotment/rest 1 (LLC 0), allotment/alpha+beta 2-11 (LLC 0, 4, 8), allotment/delta+gamma 12 (LLC 12)",
           "# scx_mitosis cell 2 /workload.slice/workload-tw-b.allotment.slice CPUs 13-23: allotment/rest 13 (LLC 12), allotment/alpha+beta 14 (LLC 12), allotment/delta+gamma 15-23 (LLC 12, 16, 20)"]
for k, w in enumerate(want_eq):
    assert lines[eq + 1 + k].startswith(w), (lines[eq + 1 + k], w)
for k, w in enumerate(want_at):
    assert lines[at + 1 + k].startswith(w), (lines[at + 1 + k], w)
assert lines[-1].endswith(": accepted by scx_mitosis mitosis-next 1be7d9fea: 1 cell spec (0 catch-all), 3 subcells"), lines[-1]
PY
	pass "--demands: equal weights 8/8/8, at the demands 1/12/11 with the busy subcells' runs 2-11 and 15-23 (by hand)"
else
	fail "--demands: equal weights 8/8/8, at the demands 1/12/11 with the busy subcells' runs 2-11 and 15-23 (by hand)" \
		"rc $rc: $(head -c 600 "$WORK/out" "$WORK/err")"
fi
"$SCXPROF" check "$WORK/cfg.json" --demands "$P" >"$WORK/out" 2>"$WORK/err"; rc=$?
check "--demands without --topology: a usage error (exit 2)" bash -c \
	"[ $rc -eq 2 ] && grep -q -- '--demands DIR needs --topology FILE' '$WORK/err' && ! test -s '$WORK/out'"
mkdir "$WORK/nosched" && cp "$P/perf.jsonl" "$WORK/nosched/"
expect_error "--demands DIR without sched.jsonl: one line naming it, exit 1" 'nosched/sched.jsonl' \
	"$SCXPROF" check "$WORK/cfg.json" --topology "$P/topology.json" --demands "$WORK/nosched"
