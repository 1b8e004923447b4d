#!/usr/bin/env bash
# bench_extract.sh - `extract mem` throughput and memory on synthetic
# planted JSONL (tests/tools/gen_planted.py): 1M and 5M samples, both
# clustering modes, median of 3. Peak RSS must not grow with the sample
# count. Targets (issue): >= 1M samples/s, RSS < 200 MB at 5M.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
w=$(mktemp -d /tmp/scxprof-bench-ex.XXXXXX)
trap 'rm -rf "$w"' EXIT
echo "== extract mem: throughput and peak RSS (median of 3)"
python3 "$top/tests/tools/gen_planted.py" --samples 1000000 --seed 1 "$w/1m.jsonl" >/dev/null
python3 "$top/tests/tools/gen_planted.py" --samples 5000000 --seed 1 "$w/5m.jsonl" >/dev/null
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
        samples = 1e6 if n == "1M" else 5e6
        print(f"--cluster {mode:8s} {n}: {t:6.2f} s  {samples / t / 1e6:5.2f}M samples/s  peak RSS {rss[n]:6.1f} MB")
    print(f"--cluster {mode:8s} RSS 5M / 1M: {rss['5M'] / rss['1M']:.2f}x (must not grow with samples; target < 200 MB, >= 1M samples/s)")
PY
