#!/usr/bin/env python3
"""bench_sharing_time.py - how soon extract decides that two threads share
a large region, at the default sample rate (issue 18: "a 256 MiB region
read and written by both units must merge within a 30 s recording, a
32 MiB one within 8 s"; docs/clustering.md "Default rate in time").

For each SIZE_MIB:SECONDS, RUNS recordings of
`warm-share -d SECONDS -p PAGES alpha:A beta:A gamma:G` (alpha and beta on
one region, gamma on its own) with `scxprof record` at its default backend
and rate, in an allotment cgroup of its own; process; then extract -v on the
perf.jsonl cut at the threads' start + T for T in STEPS steps up to SECONDS.
Per recording it prints the threads' samples per second, the first T at
which alpha~beta is "shared" (seconds to decide), alpha's samples then
against the detection limit (3 x sqrt(lines), docs/clustering.md), and the
verdicts of the whole recording; then the medians as ratios: seconds to
decide / the target, samples at the decision / the detection limit.

A speed statement, not a test: it prints numbers and exits non-zero only
when a verdict is wrong (alpha~beta apart at any cut, gamma merged, or
the recording failed), never on time.

Like bench_decode.py it runs in a session of its own (bench_sharing_time.sh
starts it with setsid) whose autogroup it gives nice -20, so other
sessions' work takes little of the CPU the threads and the recorder need.

usage: bench_sharing_time.py SCXPROF WARM_SHARE RUNS STEPS SIZE_MIB:SECONDS...
"""
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import signal
import tempfile
import time

PAIR = re.compile(r"^    alpha- ~ beta-: [\d.]+\n\s+lines: shared fraction ([\d.]+) \[([\d.]+), ([\d.]+)\].*?; "
                  r"(\d+ \+ \d+) samples.*recaptured (\d+) of \d+ \+ (\d+) of .*: (shared|apart|cannot tell)", re.M)
GAMMA = re.compile(r"^    (?:alpha|beta)- ~ gamma-: [\d.]+\n\s+lines: .*: (shared|apart|cannot tell)", re.M)


def autogroup_priority():
    """nice -20 for this session's autogroup; what it was set to."""
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("-20")
        with open("/proc/self/autogroup") as f:
            return f.read().strip()
    except OSError as e:
        return "not set (%s)" % e.strerror


def cgroup2_root():
    with open("/proc/mounts") as f:
        for line in f:
            p = line.split()
            if p[2] == "cgroup2":
                return p[1]
    return None


