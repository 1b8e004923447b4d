#!/usr/bin/env bash
# test_sharing_density.sh - the sharing decision at PEBS-like densities
# (issue 18, docs/clustering.md "Estimator"), on synthetic perf.jsonl with
# data_id (tests/tools/gen_density.py: threads alpha and beta of one process,
# gamma a control on its own memory, a quarter of every thread's samples on
# its hot stack):
#   - a region of 4, 32, 256 MiB or 1 GiB that alpha and beta both use,
#     uniform and skewed, at 20000 samples/s/thread for 3 s: merged; at
#     2000/s: merged or, where the samples cannot decide, "cannot tell" in -v,
#     never apart silently; gamma never merged;
#   - 64-byte objects of alpha and beta interleaved in one heap and in one
#     mmap (every page both, no line both) at 500, 5000 and 50000/s: apart;
#   - false sharing (different words of the same lines) at 500 and 50000/s:
#     merged.
# make test runs the sizes and rates named in the block below; make bench
# (lib.sh's study) all of them.
. "$(dirname "$0")/lib.sh"
GEN="$TOP/tests/tools/gen_density.py"

# ext NAME GENARGS...: generate (lib.sh's generated: once for both of
# .ci/run's passes), extract -v; subcells in $WORK/NAME.sub
ext() {
	local name=$1 f="$WORK/$1.jsonl"
	shift
	generated "$f" "$GEN" "$@" &&
		"$SCXPROF" extract mem -v --max-cell-cpus 64 -f "$f" >"$WORK/$name.json" 2>"$WORK/$name.err" &&
		subcells "$WORK/$name.json" >"$WORK/$name.sub"
	rm -f "$f"
}

# make test: the smallest and the largest region at 20000/s, the largest at
# 2000/s, the interleaved objects at 50000/s; make bench (lib.sh's study):
# every size and rate
sizes="4 32 256 1024" low="4 32 256 1024" irates="500 5000 50000"
study || { sizes="4 1024"; low=1024; irates=50000; }
bad=""
undecided=""
for size in $sizes; do
	for skew in "" --skew; do
		n="shared-$size$skew"
		ext "$n" shared --size $((size << 20)) $skew --rate 20000 --seconds 3 ||
			bad="$bad $n:error"
		grep -qx 'alpha+beta' "$WORK/$n.sub" && grep -qx gamma "$WORK/$n.sub" ||
			bad="$bad $n:$(tr '\n' ',' <"$WORK/$n.sub")"
		[[ " $low " == *" $size "* ]] || continue
		n="shared-$size$skew-2000"
		ext "$n" shared --size $((size << 20)) $skew --rate 2000 --seconds 3 ||
			bad="$bad $n:error"
		if grep -qx 'alpha+beta' "$WORK/$n.sub"; then
			:
		elif grep -A1 -E '^    alpha ~ beta$' "$WORK/$n.err" | grep -q ': cannot tell: about'; then
			undecided="$undecided ${size}MiB$skew"
		else
			bad="$bad $n:apart-silently:$(tr '\n' ',' <"$WORK/$n.sub")"
		fi
		grep -q 'gamma+\|+gamma' "$WORK/$n.sub" && bad="$bad $n:gamma-merged"
	done
done
[ -z "$bad" ] && pass "shared $(echo $sizes | sed 's/ /, /g') MiB, uniform and skewed: merged at 20000/s; at 2000/s ($(echo $low | sed 's/ /, /g') MiB) merged or 'cannot tell' (undecided:${undecided:- none}); gamma apart" ||
	fail "shared regions at PEBS-like densities" "$bad"

bad=""
for map in heap mmap; do
	for rate in $irates; do
		n="interleaved-$map-$rate"
		ext "$n" interleaved --map $map --rate $rate --seconds 3 || bad="$bad $n:error"
		grep -qx alpha "$WORK/$n.sub" && grep -qx beta "$WORK/$n.sub" || bad="$bad $n:$(tr '\n' ',' <"$WORK/$n.sub")"
	done
done
n=interleaved-heap-50000
grep -A1 -E '^    alpha ~ beta: ' "$WORK/$n.err" | grep -q ': apart$' || bad="$bad $n:not-decided-apart"
[ -z "$bad" ] && pass "interleaved private objects (heap, mmap) at $(echo $irates | sed 's/ /, /g')/s: apart (decided apart at 50000/s)" ||
	fail "interleaved private objects" "$bad"

bad=""
for rate in 500 50000; do
	n="falseshare-$rate"
	ext "$n" falseshare --rate $rate --seconds 3 || bad="$bad $n:error"
	grep -qx 'alpha+beta' "$WORK/$n.sub" || bad="$bad $n:$(tr '\n' ',' <"$WORK/$n.sub")"
done
[ -z "$bad" ] && pass "false sharing (different words of the same lines) at 500 and 50000/s: merged" ||
	fail "false sharing" "$bad"
