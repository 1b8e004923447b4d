#!/usr/bin/env bash
# test_llc_share.sh - cross-LLC sharing, measured and predicted under the
# config (issues 20 and 27; docs/llc-sharing.md):
#   - synthetic profiles whose figure is known by construction
#     (tests/tools/gen_llc_synth.py: perf.jsonl + sched.jsonl, two threads
#     on a 4 MiB region pinned apart, together, one alternating LLCs every
#     500 ms, three threads over two LLCs): the figure is the definition's
#     (100%, 0%, 50%, 67% within its interval) at 100, 300 and 1000 samples
#     a second and 10 or 30 s, where the old count of lines touched from
#     two LLCs in one second gave 0-12%; without sched.jsonl the samples'
#     CPUs give the same; -v, --llc-json (schema) and the report agree; a
#     one-LLC topology; the sidecar's refusals; the config unchanged;
#   - recordings made here of the workload generator with a topology that
#     puts cpu0 and cpu1 in two LLCs (--topology): sharing threads pinned
#     apart give ~100% and pinned together ~0%, or "too few to say" (the
#     page-fault backend's first touches), never another figure; and the
#     known-truth workload (tests/workloads/llc-truth -z: its 1 MiB faults
#     again every 100 ms) with the page-fault backend, one thread
#     alternating LLCs every 500 ms and three threads over two LLCs: a
#     decided figure must be the schedule's value (bench/llc_truth_sched.py,
#     from the recording's scheduling stream), else "too few to say" with
#     bounds that hold it.
# record samples every page fault of the host: it runs in a session of its
# own at autogroup nice -20 (lib.sh's own_session), so that another test's
# fault storm does not overflow its ring; a recording with no figure is made
# again (up to 3 times), then fails with what record said.
# suite: long
# (one of the slowest under ASan: started early, so the run does not end on one slot)
. "$(dirname "$0")/lib.sh"
own_session "$@"
TOOLS="$TOP/tests/tools"
WL="$TOP/$BUILD/workloads/scxprof-workload"
SCHEMA="$TOP/schemas/llc-sharing.schema.json"

# --- synthetic: known answers ---
ALLOT_SYN='workload-tw-syn\.allotment\.slice'
# syn NAME SCENARIO RATE SECONDS: generate, extract -v --llc-json; leaves $WORK/NAME/{llc.json,err,cfg.json}
syn() {
	local d="$WORK/$1"
	python3 "$TOOLS/gen_llc_synth.py" "$d" "$2" "$3" "$4" &&
		"$SCXPROF" extract -v --workload-allotment-cgroup-regex "$ALLOT_SYN" --llc-json "$d/llc.json" \
			-f "$d/perf.jsonl" >"$d/cfg.json" 2>"$d/err"
}
# known NAME WANT TOL [any]: the allotment cell's measured figure is a point within TOL of WANT and its
# interval holds WANT (with "any": not asked of the interval, which holds the pairs' uncertainty, not the
# timelines' when they come from samples)
known() {
	python3 - "$WORK/$1/llc.json" "$2" "$3" "${4:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); want, tol = float(sys.argv[2]), float(sys.argv[3])
a = {c["name"]: c for c in d["cells"]}["allotment"]
m = a["measured"]["llc"]
assert m["state"] == "point", m
assert abs(m["share"] - want) <= tol, (m, want)
assert sys.argv[4] == "any" or m["low"] - 1e-4 <= want <= m["high"] + 1e-4, (m, want)
assert a["partners"]["shared"] >= 2 and a["partners"]["apart"] == 0, a["partners"]
PY
}
for run in "apart 1 0" "together 0 0" "alternating 0.5 0.0001" "three 0.6667 0.06"; do
	set -- $run
	for rl in "300 10" "100 10" "1000 10" "300 30"; do
		name="$1-${rl/ /-}"
		if syn "$name" "$1" $rl; then
			check "synthetic $1 at ${rl% *}/s for ${rl#* } s: measured cross-LLC $2 (the definition's value)" known "$name" "$2" "$3"
		else
			fail "synthetic $1 at ${rl% *}/s for ${rl#* } s" "$(tail -n 2 "$WORK/$name/err")"
		fi
	done
