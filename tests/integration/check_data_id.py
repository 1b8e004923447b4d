#!/usr/bin/env python3
"""check_data_id.py PERF_JSONL WORKLOAD_STDOUT FILE PAGES [PERF_DATA]

Checks the data identity keys of a perf.jsonl made from a recording of
tests/workloads/shared-maps (a parent and a child mapping FILE and a memfd
MAP_SHARED at different addresses, plus private anonymous memory):
- each process's PAGES written pages of FILE get F: ids, the same set in both
  processes although the addresses differ; the memfd likewise, other ids;
- private anonymous pages get A:<pid>:<addr >> 12> of their own process;
- no A: id appears in two processes.
With PERF_DATA, the oracle: perf report --mem-mode --sort=pid,dso_daddr
counts per (pid, data object) equal ours (perf looks data addresses of
kernel-mode samples up in the kernel's maps: those count as [unknown]), and
per (pid, object, data symbol) wherever we name a data_sym.
"""
import collections
import json
import os
import re
import subprocess
import sys


def main():
    jsonl, wl_out, path, pages = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    m = re.search(r"parent (\d+) child (\d+) file (\w+) (\w+) memfd (\w+) (\w+)", open(wl_out).read())
    assert m, "no address line from the workload"
    parent, child = int(m.group(1)), int(m.group(2))
    faddr = {parent: int(m.group(3), 16), child: int(m.group(4), 16)}
    maddr = {parent: int(m.group(5), 16), child: int(m.group(6), 16)}
    assert faddr[parent] != faddr[child] and maddr[parent] != maddr[child], "mapped at the same address"
    lines = [json.loads(x) for x in open(jsonl)]
    assert all("data_id" in d for d in lines), "a line without data_id"
    ids = {p: collections.defaultdict(set) for p in (parent, child)}
    anon_owner = collections.defaultdict(set)
    for d in lines:
        did, dmap, pid, addr = d["data_id"], d.get("data_map"), d["pid"], int(d["addr"], 16)
        if did and did.startswith("A:"):
            _, idpid, vpage = did.split(":")
            assert int(idpid) == pid and int(vpage, 16) == addr >> 12, d
            anon_owner[did].add(pid)
        if pid not in ids:
            continue
        if dmap == path:
            assert did.startswith("F:"), d
            assert faddr[pid] <= addr < faddr[pid] + pages * 4096, d
            ids[pid]["file"].add(did)
        elif dmap and dmap.startswith("/memfd:scxprof-shared"):
            assert did.startswith("F:"), d
            assert maddr[pid] <= addr < maddr[pid] + pages * 4096, d
            ids[pid]["memfd"].add(did)
        elif dmap == "//anon" and did:
            ids[pid]["anon"].add(did)
    for what in ("file", "memfd"):
        a, b = ids[parent][what], ids[child][what]
        assert len(a) == pages and a == b, (what, sorted(a), sorted(b))
    assert not ids[parent]["file"] & ids[parent]["memfd"], "file and memfd ids collide"
    assert ids[parent]["anon"] and ids[child]["anon"], "no private anonymous samples"
    shared_anon = [k for k, v in anon_owner.items() if len(v) > 1]
    assert not shared_anon, shared_anon[:5]
    if len(sys.argv) > 5:
        oracle(sys.argv[5], lines)
    print("ok: %d lines, %d file pages and %d memfd pages shared by %d and %d" %
          (len(lines), len(ids[parent]["file"]), len(ids[parent]["memfd"]), parent, child))


def short(name):
    if name is None:
        return "[unknown]"
    if name == "//anon":
        return "anon"
    return os.path.basename(name) if name.startswith("/") else name


def oracle(perf_data, lines):
    out = subprocess.run(["perf", "report", "-i", perf_data, "--mem-mode", "--sort=pid,dso_daddr", "--stdio",
                          "-F", "sample,pid,dso_daddr"], capture_output=True, text=True, check=True).stdout
    theirs = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+):.*?\s{2,}(\S.*?)\s*$", line)
        if m and not line.startswith("#"):
            theirs[(int(m.group(2)), m.group(3))] += int(m.group(1))
    ours = collections.Counter()
    for d in lines:
        kernel_ip = int(d["ip"], 16) >= 1 << 63
        ours[(d["pid"], "[unknown]" if kernel_ip else short(d.get("data_map")))] += 1
    assert theirs, "perf report printed nothing"
    diff = {k: (ours[k], theirs[k]) for k in set(ours) | set(theirs) if ours[k] != theirs[k]}
    assert not diff, sorted(diff.items())[:10]
    # data symbols: where we name one, perf's symbol_daddr is the same object
    out = subprocess.run(["perf", "report", "-i", perf_data, "--mem-mode", "--sort=pid,dso_daddr,symbol_daddr",
                          "--stdio", "-F", "sample,pid,dso_daddr,symbol_daddr"],
                         capture_output=True, text=True, check=True).stdout
    theirs = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+):\S*\s+(.*?)\s+\[.\]\s+(\S+)", line)
        if m and not line.startswith("#"):
            theirs[(int(m.group(2)), m.group(3), m.group(4).split("+0x")[0])] += int(m.group(1))
    ours = collections.Counter((d["pid"], short(d.get("data_map")), d["data_sym"]) for d in lines
                               if "data_sym" in d and int(d["ip"], 16) < 1 << 63)
    assert ours, "no data_sym at all"
    diff = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
    assert not diff, sorted(diff.items())[:10]


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print("FAIL:", e)
        sys.exit(1)
