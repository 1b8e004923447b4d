#!/usr/bin/env bash
# test_record_hints_cli.sh - `scxprof record --hints-map` end to end: a
# helper sets hints for its threads at known times while scxprof records it;
# every change must be in the profile's hints.jsonl (with the right tid, tgid
# and value, stamped between the update's before/after times or, in snapshot
# mode, after it), the memory samples and the hints must share one clock,
# and `process` must annotate the helper's samples with those hints.
# The helper holds each value until record's hints.jsonl shows it (its
# seen: mode), so a loaded machine that snapshots late misses nothing; -t
# is only a bound, record ends when the helper does.
. "$(dirname "$0")/lib.sh"
TRACE="$TOP/$BUILD/workloads/hints-trace"
SETTER="$TOP/$BUILD/workloads/hint-setter"
cleanup() { bpffs_private_umount; rm -rf "$WORK"; }
trap cleanup EXIT
if ! BPFFS=$(bpffs_private 2>"$WORK/mount.err"); then
	skip "record --hints-map" "mount -t bpf failed: $(cat "$WORK/mount.err")"
	exit 0
fi
PIN="$BPFFS/hints"
if ! "$TRACE" --create "$PIN" 2>"$WORK/create.err"; then
	skip "record --hints-map" "cannot create a task-storage map: $(cat "$WORK/create.err")"
	exit 0
fi
cd "$WORK" || exit 1
"$SCXPROF" record -v -t 600 -o prof --disable-archive --backend page-fault --hints-map "$PIN" -- \
	sh -c "exec '$SETTER' '$PIN' 3 4 40 'seen:$WORK/prof.tmp.*/hints.jsonl' > '$WORK/set.jsonl'" >rec.out 2>rec.err
rc=$?
if [ $rc -ne 0 ]; then
	fail "record --hints-map -- hint-setter" "exit $rc: $(tail -n 3 rec.err)"
	exit 0
fi
pass "record --hints-map -- hint-setter exits 0"
assert_onepass "hints recording" "$WORK/prof" --use-hints
check "hints.jsonl valid" validate "$TOP/schemas/hints.schema.json" prof/hints.jsonl --jsonl
check "metadata names the hints mode" grep -qE '"mode":"(fentry|iter-snapshot)"' prof/metadata.json
# -v: record's first line about hints names the mode metadata.json ends with
mode_said() {
	local m
	m=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hints"]["mode"])' prof/metadata.json) &&
		grep -E "^hints: tracing " rec.err && grep -qxE "hints: tracing $PIN by $m(, every 10 ms)?" rec.err
}
check "-v names the hints mode at the start, as metadata does" mode_said
# the status line counts the updates written so far while the tracer runs
# (its last line comes after the setter has seen its updates in hints.jsonl,
# before the tracer's final drain): more than 0, at most metadata.json's count
check "the status line's hints count is live" python3 - prof/metadata.json rec.err <<'PY'
import json, re, sys
total = json.load(open(sys.argv[1]))["hints"]["updates"]
seen = [int(n) for n in re.findall(r"\[record\] .* hints (\d+)", open(sys.argv[2]).read())]
assert seen and 0 < seen[-1] <= total, (seen, total)
print("last status line: hints", seen[-1], "of", total)
PY
# snapshot mode: the longest gap between snapshots is in metadata.json, and
# record warned (only) when it reached 5 periods of --hints-poll-ms (10 ms)
check "metadata: max_snapshot_gap_ns in snapshot mode, the warning when >= 50 ms" python3 - prof/metadata.json rec.err <<'PY'
import json, re, sys
md = json.load(open(sys.argv[1]))
h, err = md["hints"], open(sys.argv[2]).read()
warned = re.search(r"WARNING: hint snapshots were up to (\d+) ms apart \(every 10 ms asked", err)
if h["mode"] != "iter-snapshot":
    assert "max_snapshot_gap_ns" not in h and not warned, (h, err)
    sys.exit(0)
gap = h["max_snapshot_gap_ns"]
assert 0 < gap <= md["end_ns"] - md["start_ns"], (gap, md["start_ns"], md["end_ns"])
assert bool(warned) == (gap >= 50000000), (gap, err)
assert not warned or int(warned.group(1)) == gap // 1000000, (gap, warned.group(0))
print("max gap %.1f ms" % (gap / 1e6))
PY
check "every update the setter made is in hints.jsonl, per thread in order" python3 - "$WORK/set.jsonl" prof/hints.jsonl <<'PY'
import json, sys, collections
want = collections.defaultdict(list)
for l in open(sys.argv[1]):
    u = json.loads(l)
    want[u["tid"]].append((u["hints"], u["tgid"], u["before"], u["after"]))
got = collections.defaultdict(list)
for l in open(sys.argv[2]):
    h = json.loads(l)
    got[h["pid"]].append((h["hints"], h["tgid"], h["timestamp"]))
for tid, ups in want.items():
    seq = [(v, g) for v, g, _, _ in ups]
    have = [(v, g) for v, g, _ in got[tid]]
    # drop repeats of the same value (a value set again after a delete may be seen once or twice)
    dedup = lambda s: [x for i, x in enumerate(s) if i == 0 or x != s[i - 1]]
    assert dedup(have) == dedup(seq), (tid, have, seq)
    for (v, g, before, after), (hv, hg, ts) in zip(ups, got[tid]):
        assert ts >= before, (tid, v, ts, before)
print("ok", sum(len(v) for v in want.values()), "updates")
PY
check "process annotates samples with the hints of their thread" bash -c "
	'$SCXPROF' process -f prof --no-filter -o out >/dev/null 2>&1 &&
	python3 -c '
import json,sys
set_tids={json.loads(l)[\"tid\"] for l in open(\"$WORK/set.jsonl\")}
s=[json.loads(l) for l in open(\"out/perf.jsonl\")]
hinted=[x for x in s if x[\"tid\"] in set_tids and x[\"hint\"]]
assert hinted, \"no sample of the setter threads carries a hint\"
'"
