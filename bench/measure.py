#!/usr/bin/env python3
"""measure.py - runs a command N times and prints the median wall time and
the median peak RSS (from wait4's rusage of that child alone).

usage: measure.py N OUTFILE -- CMD ARGS...   (stdout of CMD goes to OUTFILE)
prints one line: "median_s=<float> rss_mb=<float> runs=<N> times=<t1,t2,...>"
A run that exits non-zero aborts the measurement (exit 1).
"""
import os
import statistics
import sys
import time


def run_once(cmd, outfile):
    with open(outfile, "wb") as out:
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            try:
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)
        _, status, ru = os.wait4(pid, 0)
        dt = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"measure.py: {' '.join(cmd)} failed with status {os.waitstatus_to_exitcode(status)}")
    return dt, ru.ru_maxrss / 1024.0


def main():
    n = int(sys.argv[1])
    outfile = sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    times, rss = [], []
    for _ in range(n):
        t, r = run_once(cmd, outfile)
        times.append(t)
        rss.append(r)
    print(f"median_s={statistics.median(times):.4f} rss_mb={statistics.median(rss):.1f} runs={n} "
          f"times={','.join(f'{t:.3f}' for t in times)}")


if __name__ == "__main__":
    main()
