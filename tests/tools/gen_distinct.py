#!/usr/bin/env python3
"""gen_distinct.py - perf.jsonl with many distinct comms and a few heavy ones.

Every line is one sample in the allotment cgroup (a tenth in the workload
cgroup, a tenth in rest). The heavy comms (HEAVY, fraction of the lines,
interleaved over the whole input) share pages in pairs so sharing
clustering has something to merge; every other line has a comm never seen
before ("t" + a counter in letters, so it is its own normalized name) and
a random page. extract mem's name table must keep the heavy ones exactly
whatever the number of distinct comms. With --distinct-cgroups, every
other line is instead in an allotment cgroup never seen before
(workload-tw-g<letters>.allotment.slice) with a comm of WORKERS (one
normalized name, "worker", spread thin over all those groups): extract
mem's group table must keep the allotment cell's units whatever the number
of distinct groups. Written fast (one format string),
so the bench can make millions of lines.
"""
import argparse
import random
import sys

HEAVY = [  # comm, share of the lines, hint, page pool
    ("web1", 0.07, 1, 0), ("web2", 0.07, 2, 0),  # one unit "web" (suffixes merged), two hints
    ("db", 0.10, 0, 1), ("redis7", 0.08, 0, 1),
    ("cache", 0.06, 0, 2),
]
# one line per microsecond: the whole input is concurrent (extract's sharing evidence is time-aware)
LINE = ('{"comm":"%s","tid":%d,"pid":%d,"time":"%d.%06d","addr":"0","cgroup":"%s","ip":"0","sym":"s",'
        '"dso":"d","phys_addr":"%x","data_page_size":4096,"hint":%d}\n')
CGROUPS = ["/workload.slice/workload-tw-a.allotment.slice"] * 8 + ["/workload.slice/x.service", "/system.slice/y"]


def letters(i):
    s = ""
    while True:
        s = chr(ord("a") + i % 26) + s
        i = i // 26 - 1
        if i < 0:
            return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--lines", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--distinct-cgroups", action="store_true",
                    help="every other line in a fresh allotment cgroup (comm worker1..worker7) instead of a fresh comm")
    ap.add_argument("--heavy-share", type=float, default=1.0,
                    help="scale the heavy comms' shares (0: every line a distinct comm)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    cum, acc = [], 0.0
    for h in HEAVY:
        acc += h[1] * a.heavy_share
        cum.append(acc)
    distinct = 0
    with open(a.out, "w") if a.out != "-" else sys.stdout as f:
        out = []
        for i in range(a.lines):
            cg = CGROUPS[i % len(CGROUPS)]
            r = rnd.random()
            for j, c in enumerate(cum):
                if r < c:
                    comm, _, hint, pool = HEAVY[j]
                    page = 0x100000 * (pool + 1) + rnd.randrange(64)
                    out.append(LINE % (comm, 100 + j, 100 + j, i // 10**6, i % 10**6, cg, page << 12, hint))
                    break
            else:
                distinct += 1
                comm = "t" + letters(distinct)
                if a.distinct_cgroups:
                    comm = "worker%d" % (1 + distinct % 7)
                    cg = "/workload.slice/workload-tw-g%s.allotment.slice" % letters(distinct)
                out.append(LINE % (comm, 1000 + distinct % 30000, 1000, i // 10**6, i % 10**6, cg,
                                   (0x10000000 + rnd.randrange(1 << 24)) << 12, 0))
            if len(out) >= 4096:
                f.write("".join(out))
                out = []
        f.write("".join(out))
    print(f"{a.lines} lines, {distinct} distinct {'cgroups' if a.distinct_cgroups else 'comms'}", file=sys.stderr)


if __name__ == "__main__":
    main()
