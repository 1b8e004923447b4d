#!/usr/bin/env python3
"""gen_allot_programs.py OUTDIR [RATE [SECONDS [SEED]]] - a perf.jsonl,
sched.jsonl and topology.json of two allotment cgroups running different
programs (tests/integration/test_allotment_configs.sh):

  /workload.slice/workload-tw-a.allotment.slice: alpha (101) and beta (102)
    of pid 100 share one 4 MiB region;
  /workload.slice/workload-tw-b.allotment.slice: gamma (201) and delta (202)
    of pid 200 share another.

Each thread reads and writes its region at random, RATE samples a second
(default 300), for SECONDS (default 10), running all the time on a CPU of
its own (alpha 0, beta 1, gamma 4, delta 5; the sched stream has every
switch). The clustering makes one allotment spec with subcells alpha+beta
and delta+gamma, so each allotment's cell holds the other's subcell too.
Topology: 24 CPUs, LLCs of 4 (0-3, 4-7, ..., 20-23), one node.
"""
import json, os, random, sys

out = sys.argv[1]
rate = float(sys.argv[2]) if len(sys.argv) > 2 else 300
secs = float(sys.argv[3]) if len(sys.argv) > 3 else 10
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
os.makedirs(out, exist_ok=True)
CG = {100: "/workload.slice/workload-tw-a.allotment.slice/app", 200: "/workload.slice/workload-tw-b.allotment.slice/app"}
T0 = 1000.0
PAGES = 1024
threads = {101: ("alpha", 100, 0), 102: ("beta", 100, 1), 201: ("gamma", 200, 4), 202: ("delta", 200, 5)}

samples = []
for tid, (comm, pid, cpu) in threads.items():
    base = 0x7f0000 if pid == 100 else 0x7e0000
    for _ in range(int(round(rate * secs))):
        t = T0 + rng.uniform(0, secs)
        page, line = rng.randrange(PAGES), rng.randrange(64)
        samples.append({"comm": comm, "tid": tid, "pid": pid, "cpu": cpu, "time": "%.9f" % t,
                        "time_ns": int(round(t * 1e9)), "addr": "%x" % ((base + page) * 4096 + line * 64),
                        "cgroup": CG[pid], "ip": "1000", "sym": "main", "dso": "/app",
                        "phys_addr": "%x" % ((0x100000 + page + (0 if pid == 100 else PAGES)) * 4096 + line * 64),
                        "data_page_size": 4096, "hint": 0, "data_id": "A:%d:%x" % (pid, base + page)})
samples.sort(key=lambda s: s["time_ns"])
with open(os.path.join(out, "perf.jsonl"), "w") as f:
    for s in samples:
        f.write(json.dumps(s, separators=(",", ":")) + "\n")

events = []
def switch(t, cpu, prev, nxt):
    pc, pp = prev if prev else ("swapper/%d" % cpu, 0)
    nc, np_ = nxt if nxt else ("swapper/%d" % cpu, 0)
    events.append((t, 0 if np_ == 0 else 1, cpu, {
        "comm": pc, "pid": pp, "tid": pp, "cpu": cpu, "time": "%.9f" % t, "time_ns": int(round(t * 1e9)),
        "event": "sched:sched_switch", "trace": "%s:%d [120] R ==> %s:%d [120]" % (pc, pp, nc, np_),
        "fields": {"prev_comm": pc, "prev_pid": pp, "prev_prio": 120, "prev_state": "R",
                   "next_comm": nc, "next_pid": np_, "next_prio": 120}, "hint": 0}))
for tid, (comm, pid, cpu) in threads.items():
    switch(T0, cpu, None, (comm, tid))
    switch(T0 + secs, cpu, (comm, tid), None)
events.sort(key=lambda x: x[:3])
with open(os.path.join(out, "sched.jsonl"), "w") as f:
    for ev in events:
        f.write(json.dumps(ev[3], separators=(",", ":")) + "\n")

cpus = []
for n in range(24):
    llc = n // 4 * 4
    cpus.append({"cpu": n, "core": n, "package": 0, "llc": llc, "llc_level": 3, "llc_size": 1 << 20,
                 "llc_cpus": "%d-%d" % (llc, llc + 3), "node": 0, "siblings": str(n)})
with open(os.path.join(out, "topology.json"), "w") as f:
    json.dump({"version": 1, "cpus": cpus}, f)
