#!/usr/bin/env python3
"""gen_rules.py - synthetic perf.jsonl, one file per sharing-evidence rule.

Each scenario writes FILE with the samples of a few units (distinct comms in
one allotment cgroup, with data_id / data_map / phys_addr / time_ns as
process writes them) and FILE.expect with lines "merge A B" (A and B must
end in one subcell) or "apart A B" (they must not). Every scenario also has
a control pair, ctl-a and ctl-b, that share a MAP_SHARED file page set at
the same time and must merge, so a scenario cannot pass by merging nothing.

Scenarios (docs/clustering.md, "Evidence"):
  reuse-exit     olda's private pages are freed at its exit and the same
                 physical pages go to newb 1 ms later (anonymous A: ids).
  reuse-phys     the same, in an upstream file without data_id: keyed by the
                 physical page, olda and newb are 3 s apart (beyond the window).
  reowned        one process: thread frst uses a region, frees it, thread
                 scnd maps the same addresses again 200 ms later (other
                 physical pages): the same A: id on another page is not the
                 same data.
  weak           two big units (4000 samples each) share 3 pages once each.
  file-addr      two processes map the same file MAP_SHARED at different
                 addresses: the same F: ids, different addr: shared.
  libtext        two processes read only the same library text (R: ids).
  fork-private   parent and child after fork: private pages (A: ids of two
                 pids) on the same physical pages (copy-on-write): apart.
  fork-shared    parent and child share a MAP_SHARED|MAP_ANONYMOUS region
                 inherited at fork (the kernel's shmem inode: F: ids).
"""
import argparse
import json
import random

CGROUP = "/workload.slice/workload-tw-rules.allotment.slice"
SEC = 1000000000


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.rows = []
        self.next_phys = 0x100000

    def phys_pages(self, n):
        base = self.next_phys
        self.next_phys += n + 16
        return [base + i for i in range(n)]

    def sample(self, comm, pid, tid, t, data_id, phys, addr, data_map):
        row = {"comm": comm, "tid": tid, "pid": pid, "time": "%d.%09d" % divmod(t, SEC), "addr": "%x" % addr,
               "cgroup": CGROUP, "ip": "401000", "sym": "work", "dso": "/usr/bin/rules",
               "phys_addr": "%x" % (phys << 12 | self.rng.randrange(64) << 6), "data_page_size": 4096, "hint": 0,
               "time_ns": t}
        if data_map is not None:
            row["data_map"] = data_map
        if data_id is not None or data_map is not None:
            row["data_id"] = data_id
        self.rows.append((t, row))

    def private(self, comm, pid, tid, n, t0, t1, ids=True):
        """n samples on the unit's own anonymous pages between t0 and t1"""
        pages = self.phys_pages(64)
        for _ in range(n):
            i = self.rng.randrange(64)
            v = 0x7f0000000 + pid * 0x1000 + i
            self.sample(comm, pid, tid, self.rng.randrange(t0, t1), "A:%d:%x" % (pid, v) if ids else None,
                        pages[i], v << 12, "[heap]" if ids else None)

    def shared_file(self, units, n, t0, t1, ino=0xabc, name="/dev/shm/ctl", pages=64, ids=True):
        """units = [(comm, pid, tid, map_base_vpage)] touching the same file pages"""
        phys = self.phys_pages(pages)
        for comm, pid, tid, base in units:
            for _ in range(n):
                fp = self.rng.randrange(pages)
                self.sample(comm, pid, tid, self.rng.randrange(t0, t1),
                            "F:0:1a:%x:0:%x" % (ino, fp) if ids else None, phys[fp], (base + fp) << 12,
                            name if ids else None)

    def write(self, path, expect):
        self.rows.sort(key=lambda r: r[0])
        with open(path, "w") as f:
            for _, row in self.rows:
                f.write(json.dumps(row, separators=(",", ":")) + "\n")
        with open(path + ".expect", "w") as f:
            f.write("merge ctl-a ctl-b\n")
            for line in expect:
                f.write(line + "\n")


def control(g, ids=True):
    g.shared_file([("ctl-a", 10, 10, 0x7f1000000), ("ctl-b", 11, 11, 0x7f2000000)], 300, 0, 4 * SEC, ids=ids)
    g.private("ctl-a", 10, 10, 200, 0, 4 * SEC, ids=ids)
    g.private("ctl-b", 11, 11, 200, 0, 4 * SEC, ids=ids)