done
S="$WORK/apart-300-10"
check "synthetic apart: -v prints the cell's measured and predicted figures" grep -q \
	"^  allotment: 9000 samples on data, about [0-9]* on data another thread uses (2 partners: 2 shared, 0 apart, 0 cannot tell); cross-LLC measured 100.0% (95% 100.0-100.0%), predicted (scx_mitosis) none (scx_mitosis would refuse the layout), LLC-packing 0.0% (95% 0.0-0.0%)$" "$S/err"
check "synthetic apart: the LLC-packing placement keeps alpha+beta on one LLC" grep -q "^  LLC-packing placement: allotment/alpha+beta 2.00 CPUs -> LLC 0;" "$S/err"
check "synthetic apart: scx_mitosis refuses 3 subcells on the allotment cell's 2 of 4 CPUs, and -v says so" grep -q \
	"^  scx_mitosis model (mitosis-next 1be7d9fea; equal weights, LLC aware): scx_mitosis would refuse this layout: cell 1 (2 CPUs, 3 subcells): not enough CPUs (2) for 3 recipients" "$S/err"
check "synthetic apart: timelines from the scheduling trace" grep -q "^  timelines: 3 threads from the scheduling trace, 0 from their samples' CPUs, 0 with none" "$S/err"
check "synthetic apart: the sidecar's subcell, gain and counts" python3 - "$S/llc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 5 and d["one_llc"] is False and [l["llc"] for l in d["topology"]["llcs"]] == [0, 2]
assert d["samples"]["total"] == 9000 and d["samples"]["measured"] == 9000 and d["samples"]["no_cpu"] == 0, d["samples"]
assert d["timelines"] == {"sched": 3, "samples": 0, "none": 0} and d["demand"] == "runtime" and d["first_touch"] is False
a = {c["name"]: c for c in d["cells"]}["allotment"]
s = {x["name"]: x for x in a["subcells"]}
ab = s["alpha+beta"]
assert ab["merged"] and ab["llc"] == 0 and ab["threads"] == 2 and abs(ab["demand_cpus"] - 2) < 1e-3, ab
assert ab["models"]["llc_packing"]["llc"]["state"] == "point" and ab["models"]["llc_packing"]["llc"]["share"] == 0
assert d["model"]["predicted"] == "scx_mitosis" and "not enough CPUs" in d["model"]["refused"] and d["layout"] == [], d["model"]
assert ab["predicted"] == ab["models"]["scx_mitosis"] and ab["predicted"]["llc"]["state"] == "none", ab["predicted"]
assert ab["gain"]["llc"] is None and ab["gain"]["node"] is None, ab["gain"]
assert s["gamma"]["partners"]["total"] == 0 and s["gamma"]["measured"]["llc"]["state"] == "none", s["gamma"]
assert 0.75 * 6000 < ab["shared_samples"] <= 6000, ab["shared_samples"]  # both use only the region (truth 6000)
PY
"$SCXPROF" extract --workload-allotment-cgroup-regex "$ALLOT_SYN" -f "$S/perf.jsonl" >"$S/cfg-plain.json" 2>/dev/null
check "synthetic: the config on stdout is the same with and without --llc-json" cmp "$S/cfg.json" "$S/cfg-plain.json"
if command -v node >/dev/null && [ -d "$TOP/tests/node_modules/ajv" ]; then
	check "synthetic: the sidecar is valid against llc-sharing.schema.json" validate "$SCHEMA" "$S/llc.json"
	check "synthetic three: the sidecar is valid against llc-sharing.schema.json" validate "$SCHEMA" "$WORK/three-300-10/llc.json"
else
	skip "synthetic: sidecar schema" "node and ajv not installed (make deps)"
