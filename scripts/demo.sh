#!/usr/bin/env bash
# demo.sh - `make demo` (root): the three stages on a workload with planted
# sharing. The workload generator runs groups alpha and beta on one shared
# region, gamma and delta each on their own, all four at the same time, each
# in a process of its own inside one allotment cgroup (cgroup v2:
# workload.slice/workload-tw-demo-PID.allotment.slice), so that whatever else
# the host runs lands in the rest cell; scxprof records it (page-fault
# backend: this workload's sharing is in its page faults), processes the archive, and
# extracts a cell config with -v. The allotment cell must put alpha and beta
# in one subcell and gamma and delta in subcells of their own; the demo says
# so and fails otherwise.
set -eu
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
wl="$top/$BUILD/workloads/scxprof-workload"
demo=$(mktemp -d /tmp/scxprof-demo.XXXXXX)
cd "$demo"
# a cgroup of this run's own, and an allotment regex that matches only it:
# other workload-tw-*.allotment.slice cgroups on the host (other runs, other
# tests) land in the workload cell, not in the demo's allotment cell
cg=workload.slice/workload-tw-demo-$$.allotment.slice
allot="workload-tw-demo-$$\\.allotment\\.slice"
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
trap '[ -n "$cg2" ] && rmdir "$cg2/$cg" 2>/dev/null' EXIT
echo "== scxprof record -t 20 -o profile --backend page-fault -- scxprof-workload (3 s, in $cg: alpha+beta share region A; gamma, delta private; all at once)"
"$bin" record -t 20 -o profile --backend page-fault -- "$wl" -d 3 -p 64 -H 20 alpha:2:A:$cg beta:2:A:$cg gamma:2::$cg delta:2::$cg \
	2> >(grep -v '^\[record\]' >&2)
echo "== scxprof process -f profile.tar.gz"
"$bin" process -f profile.tar.gz
echo "== scxprof extract -v --workload-allotment-cgroup-regex '$allot' -f profile.out/perf.jsonl"
"$bin" extract -v --workload-allotment-cgroup-regex "$allot" -f profile.out/perf.jsonl >config.json
cat config.json
python3 - config.json <<'PY'
import json, sys
cells = {c["name"]: c for c in json.load(open(sys.argv[1]))}
names = {s["name"] for s in cells.get("allotment", {}).get("subcells", [])}
want = {"alpha-+beta-", "gamma-", "delta-"}
if want <= names:
    print("== planted groups recovered in the allotment cell: alpha and beta together; gamma and delta apart")
else:
    sys.exit(f"demo: planted groups NOT recovered: subcells {sorted(names)}, want {sorted(want)}")
PY
echo "allotment regex: $allot"
echo "== files kept in $demo"
