#!/usr/bin/env bash
# demo.sh - `make demo`: profile the planted-sharing workload generator and
# decode it. Until `scxprof record` lands, the recording is made with the
# system perf (page-fault samples with data and physical addresses, on
# CLOCK_MONOTONIC); then `scxprof process` decodes it and the first samples
# of each planted thread group are shown.
set -eu
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
wl="$top/$BUILD/workloads/scxprof-workload"
demo=$(mktemp -d /tmp/scxprof-demo.XXXXXX)
echo "== recording 2 s of the workload generator (alpha+beta share region A, gamma private) into $demo/profile"
mkdir -p "$demo/profile"
if ! perf record -q -e page-faults -c 1 -d --phys-data --data-page-size --all-cgroups -a -k CLOCK_MONOTONIC \
	-o "$demo/profile/perf.data" -- "$wl" -d 2 -p 64 alpha:2:A beta:2:A gamma:2 2>"$demo/perf.err"; then
	echo "demo: perf record failed (root needed): $(tail -n 1 "$demo/perf.err")" >&2
	exit 1
fi
echo "== scxprof process -f $demo/profile"
"$bin" process -f "$demo/profile"
echo "== samples per thread in perf.jsonl (kept: with a physical address)"
python3 - "$demo/profile.out/perf.jsonl" <<'PY'
import collections, json, sys
c = collections.Counter()
pages = collections.defaultdict(set)
for line in open(sys.argv[1]):
    s = json.loads(line)
    c[s["comm"]] += 1
    pages[s["comm"].rsplit("-", 1)[0]].add(int(s["phys_addr"], 16) >> 12)
for comm, n in sorted(c.items(), key=lambda kv: -kv[1])[:12]:
    print(f"  {comm:20s} {n:8d}")
for a, b in (("alpha", "beta"), ("alpha", "gamma")):
    print(f"  physical pages shared by {a} and {b}: {len(pages[a] & pages[b])}")
PY
echo "== output kept in $demo"