fi
# the scx_mitosis model on 16 CPUs, LLCs 0-11 and 12-15: cells 0-7 and 8-15, the allotment's subcells rest
# 8-10, alpha+beta 11-13 (1/3 on LLC 0, 2/3 on LLC 12), gamma 14-15: alpha and beta on two LLCs with
# 1 - (1/9 + 4/9) = 4/9; the LLC-packing model keeps them on one (0)
python3 - "$S/t16.json" <<'PY'
import json, sys
cpus = [{"cpu": c, "core": c, "package": 0, "llc": 0 if c < 12 else 12, "llc_level": 3, "llc_size": 1 << 20,
         "llc_cpus": "0-11" if c < 12 else "12-15", "node": 0, "siblings": str(c)} for c in range(16)]
json.dump({"version": 1, "cpus": cpus}, open(sys.argv[1], "w"))
PY
"$SCXPROF" extract -v --workload-allotment-cgroup-regex "$ALLOT_SYN" --topology "$S/t16.json" --llc-json "$S/t16-llc.json" \
	-f "$S/perf.jsonl" >/dev/null 2>"$S/t16.err"
check "scx_mitosis model: alpha+beta's run 11-13 straddles LLCs 0 and 12: predicted 44.4%, LLC-packing 0.0%" bash -c \
	"grep -q 'alpha+beta 11-13 (LLC 0 33% + LLC 12 67%) 2.00 CPUs 2 threads, gamma 14-15 (LLC 12)' '$S/t16.err' &&
	 grep -q '^  allotment: .*predicted (scx_mitosis) 44.4% (95% 44.4-44.4%), LLC-packing 0.0% (95% 0.0-0.0%)$' '$S/t16.err'"
check "scx_mitosis model: the sidecar's layout and both models" python3 - "$S/t16-llc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = {c["name"]: c for c in d["cells"]}["allotment"]
assert abs(a["predicted"]["llc"]["share"] - 4 / 9) < 1e-3 and a["models"]["llc_packing"]["llc"]["share"] == 0, a["models"]
cell = d["layout"][1]
assert cell["cgroup"] == "/workload.slice/workload-tw-syn.allotment.slice" and cell["cpus"] == "8-15", cell
ab = cell["subcells"][1]
assert ab["name"] == "alpha+beta" and ab["cpus"] == "11-13" and [l["llc"] for l in ab["llcs"]] == [0, 12], ab
assert abs(ab["llcs"][0]["share"] - 1 / 3) < 1e-3 and ab["threads"] == 2, ab
PY
# a cpuset in the topology (as the reader: a cell whose cgroup has one claims those CPUs): the
# allotment's cpuset.cpus.effective 12-15 makes its cell 12-15, every subcell on LLC 12: 0.0%
python3 - "$S/t16.json" "$S/t16c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cpusets"] = {"/workload.slice/workload-tw-syn.allotment.slice": "12-15"}
json.dump(d, open(sys.argv[2], "w"))
PY
"$SCXPROF" extract -v --workload-allotment-cgroup-regex "$ALLOT_SYN" --topology "$S/t16c.json" --llc-json "$S/t16c-llc.json" \
	-f "$S/perf.jsonl" >/dev/null 2>"$S/t16c.err"
check "scx_mitosis model: a cell's cpuset claims its CPUs (allotment 12-15: one LLC, predicted 0.0%)" python3 - "$S/t16c-llc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cell = d["layout"][1]
assert cell["cpus"] == "12-15" and d["layout"][0]["cpus"] == "0-11", d["layout"]
assert all([l["llc"] for l in s["llcs"]] == [12] for s in cell["subcells"]), cell
a = {c["name"]: c for c in d["cells"]}["allotment"]
assert a["predicted"]["llc"]["share"] == 0, a["predicted"]
PY
"$SCXPROF" extract -v --sched-model packing --workload-allotment-cgroup-regex "$ALLOT_SYN" --topology "$S/t16.json" \
	-f "$S/perf.jsonl" >/dev/null 2>"$S/t16p.err"
