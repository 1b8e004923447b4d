#!/usr/bin/env bash
# bench_sched_model.sh - the cost of the scx_mitosis model (issue 34: within
# 1.1x of the LLC-packing prediction's CPU and peak RSS): one-pass `extract
# -v --llc-json` on a bench/gen_profile.c profile (a real page-fault
# recording replayed into BENCH_MODEL_SAMPLES samples, default 1M, of 20
# allotment cgroups on 128 cpus in 8 LLCs, with its scheduling stream), with
# `--sched-model mitosis` against `--sched-model packing`, BENCH_MODEL_PAIRS
# pairs (default 5) alternating in the same run (bench/compare.py), medians.
# Both runs compute both models (-v shows them side by side); the option
# chooses which one the predicted figures are, and the subcell order search
# (--order-subcells's) runs on the scx_mitosis layout in both.
# BENCH_MODEL_BASE=BIN also pairs the default model against BIN, a build
# of scxprof without the model (the same command without --sched-model),
# for the cost of the model itself.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
gen="$top/$BUILD/bench/gen_profile"
wl="$top/$BUILD/workloads/scxprof-workload"
samples=${BENCH_MODEL_SAMPLES:-1000000}
pairs=${BENCH_MODEL_PAIRS:-5}
w=$(mktemp -d "${TMPDIR:-/var/tmp}/scxprof-model.XXXXXX")
trap 'rm -rf "$w"' EXIT

echo "== extract's scheduler model: scx_mitosis against LLC-packing ($samples samples, $pairs pairs)"
# the source: 10 threads, alpha and beta sharing a region (as bench_production.sh records it)
if ! "$bin" record --backend page-fault -o "$w/src" --disable-archive -- \
	"$wl" -d 4 -p 256 -H 2 alpha:4:A beta:3:A gamma:3 >"$w/record.log" 2>&1; then
	if grep -qiE "permission|not permitted|perf_event_open|bpf" "$w/record.log"; then
		echo "SKIP: bench_sched_model: cannot record here: $(tail -1 "$w/record.log")"
		exit 0
	fi
	echo "bench_sched_model: recording the source failed:"; tail -5 "$w/record.log"; exit 1
fi
"$gen" "$w/src" "$w/prof" --samples "$samples" --cgroups 20 --cpus 128 ||
	{ echo "bench_sched_model: generator failed"; exit 1; }
rm -rf "$w/src"
# the model must have run: its layout line is in -v
"$bin" extract -v -f "$w/prof" >/dev/null 2>"$w/v.txt" || { echo "bench_sched_model: extract failed"; exit 1; }
if ! grep -q "scx_mitosis model (" "$w/v.txt"; then
	echo "bench_sched_model: extract -v shows no scx_mitosis layout:"; grep -A2 "Cross-LLC" "$w/v.txt"; exit 1
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
python3 "$top/bench/compare.py" "$pairs" "packing" "mitosis" -- \
	sh -c "rm -f '$w/llc.json'; exec '$bin' extract -v -f '$w/prof' --llc-json '$w/llc.json' --sched-model packing 2>/dev/null" ---- \
	sh -c "rm -f '$w/llc.json'; exec '$bin' extract -v -f '$w/prof' --llc-json '$w/llc.json' --sched-model mitosis 2>/dev/null" ||
	exit 1
echo "target: mitosis / packing within 1.1x, CPU and peak RSS"
if [ -n "${BENCH_MODEL_BASE:-}" ]; then
	python3 "$top/bench/compare.py" "$pairs" "without the model" "mitosis" -- \
		sh -c "rm -f '$w/llc.json'; exec '$BENCH_MODEL_BASE' extract -v -f '$w/prof' --llc-json '$w/llc.json' 2>/dev/null" ---- \
		sh -c "rm -f '$w/llc.json'; exec '$bin' extract -v -f '$w/prof' --llc-json '$w/llc.json' 2>/dev/null" || exit 1
	echo "target: mitosis / the build without the model within 1.1x, CPU and peak RSS"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