def reuse(g, ids, gap):
    """olda uses pages until t=1 s and exits; newb gets the same physical pages gap ns later"""
    pages = g.phys_pages(128)
    for comm, pid, t0 in (("olda", 100, 0), ("newb", 200, SEC + gap)):
        for _ in range(600):
            i = g.rng.randrange(128)
            v = 0x7f3000000 + i
            g.sample(comm, pid, pid, g.rng.randrange(t0, t0 + SEC), "A:%d:%x" % (pid, v) if ids else None,
                     pages[i], v << 12, "[heap]" if ids else None)


def scenario(name, g):
    ids = name != "reuse-phys"
    control(g, ids)
    if name == "reuse-exit":
        reuse(g, True, SEC // 1000)
        return ["apart olda newb"]
    if name == "reuse-phys":
        reuse(g, False, 3 * SEC)
        return ["apart olda newb"]
    if name == "reowned":
        old, new = g.phys_pages(128), g.phys_pages(128)
        for comm, t0, pages in (("frst", 0, old), ("scnd", SEC + SEC // 5, new)):
            for _ in range(600):
                i = g.rng.randrange(128)
                v = 0x7f4000000 + i
                g.sample(comm, 300, 300 if comm == "frst" else 301, g.rng.randrange(t0, t0 + SEC),
                         "A:300:%x" % v, pages[i], v << 12, "//anon")
        return ["apart frst scnd"]
    if name == "weak":
        g.private("biga", 400, 400, 4000, 0, 4 * SEC)
        g.private("bigb", 401, 401, 4000, 0, 4 * SEC)
        for fp, phys in enumerate(g.phys_pages(3)):
            for comm, pid in (("biga", 400), ("bigb", 401)):
                g.sample(comm, pid, pid, SEC + fp, "F:0:1a:def:0:%x" % fp, phys, 0x7f5000000000 + fp * 4096,
                         "/dev/shm/weak")
        return ["apart biga bigb"]
    if name == "file-addr":
        g.shared_file([("mapa", 500, 500, 0x7f6000000), ("mapb", 501, 501, 0x7e1230000)], 300, 0, 4 * SEC,
                      ino=0x1234, name="/var/lib/data.bin")
        g.private("mapa", 500, 500, 300, 0, 4 * SEC)
        g.private("mapb", 501, 501, 300, 0, 4 * SEC)
        return ["merge mapa mapb"]
    if name == "libtext":
        pages = g.phys_pages(64)
        for comm, pid, base in (("liba", 600, 0x7f7000000), ("libb", 601, 0x7f7800000)):
            for _ in range(600):
                fp = g.rng.randrange(64)
                g.sample(comm, pid, pid, g.rng.randrange(0, 4 * SEC), "R:8:1:77:0:%x" % fp, pages[fp],
                         (base + fp) << 12, "/usr/lib/x86_64-linux-gnu/libc.so.6")
            g.private(comm, pid, pid, 100, 0, 4 * SEC)
        return ["apart liba libb"]
    if name in ("fork-private", "fork-shared"):
        pages = g.phys_pages(128)
        for comm, pid in (("parent", 700), ("child", 701)):
            for _ in range(500):
                i = g.rng.randrange(128)
                v = 0x7f8000000 + i  # the child inherits the parent's addresses
                did = "A:%d:%x" % (pid, v) if name == "fork-private" else "F:0:1:%x:0:%x" % (0x9000, i)
                g.sample(comm, pid, pid, g.rng.randrange(0, 4 * SEC), did, pages[i], v << 12,
                         "[heap]" if name == "fork-private" else "/dev/zero (deleted)")
            g.private(comm, pid, pid, 200, 0, 4 * SEC)
        return ["apart parent child" if name == "fork-private" else "merge parent child"]
    raise SystemExit("unknown scenario " + name)


SCENARIOS = ["reuse-exit", "reuse-phys", "reowned", "weak", "file-addr", "libtext", "fork-private", "fork-shared"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=SCENARIOS)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    g = Gen(a.seed)
    g.write(a.out, scenario(a.scenario, g))


if __name__ == "__main__":
    main()
