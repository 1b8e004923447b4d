#!/usr/bin/env bash
# test_closed_loop.sh - issue 27's closed loop on this VM (bench/closed_loop.sh
# runs the longer workloads): under a topology that puts cpu0 and cpu1 in two
# LLCs, a workload of tests/workloads/llc-truth (threads that read and write
# one 64 KiB region at random, each at most 20% busy) is recorded 5 s at
# 2 kHz and extracted; a fresh run of the same threads is placed with
# `scxprof place` per that config (checked in /proc/TID/status), recorded and
# extracted again, and the achieved (measured) figure must be inside the
# first recording's predicted interval. Two cases:
#   zero      alpha-0, beta-0 pinned apart in run 1 (0.4 CPUs: one subcell
#             that fits one 1-CPU LLC): predicted exactly 0%, achieved 0%;
#   cells     a-0, b-0 in the test's allotment cgroup and c-0, d-0 in a second
#             process in a cgroup of the rest cell, all on one shared region,
#             unpinned: a config cannot merge threads of two cells, so its
#             subcells a-+b- and c-+d- (0.4 CPUs each) are placed on the two
#             LLCs and the allotment cell's predicted share is about 2/3, not
#             0%; the achieved point must be inside the predicted interval
#             and the predicted point inside the achieved interval. The
#             split comes from the cells, not from CPU demand near an LLC's
#             size, so it holds however much CPU the threads get (four
#             threads split by the demand cap, bench/closed_loop.sh spread,
#             split three and one when the host gave them less than 1/3 CPU
#             each, and place, measuring demand again, then disagreed).
# Each thread is at most 20% busy: with the recorder's own work (decoding
# 2 kHz of samples per CPU) the two CPUs keep room, so every thread gets
# the CPU it asks for in both runs and the threads' access rates, which the
# prediction carries from run 1 into run 2's placement, stay as they were;
# at 40% (1.6 CPUs of 2) a recorder busy on one CPU starved the pair pinned
# there and the achieved share came out 5 points above the predicted one.
# The region is small (1024 lines) so that 5 s at 2 kHz sees thousands of
# lines from two threads even when the threads get a tenth of their CPU: the
# figures are always decided, so nothing is recorded again or skipped.
# suite: alone
# (it pins threads to the CPUs and needs the four threads' 0.8 CPUs: a
# script beside it would take them)
. "$(dirname "$0")/lib.sh"
own_session "$@"
WL="$TOP/$BUILD/workloads/llc-truth"

pinned_setup "closed loop" loop
wl=""
trap '[ -n "$wl" ] && kill $wl 2>/dev/null; wait 2>/dev/null; cgroup_remove "$cg2/$cg"; rm -rf "$WORK"' EXIT

# run NAME THREAD...: the workload in the cgroup (its pid in $wl), running when this returns
run() {
	local name=$1; shift
	rm -f "$WORK/$name.ready"
	"${IN_CG[@]}" "$WL" -d 120 -m 64k -u 20 -R "$WORK/$name.ready" "$@" >"$WORK/$name.wl.log" 2>&1 &
	wl=$!
	while [ ! -s "$WORK/$name.ready" ] && kill -0 $wl 2>/dev/null; do sleep 0.05; done
	[ -s "$WORK/$name.ready" ]
}
# rec NAME: record 5 s system-wide at 2 kHz, extract with the split topology (the LLC-packing
# model's prediction: place's default model)
rec() {
	"$SCXPROF" record -F 2000 -t 5 -o "$WORK/$1" >"$WORK/$1.record.log" 2>&1 &&
		"$SCXPROF" extract -v -f "$WORK/$1.tar.gz" --topology "$WORK/split.json" --workload-allotment-cgroup-regex "$ALLOT" \
			--sched-model packing \
			--llc-json "$WORK/$1.llc.json" >"$WORK/$1.cfg.json" 2>"$WORK/$1.err"
}
end_run() { kill $wl 2>/dev/null; wait $wl 2>/dev/null; wl=""; }
# place NAME CONFIG: `scxprof place` per CONFIG on this run's cgroup (plan in NAME.plan)
place() {
	"$SCXPROF" place --model packing -c "$2" --topology "$WORK/split.json" --cgroup "$cg" --window 300 >"$WORK/$1.plan" 2>"$WORK/$1.place.err"
}
# fig(FILE, WHICH[, SCOPE]): the allotment cell's (or its subcell SCOPE's)
# cross-LLC figure from --llc-json: (share, low, high, state)
FIG='import json, sys
def fig(path, which, scope=None):
    a = {c["name"]: c for c in json.load(open(path))["cells"]}["allotment"]
    if scope:
        a = {s["name"]: s for s in a["subcells"]}[scope]
    r = a[which]["llc"]
    return r["share"], r["low"], r["high"], r["state"]
def subs(path):
    return [s["name"] for c in json.load(open(path)) if c["name"] == "allotment" for s in c.get("subcells", [])]
'
# pinned PID: "comm cpus" of each thread of PID (Cpus_allowed_list)
pinned() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "$(cat "$t/comm") $(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
	done
}
# recorded NAME: it records and extracts, else FAIL and stop
recorded() {
	if ! rec "$1"; then
		end_run
		fail "closed loop: $1 records and extracts" "$(tail -n 2 "$WORK/$1.wl.log" "$WORK/$1.record.log" "$WORK/$1.err" 2>/dev/null | tr '\n' ' ')"
		exit 0
	fi
	end_run
}
started() {
	if ! run "$@"; then
		fail "closed loop: $1 starts" "$(tail -n 2 "$WORK/$1.wl.log" | tr '\n' ' ')"
		exit 0
	fi
}

