#!/usr/bin/env python3
"""compare.py - times two commands against each other in the same run,
alternating them (A B A B ...) so machine noise hits both alike.

usage: compare.py N NAME_A NAME_B -- CMD_A... ---- CMD_B...
Each command's stdout goes to /dev/null. Prints, per command, the median
wall time, median CPU time (user+sys) and median peak RSS from wait4, and
the ratios B/A of the medians (wall, CPU, peak RSS). Exit 1 if a run fails.
"""
import os
import statistics
import sys
import time


def run_once(cmd):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} failed with status {os.waitstatus_to_exitcode(status)}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def main():
    n, name_a, name_b = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    rest = sys.argv[4:]
    if rest[0] != "--" or "----" not in rest:
        sys.exit("usage: compare.py N NAME_A NAME_B -- CMD_A... ---- CMD_B...")
    sep = rest.index("----")
    cmds = {name_a: rest[1:sep], name_b: rest[sep + 1:]}
    res = {name_a: [], name_b: []}
    for _ in range(n):
        for name in (name_a, name_b):
            res[name].append(run_once(cmds[name]))
    med = {}
    for name in (name_a, name_b):
        w, c, r = (statistics.median(x[i] for x in res[name]) for i in range(3))
        med[name] = (w, c, r)
        print(f"{name:16s} wall {w:7.3f} s  cpu {c:7.3f} s  peak RSS {r:7.1f} MB  "
              f"(walls: {', '.join(f'{x[0]:.3f}' for x in res[name])})")
    wa, ca, ra = med[name_a]
    wb, cb, rb = med[name_b]
    print(f"ratio {name_b} / {name_a}: wall {wb / wa:.2f}x, cpu {cb / ca:.2f}x, peak RSS {rb / ra:.2f}x")


if __name__ == "__main__":
    main()
