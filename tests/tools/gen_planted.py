#!/usr/bin/env python3
"""gen_planted.py - synthetic perf.jsonl with planted memory-sharing groups.

k groups of m units (threads with distinct comms, all in one allotment
cgroup). Each sample of a unit touches, with these probabilities:
  --shared   a page of its group's pool (--shared-pages pages)
  --private  a page of its own pool (--private-pages pages)
  --background a page of one pool shared by every unit (kernel, libc)
  the rest   a uniformly random page of a huge space (sampling noise)
Pages are 4 KiB, or 2 MiB for a --huge fraction of pools. Samples carry a
random load latency as "weight". Writes FILE and FILE.truth (comm group).

--lone L adds L units that share nothing but the background.
Levels: --noise moderate|heavy|extreme set the mixtures used in tests and
in docs/clustering.md; explicit flags override them.
"""
import argparse
import json
import random

LEVELS = {
    # shared, private, background, samples per unit
    "moderate": (0.40, 0.30, 0.20, 2000),
    "heavy": (0.15, 0.25, 0.35, 400),
    "extreme": (0.06, 0.24, 0.40, 200),
}


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
    ap.add_argument("--groups", type=int, default=4)
    ap.add_argument("--units", type=int, default=4, help="units per group")
    ap.add_argument("--noise", choices=LEVELS, default="moderate")
    ap.add_argument("--shared", type=float)
    ap.add_argument("--private", type=float)
    ap.add_argument("--background", type=float)
    ap.add_argument("--samples", type=int, help="samples per unit")
    ap.add_argument("--shared-pages", type=int, default=128)
    ap.add_argument("--private-pages", type=int, default=256)
    ap.add_argument("--background-pages", type=int, default=512)
    ap.add_argument("--lone", type=int, default=0, help="extra units that share only the background")
    ap.add_argument("--lines", type=int, default=64, help="64-byte lines used per page (1..64)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cgroup", default="/workload.slice/workload-tw-planted.allotment.slice")
    a = ap.parse_args()
    shared, private, background, samples = LEVELS[a.noise]
    shared = a.shared if a.shared is not None else shared
    private = a.private if a.private is not None else private
    background = a.background if a.background is not None else background
    samples = a.samples or samples
    rng = random.Random(a.seed)

    def pool(base, n):
        return [base + i for i in range(n)]

    bg = pool(1 << 20, a.background_pages)
    units = []
    for g in range(a.groups):
        gpool = pool((2 << 20) + g * 4096, a.shared_pages)
        for u in range(a.units):
            comm = "g%s-w%s" % (letters(g), letters(u))
            units.append((comm, g, gpool, pool((3 << 20) + len(units) * 4096, a.private_pages)))
    for lone in range(a.lone):  # a group of one: its "group pool" is private too
        g = a.groups + lone
        units.append(("lone-%s" % letters(lone), g, pool((2 << 20) + g * 4096, a.shared_pages),
                      pool((3 << 20) + len(units) * 4096, a.private_pages)))
    rows = []
    for i, (comm, g, gpool, ppool) in enumerate(units):
        for _ in range(samples):
            r = rng.random()
            if r < shared:
                page = rng.choice(gpool)
            elif r < shared + private:
                page = rng.choice(ppool)
            elif r < shared + private + background:
                page = rng.choice(bg)
            else:
                page = rng.randrange(1 << 24, 1 << 34)
            rows.append((comm, 1000 + i, page))
    rng.shuffle(rows)  # interleave units as a real recording would
    with open(a.out, "w") as f:
        for t, (comm, tid, page) in enumerate(rows):
            phys = (page << 12) | (rng.randrange(a.lines) << 6)
            f.write(json.dumps({
                "comm": comm, "tid": tid, "pid": 1000, "time": "%d.%09d" % divmod(t, 10**9),
                "addr": "7f%010x" % (page << 12), "cgroup": a.cgroup, "ip": "401000", "sym": "work",
                "dso": "/usr/bin/planted", "phys_addr": "%x" % phys, "data_page_size": 4096, "hint": 0,
                "weight": rng.randrange(20, 300)}, separators=(",", ":")) + "\n")
    with open(a.out + ".truth", "w") as f:
        for comm, g, _, _ in units:
            f.write("%s %d\n" % (comm, g))


if __name__ == "__main__":
    main()
