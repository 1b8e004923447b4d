#!/usr/bin/env bash
# test_check.sh - `scxprof check CONFIG` against the rules of the scheduler
# that reads the config (scx_mitosis --cell-config, mitosis-next 1be7d9fea;
# extract/sharing/reader_rules.c, cell_config_check.c):
# - every config extract writes from the suite's fixtures and planted
#   profiles passes (--use-hints ones excepted: their Hint terms are named);
# - hand-written bad configs (tests/fixtures/check/): each gets exactly one
#   line on stderr naming its cell, subcell and rule, exit 1, nothing on
#   stdout; a good hand-written one passes with one summary line;
# - malformed JSON: one line naming the file, exit 1; usage errors exit 2;
# - --reader-limits checks against another reader's limits.
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures"
TOOLS="$TOP/tests/tools"

# accepted NAME CONFIG [OPTIONS]: exit 0, one line on stdout naming the reader, nothing on stderr
accepted() {
	local name=$1 cfg=$2 rc; shift 2
	"$SCXPROF" check "$@" "$cfg" >"$WORK/out" 2>"$WORK/err"; rc=$?
	if [ $rc -eq 0 ] && [ "$(wc -l <"$WORK/out")" -eq 1 ] && grep -q 'accepted by ' "$WORK/out" && [ ! -s "$WORK/err" ]; then
		pass "$name"
	else
		fail "$name" "rc $rc: $(head -c 400 "$WORK/out" "$WORK/err" | tr '\n' ' ')"
	fi
}
# refused NAME CONFIG RULE WHERE [OPTIONS]: exit 1, exactly one line on stderr
# naming WHERE and ': RULE: ', nothing on stdout
refused() {
	local name=$1 cfg=$2 rule=$3 where=$4 rc; shift 4
	"$SCXPROF" check "$@" "$cfg" >"$WORK/out" 2>"$WORK/err"; rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] &&
		grep -qF ": $where: $rule: " "$WORK/err"; then
		pass "$name"
	else
		fail "$name" "rc $rc: stdout $(wc -c <"$WORK/out") B; stderr: $(head -c 400 "$WORK/err" | tr '\n' ' ')"
	fi
}

# --- hand-written configs ---
C="$FIX/check"
accepted "a good hand-written config (named groups, absent matches, OR groups) passes" "$C/good-hand-written.json"
refused "array cell matches ([[...]], the seed's form)" "$C/array-cell-matches.json" cell-matches 'cell[0] "workload.slice"'
refused "two catch-all cells" "$C/two-catch-all-cells.json" catch-all-cell 'cell[0] "a"'
refused "a catch-all cell that is not last" "$C/catch-all-not-last.json" catch-all-cell 'cell[0] "rest"'
refused "9 subcells (the catch-all included)" "$C/nine-subcells.json" subcells 'cell[0] "a"'
refused "5 OR groups" "$C/five-or-groups.json" or-groups 'cell[0] "a" subcell[0] "s"'
refused "5 AND terms" "$C/five-and-terms.json" and-terms 'cell[0] "a" subcell[0] "s"'
refused "a look-ahead regex" "$C/look-ahead-regex.json" regex 'cell[0] "a"'
refused "a regex anchored with ^ (the reader sees /sys/fs/cgroup/...)" "$C/anchored-regex.json" regex 'cell[0] "allotment"'
refused "NUL in a prefix (\\u0000)" "$C/nul-prefix.json" prefix-nul 'cell[0] "a" subcell[0] "s"'
refused "an unknown term (typo)" "$C/unknown-term.json" term 'cell[0] "a" subcell[0] "s"'
refused "a Hint term" "$C/hint-term.json" hint-term 'cell[0] "allotment" subcell[0] "web@hint=7"'
refused "a misspelt key (the reader would ignore it)" "$C/misspelt-key.json" unknown-key 'cell[0] "allotment"'
refused "a CommPrefix over 15 bytes (the reader cuts it)" "$C/long-prefix.json" prefix-length 'cell[0] "w" subcell[0] "x"'