check "--sched-model packing: the LLC-packing figure is the predicted one, scx_mitosis's beside it" grep -q \
	'^  allotment: .*predicted (LLC-packing) 0.0% (95% 0.0-0.0%), scx_mitosis 44.4% (95% 44.4-44.4%)$' "$S/t16p.err"
check "subcell order: -v names the clustering's order (44.4%) and the best for the layout (gamma first: 0.0%)" grep -q \
	"^  subcell order for scx_mitosis (cell allotment, 2 orders tried): written order alpha+beta, gamma, rest -> predicted 44.4%; best gamma, alpha+beta, rest -> 0.0% (--order-subcells writes it)$" "$S/t16.err"
"$SCXPROF" extract --order-subcells --workload-allotment-cgroup-regex "$ALLOT_SYN" --topology "$S/t16.json" \
	-f "$S/perf.jsonl" >"$S/t16o.cfg" 2>/dev/null
"$SCXPROF" extract -v --order-subcells --workload-allotment-cgroup-regex "$ALLOT_SYN" --topology "$S/t16.json" \
	--llc-json "$S/t16o-llc.json" -f "$S/perf.jsonl" >"$S/t16o-v.cfg" 2>"$S/t16o.err"
check "--order-subcells: the config is written gamma, alpha+beta, rest, with or without -v, and predicted for that order" bash -c \
	"python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert [s[\"name\"] for s in c[0][\"subcells\"]] == [\"gamma\", \"alpha+beta\", \"rest\"], c' '$S/t16o.cfg' &&
	 cmp '$S/t16o.cfg' '$S/t16o-v.cfg' &&
	 grep -q '^  allotment: .*predicted (scx_mitosis) 0.0% (95% 0.0-0.0%)' '$S/t16o.err' &&
	 python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))[\"orders\"][0]; assert o[\"written_best\"] and o[\"best\"][0] == \"gamma\" and abs(o[\"clustering_share\"] - 4 / 9) < 1e-3 and o[\"best_share\"] == 0, o' '$S/t16o-llc.json'"
if command -v node >/dev/null && [ -d "$TOP/tests/node_modules/ajv" ]; then
	check "scx_mitosis model: the sidecar with a layout is valid against llc-sharing.schema.json" validate "$SCHEMA" "$S/t16-llc.json"
	check "a topology with cpusets is valid against topology.schema.json" validate "$TOP/schemas/topology.schema.json" "$S/t16c.json"
fi

# without sched.jsonl: the samples' CPUs per 100 ms bin give the same answers
for sc in apart alternating; do
	D="$WORK/$sc-nosched"
	cp -r "$WORK/$sc-300-10" "$D" && rm -f "$D/sched.jsonl" "$D/llc.json"
	"$SCXPROF" extract -v --workload-allotment-cgroup-regex "$ALLOT_SYN" --llc-json "$D/llc.json" -f "$D/perf.jsonl" >/dev/null 2>"$D/err"
done
check "no sched.jsonl, apart: 100% (95% 100-100%) from the samples' CPUs, the timelines from the samples (--llc-json)" \
	python3 - "$WORK/apart-nosched/llc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["timelines"] == {"sched": 0, "samples": 3, "none": 0}, d["timelines"]
m = {c["name"]: c for c in d["cells"]}["allotment"]["measured"]["llc"]
assert m["state"] == "point" and min(m["share"], m["low"], m["high"]) >= 0.9995, m
PY
check "no sched.jsonl, alternating: 50% within 5 points from the samples' CPUs" known alternating-nosched 0.5 0.05 any

# one LLC (--topology of a host whose four CPUs share one cache): no figure, no gain, and -v says so
python3 - "$S/topology.json" "$S/one.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for c in t["cpus"]: c["llc"], c["llc_cpus"] = 0, "0-3"
json.dump(t, open(sys.argv[2], "w"))
PY
SYN_OPTS=(--workload-allotment-cgroup-regex "$ALLOT_SYN" -f "$S/perf.jsonl")
"$SCXPROF" extract -v "${SYN_OPTS[@]}" --topology "$S/one.json" --llc-json "$S/one-llc.json" >/dev/null 2>"$S/one.err"
check "one LLC: -v says there is nothing to gain instead of a figure" grep -q "^  one LLC: every CPU shares it, so no access crosses LLCs" "$S/one.err"
check "one LLC: sidecar has one_llc, both figures 0 and no gain" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); p = d["profile"]
assert d["one_llc"] is True and p["measured"]["llc"]["share"] == 0 and p["models"]["llc_packing"]["llc"]["share"] == 0, p
assert p["gain"]["llc"] is None, p' "$S/one-llc.json"
check "--topology: the cap is the largest LLC of that topology" grep -q "cap 4.00 CPUs per cell (largest LLC of --topology)" "$S/one.err"

