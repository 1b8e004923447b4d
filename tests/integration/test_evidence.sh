#!/usr/bin/env bash
# test_evidence.sh - one config from several recordings (issue 19 item 4):
# `extract -f A -f B ...` and `extract --evidence-in` over the files
# `extract -f X --evidence-out FILE` wrote give byte for byte the same config
# and -v report, whatever the order; one recording through its evidence file
# gives plain extract's config (planted, sched demand, hints, fixture
# profiles in one pass); a pair that shares on 2 of 3 recordings merges
# (page evidence: tests/tools/gen_planted.py; line evidence:
# tests/tools/gen_density.py) though the third alone would not merge it;
# the evidence files are valid against schemas/evidence.schema.json; bad
# evidence files and option mixes fail with one line and no output; page-fault
# samples are counted in the file (fault_samples) and, as first touches only,
# cannot tell through it as in plain extract (docs/clustering.md, "First touches").
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"
FIX="$TOP/tests/fixtures"
SCHEMA="$TOP/schemas/evidence.schema.json"
cd "$WORK" || exit 1

# evidence_of NAME -f X [OPTIONS]: X's evidence into ev/NAME.json (config to cfg/NAME.json)
mkdir -p ev cfg
evidence_of() {
	local name=$1; shift
	"$SCXPROF" extract "$@" --evidence-out "ev/$name.json" >"cfg/$name.json" 2>"cfg/$name.err"
}
# same_single NAME EXTRACT-ARGS...: plain extract = --evidence-out (its config) = --evidence-in of the file
same_single() {
	local name=$1; shift
	"$SCXPROF" extract "$@" >"cfg/$name.plain" 2>/dev/null &&
		evidence_of "$name" "$@" &&
		"$SCXPROF" extract --evidence-in "ev/$name.json" >"cfg/$name.in" 2>"cfg/$name.in.err" &&
		cmp "cfg/$name.plain" "cfg/$name.json" && cmp "cfg/$name.plain" "cfg/$name.in"
}

# --- planted recordings (page evidence) ---------------------------------------
for s in 1 2 3; do
	mkdir -p "p$s"
	python3 "$TOOLS/gen_planted.py" "p$s/perf.jsonl" --groups 3 --units 3 --lone 2 --seed "$s" >/dev/null
done
# a fourth with units the others lack (lone-c, lone-d) and without lone-a's group
mkdir -p p4
python3 "$TOOLS/gen_planted.py" p4/perf.jsonl --groups 2 --units 3 --lone 4 --seed 4 >/dev/null

for s in 1 2 3 4; do
	check "planted p$s: one recording through --evidence-out/--evidence-in = plain extract" same_single "p$s" -f "p$s/perf.jsonl"
done
check "evidence file valid against evidence.schema.json" validate "$SCHEMA" ev/p1.json

"$SCXPROF" extract -v -f p1/perf.jsonl -f p2/perf.jsonl -f p3/perf.jsonl -f p4/perf.jsonl >one.json 2>one.err
rc_one=$?
"$SCXPROF" extract -v --evidence-in ev/p3.json ev/p1.json --evidence-in ev/p4.json ev/p2.json >in.json 2>in.err
rc_in=$?
check "4 recordings: one-shot -f A -f B ... succeeds" test $rc_one -eq 0
check "4 recordings: --evidence-in = one-shot (config and -v, byte for byte, any order)" \
	bash -c "test $rc_in -eq 0 && cmp one.json in.json && cmp one.err in.err"
"$SCXPROF" extract -v -f p4/perf.jsonl -f p2/perf.jsonl -f p1/perf.jsonl -f p3/perf.jsonl >one2.json 2>one2.err
check "4 recordings: the order of -f does not matter" bash -c "cmp one.json one2.json && cmp one.err one2.err"
check "4 recordings: the planted groups merged, units of some recordings kept (lone-a, lone-d)" \
	bash -c "grep -q '\"ga-wa+ga-wb+ga-wc\"' one.json && grep -q '\"gc-wa+gc-wb+gc-wc\"' one.json &&
		 grep -q '\"lone-a\"' one.json && grep -q '\"lone-d\"' one.json"
