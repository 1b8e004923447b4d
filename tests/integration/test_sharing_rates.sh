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
#   warm-share:  two threads on one 32 MiB region at the default rate
#                (fixed rounds): shared and merged when the samples that
#                can coincide exceed 1.5x the detection limit, never apart
#                (the block at the end says how).
# make test records each behaviour once: planted at the default rate,
# interleaved heap at the default rate and mmap at -F 10000, false sharing,
# warm-share at 900 rounds (never apart; merged if shared, not merged if it
# cannot tell; shared above the n_eff bound). make bench (lib.sh's study)
# adds the other rates, the page-fault backend and the doubled rounds.
# A run where a thread kind is no unit, or where the pair that must merge
# says "cannot tell" (too few samples on a loaded host: the tool's honest
# answer, docs/clustering.md "Detection limit"), is retried with twice the
# duration (3, 6, 12 s), and then fails with what -v said. It runs in a
# session of its own at autogroup nice -20 (lib.sh's own_session, as the
# other sharing tests): at load ~20 without it the planted pair at the
# default rate stayed inconclusive after 3, 6 and 12 s.
# suite: long
# (one of the slowest under ASan: started early, so the run does not end on one slot)
. "$(dirname "$0")/lib.sh"
own_session "$@"

if [ "$(id -u)" -ne 0 ]; then
	skip "sharing at every rate" "needs root (system-wide sampling, pagemap frame numbers)"
	exit 0
fi
if ! allotment_cgroup rates; then
	skip "sharing at every rate" "no cgroup2 mount"
	exit 0
fi
WL="$TOP/$BUILD/workloads"

# run NAME RATEARGS -- CMD...: lib.sh's allotment_run in $WORK/NAME (the
# allotment subcells in $WORK/NAME/sub), and the one pass on its archive
# gives the same results
run() {
	local name=$1
	shift
	allotment_run "$WORK/$name" 30 "$@" || { echo "info: $name: $RUN_WHY"; return 1; }
	assert_onepass "$name recording" "$WORK/$name/prof.tar.gz" --max-cell-cpus 64 --workload-allotment-cgroup-regex "$ALLOT"
	rm -rf "$WORK/$name/prof.tar.gz"
}

# has_units NAME UNIT...: every UNIT is a member of some subcell
has_units() {
	local name=$1 u
	shift
	for u in "$@"; do tr '+' '\n' <"$WORK/$name/sub" | grep -qx "$u" || return 1; done
}

