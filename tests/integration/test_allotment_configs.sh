#!/usr/bin/env bash
# test_allotment_configs.sh - allotment cgroups that run different programs
# (issue 34 item 2) on a planted profile (tests/tools/gen_allot_programs.py:
# workload-tw-a runs alpha+beta, workload-tw-b delta+gamma; 24 CPUs in
# LLCs of 4):
# - extract --per-allotment-config DIR writes one config per allotment,
#   DIR/CGROUP.json: the config with the allotment spec replaced by that
#   allotment's own (its cgroup's regex, only its subcells, rest), each
#   accepted by `scxprof check`; the config on stdout is unchanged;
# - DIR existing, no allotment recorded, several recordings: refused,
#   nothing written (no DIR, no temporary directory beside it);
# - what the union costs under the scx_mitosis model, worked out by hand:
#   -v, --llc-json's allotment_specs (schema) and the report; none with one
#   recorded allotment.
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"
P="$WORK/prof"
python3 "$TOOLS/gen_allot_programs.py" "$P" >/dev/null || { fail "gen_allot_programs.py" "generator failed"; exit 0; }

"$SCXPROF" extract -f "$P/perf.jsonl" >"$WORK/plain.json" 2>/dev/null
"$SCXPROF" extract -f "$P/perf.jsonl" --per-allotment-config "$WORK/pa" >"$WORK/cfg.json" 2>"$WORK/pa.err"; rc=$?
if [ $rc -eq 0 ] && cmp -s "$WORK/plain.json" "$WORK/cfg.json" &&
	grep -q "^per-allotment configs: 2 written to $WORK/pa " "$WORK/pa.err"; then
	pass "--per-allotment-config: exit 0, the config on stdout unchanged, one line saying what it wrote"
else
	fail "--per-allotment-config: exit 0, the config on stdout unchanged, one line saying what it wrote" \
		"rc $rc: $(head -c 300 "$WORK/pa.err")"
fi
if [ "$(cd "$WORK/pa" 2>/dev/null && ls | tr '\n' ' ')" = "workload-tw-a.allotment.slice.json workload-tw-b.allotment.slice.json " ]; then
	pass "one file per recorded allotment, named by its cgroup"
else
	fail "one file per recorded allotment, named by its cgroup" "$(ls -A "$WORK/pa" 2>&1 | tr '\n' ' ')"
fi
for own in a b; do
	f="$WORK/pa/workload-tw-$own.allotment.slice.json"
	"$SCXPROF" check "$f" >"$WORK/out" 2>"$WORK/err"; rc=$?
	if [ $rc -eq 0 ] && grep -q 'accepted by ' "$WORK/out" && [ ! -s "$WORK/err" ]; then
		pass "scxprof check accepts $own's config"
	else
		fail "scxprof check accepts $own's config" "rc $rc: $(head -c 300 "$WORK/out" "$WORK/err")"
	fi
	# its first cell: its own cgroup's regex (matching it, not the other's) and only its own
	# programs' subcells, then rest; the other cells are the config's but for the allotment spec
	if python3 - "$f" "$WORK/cfg.json" "$own" <<'PY'; then
import json, re, sys
one, cfg, own = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
other = "b" if own == "a" else "a"
want = {"a": ["alpha+beta", "rest"], "b": ["delta+gamma", "rest"]}[own]
spec = one[0]
r = spec["matches"]["CgroupRegex"]
assert spec["name"] == "workload-tw-%s.allotment.slice" % own, spec["name"]
assert re.search(r, "/sys/fs/cgroup/workload.slice/workload-tw-%s.allotment.slice/app" % own), r
assert not re.search(r, "/sys/fs/cgroup/workload.slice/workload-tw-%s.allotment.slice/app" % other), r
assert [s["name"] for s in spec["subcells"]] == want, spec["subcells"]
u = {c["name"]: c for c in cfg}["allotment"]
assert [s["name"] for s in u["subcells"]] == ["alpha+beta", "delta+gamma", "rest"], u["subcells"]
for s in spec["subcells"]:
    assert s in u["subcells"], s  # the union's subcell, matches and all
