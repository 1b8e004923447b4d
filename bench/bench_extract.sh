#!/usr/bin/env bash
# bench_extract.sh - `extract mem` throughput and memory on synthetic
# planted JSONL (tests/tools/gen_planted.py, 200k samples repeated to 1M
# and 5M), both
# clustering modes, median of 3. Peak RSS must not grow with the sample
# count. Targets (issue): >= 1M samples/s, RSS < 200 MB at 5M.
# Then 2M lines with 2M distinct comms (tests/tools/gen_distinct.py with
# every line a fresh comm): peak RSS must stay <= 200 MB at default
# settings (the per-group name bound), and its ratio to the 1M planted run.
# Then 300k distinct allotment cgroups and sched JSONL with 1M distinct
# threads: peak RSS <= 200 MB at default settings (the group and thread
# bounds), against the same runs with the bound at its maximum.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
w=$(mktemp -d /tmp/scxprof-bench-ex.XXXXXX)
trap 'rm -rf "$w"' EXIT
echo "== extract mem: throughput and peak RSS (median of 3)"
# 16 planted units x 12500 samples (--samples is per unit) = 200k lines,
# repeated: throughput and memory only need the size
python3 "$top/tests/tools/gen_planted.py" --samples 12500 --seed 1 "$w/200k.jsonl" >/dev/null
python3 "$top/tests/tools/gen_distinct.py" --lines 2000000 --heavy-share 0 "$w/2m-distinct.jsonl"
# 300k distinct allotment cgroups (gen_distinct.py --distinct-cgroups, every
# line its own group) and sched JSONL with 1M distinct threads
# (gen_sched_tids.py) with a perf.jsonl next to it for extract mem -v
python3 "$top/tests/tools/gen_distinct.py" --lines 300000 --heavy-share 0 --distinct-cgroups "$w/300k-groups.jsonl"
mkdir -p "$w/tids"
python3 "$top/tests/tools/gen_sched_tids.py" --threads 1000000 --heavy-every 10 "$w/tids/sched.jsonl"
python3 "$top/tests/tools/gen_distinct.py" --lines 100000 "$w/tids/perf.jsonl" 2>/dev/null
for i in 1 2 3 4 5; do cat "$w/200k.jsonl"; done >"$w/1m.jsonl"
for i in 1 2 3 4 5; do cat "$w/1m.jsonl"; done >"$w/5m.jsonl"
echo "inputs: $(wc -l <"$w/1m.jsonl") and $(wc -l <"$w/5m.jsonl") lines"
sync # writeback of the inputs must not run during the timed runs
cat "$w/1m.jsonl" "$w/5m.jsonl" >/dev/null
python3 - "$bin" "$w" <<'PY'
import os, statistics, subprocess, sys, time
bin, w = sys.argv[1], sys.argv[2]
def run(args):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execv(bin, [bin, *args])
    _, st, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(st) != 0:
        sys.exit(f"extract {' '.join(args)} failed")
    return time.monotonic() - t0, ru.ru_maxrss / 1024
for mode in ("comm", "sharing"):
    rss = {}
    for n, f in (("1M", "1m.jsonl"), ("5M", "5m.jsonl")):
        runs = [run(["extract", "mem", "--cluster", mode, "-f", os.path.join(w, f)]) for _ in range(3)]
        t = statistics.median(r[0] for r in runs)
        rss[n] = statistics.median(r[1] for r in runs)
        samples = sum(1 for _ in open(os.path.join(w, f)))
        print(f"--cluster {mode:8s} {n}: {t:6.2f} s  {samples / t / 1e6:5.2f}M samples/s  peak RSS {rss[n]:6.1f} MB")
    print(f"--cluster {mode:8s} RSS 5M / 1M: {rss['5M'] / rss['1M']:.2f}x (must not grow with samples; target < 200 MB, >= 1M samples/s)")
    runs = [run(["extract", "mem", "--cluster", mode, "-f", os.path.join(w, "2m-distinct.jsonl")]) for _ in range(3)]
    t = statistics.median(r[0] for r in runs)
    r2 = statistics.median(r[1] for r in runs)
    print(f"--cluster {mode:8s} 2M distinct comms: {t:6.2f} s  {2e6 / t / 1e6:5.2f}M samples/s  peak RSS {r2:6.1f} MB "
          f"({r2 / rss['1M']:.2f}x the 1M planted run; target <= 200 MB: {'met' if r2 <= 200 else 'NOT MET'})")
def show(what, args, unbounded):
    t, r = run(args)
    tu, ru = run(args + unbounded)
    print(f"{what}: {t:6.2f} s  peak RSS {r:6.1f} MB (unbounded {ru:6.1f} MB, {tu:6.2f} s); "
          f"target <= 200 MB: {'met' if r <= 200 else 'NOT MET'}")
print("== 300k distinct allotment cgroups, 1M distinct sched threads: peak RSS at default settings vs the bound at its maximum")
g = os.path.join(w, "300k-groups.jsonl")
for mode in ("comm", "sharing"):
    show(f"extract mem --cluster {mode:8s} 300k groups", ["extract", "mem", "--cluster", mode, "-f", g],
         ["--max-groups", "262144"])
s = os.path.join(w, "tids", "sched.jsonl")
show("extract sched stats 1M threads", ["extract", "sched", "stats", "-f", s], ["--max-threads", "16777216"])
t, r = run(["extract", "mem", "-v", "-f", os.path.join(w, "tids", "perf.jsonl")])
print(f"extract mem -v with that sched.jsonl: {t:6.2f} s  peak RSS {r:6.1f} MB; target <= 200 MB: {'met' if r <= 200 else 'NOT MET'}")
PY