# refusals: an existing sidecar is never overwritten (and nothing is printed); a bad topology names the file
echo keep >"$S/exists.json"
"$SCXPROF" extract "${SYN_OPTS[@]}" --llc-json "$S/exists.json" >"$S/exists.out" 2>"$S/exists.err"; rc=$?
check "--llc-json: an existing file is refused (exit 1), untouched, no config printed" bash -c \
	"[ $rc -eq 1 ] && grep -qx keep '$S/exists.json' && ! test -s '$S/exists.out' && grep -q 'exists.json: already exists' '$S/exists.err'"
echo '{"cpus": 3}' >"$S/bad-topo.json"
"$SCXPROF" extract "${SYN_OPTS[@]}" --topology "$S/bad-topo.json" >"$S/bad.out" 2>"$S/bad.err"; rc=$?
check "--topology: a bad file is one error line naming it (exit 1, no config)" bash -c \
	"[ $rc -eq 1 ] && ! test -s '$S/bad.out' && grep -q 'bad-topo.json' '$S/bad.err' && [ \$(wc -l <'$S/bad.err') -eq 1 ]"
check "--llc-json: no temporary file left behind" bash -c "! ls '$S' | grep -q '\.tmp\.'"

# report: the same figures as a section with a chart; with one LLC it says so instead
"$SCXPROF" report "${SYN_OPTS[@]}" -o "$S/r.html" >/dev/null 2>"$S/r.err"
check "report: a cross-LLC section with the chart and the cell's row (measured 1, predicted 0), describing the definition" bash -c \
	"grep -q '<section id=\"llc\">' '$S/r.html' && grep -q '<svg id=\"llc-chart\"' '$S/r.html' &&
	 grep -q 'data-level=\"1\" data-samples=\"9000\" data-measured=\"1.0000\" data-predicted=\"-1.0000\" data-other=\"0.0000\"' '$S/r.html' &&
	 grep -q 'previous access by another thread came from another last-level cache' '$S/r.html' &&
	 grep -q '<td>allotment/alpha+beta<span class=\"merged\">merged</span></td><td>6000</td>' '$S/r.html'"
"$SCXPROF" report "${SYN_OPTS[@]}" --topology "$S/one.json" -o "$S/r1.html" >/dev/null 2>&1
check "report --topology with one LLC: the section says so, no chart" bash -c \
	"grep -q 'id=\"llc-one\"' '$S/r1.html' && ! grep -q 'llc-chart' '$S/r1.html'"

# --- recordings on this VM, evaluated with cpu0 and cpu1 in two LLCs ---
if [ "$(id -u)" -ne 0 ]; then
	skip "recorded cross-LLC sharing" "needs root (record)"
	exit 0
fi
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg2" ]; then
	skip "recorded cross-LLC sharing" "no cgroup2 mount"
	exit 0
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "recorded cross-LLC sharing" "needs 2 CPUs to pin threads apart"
	exit 0
fi
CG=workload.slice/workload-tw-llc-$$.allotment.slice
ALLOT="workload-tw-llc-$$\\.allotment\\.slice"
trap 'cgroup_remove "$cg2/$CG"; rm -rf "$WORK"' EXIT
split_topology "$WORK/split.json"