assert one[1:] == [c for c in cfg if c["name"] != "allotment"], (one[1:], cfg)
PY
		pass "$own's config: its cgroup's regex, only its programs' subcells, the other cells kept"
	else
		fail "$own's config: its cgroup's regex, only its programs' subcells, the other cells kept" "$(head -c 400 "$f")"
	fi
done

# refused, nothing written: DIR exists (left as it was), nothing recorded in an allotment, several recordings
mkdir "$WORK/there" && echo keep >"$WORK/there/x"
expect_error "--per-allotment-config refuses an existing DIR (exit 1, one line, nothing on stdout)" \
	'already exists, not overwritten' "$SCXPROF" extract -f "$P/perf.jsonl" --per-allotment-config "$WORK/there"
if [ "$(ls -A "$WORK/there")" = x ] && [ "$(cat "$WORK/there/x")" = keep ]; then
	pass "the existing DIR is left as it was"
else
	fail "the existing DIR is left as it was" "$(ls -A "$WORK/there" | tr '\n' ' ')"
fi
expect_error "--per-allotment-config with no allotment recorded: exit 1, one line, no config written" \
	'no allotment cgroup was recorded' "$SCXPROF" extract -f "$P/perf.jsonl" \
	--workload-allotment-cgroup-regex 'nothing-matches-this' --per-allotment-config "$WORK/none"
"$SCXPROF" extract -f "$P/perf.jsonl" -f "$P/perf.jsonl" --per-allotment-config "$WORK/two" >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ] && [ -z "$(ls -A "$WORK" | grep -E '^(none|two)')" ]; then
	pass "no DIR nor temporary directory after a refusal; several recordings are a usage error (exit 2)"
else
	fail "no DIR nor temporary directory after a refusal; several recordings are a usage error (exit 2)" \
		"rc $rc: $(ls -A "$WORK" | tr '\n' ' ')"
fi

# what the union costs, under the scx_mitosis model (24 CPUs, 3 cells of 8 at equal weights: a's cell
# 8-15; the union's rest 8-10, alpha+beta 11-13, delta+gamma 14-15: alpha+beta's run is 1/3 on LLC 8,
# 2/3 on LLC 12, so a pair of its threads crosses with 1 - (1/9 + 4/9) = 4/9; its own spec's rest 8-11,
# alpha+beta 12-15: one LLC, 0; b's delta+gamma 22-23 and 20-23: 0 both ways). -v, --llc-json, report.
"$SCXPROF" extract -v -f "$P/perf.jsonl" --llc-json "$WORK/llc.json" >/dev/null 2>"$WORK/v.err"; rc=$?
line=$(grep '^  allotments running different programs (scx_mitosis): ' "$WORK/v.err")
if [ $rc -eq 0 ] && echo "$line" | grep -qF 'workload-tw-a.allotment.slice (3 -> 2 subcells) 44.4% (95% 44.4-44.4%) -> 0.0% (95% 0.0-0.0%)' &&
	echo "$line" | grep -qF 'workload-tw-b.allotment.slice (3 -> 2 subcells) 0.0% (95% 0.0-0.0%) -> 0.0% (95% 0.0-0.0%)' &&
	echo "$line" | grep -qE 'of the profile [0-9.]+% .* with the union spec .*, 0\.0% \(95% 0\.0-0\.0%\) with one spec per allotment \(the union costs \+[0-9.]+ points\)'; then
	pass "-v: the union's predicted cost, a 44.4% -> 0.0% (4/9 by hand), b 0.0% both ways, the profile's"
else
	fail "-v: the union's predicted cost, a 44.4% -> 0.0% (4/9 by hand), b 0.0% both ways, the profile's" "rc $rc: ${line:0:600}"