# every problem of a file, one line each
cat "$C/five-or-groups.json" >"$WORK/multi.json"
python3 - "$WORK/multi.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c[0]["subcells"][0]["matches"][0] = [{"CommPrefix": "x%d" % i} for i in range(5)]
c[0]["subcells"].append({"name": "t", "matches": [[{"Hint": 3}]]})
c.insert(0, {"name": "z", "matches": [[{"CgroupContains": "x"}]]})
json.dump(c, open(sys.argv[1], "w"))
PY
"$SCXPROF" check "$WORK/multi.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(wc -l <"$WORK/err")" -eq 4 ] &&
	grep -q 'cell\[0\] "z": cell-matches' "$WORK/err" && grep -q 'cell\[1\] "a" subcell\[0\] "s": or-groups' "$WORK/err" &&
	grep -q 'subcell\[0\] "s": and-terms' "$WORK/err" && grep -q 'cell\[1\] "a" subcell\[1\] "t": hint-term' "$WORK/err"; then
	pass "every problem of a file is reported, one line each (4 here)"
else
	fail "every problem of a file is reported, one line each" "rc $rc: $(tr '\n' ' ' <"$WORK/err")"
fi

printf '[{"name": "a", ' >"$WORK/cut.json"
"$SCXPROF" check "$WORK/cut.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -qF "$WORK/cut.json: not JSON" "$WORK/err"; then
	pass "malformed JSON: one line naming the file, exit 1"
else
	fail "malformed JSON: one line naming the file, exit 1" "rc $rc: $(cat "$WORK/err")"
fi
printf '[{"name": "a\xff"}]' >"$WORK/latin1.json"
"$SCXPROF" check "$WORK/latin1.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && grep -qF "$WORK/latin1.json: not UTF-8 at byte 12" "$WORK/err"; then
	pass "text that is not UTF-8 (the reader reads UTF-8 only): one line naming the file and byte"
else
	fail "text that is not UTF-8" "rc $rc: $(cat "$WORK/err")"
fi
"$SCXPROF" check "$WORK/no-such.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && grep -qF "$WORK/no-such.json" "$WORK/err"; then pass "a missing file: exit 1 naming it"; else fail "a missing file" "rc $rc: $(cat "$WORK/err")"; fi
"$SCXPROF" check >/dev/null 2>&1; rc1=$?
"$SCXPROF" check --reader-limits subcells=0 "$C/good-hand-written.json" >/dev/null 2>&1; rc2=$?
"$SCXPROF" check --reader-limits bogus=3 "$C/good-hand-written.json" >/dev/null 2>&1; rc3=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ]; then pass "usage errors (no CONFIG, bad --reader-limits) exit 2"
else fail "usage errors exit 2" "$rc1 $rc2 $rc3"; fi
accepted "--reader-limits or=5: five OR groups pass" "$C/five-or-groups.json" --reader-limits or=5
refused "--reader-limits subcells=1: a 2-subcell cell is refused, the limits named" "$C/good-hand-written.json" subcells \
	'cell[0] "allotment"' --reader-limits subcells=1
grep -qF 'the reader allows 1, the catch-all included (reader limits subcells=1,or=4,and=4,prefix=15)' "$WORK/err" &&
	pass "--reader-limits: the message names the limits used" || fail "--reader-limits: the message names the limits used" "$(cat "$WORK/err")"

