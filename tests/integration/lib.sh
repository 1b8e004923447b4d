# lib.sh - shared helpers for integration tests (sourced, not run).
# Each check reports one line: PASS: name | FAIL: name: why | SKIP: name: reason.
set -u
: "${SCXPROF:?run through tests/run.sh}"
WORK=$(mktemp -d /tmp/scxprof-it.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; }
skip() { echo "SKIP: $1: $2"; }
# check NAME CMD...: PASS if CMD succeeds, else FAIL with its output.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"; fi
}
# validate SCHEMA FILE [jsonl]: validate a JSON file (or every line of a JSONL file) with ajv.
validate() {
	node "$TOP/tests/validate.js" "$@"
}
