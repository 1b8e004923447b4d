#!/usr/bin/env bash
# test_end_to_end.sh - the README's first command: `make demo`'s pipeline
# (record the planted workload, process, extract) must recover the planted
# groups: alpha and beta in one subcell, gamma and delta apart.
. "$(dirname "$0")/lib.sh"
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "end to end" "perf_event_open of software events is refused here"
	exit 0
fi
if BUILD="$BUILD" bash "$TOP/scripts/demo.sh" >"$WORK/demo.out" 2>"$WORK/demo.err"; then
	pass "demo: planted groups recovered from a real recording"
else
	fail "demo: planted groups recovered" "$(tail -n 5 "$WORK/demo.out") $(tail -n 3 "$WORK/demo.err")"
fi
check "demo: config valid against its schema" validate "$TOP/schemas/cell-config.schema.json" \
	"$(sed -n 's/^== files kept in //p' "$WORK/demo.out")/config.json"
rm -rf "$(sed -n 's/^== files kept in //p' "$WORK/demo.out")"
