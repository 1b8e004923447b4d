#!/usr/bin/env bash
# test_zstd.sh - `process -z` writes perf.jsonl.zst and sched.jsonl.zst that
# decompress to exactly the plain run's perf.jsonl and sched.jsonl; extract,
# the sched commands and report read them (known by their magic bytes, not
# their name) with the same results as the plain files; corrupt, truncated
# and cut compressed input fails with one line naming the file, exit 1,
# nothing on stdout and no output left; DuckDB reads the files as they are
# (when @duckdb/node-api is installed under tests/).
. "$(dirname "$0")/lib.sh"
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "zstd outputs" "perf_event_open of software events is refused here"
	exit 0
fi
cd "$WORK" || exit 1
if ! shared_recording prof; then
	fail "the shared recording (lib.sh)" "$SHARED_WHY"
	exit 0
fi
"$SCXPROF" process -f prof -o plain >/dev/null 2>p.err || { fail "process (plain)" "$(tail -n 3 p.err)"; exit 0; }
assert_onepass "the shared recording" "$WORK/prof"
if "$SCXPROF" process -f prof -z -o z >z.out 2>z.err; then
	pass "process -z runs"
else
	fail "process -z runs" "$(tail -n 3 z.err)"; exit 0
fi
check "process -z: perf.jsonl.zst and no perf.jsonl" test -s z/perf.jsonl.zst -a ! -e z/perf.jsonl
# record without --disable-sched-trace fails when it cannot load its sched
# programs: a recording that ran always has a sched.data with the workload's
# switches in it
check "record wrote sched.data" test -s prof/sched.data
check "process -z: sched.jsonl.zst and no sched.jsonl" test -s z/sched.jsonl.zst -a ! -e z/sched.jsonl
check "process -z: trace.pftrace and process.json as without -z" \
	cmp plain/trace.pftrace z/trace.pftrace
check "process -z: the listing names the .zst files" grep -q "perf.jsonl.zst (" z.out

# the compressed files hold exactly the plain ones, frames with checksums
# (python's zlib has no zstd: decompress with our own reader, then with the
# zstd tool when it is there)
unzst() { # FILE: decompressed to stdout by the zstd tool
	zstd -q -dc "$1"
}
for f in perf.jsonl sched.jsonl; do
	[ -e "plain/$f" ] || continue
	if command -v zstd >/dev/null; then
		check "$f.zst decompresses (zstd -dc) to the plain $f" cmp <(unzst "z/$f.zst") "plain/$f"
		check "$f.zst carries a content checksum (zstd -lv)" bash -c "zstd -lv 'z/$f.zst' 2>&1 | grep -q 'Check: XXH64'"
	else
		skip "$f.zst vs plain with zstd -dc" "the zstd tool is not installed"
	fi
done
ratio=$(awk -v a="$(stat -c %s plain/perf.jsonl)" -v b="$(stat -c %s z/perf.jsonl.zst)" 'BEGIN { printf "%.1f", a / b }')
echo "perf.jsonl $(stat -c %s plain/perf.jsonl) bytes, perf.jsonl.zst $(stat -c %s z/perf.jsonl.zst) bytes (${ratio}x)"
check "perf.jsonl.zst is at least 4x smaller" awk -v r="$ratio" 'BEGIN { exit !(r >= 4) }'

# extract (and -v) on the .zst files: the same config and the same text
# (apart from the sched file's name)
"$SCXPROF" extract -f plain/perf.jsonl -v >e1.json 2>e1.err
"$SCXPROF" extract -f z/perf.jsonl.zst -v >e2.json 2>e2.err
check "extract -f perf.jsonl.zst: the same config as on perf.jsonl" cmp e1.json e2.json
check "extract -v: the same text (sched.jsonl.zst found next to it)" \
	cmp <(sed 's#plain/sched.jsonl#SCHED#; s#plain/#DIR/#g' e1.err) <(sed 's#z/sched.jsonl.zst#SCHED#; s#z/#DIR/#g' e2.err)
check "extract reads a .zst by its magic, whatever its name" bash -c \
	"cp z/perf.jsonl.zst renamed.jsonl && '$SCXPROF' extract -f renamed.jsonl --sched z/sched.jsonl.zst | cmp - e1.json"
check "extract -f - reads zstd from a pipe" bash -c \
	"cat z/perf.jsonl.zst | '$SCXPROF' extract -f - --sched plain/sched.jsonl | cmp - e1.json"
for c in "sched stats" "sched util"; do
	# shellcheck disable=SC2086
	"$SCXPROF" extract $c -f plain/sched.jsonl >s1 2>&1
	# shellcheck disable=SC2086
	"$SCXPROF" extract $c -f z/sched.jsonl.zst >s2 2>&1
	check "extract $c: the same on sched.jsonl.zst" cmp s1 s2
