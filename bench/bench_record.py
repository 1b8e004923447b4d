#!/usr/bin/env python3
"""bench_record.py - recording overhead: `scxprof record --backend page-fault` vs `perf record -e
page-faults -c 1 -d --phys-data --data-page-size -a` on the same
page-fault-heavy workload, in the same run, alternating, median of N.

For each recorder: the recorder runs system-wide for a fixed time while the
workload generator runs a fixed number of iterations beside it. Measured:
the workload's wall time (slowdown against the workload alone, measured in
the same rounds), the recorder's own CPU time (rusage of the recorder
process), and the samples it lost. Both write uncompressed files
(scxprof with --disable-archive, and --disable-sched-trace: the peer records
page faults only).

usage: bench_record.py SCXPROF WORKLOAD RUNS
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WL_ARGS = ["-i", "3000", "-p", "64", "alpha:2:A", "beta:2:A"]
RECORD_S = "12"


def run_workload(wl):
    t0 = time.monotonic()
    subprocess.run([wl, *WL_ARGS], check=True)
    return time.monotonic() - t0


def with_recorder(cmd, wl, workdir):
    """Start cmd, run the workload beside it, stop cmd with SIGINT; return
    (workload seconds, recorder cpu seconds, recorder stderr)."""
    err = open(os.path.join(workdir, "rec.err"), "w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=workdir)
    time.sleep(1.0)  # let it open its events and scan /proc
    wl_s = run_workload(wl)
    time.sleep(0.2)
    if cmd[0] == "perf":
        p.send_signal(2)  # perf record stops cleanly on SIGINT and writes the file
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    err.seek(0)
    return wl_s, ru.ru_utime + ru.ru_stime, err.read(), p.returncode


def perf_lost(data):
    out = subprocess.run(["perf", "report", "-i", data, "--stats"], capture_output=True, text=True).stdout
    lost = 0
    for line in out.splitlines():
        m = re.match(r"\s*LOST(_SAMPLES)? events:\s+(\d+)", line)
        if m:
            lost += int(m.group(2))
    return lost


def main():
    scxprof, wl, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    res = {"alone": [], "scxprof": [], "perf": []}
    cpu = {"scxprof": [], "perf": []}
    lost = {"scxprof": [], "perf": []}
    for _ in range(runs):
        res["alone"].append(run_workload(wl))
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-rec.") as d:
            wl_s, c, err, rc = with_recorder([scxprof, "record", "-t", RECORD_S, "-o", "prof", "--disable-archive",
                                          "--disable-sched-trace", "--backend", "page-fault"], wl, d)
            if rc != 0:
                sys.exit("scxprof record failed: " + err[-500:])
            meta = json.load(open(os.path.join(d, "prof", "metadata.json")))
            res["scxprof"].append(wl_s)
            cpu["scxprof"].append(c)
            lost["scxprof"].append(meta["mem"]["lost_events"] + meta["mem"]["lost_samples"])
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-perf.") as d:
            wl_s, c, err, rc = with_recorder(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "--phys-data",
                                              "--data-page-size", "-a", "-o", "perf.data"], wl, d)
            res["perf"].append(wl_s)
            cpu["perf"].append(c)
            lost["perf"].append(perf_lost(os.path.join(d, "perf.data")))
    med = {k: statistics.median(v) for k, v in res.items()}
    mcpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"workload alone        {med['alone']:.3f} s   (runs: {', '.join(f'{x:.3f}' for x in res['alone'])})")
    for k in ("scxprof", "perf"):
        slow = (med[k] / med["alone"] - 1) * 100
        print(f"under {k:15s} {med[k]:.3f} s   slowdown {slow:+.1f}%   recorder CPU {mcpu[k]:.3f} s   "
              f"lost {', '.join(str(x) for x in lost[k])}")
    print(f"ratio: scxprof recorder CPU is {mcpu['scxprof'] / mcpu['perf']:.2f}x perf record's "
          f"(target <= 0.5); lost samples: scxprof {max(lost['scxprof'])}, perf {max(lost['perf'])} (target 0 for scxprof)")


if __name__ == "__main__":
    main()