# --- every config extract writes from the suite's fixtures passes ---
n=0
for spec in "extract/groups.jsonl:--cluster comm" "extract/groups.jsonl:" "extract/hints.jsonl:--cluster comm" \
	"extract/hints.jsonl:" "extract/sched-demand/perf.jsonl:" "extract/groups.jsonl:--granularity line" \
	"profile_basic:" "profile_unordered:"; do
	f=${spec%%:*} opts=${spec#*:}
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! "$SCXPROF" extract $opts -f "$FIX/$f" >"$WORK/fx$n.json" 2>"$WORK/fx$n.err"; then
		fail "extract $opts -f $f" "$(tail -n 2 "$WORK/fx$n.err")"
		continue
	fi
	accepted "extract $opts -f tests/fixtures/$f writes a config the reader accepts" "$WORK/fx$n.json"
done
for seed in 1 2 3; do
	python3 "$TOOLS/gen_planted.py" "$WORK/pl$seed.jsonl" --groups 3 --units 3 --lone 2 --seed $seed >/dev/null
	"$SCXPROF" extract -f "$WORK/pl$seed.jsonl" >"$WORK/pl$seed.json" 2>/dev/null &&
		accepted "planted profile (seed $seed, 3 groups of 3, 2 lone) gives a config the reader accepts" "$WORK/pl$seed.json"
done
# --use-hints writes Hint terms (upstream's extractor does); check names each
"$SCXPROF" extract --cluster comm --use-hints -f "$FIX/extract/groups.jsonl" >"$WORK/hints.json" 2>/dev/null
"$SCXPROF" check "$WORK/hints.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && [ ! -s "$WORK/out" ] && [ "$(grep -c ': hint-term: ' "$WORK/err")" -eq "$(wc -l <"$WORK/err")" ] &&
	[ "$(wc -l <"$WORK/err")" -eq 3 ]; then
	pass "--use-hints config: check names its 3 Hint terms and nothing else"
else
	fail "--use-hints config: check names its Hint terms" "rc $rc: $(tr '\n' ' ' <"$WORK/err")"
fi

# --- the clustering wants more than the reader allows: extract chooses, -v and --llc-json say so ---
# fitted NAME CFG ERR PATTERN...: CFG accepted by check, every PATTERN (grep -E) in ERR
fitted() {
	local name=$1 cfg=$2 err=$3 p; shift 3
	"$SCXPROF" check "$cfg" >/dev/null 2>"$WORK/ck.err" || { fail "$name" "check: $(head -c 300 "$WORK/ck.err")"; return; }
	for p in "$@"; do
		grep -qE -- "$p" "$err" || { fail "$name" "no '$p' in -v"; return; }
	done
	pass "$name"
}
subs_of() { python3 -c 'import json,sys; print(" ".join(s["name"] for c in json.load(open(sys.argv[1])) if c["name"] == "allotment" for s in c.get("subcells", [])))' "$1"; }
# six comms sharing one region, one apart: the six merge; "ga-w" covers exactly them
python3 "$TOOLS/gen_planted.py" "$WORK/six.jsonl" --groups 1 --units 6 --lone 1 --seed 1 >/dev/null
"$SCXPROF" extract -v -f "$WORK/six.jsonl" >"$WORK/six.json" 2>"$WORK/six.err"
fitted "6-comm cluster: shortened to one CommPrefix covering exactly its comms, -v says so" "$WORK/six.json" "$WORK/six.err" \
	'^  shortened ga-wa\+ga-wb\+ga-wc\+ga-wd\+ga-we\+ga-wf: 6 CommPrefix terms, the reader allows 4: 1 shorter \("ga-w"\)'
python3 - "$WORK/six.json" <<'PY' && pass "6-comm cluster: its subcell matches [[{CommPrefix: ga-w}]], the lone comm apart" || fail "6-comm cluster: shortened subcell" "$(cat "$WORK/six.json" | tr -d ' \n' | head -c 300)"
import json, sys
subs = {s["name"]: s["matches"] for c in json.load(open(sys.argv[1])) if c["name"] == "allotment" for s in c["subcells"]}
assert subs["ga-wa+ga-wb+ga-wc+ga-wd+ga-we+ga-wf"] == [[{"CommPrefix": "ga-w"}]], subs
assert subs["lone-a"] == [[{"CommPrefix": "lone-a"}]], subs
PY
# the same six with names sharing no prefix: split into parts of at most 4, the most affinity kept
python3 - "$WORK/six.jsonl" "$WORK/sixsplit.jsonl" <<'PY'
import json, sys
m = {"ga-wa": "alpha", "ga-wb": "bravo", "ga-wc": "charlie", "ga-wd": "delta", "ga-we": "echo", "ga-wf": "foxtrot"}
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for l in f:
        d = json.loads(l); d["comm"] = m.get(d["comm"], d["comm"]); o.write(json.dumps(d) + "\n")
PY
"$SCXPROF" extract -v -f "$WORK/sixsplit.jsonl" >"$WORK/sixsplit.json" 2>"$WORK/sixsplit.err"
fitted "6-comm cluster, no common prefix: split into 2 subcells of at most 4, -v says so and what it kept" \
	"$WORK/sixsplit.json" "$WORK/sixsplit.err" \
	'^  split alpha\+bravo\+charlie\+delta\+echo\+foxtrot: 6 CommPrefix terms, the reader allows 4 and no shorter prefix covers only its comms: split into 2 subcells .*keeping [0-9.]+ of its [0-9.]+ summed pairwise affinity together'
subs=$(subs_of "$WORK/sixsplit.json")
python3 - "$subs" <<'PY' && pass "split: the six comms in two subcells of 4 and 2 (15 pairs alike: 4+2 keeps 7, 3+3 only 6)" || fail "split: 4 + 2" "$subs"
import sys
parts = [p.split("+") for p in sys.argv[1].split() if p not in ("rest", "lone-a")]
assert sorted(len(p) for p in parts) == [2, 4], parts
assert sorted(c for p in parts for c in p) == ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"], parts
PY
# ten comms above 5%, none sharing: seven subcells and rest; the three least valuable folded
python3 "$TOOLS/gen_planted.py" "$WORK/ten.jsonl" --groups 0 --lone 10 --seed 1 >/dev/null
"$SCXPROF" extract -v -f "$WORK/ten.jsonl" >"$WORK/ten.json" 2>"$WORK/ten.err"
fitted "10 significant comms: 3 folded into the catch-all, -v states the rule and names each" "$WORK/ten.json" "$WORK/ten.err" \
	'^  folded lone-[a-j]: 10 subcells besides the catch-all, the reader takes 8 in all: one of the 3 least valuable goes to the catch-all \(value = demand x \(1 \+ summed pairwise affinity\)'
if [ "$(grep -c '^  folded ' "$WORK/ten.err")" -eq 3 ] && [ "$(subs_of "$WORK/ten.json" | wc -w)" -eq 8 ]; then
	pass "10 significant comms: 7 subcells and rest written, 3 folded lines"
else
	fail "10 significant comms: 7 subcells and rest" "$(subs_of "$WORK/ten.json"); $(grep -c '^  folded ' "$WORK/ten.err") folded"
fi
"$SCXPROF" extract --cluster comm -v -f "$WORK/ten.jsonl" >"$WORK/ten.comm.json" 2>"$WORK/ten.comm.err"
fitted "--cluster comm, 10 significant comms: folded too (upstream's config would be refused)" "$WORK/ten.comm.json" \
	"$WORK/ten.comm.err" '^  folded lone-'
# the cost of a choice, in predicted cross-LLC share: two threads sharing one region, one subcell
# alpha+beta as the clustering wants; a reader of 1 OR group forces a split, predicted 0% -> 100%
# under the LLC-packing model (scx_mitosis's model refuses 4 subcells in a cell of 2 CPUs here:
# gen_llc_synth's host has 4)
python3 "$TOOLS/gen_llc_synth.py" "$WORK/syn" apart >/dev/null
"$SCXPROF" extract -v -f "$WORK/syn/perf.jsonl" --reader-limits or=1 --sched-model packing --llc-json "$WORK/syn.llc.json" \
	>"$WORK/syn.json" 2>"$WORK/syn.err"
if grep -qE '^reader fit \(reader limits subcells=8,or=1,and=4,prefix=15\): 1 choice changed the clustering.s config; predicted cross-LLC share of the profile 100.0% .* as written, 0.0% .* as the clustering wanted it \(cost \+100.0 points\)' "$WORK/syn.err" &&
	python3 - "$WORK/syn.llc.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["reader_fit"]
assert f["reader"] == "reader limits subcells=8,or=1,and=4,prefix=15", f
assert [(c["cell"], c["subcell"], c["kind"]) for c in f["choices"]] == [("allotment", "alpha+beta", "split")], f
assert f["wanted_predicted"]["llc"]["share"] == 0 and abs(f["cost_llc"] - 1) < 1e-9, f
PY
then
	pass "a split's cost: -v and --llc-json reader_fit say predicted 100% as written, 0% as wanted (+100 points)"
else
	fail "a split's cost in -v and --llc-json" "$(grep 'reader fit' "$WORK/syn.err")"
fi
if command -v node >/dev/null && validate "$TOP/schemas/llc-sharing.schema.json" "$WORK/syn.llc.json" >"$WORK/v.out" 2>&1; then
	pass "--llc-json with reader_fit meets schemas/llc-sharing.schema.json"
else
	fail "--llc-json with reader_fit meets its schema" "$(head -c 300 "$WORK/v.out")"
fi
"$SCXPROF" extract -f "$WORK/syn/perf.jsonl" --reader-limits or=1 >"$WORK/syn1.json" 2>/dev/null
"$SCXPROF" check --reader-limits or=1 "$WORK/syn1.json" >/dev/null 2>&1 && pass "--reader-limits or=1: extract's config meets them" ||
	fail "--reader-limits or=1: extract's config meets them" "$(cat "$WORK/syn1.json" | head -c 200)"
# evidence files: the combined config is fitted too (split only: the files do not list the cell's comms)
"$SCXPROF" extract -f "$WORK/six.jsonl" --evidence-out "$WORK/six.ev.json" >/dev/null 2>&1
"$SCXPROF" extract -v --evidence-in "$WORK/six.ev.json" >"$WORK/six.ev.cfg" 2>"$WORK/six.ev.err"
fitted "--evidence-in: the 6-comm cluster is split (no shorter prefix from evidence files), -v says so" \
	"$WORK/six.ev.cfg" "$WORK/six.ev.err" '^  split ga-wa\+ga-wb\+ga-wc\+ga-wd\+ga-we\+ga-wf: 6 CommPrefix terms'
# a user's cgroup regex the reader would refuse or read otherwise: extract refuses it, exit 2, one line
for re in 'workload-tw-(?=x)[^/]+' '(a)\1' 'x*+' '(?>a)' 'slice\Kx' '^/workload.slice/x'; do
	"$SCXPROF" extract --workload-allotment-cgroup-regex "$re" -f "$FIX/extract/groups.jsonl" >"$WORK/out" 2>"$WORK/err"; rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$WORK/out" ] && grep -q '^scxprof extract: --workload-allotment-cgroup-regex: ' "$WORK/err"; then
		pass "extract refuses --workload-allotment-cgroup-regex '$re' (exit 2, naming the construct)"
	else
		fail "extract refuses --workload-allotment-cgroup-regex '$re'" "rc $rc: $(head -n 1 "$WORK/err")"
	fi
done

# --topology: the layout scx_mitosis would apply at equal weights, for the cgroups given. 16 CPUs, LLCs
# 0-11 and 12-15; cells: 0 (the catch-all) 0-7, the allotment cgroup 8-15; its subcells rest (id 0), a+b,
# c: 8-10, 11-13 (across both LLCs), 14-15; a cgroup that matches no spec stays in cell 0
python3 - "$WORK/t16.json" <<'PY'
import json, sys
cpus = [{"cpu": c, "core": c, "package": 0, "llc": 0 if c < 12 else 12, "llc_level": 3, "llc_size": 1 << 20,
         "llc_cpus": "0-11" if c < 12 else "12-15", "node": 0, "siblings": str(c)} for c in range(16)]
json.dump({"version": 1, "cpus": cpus}, open(sys.argv[1], "w"))
PY
cat >"$WORK/lay.json" <<'JSON'
[{"name": "allotment", "matches": {"CgroupRegex": "app\\.allotment"},
  "subcells": [{"name": "a+b", "matches": [[{"CommPrefix": "a"}], [{"CommPrefix": "b"}]]},
               {"name": "c", "matches": [[{"CommPrefix": "c"}]]}]},
 {"name": "rest", "matches": {}}]
JSON
"$SCXPROF" check --topology "$WORK/t16.json" --cgroup /workload.slice/app.allotment --cgroup /system.slice/x.service \
	"$WORK/lay.json" >"$WORK/lay.out" 2>"$WORK/lay.err"; rc=$?
check "check --topology: which cgroups are cells, each cell's and subcell's run and its LLCs" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# scx_mitosis cell 0 / CPUs 0-7: rest/rest 0-7 (LLC 0)$' '$WORK/lay.out' &&
	 grep -q '^# scx_mitosis cell 1 /workload.slice/app.allotment CPUs 8-15: allotment/rest 8-10 (LLC 0), allotment/a+b 11-13 (LLC 0, 12), allotment/c 14-15 (LLC 12)$' '$WORK/lay.out' &&
	 ! grep -q 'x.service' '$WORK/lay.out'"
# a topology's cpusets (record writes the host's; here by hand): the cell whose cgroup has one takes
# its CPUs, 10-13 across both LLCs, where at equal weights without it the cell took 8-15; cell 0 the
# rest, two runs; a cpuset of a cgroup that is no cell changes nothing
python3 - "$WORK/t16.json" "$WORK/t16c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cpusets"] = {"/workload.slice/app.allotment": "10-13", "/system.slice/x.service": "0-1"}
json.dump(d, open(sys.argv[2], "w"))
PY
check "a topology with cpusets is schema-valid" validate "$TOP/schemas/topology.schema.json" "$WORK/t16c.json"
"$SCXPROF" check --topology "$WORK/t16c.json" --cgroup /workload.slice/app.allotment --cgroup /system.slice/x.service \
	"$WORK/lay.json" >"$WORK/layc.out" 2>"$WORK/layc.err"; rc=$?
