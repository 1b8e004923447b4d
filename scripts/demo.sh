#!/usr/bin/env bash
# demo.sh - `make demo` (root): the three stages on a workload with planted
# sharing. The workload generator runs groups alpha and beta on one shared
# region, gamma and delta each on their own; scxprof records it (page-fault
# backend: this workload's sharing is in its page faults), processes the archive, and
# extracts a cell config with -v. The config must put alpha and beta in one
# subcell and gamma and delta in subcells of their own; the demo says so
# and fails otherwise.
set -eu
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/$BUILD/scxprof"
wl="$top/$BUILD/workloads/scxprof-workload"
demo=$(mktemp -d /tmp/scxprof-demo.XXXXXX)
cd "$demo"
echo "== scxprof record -t 20 -o profile --backend page-fault -- scxprof-workload (3 s: alpha+beta share region A; gamma, delta private)"
"$bin" record -t 20 -o profile --backend page-fault -- "$wl" -d 3 -p 64 -H 20 alpha:2:A beta:2:A gamma:2 delta:2 2> >(grep -v '^\[record\]' >&2)
echo "== scxprof process -f profile.tar.gz"
"$bin" process -f profile.tar.gz
echo "== scxprof extract -v -f profile.out/perf.jsonl"
"$bin" extract -v -f profile.out/perf.jsonl >config.json
cat config.json
python3 - config.json <<'PY'
import json, sys
names = {s["name"] for cell in json.load(open(sys.argv[1])) for s in cell.get("subcells", [])}
want = {"alpha-+beta-", "gamma-", "delta-"}
if want <= names:
    print("== planted groups recovered: alpha and beta together; gamma and delta apart")
else:
    sys.exit(f"demo: planted groups NOT recovered: subcells {sorted(names)}, want {sorted(want)}")
PY
echo "== files kept in $demo"
