#!/usr/bin/env bash
# run.sh - `make bench`: every benchmark in bench/, each printing ratios
# against its peer measured in the same run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for b in "$here"/bench_*.sh; do
	bash "$b" || rc=1
done
exit $rc
