#!/usr/bin/env bash
# output_hashes.sh - the sha256 of every output of a fixed set of commands,
# one line each ("HASH  CASE/FILE"), to show a change that should not change
# behaviour (a move into folders, a split, a shared helper) changes none:
# run it on the build before and after and diff the two listings.
#
# usage: tests/tools/output_hashes.sh [-b SCXPROF] [PROFILE.tar.gz|DIR ...]
#   SCXPROF: the binary (default $BUILD/scxprof of this tree, BUILD=build).
#   Each PROFILE given (e.g. a `scxprof record` archive kept outside the
#   tree, so perf.data and sched.data are decoded too) is a case like the
#   fixtures; the same profiles must be given to both runs.
#
# Cases, for tests/fixtures/profile_basic, profile_unordered, an archive of
# profile_basic and each PROFILE given:
#   process -j 1, default -j, -j 3, -z -j 1, -z, --no-filter -j 1,
#   --no-filter: every file of the output directory (perf.jsonl,
#   sched.jsonl, process.json, trace.pftrace, hints.jsonl, topology.json,
#   .zst, ...) and process's stdout;
#   extract -v -f OUT/perf.jsonl (two steps, -j 1 and default): stdout, stderr;
#   extract -v -f PROFILE (one pass, -j 1 and default): stdout, stderr;
#   extract --evidence-out (one pass, -j 1): the evidence file;
#   report -f OUT: the HTML page.
# And extract -v -f tests/fixtures/extract/sched-demand/perf.jsonl (with its
# sched.jsonl), -j 1 and default; then extract's own cases (below).
# Everything runs in a scratch directory with relative paths, so the outputs
# naming their inputs name the same ones on every run. Commands that fail
# are hashed too (their exit status is a line of its own).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$TOP/${BUILD:-build}/scxprof"
if [ "${1:-}" = -b ]; then BIN=$(realpath "$2"); shift 2; fi
[ -x "$BIN" ] || { echo "output_hashes.sh: $BIN: no such binary (make first)" >&2; exit 2; }
EXTRA=()
for p in "$@"; do
	[ -e "$p" ] || { echo "output_hashes.sh: $p: no such profile" >&2; exit 2; }
	EXTRA+=("$(realpath "$p")")