check "4 recordings: -v says on how many recordings each pair was seen" \
	bash -c "grep -q 'ga-wa ~ ga-wb: .*seen sharing on 4 of the 4 recordings with both units (of 4)' one.err &&
		 grep -q 'gc-wa ~ gc-wb: .*seen sharing on 3 of the 3 recordings with both units (of 4)' one.err &&
		 grep -q 'unit lone-d: .* on 1 of 4 recordings' one.err"
check "4 recordings: config valid against cell-config.schema.json" validate "$TOP/schemas/cell-config.schema.json" one.json

# --- a pair that shares on 2 of 3 recordings merges ---------------------------
for s in 1 2; do
	mkdir -p "s$s"
	python3 "$TOOLS/gen_planted.py" "s$s/perf.jsonl" --groups 2 --units 2 --seed "$s" >/dev/null
done
mkdir -p s3
python3 "$TOOLS/gen_planted.py" s3/perf.jsonl --groups 2 --units 2 --seed 3 --shared 0 >/dev/null
"$SCXPROF" extract -f s3/perf.jsonl >s3.json 2>/dev/null
check "2 of 3 (pages): the third recording alone does not merge ga-wa+ga-wb" bash -c "! grep -q '\"ga-wa+ga-wb\"' s3.json"
"$SCXPROF" extract -v -f s1/perf.jsonl -f s2/perf.jsonl -f s3/perf.jsonl >s.json 2>s.err
check "2 of 3 (pages): combined, ga-wa+ga-wb and gb-wa+gb-wb merge" \
	bash -c "grep -q '\"ga-wa+ga-wb\"' s.json && grep -q '\"gb-wa+gb-wb\"' s.json"
check "2 of 3 (pages): -v says seen sharing on 2 of 3" \
	grep -q 'ga-wa ~ ga-wb: .*seen sharing on 2 of the 3 recordings' s.err

for s in 1 2; do
	mkdir -p "d$s"
	python3 "$TOOLS/gen_density.py" shared "d$s/perf.jsonl" --rate 5000 --seconds 2 --seed "$s"
done
mkdir -p d3
python3 "$TOOLS/gen_density.py" interleaved d3/perf.jsonl --rate 5000 --seconds 2 --seed 3
"$SCXPROF" extract -f d3/perf.jsonl >d3.json 2>/dev/null
check "2 of 3 (lines): the interleaved recording alone keeps alpha and beta apart" bash -c "! grep -q '\"alpha+beta\"' d3.json"
for s in 1 2 3; do evidence_of "d$s" -f "d$s/perf.jsonl"; done
"$SCXPROF" extract -v -f d1/perf.jsonl -f d2/perf.jsonl -f d3/perf.jsonl >d.json 2>d.err
"$SCXPROF" extract -v --evidence-in ev/d1.json ev/d2.json ev/d3.json >din.json 2>din.err
check "2 of 3 (lines): combined, alpha+beta merge, gamma apart" \
	bash -c "grep -q '\"alpha+beta\"' d.json && grep -q '\"gamma\"' d.json"
check "2 of 3 (lines): -v gives the line estimate on the sums and 2 of 3" \
	bash -c "grep -q 'alpha ~ beta: .*seen sharing on 2 of the 3 recordings' d.err && grep -q 'lines: shared fraction .*: shared' d.err"
check "2 of 3 (lines): --evidence-in = one-shot" bash -c "cmp d.json din.json && cmp d.err din.err"

