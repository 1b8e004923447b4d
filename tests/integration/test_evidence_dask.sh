#!/usr/bin/env bash
# test_evidence_dask.sh - examples/dask_evidence.py: the per-recording step
# (extract --evidence-out) mapped over a directory of recordings on a Dask
# LocalCluster (2 worker processes), then combined with --evidence-in, gives
# byte for byte the config and -v report of the one-shot
# `extract -f A -f B ...` over the same recordings: three planted
# recordings as PROFILE.out/ directories and a profile archive. SKIPs when
# Debian's python3-distributed is not installed (make deps installs it).
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"

# Debian's package is for /usr/bin/python3 (python3 on PATH may be another one)
PY=""
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import distributed' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	skip "Dask example" "python3-distributed is not installed (make deps installs it)"
	exit 0
fi
cd "$WORK" || exit 1
mkdir -p recs
for s in 1 2 3; do
	mkdir -p "recs/host$s.out"
	python3 "$TOOLS/gen_planted.py" "recs/host$s.out/perf.jsonl" --groups 3 --units 2 --lone 1 --seed "$s" >/dev/null
done
mkdir -p arc/host4 && cp "$TOP/tests/fixtures/profile_basic/"* arc/host4/ &&
	(cd arc && tar czf ../recs/host4.tar.gz host4)

"$PY" "$TOP/examples/dask_evidence.py" recs --evidence-dir ev --workers 2 --scxprof "$SCXPROF" -v \
	>dask.json 2>dask.err
rc=$?
check "Dask example: the map and the combine succeed" bash -c "test $rc -eq 0 && test -s dask.json"
check "Dask example: one evidence file per recording" bash -c "test \$(ls ev/*.evidence.json | wc -l) -eq 4"
R=$(cd recs && pwd)
"$SCXPROF" extract -v -f "$R/host1.out" -f "$R/host2.out" -f "$R/host3.out" -f "$R/host4.tar.gz" >one.json 2>one.err
check "Dask example: config = one-shot extract -f A -f B ... (byte for byte)" cmp one.json dask.json
check "Dask example: -v report = one-shot's" \
	bash -c "grep -v '^WARNING: ' one.err >one.rest && grep -E '^(Evidence|  /|$|Combined|  unit|  top|    |  merge|  refuse|  stop)' dask.err | cmp - one.rest"
check "Dask example: the planted groups merged" \
	bash -c "grep -q '\"ga-wa+ga-wb\"' dask.json && grep -q '\"gc-wa+gc-wb\"' dask.json"