done
W=$(mktemp -d /tmp/output-hashes.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2

# run CASE CMD...: stdout, stderr and exit status of CMD kept under out/CASE
run() {
	local c=$1; shift
	mkdir -p "out/$c"
	"$@" >"out/$c/stdout" 2>"out/$c/stderr"
	echo "$?" >"out/$c/status"
}

# profile NAME INPUT: every case of one profile (INPUT relative to $W)
profile() {
	local n=$1 in=$2 o
	local -a pcase=("j1:-j 1" "jdef:" "j3:-j 3" "z-j1:-z -j 1" "z:-z" "nf-j1:--no-filter -j 1" "nf:--no-filter")
	for pc in "${pcase[@]}"; do
		o="$n.out.${pc%%:*}"
		# shellcheck disable=SC2086
		run "$n/process.${pc%%:*}" "$BIN" process -f "$in" -o "$o" ${pc#*:}
		[ -d "$o" ] && mv "$o" "out/$n/process.${pc%%:*}/dir"
	done
	o="out/$n/process.j1/dir"
	if [ -f "$o/perf.jsonl" ]; then
		run "$n/extract2.j1" "$BIN" extract -v -j 1 -f "$o/perf.jsonl"
		run "$n/extract2.jdef" "$BIN" extract -v -f "$o/perf.jsonl"
		run "$n/report" "$BIN" report -f "$o" -o "out/$n/report.html"
	fi
	run "$n/onepass.j1" "$BIN" extract -v -j 1 -f "$in"
	run "$n/onepass.jdef" "$BIN" extract -v -f "$in"
	run "$n/evidence.j1" "$BIN" extract -j 1 -f "$in" --evidence-out "out/$n/evidence.json"
}

cp -r "$TOP/tests/fixtures/profile_basic" "$TOP/tests/fixtures/profile_unordered" .
profile basic profile_basic
profile unordered profile_unordered
mkdir arch && cp -r profile_basic arch/archived && (cd arch && tar czf archived.tar.gz archived && rm -rf archived)
profile archive arch/archived.tar.gz
i=0
for p in "${EXTRA[@]}"; do
	i=$((i + 1))
	mkdir "x$i"
	cp -r "$p" "x$i/"
	profile "extra$i" "x$i/$(basename "$p")"
done
cp -r "$TOP/tests/fixtures/extract/sched-demand" .
run demand/extract.j1 "$BIN" extract -v -j 1 -f sched-demand/perf.jsonl
run demand/extract.jdef "$BIN" extract -v -f sched-demand/perf.jsonl

# extract's own cases (extract/ by subject): -vv, comm clustering and hints
# on extract's fixtures; cross-LLC figures (--llc-json) on the split
# 8cpu-2llc topology; seeded synthetic sharing inputs (tests/tools/
# gen_planted.py, gen_rules.py, gen_llc_synth.py: page and line evidence,
# --evidence-out then --evidence-in, several -f); extract sched stats/util
# over tests/fixtures/sched.
cp -r "$TOP/tests/fixtures/extract" fx-extract
FX=fx-extract
SPLIT="$FX/topology-8cpu-2llc.json"
TOOLS="$TOP/tests/tools"
for f in groups hints; do
	run "x-$f/comm-vv-hints" "$BIN" extract -vv --use-hints --cluster comm -f "$FX/$f.jsonl"
	run "x-$f/sharing-vv" "$BIN" extract -vv -f "$FX/$f.jsonl"
	run "x-$f/line-v" "$BIN" extract -v --granularity line -f "$FX/$f.jsonl"
done
run demand/extract.vv-cap1 "$BIN" extract -vv --max-cell-cpus 1 -j 1 -f sched-demand/perf.jsonl
run demand/llc-split "$BIN" extract -v --topology "$SPLIT" --llc-json out/demand/llc.json -f sched-demand/perf.jsonl
run demand/report "$BIN" report -f sched-demand/perf.jsonl -o out/demand/report.html
for s in 1 2; do
	mkdir -p "pl$s"
	python3 "$TOOLS/gen_planted.py" "pl$s/perf.jsonl" --groups 3 --units 3 --lone 2 --seed "$s" >/dev/null
	run "planted$s/vv" "$BIN" extract -vv -f "pl$s/perf.jsonl"
	run "planted$s/line-v" "$BIN" extract -v --granularity line -f "pl$s/perf.jsonl"
	run "planted$s/evidence" "$BIN" extract -f "pl$s/perf.jsonl" --evidence-out "out/planted$s/evidence.json"
	run "planted$s/llc-split" "$BIN" extract -v --topology "$SPLIT" --llc-json "out/planted$s/llc.json" -f "pl$s/perf.jsonl"
	run "planted$s/report" "$BIN" report -vv -f "pl$s/perf.jsonl" -o "out/planted$s/report.html"
done
run planted/two-f "$BIN" extract -v -f pl1/perf.jsonl -f pl2/perf.jsonl
run planted/evidence-in "$BIN" extract -v --evidence-in out/planted1/evidence.json out/planted2/evidence.json
run planted/evidence-in-f "$BIN" extract -v -f pl2/perf.jsonl --evidence-in out/planted1/evidence.json
for sc in reuse-exit reuse-phys reowned weak file-addr libtext fork-private fork-shared; do
	python3 "$TOOLS/gen_rules.py" "$sc" "rule-$sc.jsonl" >/dev/null
	run "rules/$sc.vv" "$BIN" extract -vv --min-shared-keys 1 --min-shared-samples 1 -f "rule-$sc.jsonl"
	run "rules/$sc.line" "$BIN" extract -v --granularity line -f "rule-$sc.jsonl" --evidence-out "out/rules/$sc.evidence.json"
done
python3 "$TOOLS/gen_llc_synth.py" syn >/dev/null
SYN=(--share-threshold 0.3 --min-shared-keys 1 --min-shared-samples 1
	--workload-allotment-cgroup-regex 'workload-tw-syn\.allotment\.slice')
run llcsyn/own "$BIN" extract -v "${SYN[@]}" --llc-json out/llcsyn/own.json -f syn/perf.jsonl
run llcsyn/split "$BIN" extract -v "${SYN[@]}" --topology "$SPLIT" --llc-json out/llcsyn/split.json -f syn/perf.jsonl
cp -r "$TOP/tests/fixtures/sched" fx-sched
SF=fx-sched
for by in thread process cpu; do
	run "sched/stats-basic-$by" "$BIN" extract sched stats -f "$SF/stats_basic.jsonl" --by $by
done
run sched/stats-basic-llc "$BIN" extract sched stats -f "$SF/stats_basic.jsonl" --by llc --topology "$SPLIT"
run sched/stats-break-v "$BIN" extract sched stats -v -f "$SF/stats_break.jsonl"
run sched/stats-lines-v "$BIN" extract sched stats -v -f "$SF/process_lines.jsonl"
run sched/stats-demand-v "$BIN" extract sched stats -v -f sched-demand/sched.jsonl
run sched/util-rules "$BIN" extract sched util -v -f "$SF/util_rules.jsonl" --categories 'worker-a@hint=384,svc-*'
run sched/util-rules-2ms "$BIN" extract sched util -f "$SF/util_rules.jsonl" --window-ms 2
run sched/util-split "$BIN" extract sched util -f "$SF/upstream_hint_split.jsonl" --categories 'worker-a@hint=640'
run sched/util-overlap "$BIN" extract sched util -f "$SF/overlap.jsonl" --categories 'worker-a,worker-a@hint=640'
i=0
for p in "${EXTRA[@]}"; do
	i=$((i + 1))
	o="out/extra$i/process.j1/dir"
	[ -f "$o/perf.jsonl" ] || continue
	run "extra$i/extract2.vv" "$BIN" extract -vv -j 1 -f "$o/perf.jsonl"
	run "extra$i/llc-split" "$BIN" extract -v -j 1 --topology "$SPLIT" --llc-json "out/extra$i/llc.json" -f "$o/perf.jsonl"
	[ -f "$o/sched.jsonl" ] || continue
	run "extra$i/sched-stats" "$BIN" extract sched stats -f "$o/sched.jsonl"
	run "extra$i/sched-util" "$BIN" extract sched util -f "$o/sched.jsonl"
done

cd out && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r f; do
	printf '%s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$f"
done