# --- zero: the pair pinned apart, merged by the config, placed together
started z1 alpha-0:0 beta-0:1
recorded z1
check "zero, run 1: the config merges alpha- and beta- and predicts exactly 0% cross-LLC (a point)" python3 -c "$FIG"'
s = subs(sys.argv[1])
assert any("alpha-" in x and "beta-" in x for x in s), ("pair not merged", s)
p = fig(sys.argv[2], "predicted")
assert p[3] == "point" and p[0] == 0 and p[1] == 0, p
' "$WORK/z1.cfg.json" "$WORK/z1.llc.json"

started z2 alpha-0 beta-0
place z2 "$WORK/z1.cfg.json"
check "zero, run 2: place pins alpha-0 and beta-0 to one CPU (Cpus_allowed_list)" python3 - "$WORK/z2.plan" <<PY
import sys
m = dict(l.split() for l in """$(pinned "$wl")""".splitlines())
assert m.get("alpha-0") in ("0", "1") and m["alpha-0"] == m.get("beta-0"), (m, open(sys.argv[1]).read())
PY
recorded z2
check "zero: run 2's achieved figure is a point inside run 1's predicted interval (exactly 0)" python3 -c "$FIG"'
p, m = fig(sys.argv[1], "predicted"), fig(sys.argv[2], "measured")
assert m[3] == "point" and m[0] == 0, ("achieved", m)
assert p[1] <= m[0] <= p[2], ("predicted", p, "achieved", m)
' "$WORK/z1.llc.json" "$WORK/z2.llc.json"

# --- cells: a-0, b-0 in the allotment cgroup and c-0, d-0 in a second process
# in a cgroup of the rest cell, all four on one shared region: the config
# cannot merge across cells, so its subcells a-+b- and c-+d- (0.4 CPUs each)
# go to the two LLCs and the allotment cell's predicted share is about 2/3
other="scxprof-loop-other-$$"
mkdir -p "$cg2/$other"
trap '[ -n "$wl" ] && kill $wl 2>/dev/null; wait 2>/dev/null; cgroup_remove "$cg2/$cg" "$cg2/$other"; rm -rf "$WORK"' EXIT
started c1 -G "$cg2/$other/cgroup.procs" a-0 b-0 + c-0 d-0
recorded c1
check "cells, run 1: a-+b- (allotment) and c-+d- (rest) on the two LLCs, the allotment cell's prediction a point, not 0%" python3 -c "$FIG"'
cfg = json.load(open(sys.argv[1]))
names = {c["name"]: [s["name"] for s in c.get("subcells", [])] for c in cfg}
assert any("a-" in x.split("+") and "b-" in x.split("+") for x in names["allotment"]), names
assert any("c-" in x.split("+") and "d-" in x.split("+") for x in names["rest"]), names
llc = {}
for c in json.load(open(sys.argv[2]))["cells"]:
    for x in c.get("subcells", []):
        if set(x["name"].split("+")) in ({"a-", "b-"}, {"c-", "d-"}):
            llc[c["name"]] = x["llc"]
# on failure, the LLC and demand of every subcell: another busy program on the host
# (its demand counts, as in place) can fill one LLC
every = ["%s/%s %.2f CPUs -> LLC %s" % (c["name"], x["name"], x.get("demand_cpus", 0), x["llc"])
         for c in json.load(open(sys.argv[2]))["cells"] for x in c.get("subcells", []) if x.get("demand_cpus", 0) >= 0.05]
assert sorted(llc.values()) == [0, 1], ("placement", llc, "subcells of 0.05 CPUs or more", every)
p = fig(sys.argv[2], "predicted")
assert p[3] == "point" and 0.3 < p[0] < 0.9, p
' "$WORK/c1.cfg.json" "$WORK/c1.llc.json"

started c2 -G "$cg2/$other/cgroup.procs" a-0 b-0 + c-0 d-0
read -r pa pb <"$WORK/c2.ready"
"$SCXPROF" place --model packing -c "$WORK/c1.cfg.json" --topology "$WORK/split.json" -p "$pa" -p "$pb" --window 300 >"$WORK/c2.plan" 2>"$WORK/c2.place.err"
check "cells, run 2: place pins a-0 and b-0 to one CPU, c-0 and d-0 to the other" python3 - "$WORK/c2.plan" <<PY
import sys
m = dict(l.split() for l in """$(pinned "$pa"; pinned "$pb")""".splitlines())
assert m.get("a-0") in ("0", "1") and m["a-0"] == m.get("b-0"), (m, open(sys.argv[1]).read())
assert m.get("c-0") in ("0", "1") and m["c-0"] == m.get("d-0") != m["a-0"], (m, open(sys.argv[1]).read())
PY
recorded c2
check "cells: run 2's achieved point is inside run 1's predicted interval, and the predicted point inside the achieved one" python3 -c "$FIG"'
p, m = fig(sys.argv[1], "predicted"), fig(sys.argv[2], "measured")
print("predicted", p, "achieved", m)
assert m[3] == "point" and m[0] > 0, ("achieved", m)
assert p[1] <= m[0] <= p[2], ("predicted", p, "achieved", m)
assert m[1] <= p[0] <= m[2], ("predicted", p, "achieved", m)
' "$WORK/c1.llc.json" "$WORK/c2.llc.json"
echo "info: cells: predicted $(python3 -c "$FIG"'print(fig(sys.argv[1], "predicted"))' "$WORK/c1.llc.json"), achieved $(python3 -c "$FIG"'print(fig(sys.argv[1], "measured"))' "$WORK/c2.llc.json")"
