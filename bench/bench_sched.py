#!/usr/bin/env python3
"""bench_sched.py - observer effect of the scheduling stream: `perf bench
sched pipe` alone, under `scxprof record` (sched stream only), and under
`perf record -a` of upstream's sched event list, in the same run, rounds
alternated, median of N. Prints each slowdown (wall time of the pipe
benchmark: the target), their ratio, the CPU time the whole machine was busy
while the pipe benchmark ran (from /proc/stat: includes the recorder, its BPF
programs or perf's tracepoint handlers, and writeback; steadier than wall time
on a shared VM), and the bytes each recorder wrote per second of its
RECORD_SECS run.

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
RECORD_SECS = 7  # both recorders run this long; the pipe runs from 1.5 s on
UPSTREAM_EVENTS = ["sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking",
                   "sched:sched_stat_runtime", "irq:irq_handler_entry", "irq:irq_handler_exit",
                   "irq:softirq_entry", "irq:softirq_exit", "irq:softirq_raise",
                   "irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
                   "irq_vectors:reschedule_entry", "irq_vectors:reschedule_exit", "nmi:nmi_handler"]


def busy_seconds():
    """CPU seconds all CPUs spent not idle since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def pipe_seconds():
    """Wall seconds perf bench sched pipe reports, and the machine's busy CPU
    seconds meanwhile."""
    b0 = busy_seconds()
    out = subprocess.run(["perf", "bench", "sched", "pipe", "-l", LOOPS], capture_output=True, text=True,
                         check=True).stdout
    busy = busy_seconds() - b0
    m = re.search(r"Total time:\s+([\d.]+) \[sec\]", out)
    return float(m.group(1)), busy


def under(cmd, workdir, out_path):
    """Run pipe_seconds() while cmd (a recorder that stops by itself after
    RECORD_SECS) runs; return its result and the bytes cmd wrote."""
    p = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    s = pipe_seconds()
    if p.wait() != 0:
        sys.exit(f"bench_sched: {' '.join(cmd)} failed")
    path = os.path.join(workdir, out_path)
    if not os.path.isfile(path):
        sys.exit(f"bench_sched: {' '.join(cmd)} wrote no {out_path}")
    return s, os.path.getsize(path)


def main():
    scxprof, runs = sys.argv[1], int(sys.argv[2])
    avail = subprocess.run(["perf", "list", "--raw-dump", "tracepoint"], capture_output=True, text=True).stdout.split()
    events = [e for e in UPSTREAM_EVENTS if e in avail] or UPSTREAM_EVENTS[:2]
    alone, ours, theirs, ours_bps, theirs_bps = [], [], [], [], []
    for _ in range(runs):
        alone.append(pipe_seconds())
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-sched.") as d:
            r, size = under([scxprof, "record", "-t", str(RECORD_SECS), "-o", "prof", "--disable-archive",
                             "--disable-mem-trace"], d, "prof/sched.data")
            ours.append(r)
            ours_bps.append(size / RECORD_SECS)
        with tempfile.TemporaryDirectory(prefix="scxprof-bench-sched-perf.") as d:
            cmd = ["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-m", "8M", "-o", "perf.sched.data"]
            for e in events:
                cmd += ["-e", e]
            r, size = under(cmd + ["--", "sleep", str(RECORD_SECS)], d, "perf.sched.data")
            theirs.append(r)
            theirs_bps.append(size / RECORD_SECS)
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    runs_of = lambda xs: ", ".join(f"{x[0]:.3f}" for x in xs)
    a, o, t = med(alone, 0), med(ours, 0), med(theirs, 0)
    ba, bo, bt = med(alone, 1), med(ours, 1), med(theirs, 1)
    so, st = (o / a - 1) * 100, (t / a - 1) * 100
    print(f"perf bench sched pipe -l {LOOPS}: alone {a:.3f} s, machine busy {ba:.2f} CPU-s (runs {runs_of(alone)})")
    print(f"  under scxprof record (sched): {o:.3f} s  slowdown {so:+.1f}%  busy {bo - ba:+.2f} CPU-s"
          f"  writes {statistics.median(ours_bps) / 1e6:.2f} MB/s (runs {runs_of(ours)})")
    print(f"  under perf record ({len(events)} upstream events): {t:.3f} s  slowdown {st:+.1f}%  busy {bt - ba:+.2f} CPU-s"
          f"  writes {statistics.median(theirs_bps) / 1e6:.2f} MB/s (runs {runs_of(theirs)})")
    ratio = so / st if st > 0 else float("nan")
    cpu_ratio = (bo - ba) / (bt - ba) if bt > ba else float("nan")
    print(f"ratio: our slowdown is {ratio:.2f} of perf record's (target <= 0.33); extra busy CPU {cpu_ratio:.2f} of perf's")


if __name__ == "__main__":
    main()
