#!/usr/bin/env python3
"""gen_llc_synth.py OUTDIR - a perf.jsonl and topology.json whose cross-LLC
figures are known by construction (tests/integration/test_llc_share.sh).

Topology: 4 CPUs, LLC 0 = cpus 0-1, LLC 2 = cpus 2-3, one node. In the
allotment cgroup alpha (tids 101, 102), beta (201) and gamma (301); in
rest, bg (tid 9, 492 samples on a private page: 3.28 CPUs of 4 by sample
share, larger than either LLC). The pages have no data_id (the physical
page is the key: 100 ms epochs, shared with a touch in the same or an
adjacent epoch), all in epoch 0 (t = 0.05 s) unless said:
  P1 alpha-101 x10 cpu0, beta x10 cpu2   shared, measured cross, predicted same LLC
  P2 alpha-101 x10 cpu0, alpha-102 x10 cpu1   shared, same LLC both ways
  P3 alpha-102 x5 cpu0, gamma x5 cpu1   shared, measured same LLC, predicted apart
  P4 gamma x15 cpu3 (private); P7 bg x492 cpu2 (private)
  P5 alpha-101 x5 cpu0 at 0.05 s, beta x5 cpu2 at 0.55 s: not concurrent, not shared
  P6 alpha-101 x5 cpu0 at 0.05 s, beta x5 cpu3 at 0.15 s: adjacent epochs: shared,
     but not touched from two LLCs in one epoch: not cross
  R: text alpha-101 x10, beta x10 (no evidence); beta x3 on P1 without a cpu
With --share-threshold 0.3 --min-shared-keys 1 --min-shared-samples 1,
alpha and beta merge (page affinity 0.51) and gamma stays alone (0.17).
Expected: shared 60, measured cross-LLC 20, predicted 10 (gamma on LLC 2,
alpha+beta on LLC 0); alpha+beta 55/20/5, gamma 5/0/5, rest 0.
"""
import json, os, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
ALLOT = "/workload.slice/workload-tw-syn.allotment.slice/app"
REST = "/system.slice/bg.service"
lines = []


def add(comm, tid, pid, page, n, cpu, t=0.05, cgroup=ALLOT, data_id=None):
    for i in range(n):
        s = {"comm": comm, "tid": tid, "pid": pid, "time": "%.9f" % (t + i * 1e-6), "addr": "7f0000000000",
             "cgroup": cgroup, "ip": "1000", "sym": "main", "dso": "/app", "phys_addr": "%x" % (page * 4096),
             "data_page_size": 4096, "hint": 0}
        if cpu is not None:
            s["cpu"] = cpu
        s["time_ns"] = int(round((t + i * 1e-6) * 1e9))
        if data_id:
            s["data_id"] = data_id
        lines.append(s)


add("alpha", 101, 100, 1, 10, 0)
add("beta", 201, 200, 1, 10, 2)
add("alpha", 101, 100, 2, 10, 0)
add("alpha", 102, 100, 2, 10, 1)
add("alpha", 102, 100, 3, 5, 0)
add("gamma", 301, 300, 3, 5, 1)
add("gamma", 301, 300, 4, 15, 3)
add("bg", 9, 9, 7, 492, 2, cgroup=REST)
add("alpha", 101, 100, 5, 5, 0)
add("beta", 201, 200, 5, 5, 2, t=0.55)
add("alpha", 101, 100, 6, 5, 0)
add("beta", 201, 200, 6, 5, 3, t=0.15)
add("alpha", 101, 100, 8, 10, 0, data_id="R:8:2:0:0")
add("beta", 201, 200, 8, 10, 2, data_id="R:8:2:0:0")
add("beta", 201, 200, 1, 3, None)
lines.sort(key=lambda s: s["time_ns"])
with open(os.path.join(out, "perf.jsonl"), "w") as f:
    for s in lines:
        f.write(json.dumps(s, separators=(",", ":")) + "\n")


def cpu(n, llc, llc_cpus):
    return {"cpu": n, "core": n, "package": 0, "llc": llc, "llc_level": 3, "llc_size": 1 << 20,
            "llc_cpus": llc_cpus, "node": 0, "siblings": str(n)}


with open(os.path.join(out, "topology.json"), "w") as f:
    json.dump({"version": 1, "cpus": [cpu(0, 0, "0-1"), cpu(1, 0, "0-1"), cpu(2, 2, "2-3"), cpu(3, 2, "2-3")]}, f)
