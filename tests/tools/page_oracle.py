#!/usr/bin/env python3
"""page_oracle.py - which processes map the same physical page at the same
moment, from /proc alone (no scxprof, no perf): a sharing oracle for tests.

  page_oracle.py --match REGEX --stop FILE --out ORACLE.json
        snapshot once a second until FILE exists, then write ORACLE.json
  page_oracle.py --check CONFIG ORACLE.json [--match REGEX]
        every pair of units that CONFIG puts in one subcell (both matching
        REGEX) must be an oracle-sharing pair; exit 1 (and say which) if not

A snapshot reads, for every process with a thread whose comm matches REGEX,
the physical frame (pagemap bits 0-54, present bit 63) of every page of its
writable mappings, and /proc/kpagecount of the frames two processes have in
common (a shared frame is mapped at least twice). Two processes that map one
frame in the same snapshot share memory; threads of one process share their
mm. The units of a process are its threads' comms with trailing digits
stripped (extract's rule). Read-only mappings (library text) are left out,
as extract leaves R: data out. Needs root (frame numbers are 0 otherwise).
"""
import argparse
import json
import os
import re
import struct
import sys
import time


def norm(comm):
    s = comm.rstrip("0123456789")
    return s if s else comm


def units_of(pid):
    out = set()
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                out.add(norm(f.read().rstrip("\n")))
    except OSError:
        pass
    return out


def frames_of(pid):
    frames = set()
    try:
        maps = open("/proc/%d/maps" % pid).read().splitlines()
        pm = open("/proc/%d/pagemap" % pid, "rb")
    except OSError:
        return frames
    with pm:
        for line in maps:
            parts = line.split()
            if len(parts) < 2 or "w" not in parts[1]:
                continue
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if hi - lo > (1 << 32):  # guard regions and huge reservations: skip
                continue
            try:
                pm.seek((lo >> 12) * 8)
                data = pm.read(((hi - lo) >> 12) * 8)
            except OSError:
                continue
            for (e,) in struct.iter_unpack("<Q", data):
                if e >> 63 and e & ((1 << 55) - 1):
                    frames.add(e & ((1 << 55) - 1))
    return frames


def mapcount(pfns):
    out = {}
    try:
        with open("/proc/kpagecount", "rb") as f:
            for p in pfns:
                f.seek(p * 8)
                out[p] = struct.unpack("<Q", f.read(8))[0]
    except OSError:
        pass
    return out


def snapshot(rx, pairs, units_seen):
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        u = units_of(int(d))
        if any(rx.search(x) for x in u):
            procs[int(d)] = u
    frames = {pid: frames_of(pid) for pid in procs}
    for pid, u in procs.items():
        units_seen.update(u)
        for a in u:
            for b in u:
                if a < b:
                    pairs.add((a, b))
    pids = sorted(procs)
    for i, p in enumerate(pids):
        for q in pids[i + 1:]:
            common = frames[p] & frames[q]
            if not common:
                continue
            counts = mapcount(list(common)[:64])
            if not any(c >= 2 for c in counts.values()):
                continue
            for a in procs[p]:
                for b in procs[q]:
                    if a != b:
                        pairs.add(tuple(sorted((a, b))))


def record(a):
    rx = re.compile(a.match)
    pairs, seen, n = set(), set(), 0
    while not os.path.exists(a.stop):
        snapshot(rx, pairs, seen)
        n += 1
        for _ in range(10):  # a snapshot a second; notice the stop file sooner
            if os.path.exists(a.stop):
                break
            time.sleep(0.1)
    snapshot(rx, pairs, seen)
    with open(a.out + ".tmp", "w") as f:
        json.dump({"snapshots": n + 1, "units": sorted(seen), "pairs": sorted(pairs)}, f)
    os.rename(a.out + ".tmp", a.out)


def check(a):
    oracle = json.load(open(a.check[1]))
    ok_pairs = {tuple(p) for p in oracle["pairs"]}
    rx = re.compile(a.match or ".")
    bad = []
    merged = 0
    for cell in json.load(open(a.check[0])):
        for s in cell.get("subcells", []):
            units = [u for u in s["name"].split("+") if rx.search(u)]
            for i, x in enumerate(units):
                for y in units[i + 1:]:
                    merged += 1
                    if tuple(sorted((x, y))) not in ok_pairs:
                        bad.append("%s+%s (cell %s)" % (x, y, cell["name"]))
    if bad:
        print("merged but never sharing a page in the oracle: " + ", ".join(bad))
        sys.exit(1)
    print("%d merged pairs, all oracle-sharing (%d oracle pairs, %d snapshots)" %
          (merged, len(ok_pairs), oracle["snapshots"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--match")
    ap.add_argument("--stop")
    ap.add_argument("--out")
    ap.add_argument("--check", nargs=2, metavar=("CONFIG", "ORACLE"))
    a = ap.parse_args()
    if a.check:
        check(a)
    elif a.match and a.stop and a.out:
        record(a)
    else:
        ap.error("--match, --stop and --out, or --check CONFIG ORACLE")


if __name__ == "__main__":
    main()
