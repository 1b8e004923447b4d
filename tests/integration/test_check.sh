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