# --- page-fault samples (first touches): fault_samples, and the verdict ---------
# d1 as page-fault samples: its lines are recaptured (faults again and again),
# so it decides as before; thinned to each thread's first touch of each line,
# it cannot tell (-v names first touches), through an evidence file too
mkdir -p f1 f2
sed 's/}$/,"event":"minor-faults"}/' d1/perf.jsonl >f1/perf.jsonl
python3 - d1/perf.jsonl f2/perf.jsonl <<'PY'
import json, sys
seen = set()
with open(sys.argv[1]) as i, open(sys.argv[2], "w") as o:
    for line in i:
        r = json.loads(line)
        k = (r["tid"], r.get("data_id"), int(r["phys_addr"], 16) >> 6)
        if k not in seen:
            seen.add(k)
            r["event"] = "minor-faults"
            o.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
for f in f1 f2; do evidence_of "$f" -v -f "$f/perf.jsonl"; done
"$SCXPROF" extract -v --evidence-in ev/f2.json >f2in.json 2>f2in.err
check "page faults: the evidence file counts them (fault_samples = samples)" python3 -c '
import json, sys; e = json.load(open(sys.argv[1])); sys.exit(0 if e["samples"] > 0 and e["fault_samples"] == e["samples"] else 1)' ev/f1.json
check "page faults: evidence with fault_samples valid against evidence.schema.json" validate "$SCHEMA" ev/f1.json
check "page faults, lines faulted again: decided and merged as the same samples without an event" \
	bash -c "cmp cfg/d1.json cfg/f1.json && grep -q '^  evidence: first touches ' cfg/f1.err"
check "page faults, first touches only: alpha and beta cannot tell, -v says why, not merged" \
	bash -c "grep -q 'first touches only' cfg/f2.err && ! grep -q '\"alpha+beta\"' cfg/f2.json"
check "page faults, first touches only, through the evidence file: the same config, -v names first touches" \
	bash -c "cmp cfg/f2.json f2in.json && grep -q '^  evidence: first touches ' f2in.err && grep -q 'first touches only' f2in.err"

# --- sched demand, hints, one-pass profiles ----------------------------------
cp -r "$FIX/extract/sched-demand" sd
check "sched demand: one recording through its evidence = plain extract" same_single sd -f sd/perf.jsonl
check "sched demand, --max-cell-cpus 1: the same" same_single sd1 -f sd/perf.jsonl --max-cell-cpus 1
check "hints (--use-hints): the same" same_single hints --use-hints -f "$FIX/extract/hints.jsonl"
check "groups (workload and rest cells): the same" same_single groups -f "$FIX/extract/groups.jsonl"
for p in profile_basic profile_unordered; do
	cp -r "$FIX/$p" "$p"
	check "$p (one pass): one recording through its evidence = plain extract" same_single "$p" -f "$p"
done
mkdir -p arc/myprofile && cp "$FIX/profile_basic/"* arc/myprofile/ && (cd arc && tar czf myprofile.tar.gz myprofile && rm -rf myprofile)
"$SCXPROF" extract -v -f profile_basic -f arc/myprofile.tar.gz -f profile_unordered >prof.json 2>prof.err
rc_prof=$?
evidence_of arc -f arc/myprofile.tar.gz
"$SCXPROF" extract -v --evidence-in ev/profile_basic.json ev/arc.json ev/profile_unordered.json >profin.json 2>profin.err
check "profiles (directory, .tar.gz): one-shot = --evidence-in" \
	bash -c "test $rc_prof -eq 0 && cmp prof.json profin.json && cmp <(grep -v '^WARNING: ' prof.err) profin.err"

