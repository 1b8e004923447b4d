#!/usr/bin/env python3
"""gen_sched_tids.py - sched.jsonl with many distinct threads.

A few heavy threads (HEAVY: tid, pid, comm) take turns on CPU 0 the
whole time, each woken before it runs; between their turns, every other
slot runs a thread never seen before (tid from FIRST_TID up, in process
1000 + tid % 50: processes the perf.jsonl side never sampled), woken by the
running thread, switched in and out once (20 us). `extract sched stats` must keep
the heavy threads' numbers whatever the number of distinct threads, and
`extract mem` with this sched.jsonl needs per-thread state only for the
threads of sampled processes. Written fast (format strings), so the bench
can make millions of threads.
"""
import argparse
import sys

HEAVY = [(101, 100, "web1"), (102, 100, "web2"), (201, 200, "db")]
FIRST_TID = 100000
SWITCH = ('{"comm":"%s","pid":%d,"tid":%d,"cpu":%d,"time":%d.%09d,"event":"sched:sched_switch","trace":"",'
          '"fields":{"prev_comm":"%s","prev_pid":%d,"prev_prio":120,"prev_state":"%s","next_comm":"%s",'
          '"next_pid":%d,"next_prio":120},"hint":0,"time_ns":%d}\n')
WAKEUP = ('{"comm":"%s","pid":%d,"tid":%d,"cpu":%d,"time":%d.%09d,"event":"sched:sched_wakeup","trace":"",'
          '"fields":{"comm":"%s","pid":%d,"prio":120,"target_cpu":%d},"hint":0,"time_ns":%d}\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--threads", type=int, default=100000, help="distinct threads besides the heavy ones")
    ap.add_argument("--heavy-every", type=int, default=1, help="a heavy thread's turn every N distinct threads")
    a = ap.parse_args()
    t = 10**9  # ns
    cur = [(0, 0, "swapper/0"), (0, 0, "swapper/1")]  # (tid, pid, comm) running per CPU
    out = []

    def switch(cpu, nxt, run):
        nonlocal t
        p = cur[cpu]
        ctx = p if p[0] else (0, 0, "swapper/%d" % cpu)
        waker = ctx if ctx[0] else HEAVY[0]
        out.append(WAKEUP % (waker[2], waker[1], waker[0], cpu, t // 10**9, t % 10**9, nxt[2], nxt[0], cpu, t))
        t += 1000
        out.append(SWITCH % (ctx[2], ctx[1], ctx[0], cpu, t // 10**9, t % 10**9, ctx[2], ctx[0],
                             "S" if ctx[0] else "R", nxt[2], nxt[0], t))
        cur[cpu] = nxt
        t += run

    with open(a.out, "w") as f:
        for i in range(a.threads):
            cpu = 0
            if i % a.heavy_every == 0:
                switch(cpu, HEAVY[i // a.heavy_every % len(HEAVY)], 500000)
            tid = FIRST_TID + i
            switch(cpu, (tid, 1000 + tid % 50, "t%d" % tid), 20000)
            if len(out) >= 8192:
                f.write("".join(out))
                out = []
        for cpu in (0,):
            switch(cpu, (0, 0, "swapper/%d" % cpu), 1000)
        f.write("".join(out))
    print(f"{a.threads} distinct threads + {len(HEAVY)} heavy ones", file=sys.stderr)


if __name__ == "__main__":
    main()