check "check --topology: a cell whose cgroup has a cpuset takes its CPUs" bash -c \
	"[ $rc -eq 0 ] && [ ! -s '$WORK/layc.err' ] && grep -q '^# scx_mitosis cell 0 / CPUs 0-9,14-15: rest/rest 0-9,14-15 (LLC 0, 12)$' '$WORK/layc.out' &&
	 grep -q '^# scx_mitosis cell 1 /workload.slice/app.allotment CPUs 10-13: allotment/rest 10-11 (LLC 0), allotment/a+b 12 (LLC 12), allotment/c 13 (LLC 12)$' '$WORK/layc.out'"
# on two CPUs a cpuset of both leaves cell 0 none: the reader refuses ("Cell 0 has no CPUs assigned"), so does the model
python3 - "$WORK/t2c.json" <<'PY'
import json, sys
cpus = [{"cpu": c, "core": c, "package": 0, "llc": c, "llc_level": 3, "llc_size": 1 << 20,
         "llc_cpus": str(c), "node": 0, "siblings": str(c)} for c in range(2)]
json.dump({"version": 1, "cpus": cpus, "cpusets": {"/workload.slice/app.allotment": "0-1"}}, open(sys.argv[1], "w"))
PY
"$SCXPROF" check --topology "$WORK/t2c.json" --cgroup /workload.slice/app.allotment "$WORK/lay.json" >"$WORK/lay2.out" 2>"$WORK/lay2.err"; rc=$?
check "check --topology: a cpuset of every CPU leaves cell 0 none: refused, one line, exit 1" bash -c \
	"[ $rc -eq 1 ] && [ \$(wc -l <'$WORK/lay2.err') -eq 1 ] && grep -q 'scx_mitosis would refuse the layout: recipient 0 would get no CPU (2 CPUs, 2 recipients)' '$WORK/lay2.err'"