# --- refusals and hostile evidence files ------------------------------------
# fails NAME EXIT-CODE PATTERN CMD...: exit code, one stderr line matching PATTERN, nothing on stdout
fails() {
	local name=$1 code=$2 pat=$3; shift 3
	"$@" >f.out 2>f.err
	local rc=$?
	if [ $rc -eq "$code" ] && [ ! -s f.out ] && grep -q "$pat" f.err && [ "$(grep -c '^scxprof' f.err)" -eq 1 ]; then
		pass "$name"
	else
		fail "$name" "exit $rc, stdout $(wc -c <f.out) bytes, stderr: $(head -n 2 f.err | tr '\n' ' ')"
	fi
}
cp ev/p1.json ev.p1.keep
fails "--evidence-out refuses an existing file" 1 "ev/p1.json: already exists" "$SCXPROF" extract -f p1/perf.jsonl --evidence-out ev/p1.json
check "--evidence-out left the existing file alone" cmp ev/p1.json ev.p1.keep
fails "--evidence-out with two -f is a usage error" 2 "takes one recording" "$SCXPROF" extract -f p1/perf.jsonl -f p2/perf.jsonl --evidence-out x.json
fails "several recordings with --cluster comm is a usage error" 2 "need --cluster sharing" "$SCXPROF" extract --cluster comm -f p1/perf.jsonl -f p2/perf.jsonl
fails "--sched with several recordings is a usage error" 2 "names one recording" "$SCXPROF" extract --sched sd/sched.jsonl -f p1/perf.jsonl -f p2/perf.jsonl
fails "arguments without --evidence-in are refused" 2 "unexpected argument" "$SCXPROF" extract -f p1/perf.jsonl ev/p2.json
"$SCXPROF" extract --granularity line -f p1/perf.jsonl --evidence-out ev/line.json >/dev/null 2>&1
fails "evidence at different granularities is refused" 1 "different --granularity" "$SCXPROF" extract --evidence-in ev/p1.json ev/line.json
"$SCXPROF" extract --workload-allotment-cgroup-regex 'workload-tw-[^/]+' -f p1/perf.jsonl --evidence-out ev/other.json >/dev/null 2>&1
fails "evidence of allotment cells matched differently is refused" 1 "the allotment cell differs" "$SCXPROF" extract --evidence-in ev/p1.json ev/other.json

hostile() {
	local name=$1 pat=$2
	cat >h.json
	fails "hostile evidence: $name" 1 "h.json: .*$pat" "$SCXPROF" extract --evidence-in ev/p1.json h.json
}
printf '' | hostile "empty file" "invalid JSON"
head -c 300 ev/p1.json | hostile "cut short" "invalid JSON"
printf '[1,2]' | hostile "not an object" "top level is not an object"
sed 's/"version":1/"version":7/' ev/p1.json | hostile "another version" "evidence version 7"
sed 's/"format":"scxprof-evidence"/"format":"x"/' ev/p1.json | hostile "another format" '"format" is not'
sed '0,/"a":0,"b":1/s//"a":0,"b":99/' ev/p1.json | hostile "unit index out of range" '"b" is out of range'
sed '0,/"a":0,"b":1/s//"a":1,"b":1/' ev/p1.json | hostile "a pair a >= b" '"a" is not below "b"'
sed '0,/"samples":2000/s//"samples":-5/' ev/p1.json | hostile "a negative count" '"samples" is out of range'
sed '0,/"weight":[0-9.e+-]*/s//"weight":"x"/' ev/p1.json | hostile "a string for a number" '"weight" is not a number'
sed '0,/"name":"ga-wb"/s//"name":"ga-wa"/' ev/p1.json | hostile "a unit twice" "a unit name appears twice"
sed 's/"clauses":\[[^]]*\]/"clauses":[]/' ev/p1.json | hostile "a unit without clauses" "clauses"
{ cat ev/p1.json; echo '{}'; } | hostile "text after the document" "text after the JSON"
sed 's/"granularity":"page"/"granularity":"cache"/' ev/p1.json | hostile "an unknown granularity" '"granularity" is not'
fails "a missing evidence file" 1 "nothere.json: No such file" "$SCXPROF" extract --evidence-in nothere.json
fails "a directory as evidence" 1 "not a regular file" "$SCXPROF" extract --evidence-in ev
