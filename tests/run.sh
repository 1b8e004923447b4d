#!/usr/bin/env bash
# run.sh - runs every test: the criterion unit binary and each integration
# script in tests/integration/, then prints one closing line
# "N passed, N failed, N skipped" that sums both.
#
# Integration scripts report each check on its own line as
#   PASS: name | FAIL: name: why | SKIP: name: reason
# (helpers in tests/integration/lib.sh). A script that exits non-zero without
# reporting a FAIL counts as one failure.
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export SCXPROF="$top/$BUILD/scxprof" BUILD TOP="$top"
passed=0 failed=0 skipped=0
logdir=$(mktemp -d /tmp/scxprof-tests.XXXXXX)

# Unit tests (criterion). TAP output gives exact pass/fail/skip counts.
if [ -x "$top/$BUILD/unit-tests" ]; then
	echo "== unit tests"
	"$top/$BUILD/unit-tests" --tap="$logdir/unit.tap" -j2 2>&1 | tail -n 30
	p=$(grep -cE '^ok ' "$logdir/unit.tap" | tr -d ' ')
	s=$(grep -cE '^ok .*# SKIP' "$logdir/unit.tap" | tr -d ' ')
	f=$(grep -cE '^not ok' "$logdir/unit.tap" | tr -d ' ')
	grep -E '^ok .*# SKIP' "$logdir/unit.tap" | sed 's/^/  SKIP: /'
	grep -E '^not ok' "$logdir/unit.tap" | sed 's/^/  FAIL: /'
	# a crashed suite may leave fewer tap lines than tests; criterion reports it
	if ! grep -qE '^1\.\.[0-9]+' "$logdir/unit.tap"; then f=$((f + 1)); echo "  FAIL: unit-tests produced no TAP plan"; fi
	passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
fi

for t in "$here"/integration/test_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${TESTS:-}" ] && ! [[ "$name" == *$TESTS* ]]; then continue; fi
	echo "== $name"
	out="$logdir/$name.log"
	bash "$t" >"$out" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|SKIP): ' "$out"
	p=$(grep -cE '^PASS: ' "$out"); f=$(grep -cE '^FAIL: ' "$out"); s=$(grep -cE '^SKIP: ' "$out")
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL: $name: exited $rc"; tail -n 20 "$out" | sed 's/^/    /'
	elif [ "$f" -gt 0 ]; then
		echo "    (log: $out)"; grep -vE '^(PASS|SKIP): ' "$out" | tail -n 25 | sed 's/^/    /'
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