# record_llc NAME GROUP...: record the generator (page-fault backend: its sharing is in its faults), process,
# extract with the split topology; leaves $WORK/NAME/{cfg.json,llc.json,err}
record_llc() {
	local name=$1 d="$WORK/$1"; shift
	rm -rf "$d"; mkdir -p "$d"
	"$SCXPROF" record -t 30 --backend page-fault -o "$d/prof" -- "$WL" -d 3 -p 64 -H 20 "$@" >"$d/record.log" 2>&1 &&
		"$SCXPROF" process --no-perfetto -f "$d/prof.tar.gz" >"$d/process.log" 2>&1 &&
		"$SCXPROF" extract mem -v --topology "$WORK/split.json" --workload-allotment-cgroup-regex "$ALLOT" \
			--llc-json "$d/llc.json" -f "$d/prof.out/perf.jsonl" >"$d/cfg.json" 2>"$d/err"
}

# judge NAME WHAT: python over llc.json (d) and the config (cfg); exit 3 = no figure at all (retry).
# The page-fault backend's samples are first touches: a pair may say "too few to say" (its bounds must
# then hold the answer), never give another figure.
judge() {
	python3 - "$WORK/$1/llc.json" "$WORK/$1/cfg.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); cfg = json.load(open(sys.argv[2])); what = sys.argv[3]
cells = {c["name"]: c for c in d["cells"]}
a = cells.get("allotment")
def agrees(m, want, tol):
    if m["state"] == "none": sys.exit(3)
    if m["state"] == "too_few":
        assert m["low"] - 1e-4 <= want <= m["high"] + 1e-4, ("too few to say, but the bounds miss", want, m)
    else:
        assert abs(m["share"] - want) <= tol, ("measured", m, "want", want)
if what == "apart":      # threads pinned to cpu0 and cpu1: every shared access crosses the LLCs
    assert a is not None; agrees(a["measured"]["llc"], 1.0, 0.02)
elif what == "together": # both pinned to cpu0: none crosses
    assert a is not None; agrees(a["measured"]["llc"], 0.0, 0.02)
elif what == "planted":  # alpha+beta merged: predicted on one LLC, so nothing crosses in the prediction
    subs = {s["name"]: s for s in a["subcells"]} if a else {}
    s = subs.get("alpha-+beta-")
    assert s is not None, ("alpha and beta not merged", list(subs))
    assert s["llc"] is not None, s
    p = s["predicted"]["llc"]
    if p["state"] == "none": sys.exit(3)
    assert p["low"] == 0, p
elif what == "negative": # nothing shared in the cell: no gain predicted
    assert a is not None, "no allotment cell"
    g = a["gain"]["llc"]
    assert g is None or g <= 0.05, a
PY
}

# attempt_with RECORD JUDGE NAME WHAT ARGS...: up to 3 recordings (RECORD NAME ARGS...) until one is
# conclusive (JUDGE NAME WHAT exits 3 when it has no figure), then judge it
attempt_with() {
	local rec=$1 jdg=$2 name=$3 what=$4 i rc out; shift 4
	for i in 1 2 3; do
		if ! "$rec" "$name" "$@"; then
			fail "recorded: $what" "record/process/extract failed: $(tail -n 3 "$WORK/$name"/*.log "$WORK/$name/err" 2>/dev/null | tr '\n' ' ')"
			return
		fi
		out=$("$jdg" "$name" "$what" 2>&1); rc=$?
		[ $rc -eq 3 ] && continue
		if [ $rc -eq 0 ]; then pass "recorded: $what"; else fail "recorded: $what" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
		return
	done
	# the threads share one region by construction: no figure is a recording that lost them
	fail "recorded: $what" "3 recordings without a figure (no pair of threads with data in common): $(grep -h -m1 -E 'lost|WARNING' "$WORK/$name/record.log" | tr '\n' ' ')"
}
# attempt NAME WHAT GROUP...: the generator's recordings, judged by judge
attempt() {
	attempt_with record_llc judge "$@"
}

attempt apart "sharing threads pinned apart (cpu0, cpu1): 100% cross-LLC, or too few to say" \
	alpha:1:A:$CG:0 beta:1:A:$CG:1
