#!/usr/bin/env python3
# llc_truth_sched.py PROC_DIR [COMM...] - the cross-LLC figure's value by its
# definition for the llc-truth threads of one recording (bench/llc_truth.sh;
# other threads: their COMMs, e.g. redis-server io_thd_1),
# computed from the recording's complete scheduling stream, not from memory
# samples: the threads (alpha-0, beta-0, gamma-0 of the llcbench cgroup) all
# work on one region, so every access is to shared data; for thread i and
# partner j, P_ij = the share of i's running time during which j's last CPU
# (the split topology: one LLC per CPU) is not i's CPU; the figure is the
# mean of P_ij weighted by W_ij = n_i n_j / sum_k n_k (n: samples, the access
# rates; one region: each partner's weight is its rate). This is the
# estimator's formula with the line estimates replaced by their known
# value (s = 1); only threads whose cgroup contains $LLC_CGROUP count (the
# recording's own cgroup, DIR/NAME.cgroup, as llc_truth.sh and llc_real.sh
# pass it; default "llcbench": any run's). This checks the timelines and
# the weighting, and it says
# what the truth was on a loaded host, where threads pinned together run
# less than threads apart. Prints per-thread runtimes and P, then
# "schedule: X%".
import bisect, collections, json, os, sys
d = sys.argv[1]
names = tuple(sys.argv[2:]) or ("alpha-0", "beta-0", "gamma-0")
tids, n = {}, collections.Counter()
for l in open(d + "/perf.jsonl"):
    s = json.loads(l)
    if s.get("comm") in names and os.environ.get("LLC_CGROUP", "llcbench") in s.get("cgroup", ""):
        tids[s["tid"]] = s["comm"]; n[s["tid"]] += 1
ev = []
for l in open(d + "/sched.jsonl"):
    e = json.loads(l)
    if e["event"] != "sched:sched_switch": continue
    f = e["fields"]
    if f["prev_pid"] in tids or f["next_pid"] in tids:
        ev.append((e["time_ns"], e["cpu"], f["prev_pid"], f["next_pid"]))
ev.sort()
# runs: per tid list of (start, end, cpu)
runs = collections.defaultdict(list); cur = {}
for t, cpu, prev, nxt in ev:
    if prev in cur: s, c = cur.pop(prev); runs[prev].append((s, t, c))
    if nxt in tids: cur[nxt] = (t, cpu)
t_end = ev[-1][0]
for tid, (s, c) in cur.items(): runs[tid].append((s, t_end, c))
starts = {j: [s for s, e, c in runs[j]] for j in runs}
def last_cpu_at(j, t):
    k = bisect.bisect_right(starts[j], t) - 1
    return runs[j][k][2] if k >= 0 else None
def P(i, j):
    tot = cross = 0
    for s, e, c in runs[i]:
        # split i's run at j's run starts inside it
        lo, hi = bisect.bisect_right(starts[j], s), bisect.bisect_left(starts[j], e)
        pts = [s] + starts[j][lo:hi] + [e]
        for a, b in zip(pts, pts[1:]):
            lc = last_cpu_at(j, a)
            if lc is None: continue
            tot += b - a; cross += (b - a) if lc != c else 0
    return cross / tot if tot else None
ts = sorted(tids, key=lambda t: (tids[t], t))
# a partner by its tid: threads of one name (memcached's mc-workers) are partners of their own
label = {t: tids[t] if sum(tids[u] == tids[t] for u in ts) == 1 else "%s/%d" % (tids[t], t) for t in ts}
num = den = 0
for i in ts:
    ps = {j: P(i, j) for j in ts if j != i}
    tot_n = sum(n[j] for j in ts if j != i)
    for j in ts:
        if j == i: continue
        v = ps[j]
        w = n[i] * n[j] / tot_n  # W_ij = n_i w_ij, w_ij = n_j / sum_k n_k (one region: s = 1)
        if v is not None: num += w * v; den += w
    print(label[i], "samples", n[i], "runtime %.2f s" % (sum(e - s for s, e, c in runs[i]) / 1e9),
          {label[j]: None if v is None else round(v, 4) for j, v in ps.items()})
print("schedule: %.1f%%" % (100 * num / den))