# undecided NAME A B: -v says the samples cannot tell A from B
undecided() {
	allotment_log "$WORK/$1/err" | grep -A1 -E "^    $2 ~ $3: " | grep -q ': cannot tell'
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

# make test: the planted pair at the default rate, interleaved heap at the
# default rate and mmap at -F 10000, false sharing, one warm-share; make
# bench (study): every rate and the page-fault backend, and warm-share's
# rounds doubled until n_eff passes the bound
rates=("-F 250" "" "-F 4000" "-F 10000")
planted_rates=("${rates[@]}" "--backend page-fault")
study || planted_rates=("")
for r in "${planted_rates[@]}"; do
	n="planted${r// /}"
	# shellcheck disable=SC2086
	if conclusive "$n" "alpha- beta- gamma-" alpha- beta- -- $r -- "$WL/scxprof-workload" -d @D -W 100 -P alpha:1:A beta:1:A gamma:1; then
		check "planted ${r:-default rate}: alpha-+beta- merged, gamma- apart ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
			sh -c "grep -qx 'alpha-+beta-' '$WORK/$n/sub' && grep -qx 'gamma-' '$WORK/$n/sub'"
	else
		fail "planted ${r:-default rate}" "inconclusive after 3, 6 and 12 s: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null) $(allotment_log "$WORK/$n/err" 2>/dev/null | grep -A1 -E '^    alpha- ~ beta-: ' | tr -s ' \n' ' ')"
	fi
done
for m in heap mmap; do
	for r in "${rates[@]}"; do
		[ "$m" = mmap ] && [ "$r" = "" -o "$r" = "-F 4000" ] && continue # mmap at the extremes only
		if ! study; then # heap at the default rate, mmap at -F 10000
			[ "$m" = heap ] && [ "$r" != "" ] && continue
			[ "$m" = mmap ] && [ "$r" != "-F 10000" ] && continue
		fi
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

# --- a 32 MiB region at the default rate: merged whenever the samples exceed
# the decision's limit, never apart (issue 18; docs/clustering.md "Default
# rate in time"). warm-share -i ROUNDS fixes each thread's work, so its
# samples (about 6.5 a round at 500 Hz) do not depend on the host's load;
# how many of them can coincide does: the decision counts a pair's samples
# on one line within 15 s of each other, and a loaded host spreads the
# rounds over more seconds. So the test measures what the decision could
# see: n_eff = sqrt(alpha's samples in the region x beta's within 15 s of
# them), from the recording's own samples (-m names the region). With
# n_eff of 2,300 (3 x sqrt(lines), about ten coincidences a side: the
# detection limit table's "5 of 5") the decision still misses one time in
# about fifteen (a Poisson count of 10 at or below 5); at 1.5x that (3,450,
# about 23 expected) it misses less than once in 5,000. Above 3,450 it must
# be shared and merged; below, shared or cannot tell (and not merged when
# it cannot tell), never apart. The rounds double (900, 1800, 3600) until
# n_eff passes the bound or the pair is decided.
SHARED_32_NEFF=3450
neff() { # neff DIR: n_eff of this test's alpha-0 and beta-0 (its cgroup's) on the region of DIR/map
	python3 - "$1" "$cg" <<'PY'
import bisect, json, sys
d, cg = sys.argv[1], sys.argv[2]
lo = hi = None
for l in open(d + "/map"):
    p = l.split()
    if p[0] == "region":
        lo, hi = int(p[2], 16), int(p[3], 16)
t = {"alpha-0": [], "beta-0": []}
for l in open(d + "/prof.out/perf.jsonl"):
    if '"alpha-0"' in l or '"beta-0"' in l:
        o = json.loads(l)
        if o["comm"] in t and o["cgroup"].endswith(cg) and lo <= int(o["addr"], 16) < hi:
            t[o["comm"]].append(o["time_ns"])
b = sorted(t["beta-0"])
w = 15 * 10**9
pairs = sum(bisect.bisect_right(b, x + w) - bisect.bisect_left(b, x - w) for x in t["alpha-0"])
print("%d %d %d" % (int(pairs ** 0.5), len(t["alpha-0"]), len(b)))
PY
}
verdict32=""
rounds32="900 1800 3600"
study || rounds32=900 # make test: one recording, never apart, merged iff shared
for rounds in $rounds32; do
	d="$WORK/ws32-$rounds"
	if ! allotment_run "$d" 900 -- "$WL/warm-share" -i $rounds -p 8192 -m "$d/map" alpha:A beta:A; then
		fail "warm-share 32 MiB, -i $rounds" "$RUN_WHY"
		verdict32=error
		break
	fi
	rm -f "$d/prof.tar.gz"
	read -r n na nb < <(neff "$d")
	line=$(allotment_log "$d/err" | grep -A1 -m1 -E '^    alpha- ~ beta-: ' | tail -n 1)
	verdict32=$(sed -n 's/.* in common blocks: \(shared\|apart\|cannot tell\).*/\1/p' <<<"$line")
	what="-i $rounds: n_eff $n (alpha $na, beta $nb samples in the region), $verdict32, subcells $(tr '\n' ' ' <"$d/sub")"
	echo "info: warm-share 32 MiB default rate $what"
	if [ "$verdict32" = apart ] || [ -z "$verdict32" ]; then
		fail "warm-share 32 MiB at the default rate: never apart" "$what; -v: $line"
		break
	fi
	if [ "$verdict32" = shared ] || [ "$n" -ge $SHARED_32_NEFF ]; then
		[ "$n" -ge $SHARED_32_NEFF ] && bound="above" || bound="below"
		check "warm-share 32 MiB at the default rate, n_eff $n $bound $SHARED_32_NEFF: shared and merged ($what)" \
			sh -c "[ '$verdict32' = shared ] && grep -qx 'alpha-+beta-' '$d/sub'"
		break
	fi
	check "warm-share 32 MiB at the default rate, n_eff $n below $SHARED_32_NEFF: cannot tell, not merged ($what)" \
		sh -c "grep -qx 'alpha-' '$d/sub' && grep -qx 'beta-' '$d/sub'"
	rm -rf "$d/prof.out"
done
if [ "$verdict32" = "cannot tell" ] && study; then
	fail "warm-share 32 MiB at the default rate" "n_eff stayed below $SHARED_32_NEFF after 3600 rounds (a host this loaded cannot check the bound)"
fi
