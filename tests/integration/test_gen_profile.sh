#!/usr/bin/env bash
# test_gen_profile.sh - bench/gen_profile.c (the production-size profile of
# `make bench`) on a small scale: from a real page-fault recording, a
# profile with the asked cpus, cgroups and at least the asked samples, that
# process reads without an unparseable record, whose one pass gives the
# same outputs for every -j (over the key budget too), with each cgroup's samples
# on its own cpus and pids, and a sched.data replayed for every cgroup.
. "$(dirname "$0")/lib.sh"
gen="$TOP/$BUILD/bench/gen_profile"
if [ ! -x "$gen" ]; then
	fail "gen_profile built" "$gen missing (make test builds it)"
	exit 0
fi
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "gen_profile" "perf_event_open of software events is refused here"
	exit 0
fi
cd "$WORK" || exit 1
# the source: the suite's shared recording (lib.sh)
if ! shared_recording src; then
	fail "the shared recording (lib.sh)" "$SHARED_WHY"
	exit 0
fi
if "$gen" src prof --samples 50000 --cgroups 6 --cpus 8 >gen.out 2>gen.err; then
	pass "gen_profile runs: $(cat gen.out)"
else
	fail "gen_profile runs" "$(tail -n 3 gen.err)"
	exit 0
fi
check "gen_profile refuses an existing output directory" bash -c "! '$gen' src prof --samples 10 2>/dev/null"
if ! "$SCXPROF" process -f prof -o out >p.out 2>p.err; then
	fail "process reads the generated profile" "$(tail -n 3 p.err)"
	exit 0
fi
pass "process reads the generated profile"
assert_onepass "generated profile" "$WORK/prof"
# over the key budget (sampling level raised):
# the evidence shards of -j 4 and 8 decide the level as one thread does
"$SCXPROF" extract -v -j 1 -f prof --evidence-keys 200 >/dev/null 2>budget.log
check "generated, --evidence-keys 200: the budget is exceeded (keys sampled)" grep -q 'sampled: 1 in [0-9]' budget.log
assert_jobs "generated, --evidence-keys 200" "$WORK/prof" --evidence-keys 200
assert_jobs "generated, --evidence-keys 500, lines, hints" "$WORK/prof" --evidence-keys 500 --granularity line --use-hints
check "generated: samples, cpus, cgroups, pids and sched as asked" python3 - out gen.out <<'PY'
import json, sys
out, genout = sys.argv[1], open(sys.argv[2]).read().split()
g = dict(zip(genout[0::2], map(int, genout[1::2])))
summ = json.load(open(f"{out}/process.json"))
s = summ["samples"]
assert s["total"] == g["samples"] and 50000 <= s["total"] <= 100000, (s, g)
assert s["unparseable"] == 0, s
assert summ["records"].get("CGROUP") == 6, summ["records"]
cpus, cg_cpus, cg_pids = set(), {}, {}
for line in open(f"{out}/perf.jsonl"):
    r = json.loads(line)
    cpus.add(r["cpu"])
    cg_cpus.setdefault(r["cgroup"], set()).add(r["cpu"])
    cg_pids.setdefault(r["cgroup"], set()).add(r["pid"])
assert cpus <= set(range(8)) and len(cpus) > 2, cpus
want = {f"/workload.slice/workload-tw-svc{k:03d}.allotment.slice" for k in range(6)}
assert set(cg_cpus) == want, sorted(cg_cpus)
# 8 cpus from a 2-cpu source: 4 cpu pairs, cgroups k and k+4 share pair k % 4 (later in time)
for k in range(6):
    c = cg_cpus[f"/workload.slice/workload-tw-svc{k:03d}.allotment.slice"]
    assert c <= {2 * (k % 4), 2 * (k % 4) + 1}, (k, c)
pids = list(cg_pids.values())
assert all(not (a & b) for i, a in enumerate(pids) for b in pids[i + 1:]), "a pid in two cgroups"
assert summ["sched"]["parsed"] == g["sched_records"] > 0, (summ["sched"], g)
PY
# written as record would on the big host: perf.mem.data a drain pass
# (FINISHED_ROUND) per 5 ms of time (records in file order, from perf's
# dump), sched.data's chunks interleaved across the cgroups, not one
# cgroup's records after another's (the first 4 chunks: the 4 cpu pairs)
check "generated: perf.mem.data rounds of at most 5 ms, sched.data chunks interleaved" python3 - prof <<'PY'
import re, struct, subprocess, sys
prof = sys.argv[1]
dump = subprocess.run(["perf", "report", "-D", "-i", f"{prof}/perf.mem.data"], capture_output=True, text=True).stdout
recs = []
for m in re.finditer(r"^\S+ (\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_(SAMPLE|FINISHED_ROUND)", dump, re.M):
    recs.append((int(m.group(2), 16), m.group(3), int(m.group(1))))
recs.sort()
rounds, cur = [], []
for _, kind, t in recs:
    if kind == "FINISHED_ROUND":
        rounds.append(cur); cur = []
    else:
        cur.append(t)
rounds = [r for r in rounds + [cur] if r]
assert len(rounds) > 1 and sum(map(len, rounds)) >= 50000, (len(rounds), sum(map(len, rounds)))
wide = [max(r) - min(r) for r in rounds if max(r) - min(r) >= 5000000]
assert not wide, f"{len(wide)} of {len(rounds)} rounds span 5 ms or more: {wide[:3]}"
d = open(f"{prof}/sched.data", "rb").read()
off, pairs = struct.unpack_from("<I", d, 12)[0], []
while off + 8 <= len(d) and len(pairs) < 4:
    size, cpu, _ = struct.unpack_from("<IHH", d, off)
    pairs.append(cpu // 2)
    off += size
assert sorted(pairs) == [0, 1, 2, 3], pairs
PY
exit 0
