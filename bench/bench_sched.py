#!/usr/bin/env python3
"""bench_sched.py - observer effect of the scheduling stream: `perf bench
sched pipe` alone, under `scxprof record` (sched stream only), and under
`perf record -a` of upstream's sched event list, in the same run, rounds
alternated, median of N. Prints each slowdown, their ratio, and the bytes
each recorder wrote per second.

usage: bench_sched.py SCXPROF RUNS
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

LOOPS = "200000"
UPSTREAM_EVENTS = ["sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking",
                   "sched:sched_stat_runtime", "irq:irq_handler_entry", "irq:irq_handler_exit",
                   "irq:softirq_entry", "irq:softirq_exit", "irq:softirq_raise",
                   "irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
                   "irq_vectors:reschedule_entry", "irq_vectors:reschedule_exit", "nmi:nmi_handler"]


def pipe_seconds():
    out = subprocess.run(["perf", "bench", "sched", "pipe", "-l", LOOPS], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"Total time:\s+([\d.]+) \[sec\]", out)
    return float(m.group(1))


def under(cmd, workdir, out_path):
    p = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    t0 = time.monotonic()
    s = pipe_seconds()
    elapsed = time.monotonic() - t0
    time.sleep(0.2)
    p.send_signal(2) if cmd[0] == "perf" else None
    p.wait()
    size = 0
    for root, _, files in os.walk(os.path.join(workdir, out_path)) if os.path.isdir(os.path.join(workdir, out_path)) else []:
        size += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    if os.path.isfile(os.path.join(workdir, out_path)):
        size = os.path.getsize(os.path.join(workdir, out_path))
    return s, size, elapsed


def main():
    scxprof, runs = sys.argv[1], int(sys.argv[2])
    avail = subprocess.run(["perf", "list", "--raw-dump", "tracepoint"], capture_output=True, text=True).stdout.split()
    events = [e for e in UPSTREAM_EVENTS if e in avail] or UPSTREAM_EVENTS[:2]
    alone, ours, theirs, ours_bps, theirs_bps = [], [], [], [], []
    for _ in range(runs):
        alone.append(pipe_seconds())
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-sched.") as d:
            s, size, el = under([scxprof, "record", "-t", "8", "-o", "prof", "--disable-archive",
                                 "--disable-mem-trace"], d, "prof/sched.data")
            ours.append(s)
            ours_bps.append(size / 8.0)
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-sched-perf.") as d:
            cmd = ["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-m", "8M", "-o", "perf.sched.data"]
            for e in events:
                cmd += ["-e", e]
            s, size, el = under(cmd, d, "perf.sched.data")
            theirs.append(s)
            theirs_bps.append(size / 8.0)
    a, o, t = statistics.median(alone), statistics.median(ours), statistics.median(theirs)
    so, st = (o / a - 1) * 100, (t / a - 1) * 100
    print(f"perf bench sched pipe -l {LOOPS}: alone {a:.3f} s (runs {', '.join(f'{x:.3f}' for x in alone)})")
    print(f"  under scxprof record (sched): {o:.3f} s  slowdown {so:+.1f}%  writes {statistics.median(ours_bps) / 1e6:.2f} MB/s")
    print(f"  under perf record ({len(events)} upstream events): {t:.3f} s  slowdown {st:+.1f}%  writes {statistics.median(theirs_bps) / 1e6:.2f} MB/s")
    ratio = so / st if st > 0 else float('nan')
    print(f"ratio: our slowdown is {ratio:.2f} of perf record's (target <= 0.33)")


if __name__ == "__main__":
    main()
