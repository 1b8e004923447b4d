#!/usr/bin/env bash
# test_sharing_rules.sh - one synthetic perf.jsonl per sharing-evidence rule
# (tests/tools/gen_rules.py: reuse after exit, with and without data_id; a
# region freed and re-owned; weak overlap; one file mapped at different
# addresses; library text; fork parent/child, private and MAP_SHARED), each
# with a control pair that must merge. Two seeds each; the merges and
# separations are checked by tests/tools/check_merges.py.
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"
for s in reuse-exit reuse-phys reowned weak file-addr libtext fork-private fork-shared; do
	bad=""
	for seed in 1 2; do
		f="$WORK/$s-$seed.jsonl"
		python3 "$TOOLS/gen_rules.py" "$s" "$f" --seed "$seed"
		# a cap above the units' demand: these tests are about evidence, not the CPU cap
		"$SCXPROF" extract mem -v --max-cell-cpus 64 -f "$f" >"$f.json" 2>"$f.err" || bad="$bad seed $seed: exit $?"
		out=$(python3 "$TOOLS/check_merges.py" "$f.json" "$f.expect") || bad="$bad seed $seed: $out"
	done
	[ -z "$bad" ] && pass "rule $s: $(grep -v ctl- "$f.expect" | tr '\n' ' ')(2 seeds; control pair merges)" || fail "rule $s" "$bad"
done
f="$WORK/file-addr-1.jsonl"
check "-v: a merge names its shared keys, both shares and the shared objects" grep -qE \
	"^    map[ab] ~ map[ab]: [0-9]+ shared keys, [0-9]+ \+ [0-9]+ samples; [0-9.]+% of map[ab]'s weight, [0-9.]+% of map[ab]'s; objects: /var/lib/data.bin 100%$" "$f.err"
check "-v: the evidence rules are stated" grep -q "evidence rules: same data (data_id, else physical page) in the same or adjacent 1.0 s epoch" "$f.err"
f="$WORK/weak-1.jsonl"
"$SCXPROF" extract mem -v --max-cell-cpus 64 --min-shared-keys 1 --min-shared-samples 1 --share-threshold 0 -f "$f" >"$f.t0.json" 2>"$f.t0.err"
check "weak overlap: even at threshold 0 and no minimum, 3 of 4000 samples score < 0.01" python3 -c '
import re,sys
m=[float(x) for x in re.findall(r"^    (?:biga ~ bigb|bigb ~ biga): ([0-9.]+)$", open(sys.argv[1]).read(), re.M)]
assert m and max(m) < 0.01, m' "$f.t0.err"
