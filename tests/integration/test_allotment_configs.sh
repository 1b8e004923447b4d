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
#   nothing written (no DIR, no temporary directory beside it).
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