# --topology host: this machine's sysfs and cpusets (where cgroup2 has no cpuset controller, none);
# one spec of no subcells: cell 1 takes a run of at least one CPU on any machine of two or more
printf '[{"name": "allotment", "matches": {"CgroupRegex": "app\\\\.allotment"}}, {"name": "rest", "matches": {}}]\n' >"$WORK/lay1.json"
"$SCXPROF" check --topology host --cgroup /workload.slice/app.allotment "$WORK/lay1.json" >"$WORK/layh.out" 2>"$WORK/layh.err"; rc=$?
ncpu=$(getconf _NPROCESSORS_ONLN)
check "check --topology host: this machine's $ncpu CPUs laid out, cell 1 a run of its own" bash -c \
	"[ $rc -eq 0 ] && grep -q '^$WORK/lay1.json on host ($ncpu CPUs, ' '$WORK/layh.out' &&
	 grep -q '^# scx_mitosis cell 1 /workload.slice/app.allotment CPUs [0-9]' '$WORK/layh.out' && grep -q ': accepted by ' '$WORK/layh.out'"
python3 - "$WORK/t4.json" <<'PY'
import json, sys
cpus = [{"cpu": c, "core": c, "package": 0, "llc": c // 2, "llc_level": 3, "llc_size": 1 << 20,
         "llc_cpus": "%d-%d" % (c // 2 * 2, c // 2 * 2 + 1), "node": 0, "siblings": str(c)} for c in range(4)]
json.dump({"version": 1, "cpus": cpus}, open(sys.argv[1], "w"))
PY
"$SCXPROF" check --topology "$WORK/t4.json" --cgroup /workload.slice/app.allotment "$WORK/lay.json" >"$WORK/lay4.out" 2>"$WORK/lay4.err"; rc=$?
check "check --topology: a layout the reader would refuse (3 subcells in a 2-CPU cell) is one line, exit 1" bash -c \
	"[ $rc -eq 1 ] && [ \$(wc -l <'$WORK/lay4.err') -eq 1 ] && grep -q 'scx_mitosis would refuse the layout: cell 1 (2 CPUs, 3 subcells)' '$WORK/lay4.err'"
# two allotment cgroups running different programs: -v says so and prints one spec per allotment,
# each with only its own subcells; those specs and rest make a config the reader accepts, and each
# regex matches its allotment's recorded cgroup and not the other's
"$SCXPROF" extract -v -f "$FIX/extract/groups.jsonl" >/dev/null 2>"$WORK/allot.err"
if grep -q '^allotment: 2 cgroups match the allotment regex and run different programs' "$WORK/allot.err" &&
	grep -q '^  workload-tw-abc.1.allotment.slice: memcached+web (1 of 2)$' "$WORK/allot.err" &&
	grep -q '^  workload-tw-def.2.allotment.slice: memcached+web, redis (2 of 2)$' "$WORK/allot.err"; then
	pass "allotments running different programs: -v names each one's subcells"
else
	fail "allotments running different programs: -v names each one's subcells" "$(grep -A3 'different programs' "$WORK/allot.err" | head -c 400)"
fi
sed -n 's/^    \({"name": .*}\),$/\1/p' "$WORK/allot.err" >"$WORK/allot.specs"
python3 - "$WORK/allot.specs" "$WORK/allot.json" <<'PY' && accepted "the per-allotment specs -v prints make a config the reader accepts" "$WORK/allot.json"
import json, re, sys
specs = [json.loads(l) for l in open(sys.argv[1])]
assert [s["name"] for s in specs] == ["workload-tw-abc.1.allotment.slice", "workload-tw-def.2.allotment.slice"], specs
assert [len(s["subcells"]) for s in specs] == [2, 3], specs
for s, own, other in ((specs[0], "abc.1", "def.2"), (specs[1], "def.2", "abc.1")):
    r = s["matches"]["CgroupRegex"]
    assert re.search(r, "/sys/fs/cgroup/workload.slice/workload-tw-%s.allotment.slice/task" % own), r
    assert not re.search(r, "/sys/fs/cgroup/workload.slice/workload-tw-%s.allotment.slice/task" % other), r
json.dump(specs + [{"name": "rest", "matches": {}}], open(sys.argv[2], "w"))
PY