def remove_cgroup(cg):
    """rmdir this run's cgroup cg, after ending what still runs in it (a
    workload whose recorder was interrupted): the cgroup is ours alone."""
    try:
        with open(os.path.join(cg, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass
    for _ in range(50):
        with open(os.path.join(cg, "cgroup.procs")) as f:
            if not f.read().strip():
                break
        time.sleep(0.1)
    os.rmdir(cg)


def extract(scxprof, jsonl, allot):
    """extract -v on jsonl: (alpha~beta (f, low, high, verdict) or None, gamma verdicts, subcells)"""
    r = subprocess.run([scxprof, "extract", "mem", "-v", "--max-cell-cpus", "64",
                        "--workload-allotment-cgroup-regex", allot, "-f", jsonl],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("extract failed on %s: %s" % (jsonl, r.stderr.strip().splitlines()[-1:]))
    m = PAIR.search(r.stderr)
    cells = json.loads(r.stdout)
    sub = sorted(s["name"] for c in cells if c["name"] == "allotment" for s in c.get("subcells", []))
    return (m.groups() if m else None), GAMMA.findall(r.stderr), sub


def one_recording(scxprof, warm_share, work, cg2, mib, secs, steps, tag):
    pages = mib * 256
    lines = pages * 64
    limit = 3 * math.sqrt(lines)
    name = "bench-share-%d-%s" % (os.getpid(), tag)
    cg = os.path.join(cg2, "workload.slice", "workload-%s.allotment.slice" % name)
    allot = "workload-%s\\.allotment\\.slice" % re.escape(name)
    d = os.path.join(work, tag)
    os.makedirs(d)
    os.makedirs(cg, exist_ok=True)
    try:
        r = subprocess.run([scxprof, "record", "-t", str(secs + 60), "--disable-sched-trace", "-o", d + "/prof", "--",
                            "sh", "-c", 'echo $$ >"$0/cgroup.procs" && exec "$@"', cg,
                            warm_share, "-d", str(secs), "-p", str(pages), "alpha:A", "beta:A", "gamma:G"],
                           capture_output=True, text=True)
    finally:
        remove_cgroup(cg)
    if r.returncode != 0:
        raise RuntimeError("record failed: %s" % r.stderr.strip().splitlines()[-1:])
    r = subprocess.run([scxprof, "process", "--no-perfetto", "-f", d + "/prof.tar.gz"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("process failed: %s" % r.stderr.strip().splitlines()[-1:])
    # the workload's samples only: the cuts then extract little
    rows = []
    with open(d + "/prof.out/perf.jsonl") as f:
        for line in f:
            if name in line:
                o = json.loads(line)
                rows.append((o["time_ns"], o["comm"], line))
    rows.sort(key=lambda x: x[0])
    t0 = min((t for t, c, _ in rows if c == "alpha-0"), default=None)
    if t0 is None:
        raise RuntimeError("no sample of alpha-0 in the recording")
    per = {}
    for t, c, _ in rows:
        per.setdefault(c, []).append(t)
    rate = {c: len(ts) / max((ts[-1] - ts[0]) / 1e9, 1e-9) for c, ts in per.items() if c.endswith("-0") and len(ts) > 1}
    cut = d + "/cut.jsonl"
    shutil.copy(d + "/prof.out/topology.json", d + "/topology.json")
    decided_t = decided_n = at = None
    bad = []
    for k in range(1, steps + 1):
        t = secs * k / steps
        lim = t0 + int(t * 1e9)
        with open(cut, "w") as f:
            f.writelines(line for ts, _, line in rows if ts <= lim)
        pair, gamma, _ = extract(scxprof, cut, allot)
        if pair and pair[6] == "apart":
            bad.append("alpha~beta apart at %.1f s" % t)
        if pair and pair[6] == "shared" and decided_t is None:
            decided_t = t
            at = "f %s [%s, %s], %s line hits, %s + %s recaptures" % pair[:6]
            decided_n = sum(1 for ts in per["alpha-0"] if ts <= lim)
    pair, gamma, sub = extract(scxprof, d + "/prof.out/perf.jsonl", allot)
    if "shared" in gamma:
        bad.append("gamma merged")
    shutil.rmtree(d)
    return {
        "rate": rate, "limit": limit, "at": at, "decided_t": decided_t, "decided_n": decided_n,
        "pair": pair, "gamma": gamma, "sub": sub, "bad": bad,
    }


def main():
    # SIGTERM as an exception: the finally blocks remove the cgroup and the work directory
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if len(sys.argv) < 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    scxprof, warm_share, runs, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    cg2 = cgroup2_root()
    if cg2 is None:
        print("SKIP: bench_sharing_time: no cgroup2 mount")
        return 0
    print("autogroup: %s; default backend and rate; %d recordings per size; decision searched in %d steps"
          % (autogroup_priority(), runs, steps))
    rc = 0
    work = tempfile.mkdtemp(prefix="scxprof-bench-share.")
    try:
        for spec in sys.argv[5:]:
            mib, secs = (int(x) for x in spec.split(":"))
            res = []
            for i in range(runs):
                try:
                    r = one_recording(scxprof, warm_share, work, cg2, mib, secs, steps, "%d-%d" % (mib, i))
                except RuntimeError as e:
                    print("  %d MiB, %d s, run %d: FAILED: %s" % (mib, secs, i + 1, e))
                    rc = 1
                    continue
                res.append(r)
                rs = "/".join("%.0f" % r["rate"].get(c, 0) for c in ("alpha-0", "beta-0", "gamma-0"))
                p = r["pair"]
                print("  %d MiB, %d s, run %d: alpha/beta/gamma %s samples/s; decided %s; whole recording: "
                      "alpha~beta %s, gamma %s; subcells %s%s"
                      % (mib, secs, i + 1, rs,
                         "at %.1f s with %d samples of alpha (limit %.0f: x%.2f; %s)"
                         % (r["decided_t"], r["decided_n"], r["limit"], r["decided_n"] / r["limit"], r["at"])
                         if r["decided_t"] is not None else "never (within %d s)" % secs,
                         "%s [%s, %s] %s" % (p[0], p[1], p[2], p[6]) if p else "(no pair)", "/".join(r["gamma"]) or "-",
                         " ".join(r["sub"]), "; WRONG: " + ", ".join(r["bad"]) if r["bad"] else ""))
                if r["bad"]:
                    rc = 1
            dec = [r for r in res if r["decided_t"] is not None]
            if dec:
                print("%d MiB: decided in %d of %d; seconds to decide / target %d s: x%.2f (median); "
                      "samples at the decision / detection limit %.0f: x%.2f; samples/s/thread %.0f"
                      % (mib, len(dec), len(res), secs, statistics.median(r["decided_t"] for r in dec) / secs,
                         dec[0]["limit"], statistics.median(r["decided_n"] / r["limit"] for r in dec),
                         statistics.median(r["rate"].get("alpha-0", 0) for r in res)))
            else:
                print("%d MiB: never decided within %d s in %d recordings" % (mib, secs, len(res)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