done
if "$SCXPROF" report -f z >r.out 2>r.err && [ -s z/report.html ]; then
	pass "report -f PROFILE.out with only .zst files"
	check "report: the same config in the page as from the plain files" bash -c \
		"'$SCXPROF' report -f plain >/dev/null 2>&1 && grep -c 'alpha' plain/report.html >a && grep -c 'alpha' z/report.html >b && cmp a b"
else
	fail "report -f PROFILE.out with only .zst files" "$(tail -n 3 r.err)"
fi

# hostile compressed input: one line naming the file, exit 1, no stdout
size=$(stat -c %s z/perf.jsonl.zst)
head -c $((size / 2)) z/perf.jsonl.zst >cut.zst
python3 - z/perf.jsonl.zst flipped.zst <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
d[len(d) // 2] ^= 0x5a
open(sys.argv[2], 'wb').write(d)
PY
printf '\x28\xb5\x2f\xfd' >magic.zst
{ cat z/perf.jsonl.zst; printf 'trailing garbage'; } >trailing.zst
expect_error "extract: a cut .zst is an error naming the file" \
	"^scxprof extract: cut.zst: truncated zstd data" "$SCXPROF" extract -f cut.zst --sched plain/sched.jsonl
# a flipped byte may decode to bad text first (the frame's checksum is at its end)
expect_error "extract: a flipped byte is an error naming the file" \
	"^scxprof extract: flipped.zst(: corrupt zstd data|:[0-9]+: )" "$SCXPROF" extract -f flipped.zst --sched plain/sched.jsonl
expect_error "extract: the magic alone is an error naming the file" \
	"^scxprof extract: magic.zst: truncated zstd data" "$SCXPROF" extract -f magic.zst --sched plain/sched.jsonl
expect_error "extract: garbage after the last frame is an error naming the file" \
	"^scxprof extract: trailing.zst: corrupt zstd data" "$SCXPROF" extract -f trailing.zst --sched plain/sched.jsonl
head -c $(($(stat -c %s z/sched.jsonl.zst) / 2)) z/sched.jsonl.zst >scut.zst
expect_error "extract: a cut sched.jsonl.zst is an error naming it" \
	"^scxprof extract: scut.zst: truncated zstd data" "$SCXPROF" extract -f plain/perf.jsonl --sched scut.zst
expect_error "extract sched stats: a cut .zst is an error naming it" \
	"^scxprof extract sched stats: scut.zst: truncated zstd data" "$SCXPROF" extract sched stats -f scut.zst
mkdir -p bad.out && cp cut.zst bad.out/perf.jsonl.zst
"$SCXPROF" report -f bad.out >out 2>err
rc=$?
if [ $rc -eq 1 ] && grep -q "truncated zstd data" err && ! ls bad.out | grep -q report; then
	pass "report: a cut perf.jsonl.zst fails, no page left"
else
	fail "report: a cut perf.jsonl.zst fails, no page left" "exit $rc, $(head -c 200 err), $(ls bad.out)"
fi

# DuckDB reads the files as they are (README says how)
duck="$TOP/tests/node_modules/@duckdb/node-api"
if [ ! -d "$duck" ]; then
	skip "DuckDB read_json(..., compression='zstd')" \
		"@duckdb/node-api is not installed under tests/ (make deps tries: npm install @duckdb/node-api)"
else
	cat >"$WORK/duck.cjs" <<'JS'
const { DuckDBInstance } = require(process.env.DUCK);
(async () => {
	const db = await DuckDBInstance.create(':memory:');
	const c = await db.connect();
	const q = async (f, z) => (await c.runAndReadAll(
		`select count(*)::varchar, count(distinct tid)::varchar, sum(tid)::varchar, max(comm) from read_json('${f}', format = 'newline_delimited', compression = '${z}')`)).getRows()[0].join(' ');
	console.log(await q(process.argv[2], 'zstd'));
	console.log(await q(process.argv[3], 'uncompressed'));
})().catch((e) => { console.error(String(e)); process.exit(1); });
JS
	if out=$(DUCK="$duck" node "$WORK/duck.cjs" "$WORK/z/perf.jsonl.zst" "$WORK/plain/perf.jsonl" 2>&1); then
		a=$(echo "$out" | sed -n 1p) b=$(echo "$out" | sed -n 2p)
		lines=$(wc -l <plain/perf.jsonl)
		if [ "$a" = "$b" ] && [ "${a%% *}" = "$lines" ]; then
			pass "DuckDB reads perf.jsonl.zst: $a (count, threads, sum of tids, max comm) as from perf.jsonl"
		else
			fail "DuckDB reads perf.jsonl.zst" "zst: '$a', plain: '$b', lines $lines"
		fi
	else
		fail "DuckDB reads perf.jsonl.zst" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
fi
exit 0
