#!/usr/bin/env bash
# test_place.sh - `scxprof place` (place/place_run.c) on a real workload:
# the known-truth workload's threads (tests/workloads/llc-truth.c, each
# working at most 30% of a CPU so that a two-thread subcell always fits a
# 1-CPU LLC) in an allotment cgroup of this run's own, placed per a config
# under a topology that puts cpu0 and cpu1 in two LLCs; every thread's
# Cpus_allowed_list (/proc/TID/status) must be the CPUs the plan printed for
# it, the threads of one subcell on one LLC; --dry-run pins nothing;
# --cgroup finds the same threads; --follow pins a process started in the
# cgroup later and exits when the workload is gone (--model packing, and
# --model mitosis, the default, which lays the cells out again); and the errors (a pid
# that does not exist, a config that does not parse, one LLC, no workload)
# are one line and a non-zero exit. Nothing here depends on timing: the
# workload says when its threads run (-R), and --follow is waited for on
# its output (bounded at 120 s).
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/llc-truth"

"$SCXPROF" place --help >"$WORK/help" 2>&1
check "place --help: exit 0, names the options" grep -q -- "--dry-run" "$WORK/help"
"$SCXPROF" --help >"$WORK/h" 2>&1
check "scxprof --help lists place" grep -q "^  place " "$WORK/h"

split_topology "$WORK/split.json"
cat >"$WORK/one.json" <<'JSON'
{"version": 1, "cpus": [
 {"cpu": 0, "core": 0, "package": 0, "llc": 0, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "0-1", "node": 0, "siblings": "0"},
 {"cpu": 1, "core": 1, "package": 0, "llc": 0, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "0-1", "node": 0, "siblings": "1"}]}
JSON