fi
if validate "$TOP/schemas/llc-sharing.schema.json" "$WORK/llc.json" >/dev/null 2>&1 && python3 - "$WORK/llc.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
a = d["allotment_specs"]
assert a["model"] == "scx_mitosis"
v = {x["cgroup"]: x for x in a["allotments"]}
assert sorted(v) == ["workload-tw-a.allotment.slice", "workload-tw-b.allotment.slice"], v
ua, oa = v["workload-tw-a.allotment.slice"]["union"], v["workload-tw-a.allotment.slice"]["own"]
assert abs(ua["share"] - 4 / 9) < 1e-3 and oa["share"] == 0, (ua, oa)
assert v["workload-tw-b.allotment.slice"]["union"]["share"] == 0 == v["workload-tw-b.allotment.slice"]["own"]["share"]
# the profile's union figure is the profile's predicted figure under the config written (scx_mitosis)
p = d["profile"]["predicted"]["llc"]
assert a["profile"]["union"] == p and p["share"] > 0.1, (a["profile"], p)
assert a["profile"]["own"]["share"] == 0, a["profile"]
PY
	pass "--llc-json: allotment_specs (schema-valid): a 4/9 -> 0, b 0 -> 0, the profile's union = its predicted figure"
else
	fail "--llc-json: allotment_specs (schema-valid): a 4/9 -> 0, b 0 -> 0, the profile's union = its predicted figure" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("allotment_specs"))' "$WORK/llc.json" | head -c 400)"
fi
# the format's version (schema): a file with allotment_specs is version 5; the
# same file called version 4 is refused (4 never had it); a version 4 file of
# before allotment_specs and orders stays valid
python3 - "$WORK/llc.json" "$WORK/v4bad.json" "$WORK/v4old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["version"] = 4
json.dump(d, open(sys.argv[2], "w"))
del d["allotment_specs"], d["orders"]
json.dump(d, open(sys.argv[3], "w"))
PY
if grep -q '^{"version":5,' "$WORK/llc.json" &&
	! validate "$TOP/schemas/llc-sharing.schema.json" "$WORK/v4bad.json" >/dev/null 2>&1 &&
	validate "$TOP/schemas/llc-sharing.schema.json" "$WORK/v4old.json" >/dev/null 2>&1; then
	pass "--llc-json version 5 (allotment_specs); version 4 with it refused, without it and orders valid"
else
	fail "--llc-json version 5 (allotment_specs); version 4 with it refused, without it and orders valid" \
		"$(head -c 40 "$WORK/llc.json")"
fi
mkdir -p "$WORK/rep.out" && cp "$P/perf.jsonl" "$P/sched.jsonl" "$P/topology.json" "$WORK/rep.out/"
"$SCXPROF" report -f "$WORK/rep.out" -o "$WORK/rep.html" >/dev/null 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '<p id="llc-allotments">  allotments running different programs (scx_mitosis): .*workload-tw-a.allotment.slice (3 -&gt; 2 subcells) 44.4%' "$WORK/rep.html"; then
	pass "report: the union's predicted cost beside the layout"
else
	fail "report: the union's predicted cost beside the layout" "rc $rc: $(grep -o '<p id="llc-allotments">.\{0,200\}' "$WORK/rep.html" | head -1)"
fi
# one allotment (the regex matches a only; b is the workload cell's): no union cost, no allotment_specs
"$SCXPROF" extract -v -f "$P/perf.jsonl" --workload-allotment-cgroup-regex 'workload-tw-a\.allotment\.slice' \
	--llc-json "$WORK/one.json" >/dev/null 2>"$WORK/one.err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q 'allotments running different programs' "$WORK/one.err" &&
	! grep -q '"allotment_specs"' "$WORK/one.json"; then
	pass "one recorded allotment: no union cost in -v or --llc-json"
else
	fail "one recorded allotment: no union cost in -v or --llc-json" "rc $rc"
fi
