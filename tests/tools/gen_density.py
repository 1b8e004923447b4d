#!/usr/bin/env python3
"""gen_density.py - synthetic perf.jsonl at a chosen sampling density, with
data_id, for the rate-invariance tests of the sharing decision.

Two threads of one process, alpha and beta (pid 100), and a control
thread gamma that touches only its own memory. Each thread spends 25% of
its samples on its own hot stack (a few lines of 4 pages). The rest
depends on the scenario:

  shared SIZE     alpha and beta read and write one region of SIZE bytes
                  (uniform, or --skew: page = SIZE * u**3, a hot head and
                  a long tail); gamma on a private region of the same size.
                  Expect: alpha+beta merged, or "cannot tell" when too few
                  samples; gamma apart.
  interleaved     64-byte objects allocated alternately from one heap
                  (--map heap) or one anonymous mmap (--map mmap) of 8 MiB:
                  alpha uses the even lines, beta the odd ones. Every page
                  holds both, no line does. Expect: apart.
  falseshare      alpha writes words 0-3 and beta words 4-7 of the same
                  1024 lines (true false sharing). Expect: merged.

RATE is samples per second per thread, SECONDS the recording length.
Writes FILE (sorted by time) and prints nothing.
"""
import argparse
import random

CGROUP = "/workload.slice/workload-tw-dens.allotment.slice"
SEC = 1000000000
HEAP = 0x5555000000 >> 12
MMAP = 0x7f0000000000 >> 12
STACK = {"alpha": 0x7ffd00000000 >> 12, "beta": 0x7ffe00000000 >> 12, "gamma": 0x7fff00000000 >> 12}
TID = {"alpha": 101, "beta": 102, "gamma": 103}


def phys_of(vpage):
    # a fixed, distinct physical page per virtual page
    return (vpage * 2654435761) & 0xffffffff | 0x100000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["shared", "interleaved", "falseshare"])
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=32 << 20, help="shared region bytes")
    ap.add_argument("--skew", action="store_true")
    ap.add_argument("--map", choices=["heap", "mmap"], default="heap")
    ap.add_argument("--rate", type=float, default=20000)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rows = []
    n = int(a.rate * a.seconds)
    pages = max(1, a.size >> 12)

    def emit(comm, t, vpage, off, data_map):
        addr = vpage << 12 | off
        rows.append((t, '{"comm":"%s","tid":%d,"pid":100,"cgroup":"%s","addr":"%x","phys_addr":"%x",'
                        '"data_page_size":4096,"time_ns":%d,"data_map":"%s","data_id":"A:100:%x"}'
                     % (comm, TID[comm], CGROUP, addr, phys_of(vpage) << 12 | off, t, data_map, vpage)))

    def region_page(base):
        if a.skew:
            return base + int(pages * rng.random() ** 3)
        return base + rng.randrange(pages)

    comms = ["alpha", "beta", "gamma"] if a.scenario == "shared" else ["alpha", "beta"]
    for comm in comms:
        for _ in range(n):
            t = rng.randrange(int(a.seconds * SEC)) + SEC
            if rng.random() < 0.25:
                emit(comm, t, STACK[comm] + rng.randrange(4), rng.randrange(8) << 6 | rng.randrange(8) << 3, "[stack]")
                continue
            if a.scenario == "shared":
                base = HEAP if comm != "gamma" else HEAP + (1 << 30 >> 12) * 4
                emit(comm, t, region_page(base), rng.randrange(4096) & ~7, "[heap]")
            elif a.scenario == "interleaved":
                base = HEAP if a.map == "heap" else MMAP
                line = rng.randrange(2048 * 32) * 2 + (comm == "beta")
                emit(comm, t, base + (line >> 6), (line & 63) << 6 | rng.randrange(8) << 3,
                     "[heap]" if a.map == "heap" else "//anon")
            else:
                line = rng.randrange(1024)
                word = rng.randrange(4) + (4 if comm == "beta" else 0)
                emit(comm, t, HEAP + (line >> 6), (line & 63) << 6 | word << 3, "[heap]")
    rows.sort(key=lambda r: r[0])
    with open(a.out, "w") as f:
        for _, r in rows:
            f.write(r)
            f.write("\n")


if __name__ == "__main__":
    main()