# config CGREGEX: allotment cell with subcells alpha-+beta- and gamma-, and the rest
config() {
	local re=${1//\\/\\\\} # a JSON string: backslashes doubled
	cat <<JSON
[
  {
    "name": "allotment",
    "matches": {
      "CgroupRegex": "$re"
    },
    "subcells": [
      {"name": "alpha-+beta-", "matches": [[{"CommPrefix": "alpha-"}], [{"CommPrefix": "beta-"}]]},
      {"name": "gamma-", "matches": [[{"CommPrefix": "gamma-"}]]}
    ]
  },
  {"name": "rest", "matches": {}}
]
JSON
}

# errors: one line, exit 1 (2 for usage); under the default model (mitosis)
config 'x' >"$WORK/cfg0.json"
expect_err() {
	local name=$1 want_rc=$2 want=$3 rc; shift 3
	"$SCXPROF" place "$@" >"$WORK/err.out" 2>"$WORK/err.log"; rc=$?
	check "$name" bash -c "[ $rc -eq $want_rc ] && [ \$(wc -l <'$WORK/err.log') -eq 1 ] && grep -q '$want' '$WORK/err.log' && ! test -s '$WORK/err.out'"
}
/bin/true & gone=$!; wait $gone  # a pid that existed and is gone
expect_err "a pid that does not exist: one line, exit 1" 1 "pid $gone: no such process" \
	-c "$WORK/cfg0.json" --topology "$WORK/split.json" -p $gone
# bad_config FILE TEXT LABEL WANT: place refuses the config TEXT (a printf format) with one line
bad_config() {
	# shellcheck disable=SC2059 # TEXT is the format
	printf "$2" >"$WORK/$1"
	expect_err "$3" 1 "$4" -c "$WORK/$1" --topology "$WORK/split.json" -p $$
}
bad_config bad.json '[{"name": "a", "matches": {}, "subcells": [\n' \
	"a config that does not parse: one line naming it, exit 1" "bad.json: not JSON"
bad_config bad2.json '[{"name": "a", "matches": {"Cgroup": "x"}}]\n' \
	"a config with an unknown key: one line naming it and where, exit 1" 'bad2.json: cells\[0\]: unknown key "Cgroup"'
# the scheduler's JSON parser (serde_json) refuses text that is not UTF-8: so does place, at the first bad byte
bad_config bad3.json '[{"name": "a\xff", "matches": {}}]\n' \
	"a config that is not UTF-8: one line naming it and the byte, exit 1" 'bad3.json: not UTF-8 at byte 12 '
bad_config bad4.json '[{"name": "a\\udc00", "matches": {}}]\n' \
	"a config with a lone surrogate escape: one line naming it, exit 1" 'bad4.json: a lone surrogate .udc00 at byte 12 '
expect_err "one LLC: nothing to place, exit 1" 1 "nothing to place: one LLC" \
	-c "$WORK/cfg0.json" --topology "$WORK/one.json" -p $$
"$SCXPROF" place --model packing -c "$WORK/cfg0.json" --topology "$WORK/split.json" >"$WORK/err.out" 2>"$WORK/err.log"; rc=$?
check "no workload: a usage error (exit 2) saying so" bash -c \
	"[ $rc -eq 2 ] && head -n 1 '$WORK/err.log' | grep -q 'no workload: give -p PID or --cgroup PATH' && ! test -s '$WORK/err.out'"

if [ "$(id -u)" -ne 0 ] || ! allotment_cgroup place; then
	skip "place on a running workload" "needs root and a cgroup2 mount (an allotment cgroup of its own)"
	exit 0
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "place on a running workload" "needs 2 CPUs"
	exit 0
fi
config "$ALLOT" >"$WORK/cfg.json"
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; cgroup_remove "$cg2/$cg"; rm -rf "$WORK"' EXIT

# start NAME THREAD...: the workload in the test's cgroup, unpinned threads, 30% busy; waits until they run
start() {
	local name=$1; shift
	"${IN_CG[@]}" "$WL" -d 300 -u 30 -R "$WORK/$name.ready" "$@" &
	pids+=($!)
	while [ ! -s "$WORK/$name.ready" ]; do
		kill -0 ${pids[-1]} 2>/dev/null || { fail "start $name" "the workload exited"; exit 0; }
		sleep 0.05
	done
}

# masks PID: "comm mask" per thread
masks() {
	local t
	for t in /proc/$1/task/*; do
		echo "$(cat $t/comm) $(awk '/^Cpus_allowed_list/ { print $2 }' $t/status)"
	done
}

# agrees PLAN: every plan line's thread has exactly its plan's CPUs; alpha and beta on one LLC
agrees() {
	python3 - "$1" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
assert rows[0] == ["tid", "comm", "subcell", "llc", "cpus"], rows[0]
rows = rows[1:]
by = {r[1]: r for r in rows}
assert {"alpha-0", "beta-0", "gamma-0"} <= set(by), by
for tid, comm, sub, llc, cpus in rows:
    mask = [l.split()[1] for l in open(f"/proc/{tid}/status") if l.startswith("Cpus_allowed_list")][0]
    assert mask == cpus, (tid, comm, "mask", mask, "plan", cpus)
    assert cpus == llc, (comm, "split topology: LLC i is CPU i", llc, cpus)
assert by["alpha-0"][2] == by["beta-0"][2] == "allotment/alpha-+beta-", by
assert by["gamma-0"][2] == "allotment/gamma-", by
assert by["alpha-0"][3] == by["beta-0"][3], ("alpha and beta apart", by)
main = [r for r in rows if r[1] == "llc-truth"]
assert main and main[0][2] == "-", ("the main thread matches no clause: placed one by one", main)
PY
}

start a alpha-0 beta-0 gamma-0
p=${pids[-1]}
masks $p >"$WORK/before"
"$SCXPROF" place --model packing -c "$WORK/cfg.json" --topology "$WORK/split.json" -p $p --window 300 -n >"$WORK/dry" 2>"$WORK/dry.err"
masks $p >"$WORK/after-dry"
check "--dry-run: prints a plan for every thread and pins nothing" bash -c \
	"[ \$(grep -vc '^#' '$WORK/dry') -eq 5 ] && cmp '$WORK/before' '$WORK/after-dry' && grep -q 'dry run: nothing pinned' '$WORK/dry'"
"$SCXPROF" place --model packing -c "$WORK/cfg.json" --topology "$WORK/split.json" -p $p --window 300 >"$WORK/plan" 2>"$WORK/plan.err"
check "place -p: exit 0" test -s "$WORK/plan"
check "place -p: each thread's Cpus_allowed_list is its plan's LLC, alpha and beta together" agrees "$WORK/plan"
check "the plan names the topology and each subcell's LLC" bash -c \
	"grep -q '^# place: .*cfg.json, topology .*split.json (2 LLCs), 4 threads' '$WORK/plan' && grep -q '^# allotment/alpha-+beta- [0-9.]* CPUs -> LLC [01]$' '$WORK/plan'"

# --cgroup: the same threads, found through the cgroup (relative to the cgroup2 mount)
"$SCXPROF" place --model packing -c "$WORK/cfg.json" --topology "$WORK/split.json" --cgroup "$cg" --window 300 >"$WORK/cgplan" 2>"$WORK/cgplan.err"
check "place --cgroup: the workload's four threads" bash -c "[ \$(grep -vc '^#' '$WORK/cgplan') -eq 5 ]"
check "place --cgroup: each pinned as planned, alpha and beta together" agrees "$WORK/cgplan"

# --model mitosis: each thread on its subcell's CPU run as scx_mitosis lays it out. A dry run under
# 8 CPUs, LLCs 0-4 and 5-7: cell 0 gets 0-3, the allotment cell 4-7; its subcells (ids: the default
# catch-all "rest" 0, alpha-+beta- 1, gamma- 2) 4-5, 6, 7: the main thread's run 4-5 straddles the LLCs
python3 - "$WORK/m8.json" <<'PY'
import json, sys
cpus = [{"cpu": c, "core": c, "package": 0, "llc": 0 if c < 5 else 5, "llc_level": 3, "llc_size": 1 << 20,
         "llc_cpus": "0-4" if c < 5 else "5-7", "node": 0, "siblings": str(c)} for c in range(8)]
json.dump({"version": 1, "cpus": cpus}, open(sys.argv[1], "w"))
PY
"$SCXPROF" place --model mitosis -c "$WORK/cfg.json" --topology "$WORK/m8.json" -p $p --window 300 -n >"$WORK/mdry" 2>"$WORK/mdry.err"
check "--model mitosis --dry-run: alpha and beta on run 6, gamma on 7, the main thread on 4-5 across LLCs 0 and 5" python3 - "$WORK/mdry" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert any(l.startswith("# model: scx_mitosis mitosis-next 1be7d9fea (equal weights)") for l in lines), lines
cell = [l for l in lines if l.startswith("# scx_mitosis cell 1 ")]
assert cell and "CPUs 4-7: allotment/rest 4-5 (LLC 0, 5), allotment/alpha-+beta- 6 (LLC 5), allotment/gamma- 7 (LLC 5)" in cell[0], cell  # ids in the header, indexes in the llc column
rows = {r[1]: r for r in (l.split("\t") for l in lines if not l.startswith("#"))}
assert rows["alpha-0"][2:] == ["allotment/alpha-+beta-", "1", "6"] and rows["beta-0"][2:] == rows["alpha-0"][2:], rows
assert rows["gamma-0"][2:] == ["allotment/gamma-", "1", "7"], rows
assert rows["llc-truth"][2:] == ["allotment/rest", "-1", "4-5"], rows
PY
"$SCXPROF" place --model mitosis -c "$WORK/cfg.json" --topology "$WORK/split.json" -p $p --window 300 >"$WORK/mref" 2>"$WORK/mref.err"; rc=$?
check "--model mitosis on 2 CPUs: three subcells in the allotment cell's one CPU are refused, one line, exit 1" bash -c \
	"[ $rc -eq 1 ] && [ \$(wc -l <'$WORK/mref.err') -eq 1 ] && grep -q 'scx_mitosis would refuse the layout' '$WORK/mref.err' && ! test -s '$WORK/mref'"
cat >"$WORK/cfg1.json" <<JSON
[{"name": "allotment", "matches": {"CgroupRegex": "${ALLOT//\\/\\\\}"}}, {"name": "rest", "matches": {}}]
JSON
"$SCXPROF" place --model mitosis -c "$WORK/cfg1.json" --topology "$WORK/split.json" -p $p --window 300 >"$WORK/mpin" 2>"$WORK/mpin.err"
check "--model mitosis pins: cell 0 gets CPU 0, the allotment cell CPU 1: every thread's Cpus_allowed_list is 1" bash -c \
	"[ \$(masks $p | awk '\$2 != \"1\"' | wc -l) -eq 0 ] && grep -q '^# scx_mitosis cell 1 .* CPUs 1: allotment/rest 1 (LLC 1)' '$WORK/mpin'"
"$SCXPROF" place --model packing -c "$WORK/cfg.json" --topology "$WORK/split.json" -p $p --window 300 >"$WORK/plan" 2>"$WORK/plan.err"

# --follow: a process started in the cgroup later is placed too; place exits when the workload is gone
"$SCXPROF" place --model packing -c "$WORK/cfg.json" --topology "$WORK/split.json" --cgroup "$cg" --window 300 --follow \
	--interval 100 >"$WORK/follow" 2>"$WORK/follow.err" &
fp=$!
pids+=($fp)
while [ "$(grep -vs '^#' "$WORK/follow" | wc -l)" -lt 5 ] && kill -0 $fp 2>/dev/null; do sleep 0.05; done
start b gamma-1 alpha-1
q=${pids[-1]}
for i in $(seq 1 2400); do
	grep -q "	alpha-1	" "$WORK/follow" && grep -q "	gamma-1	" "$WORK/follow" && break
	sleep 0.05
done
check "--follow: the later process's threads are placed (alpha-1 with alpha+beta, gamma-1 with gamma)" python3 - "$WORK/follow" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")][1:]
by = {r[1]: r for r in rows}
assert "alpha-1" in by and "gamma-1" in by, rows
for tid, comm, sub, llc, cpus in rows:
    if comm in ("alpha-1", "gamma-1"):
        mask = [l.split()[1] for l in open(f"/proc/{tid}/status") if l.startswith("Cpus_allowed_list")][0]
        assert mask == cpus, (comm, mask, cpus)
assert by["alpha-1"][3] == by["alpha-0"][3] and by["gamma-1"][3] == by["gamma-0"][3], by
PY
kill $p $q
wait $p $q 2>/dev/null
for i in $(seq 1 2400); do kill -0 $fp 2>/dev/null || break; sleep 0.05; done
wait $fp; rc=$?
check "--follow: exits 0 when the workload has no thread left" bash -c "[ $rc -eq 0 ] && ! test -s '$WORK/follow.err'"

# --model mitosis --follow (the default model; dry run on the 8-CPU topology): the later process's threads
# get their subcell's run, the layout printed again; exits 0 when the workload is gone
start c alpha-2 gamma-2
p=${pids[-1]}
"$SCXPROF" place -c "$WORK/cfg.json" --topology "$WORK/m8.json" --cgroup "$cg" --window 300 --follow -n \
	--interval 100 >"$WORK/mfollow" 2>"$WORK/mfollow.err" &
fp=$!
pids+=($fp)
# (wc: while the shell has not yet made the file, grep -c prints nothing, and
# the test would end the wait before place's first layout)
while [ "$(grep -vs '^#' "$WORK/mfollow" | wc -l)" -lt 4 ] && kill -0 $fp 2>/dev/null; do sleep 0.05; done
start d alpha-3 gamma-3
q=${pids[-1]}
for i in $(seq 1 2400); do
	grep -q "	alpha-3	" "$WORK/mfollow" && grep -q "	gamma-3	" "$WORK/mfollow" && break
	sleep 0.05
done
check "--model mitosis --follow: the later process's threads on their subcell's run (alpha 6, gamma 7), laid out again" python3 - "$WORK/mfollow" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split("\t") for l in lines if not l.startswith("#")][1:]
by = {r[1]: r for r in rows}
assert "alpha-3" in by and "gamma-3" in by, rows
assert by["alpha-3"][2:] == by["alpha-2"][2:] == ["allotment/alpha-+beta-", "1", "6"], by
assert by["gamma-3"][2:] == by["gamma-2"][2:] == ["allotment/gamma-", "1", "7"], by
assert any(l.startswith("# ") and l.endswith(" appeared: laid out again") for l in lines), lines
assert sum(l.startswith("# scx_mitosis cell 1 ") for l in lines) >= 2, lines
PY
kill $p $q
wait $p $q 2>/dev/null
for i in $(seq 1 2400); do kill -0 $fp 2>/dev/null || break; sleep 0.05; done
wait $fp; rc=$?
check "--model mitosis --follow: exits 0 when the workload has no thread left" bash -c "[ $rc -eq 0 ] && ! test -s '$WORK/mfollow.err'"
