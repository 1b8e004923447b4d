#!/usr/bin/env bash
# bench_studies.sh - the studies of the integration suite, under `make
# bench`: each tests/integration script that calls lib.sh's study() runs
# with SCX_STUDY=1, repeating its recordings to show a rate or a
# distribution (every sample rate and backend, every region size and
# density, two conclusive runs of each real program, warm-share's rounds
# doubled up to its detection bound). `make test` runs the same scripts
# with one recording per behaviour. Prints their PASS/FAIL lines, the wall
# time of each and the closing count (tests/run.sh, two at a time).
set -u
here=$(cd "$(dirname "$0")" && pwd)
names=""
for t in "$here"/../tests/integration/test_*.sh; do
	grep -qE '(^|[;&|!]\s*|\s)study( |$)' "$t" && names="$names $(basename "$t" .sh)"
done
echo "== studies (SCX_STUDY=1):$names"
SCX_STUDY=1 UNIT_TESTS=0 TESTS="$names" exec bash "$here/../tests/run.sh"
