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
# A run where a thread kind is no unit, or where the pair that must merge
# says "cannot tell" (too few samples on a loaded host: the tool's honest
# answer, docs/clustering.md "Detection limit"), is retried with twice the
# duration (3, 6, 12 s), and then fails with what -v said.
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
	rm -rf "$d" # a retry starts afresh (record and process refuse to overwrite)
	mkdir -p "$d"
	"$SCXPROF" record -t 30 "${rate[@]}" --disable-sched-trace -o "$d/prof" -- "${IN_CG[@]}" "$@" >"$d/record.log" 2>&1 &&
		"$SCXPROF" process -f "$d/prof.tar.gz" >"$d/process.log" 2>&1 &&
		"$SCXPROF" extract mem -v --max-cell-cpus 64 --workload-allotment-cgroup-regex "$ALLOT" \
			-f "$d/prof.out/perf.jsonl" >"$d/cfg.json" 2>"$d/err" || {
		echo "info: $name: $(tail -n 2 "$d/record.log" "$d/process.log" "$d/err" 2>/dev/null | tr '\n' ' ')"
		return 1
	}
	subcells "$d/cfg.json" >"$d/sub"
	assert_onepass "$name recording" "$d/prof.tar.gz" --max-cell-cpus 64 --workload-allotment-cgroup-regex "$ALLOT"
	rm -rf "$d/prof.tar.gz" "$d/prof.out/trace.pftrace"
}

# has_units NAME UNIT...: every UNIT is a member of some subcell
has_units() {
	local name=$1 u
	shift
	for u in "$@"; do tr '+' '\n' <"$WORK/$name/sub" | grep -qx "$u" || return 1; done
}

# undecided NAME A B: -v says the samples cannot tell A from B
undecided() {
	grep -A1 -E "^    $2 ~ $3: " "$WORK/$1/err" | grep -q ': cannot tell'
}

# conclusive NAME UNITS [PAIR_A PAIR_B] -- RATEARGS -- CMD... (CMD's -d SECONDS doubled on each retry):
# run until UNITS are units and, when a pair is given, it is not undecided
conclusive() {
	local name=$1 units=$2 pa="" pb="" d try args
	shift 2
	if [ "$1" != "--" ]; then pa=$1 pb=$2; shift 2; fi
	shift
	for try in 3 6 12; do
		args=()
		for d in "$@"; do [ "$d" = "@D" ] && args+=("$try") || args+=("$d"); done
		run "$name" "${args[@]}" && has_units "$name" $units || continue
		[ -n "$pa" ] && undecided "$name" "$pa" "$pb" && continue
		return 0
	done
	return 1
}

rates=("-F 250" "" "-F 4000" "-F 10000")
for r in "${rates[@]}" "--backend page-fault"; do
	n="planted${r// /}"
	# shellcheck disable=SC2086
	if conclusive "$n" "alpha- beta- gamma-" alpha- beta- -- $r -- "$WL/scxprof-workload" -d @D -W 100 -P alpha:1:A beta:1:A gamma:1; then
		check "planted ${r:-default rate}: alpha-+beta- merged, gamma- apart ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
			sh -c "grep -qx 'alpha-+beta-' '$WORK/$n/sub' && grep -qx 'gamma-' '$WORK/$n/sub'"
	else
		fail "planted ${r:-default rate}" "inconclusive after 3, 6 and 12 s: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null) $(grep -A1 -E '^    alpha- ~ beta-: ' "$WORK/$n/err" 2>/dev/null | tr -s ' \n' ' ')"
	fi
done
for m in heap mmap; do
	for r in "${rates[@]}"; do
		[ "$m" = mmap ] && [ "$r" = "" -o "$r" = "-F 4000" ] && continue # mmap at the extremes only
		n="interleaved-$m${r// /}"
		# shellcheck disable=SC2086
		if conclusive "$n" "alpha- beta-" -- $r -- "$WL/interleaved" -d @D -m $m; then
			check "interleaved $m ${r:-default rate}: alpha- and beta- apart ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
				sh -c "grep -qx 'alpha-' '$WORK/$n/sub' && grep -qx 'beta-' '$WORK/$n/sub'"
		else
			fail "interleaved $m ${r:-default rate}" "inconclusive: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null)"
		fi
	done
done
if conclusive falseshare "alpha- beta-" alpha- beta- -- -- "$WL/interleaved" -d @D -n 1024 -s; then
	check "false sharing (different words of the same lines): merged ($(tr '\n' ' ' <"$WORK/falseshare/sub"))" \
		grep -qx 'alpha-+beta-' "$WORK/falseshare/sub"
else
	fail "false sharing" "inconclusive: $(tr '\n' ' ' <"$WORK/falseshare/sub" 2>/dev/null)"
fi
