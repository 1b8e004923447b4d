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
# sched.jsonl), -j 1 and default.
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

cd out && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r f; do
	printf '%s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$f"
done