# one pass (extract -f PROFILE.tar.gz, no JSONL) feeds the same counts: the same sidecar
if [ -s "$WORK/apart/llc.json" ]; then
	"$SCXPROF" extract mem --topology "$WORK/split.json" --workload-allotment-cgroup-regex "$ALLOT" \
		--llc-json "$WORK/apart/onepass.json" -f "$WORK/apart/prof.tar.gz" >/dev/null 2>"$WORK/apart/onepass.err"
	check "one pass from the archive writes the same --llc-json as process then extract" \
		cmp "$WORK/apart/llc.json" "$WORK/apart/onepass.json"
fi
attempt together "sharing threads pinned together (cpu0): 0% cross-LLC, or too few to say" \
	alpha:1:A:$CG:0 beta:1:A:$CG:0
attempt planted "planted alpha+beta unpinned: merged, and predicted on one LLC (nothing crosses)" \
	alpha:2:A:$CG beta:2:A:$CG gamma:2::$CG delta:2::$CG
attempt negative "nothing shared (one thread per private region): no gain predicted" \
	gamma:1::$CG delta:1::$CG

# --- the known-truth workload with the page-fault backend (issue 27) ---
TRUTH="$TOP/$BUILD/workloads/llc-truth"
# record_truth NAME THREAD...: llc-truth -m 1 -z 100 in $CG, page-fault backend, process, extract (as record_llc)
record_truth() {
	local name=$1 d="$WORK/$1"; shift
	rm -rf "$d"; mkdir -p "$d"
	"$SCXPROF" record -t 30 --backend page-fault -o "$d/prof" -- sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' \
		"$cg2/$CG" "$TRUTH" -d 3 -u 40 -P 1000 -m 1 -z 100 "$@" >"$d/record.log" 2>&1 &&
		"$SCXPROF" process --no-perfetto -f "$d/prof.tar.gz" >"$d/process.log" 2>&1 &&
		"$SCXPROF" extract mem -v --topology "$WORK/split.json" --workload-allotment-cgroup-regex "$ALLOT" \
			--llc-json "$d/llc.json" -f "$d/prof.out/perf.jsonl" >"$d/cfg.json" 2>"$d/err" || return
	# no "schedule:" line (no sample of the workload's threads survived): judge_truth retries
	LLC_CGROUP="workload-tw-llc-$$" python3 "$TOP/bench/llc_truth_sched.py" "$d/prof.out" >"$d/schedule" 2>&1
	return 0
}
# judge_truth NAME [WHAT]: the allotment cell's measured figure against the schedule's value; exit 3: no figure
judge_truth() {
	python3 - "$WORK/$1/llc.json" "$WORK/$1/schedule" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"^schedule: ([0-9.]+)%", open(sys.argv[2]).read(), re.M)
if not m: sys.exit(3)  # no sampled thread of the workload: nothing to judge
want = float(m.group(1)) / 100
a = {c["name"]: c for c in d["cells"]}.get("allotment")
if a is None: sys.exit(3)
f = a["measured"]["llc"]
if f["state"] == "none": sys.exit(3)
assert d["first_touch"] is True, "page-fault samples are first touches"
assert f["low"] - 5e-4 <= want <= f["high"] + 5e-4, ("the bounds miss the schedule's value", want, f)
if f["state"] == "point":  # decided: the definition's value, not another figure
    assert abs(f["share"] - want) <= 0.05, ("a decided figure that disagrees", want, f)
else:
    assert f["why"] is not None, f
print("schedule %.3f, figure %s" % (want, f))
PY
}
attempt_with record_truth judge_truth pf_alternating "page faults, one thread alternating LLCs every 500 ms: the schedule's value, or cannot tell" \
	alpha-0:0 beta-0:0/1@0.5
attempt_with record_truth judge_truth pf_three "page faults, three threads over two LLCs: the schedule's value, or cannot tell" \
	alpha-0:0 beta-0:0 gamma-0:1
