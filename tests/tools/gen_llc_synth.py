#!/usr/bin/env python3
"""gen_llc_synth.py OUTDIR [SCENARIO [RATE [SECONDS [SEED]]] - a perf.jsonl,
sched.jsonl and topology.json whose cross-LLC figure is known by
construction (tests/integration/test_llc_share.sh, docs/llc-sharing.md).

Topology: 4 CPUs, LLC 0 = cpus 0-1, LLC 2 = cpus 2-3, one node. Threads of
one process (pid 100) in the allotment cgroup read and write one 4 MiB
region (65,536 lines) at random, RATE samples a second each (default 300)
for SECONDS (default 10); each thread runs all the time, where the
scenario says (the sched stream has every switch):

  apart        alpha (101) on cpu0, beta (102) on cpu2: 100%
  together     alpha on cpu0, beta on cpu1 (one LLC): 0%
  alternating  alpha on cpu0; beta on cpu1 and cpu2 in turn, 500 ms each: 50%
  three        alpha (101) cpu0, alpha (103) cpu1, beta (102) cpu2: (1/2 + 1/2 + 1) / 3 = 67%

plus a thread of its own, gamma (301, pid 300), on a private region on
cpu3 (never shared; not in the figure). The old measure (a line touched
from two LLCs in the same second) gives about RATE / 65536 of the truth
here, e.g. 300/s: a few percent where the answer is 100%.
"""
import json, os, random, sys

out = sys.argv[1]
scenario = sys.argv[2] if len(sys.argv) > 2 else "apart"
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 300
secs = float(sys.argv[4]) if len(sys.argv) > 4 else 10
rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
os.makedirs(out, exist_ok=True)
ALLOT = "/workload.slice/workload-tw-syn.allotment.slice/app"
T0 = 1000.0  # seconds: the recording starts here
PAGES = 1024

# thread -> list of (start, end, cpu) relative to T0
HALF = 0.5
def alternating(a, b):
    runs, t, k = [], 0.0, 0
    while t < secs:
        runs.append((t, min(secs, t + HALF), a if k % 2 == 0 else b))
        t += HALF
        k += 1
    return runs

threads = {  # tid: (comm, pid, runs)
    "apart": {101: ("alpha", 100, [(0, secs, 0)]), 102: ("beta", 100, [(0, secs, 2)])},
    "together": {101: ("alpha", 100, [(0, secs, 0)]), 102: ("beta", 100, [(0, secs, 1)])},
    "alternating": {101: ("alpha", 100, [(0, secs, 0)]), 102: ("beta", 100, alternating(1, 2))},
    "three": {101: ("alpha", 100, [(0, secs, 0)]), 103: ("alpha", 100, [(0, secs, 1)]),
              102: ("beta", 100, [(0, secs, 2)])},
}[scenario]
threads[301] = ("gamma", 300, [(0, secs, 3)])

samples = []
for tid, (comm, pid, runs) in threads.items():
    for (s, e, cpu) in runs:
        n = int(round(rate * (e - s)))
        for _ in range(n):
            t = T0 + rng.uniform(s, e)
            page, line = rng.randrange(PAGES), rng.randrange(64)
            base = 0x7f0000 if pid == 100 else 0x7e0000
            samples.append({"comm": comm, "tid": tid, "pid": pid, "cpu": cpu, "time": "%.9f" % t,
                            "time_ns": int(round(t * 1e9)), "addr": "%x" % ((base + page) * 4096 + line * 64),
                            "cgroup": ALLOT, "ip": "1000", "sym": "main", "dso": "/app",
                            "phys_addr": "%x" % ((0x100000 + page + (0 if pid == 100 else PAGES)) * 4096 + line * 64),
                            "data_page_size": 4096, "hint": 0, "data_id": "A:%d:%x" % (pid, base + page)})
samples.sort(key=lambda s: s["time_ns"])
with open(os.path.join(out, "perf.jsonl"), "w") as f:
    for s in samples:
        f.write(json.dumps(s, separators=(",", ":")) + "\n")

# sched: per CPU, idle -> thread at a run's start, thread -> idle at its end
events = []
def switch(t, cpu, prev, nxt):
    pc, pp = prev if prev else ("swapper/%d" % cpu, 0)
    nc, np_ = nxt if nxt else ("swapper/%d" % cpu, 0)
    events.append((t, cpu, {"comm": pc, "pid": pp, "tid": pp, "cpu": cpu, "time": "%.9f" % t,
                            "time_ns": int(round(t * 1e9)), "event": "sched:sched_switch",
                            "trace": "%s:%d [120] R ==> %s:%d [120]" % (pc, pp, nc, np_),
                            "fields": {"prev_comm": pc, "prev_pid": pp, "prev_prio": 120, "prev_state": "R",
                                       "next_comm": nc, "next_pid": np_, "next_prio": 120}, "hint": 0}))
for tid, (comm, pid, runs) in threads.items():
    for (s, e, cpu) in runs:
        switch(T0 + s, cpu, None, (comm, tid))
        switch(T0 + e, cpu, (comm, tid), None)
events.sort(key=lambda x: (x[0], 0 if x[2]["fields"]["next_pid"] == 0 else 1, x[1]))
with open(os.path.join(out, "sched.jsonl"), "w") as f:
    for _, _, ev in events:
        f.write(json.dumps(ev, separators=(",", ":")) + "\n")


def cpu(n, llc, llc_cpus):
    return {"cpu": n, "core": n, "package": 0, "llc": llc, "llc_level": 3, "llc_size": 1 << 20,
            "llc_cpus": llc_cpus, "node": 0, "siblings": str(n)}


with open(os.path.join(out, "topology.json"), "w") as f:
    json.dump({"version": 1, "cpus": [cpu(0, 0, "0-1"), cpu(1, 0, "0-1"), cpu(2, 2, "2-3"), cpu(3, 2, "2-3")]}, f)
