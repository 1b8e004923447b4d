#!/usr/bin/env bash
# test_sharing_rates.sh - the same partition at every sample rate (issue 18,
# docs/clustering.md "Estimator"): real recordings of test workloads in an
# allotment cgroup of this run's own, with the decode backend at -F 250, the
# default (500), -F 4000 and -F 10000, and the page-fault backend.
#   planted:     scxprof-workload -W 100 -P alpha:1:A beta:1:A gamma:1 (alpha and
#                beta write the same lines of one MAP_SHARED region, gamma
#                its own): alpha-+beta- one subcell, gamma- apart, at every
#                rate and with both backends;
#   interleaved: two threads on alternate 64-byte objects of one heap (and
#                of one mmap): every page holds both, no line does: never
#                merged, at every decode rate (the page-fault backend sees
#                only the main thread's warm-up);
#   falseshare:  interleaved -s, the two threads write different words of
#                the same lines: merged.
# A run where a thread kind is no unit (too few samples on a loaded host)
# is retried once and then reported as inconclusive, not passed.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "sharing at every rate" "needs root (system-wide sampling, pagemap frame numbers)"
	exit 0
fi
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg2" ]; then
	skip "sharing at every rate" "no cgroup2 mount"
	exit 0
fi
cg="workload.slice/workload-tw-rates-$$.allotment.slice"
mkdir -p "$cg2/$cg"
trap 'rmdir "$cg2/$cg" 2>/dev/null; rm -rf "$WORK"' EXIT
ALLOT="workload-tw-rates-$$\\.allotment\\.slice"
IN_CG=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg2/$cg")
WL="$TOP/$BUILD/workloads"
subcells() { python3 -c 'import json,sys; [print(s["name"]) for c in json.load(open(sys.argv[1])) if c["name"] == "allotment" for s in c.get("subcells",[])]' "$1"; }

# run NAME RATEARGS -- CMD...: record, process, extract; the allotment subcells in $WORK/NAME/sub
run() {
	local name=$1 d="$WORK/$1" rate=()
	shift
	while [ "$1" != "--" ]; do rate+=("$1"); shift; done
	shift
	mkdir -p "$d"
	"$SCXPROF" record -t 30 "${rate[@]}" --disable-sched-trace -o "$d/prof" -- "${IN_CG[@]}" "$@" >"$d/record.log" 2>&1 &&
		"$SCXPROF" process -f "$d/prof.tar.gz" >"$d/process.log" 2>&1 &&
		"$SCXPROF" extract mem -v --max-cell-cpus 64 --workload-allotment-cgroup-regex "$ALLOT" \
			-f "$d/prof.out/perf.jsonl" >"$d/cfg.json" 2>"$d/err" || {
		echo "info: $name: $(tail -n 2 "$d/record.log" "$d/process.log" "$d/err" 2>/dev/null | tr '\n' ' ')"
		return 1
	}
	subcells "$d/cfg.json" >"$d/sub"
	rm -rf "$d/prof.tar.gz" "$d/prof.out/trace.pftrace"
}

# has_units NAME UNIT...: every UNIT is a member of some subcell
has_units() {
	local name=$1 u
	shift
	for u in "$@"; do tr '+' '\n' <"$WORK/$name/sub" | grep -qx "$u" || return 1; done
}

# expect NAME KIND UNITS CHECK...: run (with one retry) until UNITS are units, then check
conclusive() {
	local name=$1 units=$2
	shift 2
	run "$name" "$@" && has_units "$name" $units && return 0
	run "$name" "$@" && has_units "$name" $units
}

rates=("-F 250" "" "-F 4000" "-F 10000")
for r in "${rates[@]}" "--backend page-fault"; do
	n="planted${r// /}"
	# shellcheck disable=SC2086
	if conclusive "$n" "alpha- beta- gamma-" $r -- "$WL/scxprof-workload" -d 3 -W 100 -P alpha:1:A beta:1:A gamma:1; then
		check "planted ${r:-default rate}: alpha-+beta- merged, gamma- apart ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
			sh -c "grep -qx 'alpha-+beta-' '$WORK/$n/sub' && grep -qx 'gamma-' '$WORK/$n/sub'"
	else
		fail "planted ${r:-default rate}" "inconclusive: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null)"
	fi
done
for m in heap mmap; do
	for r in "${rates[@]}"; do
		[ "$m" = mmap ] && [ "$r" = "" -o "$r" = "-F 4000" ] && continue # mmap at the extremes only
		n="interleaved-$m${r// /}"
		# shellcheck disable=SC2086
		if conclusive "$n" "alpha- beta-" $r -- "$WL/interleaved" -d 3 -m $m; then
			check "interleaved $m ${r:-default rate}: alpha- and beta- apart ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
				sh -c "grep -qx 'alpha-' '$WORK/$n/sub' && grep -qx 'beta-' '$WORK/$n/sub'"
		else
			fail "interleaved $m ${r:-default rate}" "inconclusive: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null)"
		fi
	done
done
if conclusive falseshare "alpha- beta-" -- "$WL/interleaved" -d 3 -n 1024 -s; then
	check "false sharing (different words of the same lines): merged ($(tr '\n' ' ' <"$WORK/falseshare/sub"))" \
		grep -qx 'alpha-+beta-' "$WORK/falseshare/sub"
else
	fail "false sharing" "inconclusive: $(tr '\n' ' ' <"$WORK/falseshare/sub" 2>/dev/null)"
fi
