#!/usr/bin/env bash
# test_sharing_bench.sh - the sharing verdict on two more programs nobody here
# wrote, whose truth is known by construction (docs/clustering.md, "Real
# programs at every rate and backend", "First touches"):
#   sqlite3: four sqlite3 CLI processes (Debian's sqlite3, run under four
#     names: sqa-scan, sqa-sum, sqb-scan, sqb-sum) read two databases in WAL
#     mode with mmap_size set, the sqa- pair database A, the sqb- pair B. Each
#     pair reads the same mapped file pages (about a third of their sampled
#     accesses), the two pairs share nothing (different files): sqa-scan+sqa-sum
#     and sqb-scan+sqb-sum, never an sqa- unit with an sqb- one;
#   perf bench numa mem -p 2 -t 1 -G 4: two processes walk one 4 MiB
#     MAP_SHARED buffer (units "thread 0/" and "thread 1/", perf's thread
#     names without their digits): merged; with -P 4 -G 0 each process walks
#     its own 4 MiB: never merged, never "shared".
# Recorded with the decode backend at -F 4000 (where these decide with the
# work below); under make bench (lib.sh's study) sqlite also at the default
# rate and with the page-fault backend on the 4 MiB text, where the tool may
# say "cannot tell" but never the wrong thing.
# Page-fault samples are first touches (one per page a process maps), no
# sample of the accesses: on the two sqlite variants (the 4 MiB text, and
# short rows where 2-3% of the accesses but a third of the first touches
# are on the database) the readers of one database must say "cannot tell"
# with -v naming first touches, never shared, never merged.
# The work is fixed (queries, loops) and cpu-clock samples follow CPU time,
# so the samples do not depend on the host's load; a pair that must merge
# and says "cannot tell" is recorded again with twice the work (up to 4x),
# then fails with what -v said. The test runs in a session of its own whose
# autogroup has nice -20 (as test_sharing_redis.sh). The programs run in an
# allotment cgroup of this run's own, and only -v's lines of that cell are read.
. "$(dirname "$0")/lib.sh"
own_session "$@"

if [ "$(id -u)" -ne 0 ]; then
	skip "sqlite and perf bench sharing" "needs root (system-wide sampling, pagemap frame numbers)"
	exit 0
fi
if ! allotment_cgroup bench; then
	skip "sqlite and perf bench sharing" "no cgroup2 mount"
	exit 0
fi

# run NAME RECORD-OPTIONS... -- CMD...: lib.sh's allotment_run in $WORK/NAME
# (subcells in $WORK/NAME/sub), the archive removed
run() {
	local name=$1
	shift
	allotment_run "$WORK/$name" 300 "$@" || { fail "$name recording" "$RUN_WHY"; return 1; }
	rm -f "$WORK/$name/prof.tar.gz"
}

# verdict NAME A B: shared, apart, cannot tell, or none (-v lists no such pair:
# no data in common), from the first line estimate -v prints for A ~ B
verdict() {
	local v
	v=$(allotment_log "$WORK/$1/err" | grep -A1 -m1 -E "^    ($2 ~ $3|$3 ~ $2): " | tail -n 1 |
		sed -n 's/.* in common blocks: \(shared\|apart\|cannot tell\).*/\1/p')
	echo "${v:-none}"
}

# pairline NAME A B: -v's estimate for A ~ B, for messages
pairline() {
	allotment_log "$WORK/$1/err" | grep -A1 -m1 -E "^    ($2 ~ $3|$3 ~ $2): " | tr -s ' \n' ' '
}

# in_one NAME A B: A and B are members of one subcell
in_one() {
	python3 - "$WORK/$1/sub" "$2" "$3" <<'PY'
import sys
sub, a, b = sys.argv[1:]
sys.exit(0 if any(a in s.split("+") and b in s.split("+") for s in open(sub).read().splitlines()) else 1)
PY
}

# is_unit NAME U: U is a member of some subcell
is_unit() {
	tr '+' '\n' <"$WORK/$1/sub" | grep -qxF "$2"
}

# --- sqlite3: two databases, two readers each ---
if ! command -v sqlite3 >/dev/null; then
	skip "sqlite3 sharing" "sqlite3 not installed (make deps installs it)"
else
	db="$WORK/db"
	mkdir -p "$db"
	for x in a b; do
		# 4000 rows of 900 hex digits (about 4 MiB), WAL mode
		sqlite3 "$db/$x.db" "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER, c TEXT);
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
			INSERT INTO t SELECT i, substr(hex(randomblob(450)), 1, 900) FROM n;" >/dev/null
		for r in scan sum; do ln -s "$(command -v sqlite3)" "$db/sq$x-$r"; done
	done
	# sq4 SCANS: the four readers, each its fixed number of queries (LIKE '%zz%' never
	# matches hex: every byte of every row is read from the mapping)
	cat >"$db/sq4.sh" <<'EOF'
#!/bin/sh
cd "$(dirname "$0")"
q() { echo "PRAGMA mmap_size=268435456;"; i=0; while [ $i -lt $2 ]; do echo "$1"; i=$((i + 1)); done; }
q "SELECT count(*) FROM t WHERE c LIKE '%zz%';" $1 >scan-$1.sql
q "SELECT count(*) FROM t WHERE instr(c, 'zz') > 0;" $(($1 / 4)) >sum-$1.sql
for x in a b; do
	./sq$x-scan $x.db <scan-$1.sql >/dev/null &
	./sq$x-sum $x.db <sum-$1.sql >/dev/null &
done
wait
EOF
	chmod +x "$db/sq4.sh"
	units="sqa-scan sqa-sum sqb-scan sqb-sum"
	# sqlite_checks NAME: the checks that hold at any rate, on a run where the four are units
	sqlite_checks() {
		local n=$1 x v
		check "sqlite $n: no sqa- unit in a subcell with an sqb- one ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
			bash -c "! grep -E 'sqa-' '$WORK/$n/sub' | grep -q 'sqb-'"
		for x in a b; do
			v=$(verdict "$n" "sq$x-scan" "sq$x-sum")
			check "sqlite $n: sq$x-scan ~ sq$x-sum (one database) never apart ($v)" \
				sh -c "[ '$v' = shared ] || [ '$v' = 'cannot tell' ]"
			if [ "$v" = "cannot tell" ]; then
				check "sqlite $n: sq$x-scan and sq$x-sum not merged while it cannot tell" \
					bash -c "! grep -E 'sq$x-scan' '$WORK/$n/sub' | grep -q 'sq$x-sum'"
			fi
		done
		for v in "$(verdict "$n" sqa-scan sqb-scan)" "$(verdict "$n" sqa-sum sqb-sum)" "$(verdict "$n" sqa-scan sqb-sum)"; do
			[ "$v" = shared ] && { fail "sqlite $n: a pair across the databases shared" "$(allotment_log "$WORK/$n/err" | grep -A1 -E '^    sq(a|b)-.* ~ sq(a|b)-' | head -n 8 | tr -s ' \n' ' ')"; return; }
		done
		pass "sqlite $n: no pair across the databases is shared"
	}
	# first_touch_checks NAME: a page-fault recording's readers fault once per page of the
	# database (first touches): the pair on one database is never shared nor merged, -v says
	# why (before: "shared" on the share of first touches, which is not the share of accesses)
	first_touch_checks() {
		local n=$1 x v
		check "sqlite $n: -v says the evidence is first touches" \
			grep -q '^  evidence: first touches ' "$WORK/$n/err"
		for x in a b; do
			v=$(verdict "$n" "sq$x-scan" "sq$x-sum")
			check "sqlite $n: sq$x-scan ~ sq$x-sum on first touches cannot tell ($v: $(pairline "$n" "sq$x-scan" "sq$x-sum"))" \
				sh -c "[ '$v' = 'cannot tell' ]"
			check "sqlite $n: sq$x-scan ~ sq$x-sum says the first touches are no share of accesses" \
				sh -c "printf '%s' \"\$1\" | grep -q 'first touches only'" _ "$(pairline "$n" "sq$x-scan" "sq$x-sum")"
			check "sqlite $n: sq$x-scan and sq$x-sum not merged on first touches ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
				bash -c "! grep -E 'sq$x-scan' '$WORK/$n/sub' | grep -q 'sq$x-sum'"
		done
	}
	# -F 4000: both pairs decide shared with this work; twice the work when one cannot tell
	done_sq=""
	for scans in 3000 6000 12000; do
		n="sqlite-F4000-$scans"
		run "$n" --backend decode -F 4000 -- "$db/sq4.sh" $scans || break
		for u in $units; do is_unit "$n" "$u" || { echo "info: $n: $u is no unit: $(tr '\n' ' ' <"$WORK/$n/sub")"; continue 2; }; done
		sqlite_checks "$n"
		if [ "$(verdict "$n" sqa-scan sqa-sum)" = shared ] && [ "$(verdict "$n" sqb-scan sqb-sum)" = shared ]; then
			check "sqlite $n: sqa-scan+sqa-sum and sqb-scan+sqb-sum merged ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
				sh -c "grep -qx 'sqa-scan+sqa-sum' '$WORK/$n/sub' && grep -qx 'sqb-scan+sqb-sum' '$WORK/$n/sub'"
			done_sq=1
			break
		fi
		echo "info: $n undecided: $(pairline "$n" sqa-scan sqa-sum) | $(pairline "$n" sqb-scan sqb-sum)"
	done
	[ -n "$done_sq" ] || fail "sqlite -F 4000: each database's readers decided shared" "not after 12000 scans: $(pairline "$n" sqa-scan sqa-sum 2>/dev/null)"
	# the default rate and the page-fault backend: fewer samples, never a
	# wrong verdict (make bench, lib.sh's study; make test keeps the
	# page-fault backend's first touches on the short rows below)
	variants=""
	study && variants="default page-fault"
	for r in $variants; do
		n="sqlite-$r"
		if [ "$r" = default ]; then run "$n" --backend decode -- "$db/sq4.sh" 3000 || continue
		else run "$n" --backend page-fault -- "$db/sq4.sh" 3000 || continue; fi
		missing=""
		for u in $units; do is_unit "$n" "$u" || missing="$missing $u"; done
		if [ -n "$missing" ]; then
			skip "sqlite $r" "no unit:$missing ($(tr '\n' ' ' <"$WORK/$n/sub"))"
			continue
		fi
		sqlite_checks "$n"
		[ "$r" = page-fault ] && first_touch_checks "$n"
	done
	# short rows (docs/clustering.md "First touches"): 60,000 rows of two integers and 60 hex
	# digits a database; the readers spend 2-3% of their accesses on the database (decode at
	# -F 4000: apart) but a third of their first touches: the page-fault backend cannot tell
	for x in a b; do
		sqlite3 "$db/s$x.db" "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER, b INTEGER, c TEXT);
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
			INSERT INTO t SELECT i, i * 7, substr(hex(randomblob(30)), 1, 60) FROM n;" >/dev/null
	done
	cat >"$db/sq4short.sh" <<'EOF2'
#!/bin/sh
cd "$(dirname "$0")"
q() { echo "PRAGMA mmap_size=268435456;"; i=0; while [ $i -lt $2 ]; do echo "$1"; i=$((i + 1)); done; }
q "SELECT count(*) FROM t WHERE c LIKE '%abcd%';" 100 >short-scan.sql
q "SELECT sum(b), max(c) FROM t;" 200 >short-sum.sql
for x in a b; do
	./sq$x-scan s$x.db <short-scan.sql >/dev/null &
	./sq$x-sum s$x.db <short-sum.sql >/dev/null &
done
wait
EOF2
	chmod +x "$db/sq4short.sh"
	# a reader that is no unit is recorded again (up to 3 recordings), then fails: no skip
	done_short=""
	for try in 1 2 3; do
		n="sqlite-short-page-fault-$try"
		run "$n" --backend page-fault -- "$db/sq4short.sh" || break
		missing=""
		for u in $units; do is_unit "$n" "$u" || missing="$missing $u"; done
		if [ -n "$missing" ]; then
			echo "info: $n: no unit:$missing ($(tr '\n' ' ' <"$WORK/$n/sub"))"
			continue
		fi
		sqlite_checks "$n"
		first_touch_checks "$n"
		done_short=1
		break
	done
	[ -n "$done_short" ] || fail "sqlite short rows, page-fault: the four readers are units" \
		"not in 3 recordings:$missing ($(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null))"
fi

# --- perf bench numa mem: one shared buffer, or one buffer per process ---
if ! perf bench numa mem -h 2>&1 | grep -q -- '--mb_global'; then
	skip "perf bench numa mem sharing" "perf bench numa mem not available ($(perf bench numa mem -h 2>&1 | head -n 1))"
	exit 0
fi
done_numa=""
for loops in 4000 8000 16000; do
	n="numa-shared-$loops"
	run "$n" --backend decode -F 4000 -- perf bench numa mem -p 2 -t 1 -G 4 -P 0 -T 0 -l $loops -s 100000 -q || break
	if ! is_unit "$n" "thread 0/" || ! is_unit "$n" "thread 1/"; then
		echo "info: $n: a bench thread is no unit: $(tr '\n' ' ' <"$WORK/$n/sub")"
		continue
	fi
	v=$(verdict "$n" "thread 0/" "thread 1/")
	check "perf bench numa -G 4, -l $loops: thread 0/ ~ thread 1/ never apart ($v)" sh -c "[ '$v' != apart ] && [ '$v' != none ]"
	if [ "$v" = shared ]; then
		check "perf bench numa -G 4, -l $loops: thread 0/+thread 1/ merged ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
			in_one "$n" "thread 0/" "thread 1/"
		done_numa=1
		break
	fi
	check "perf bench numa -G 4, -l $loops: not merged while it cannot tell" \
		bash -c "! grep -F 'thread 0/' '$WORK/$n/sub' | grep -qF 'thread 1/'"
	echo "info: $n undecided: $(pairline "$n" "thread 0/" "thread 1/")"
done
[ -n "$done_numa" ] || fail "perf bench numa -G 4: the two processes decided shared" "not after 16000 loops: $(pairline "$n" "thread 0/" "thread 1/" 2>/dev/null)"

# each process walks its own buffers: never shared, never merged. A bench
# process that is no unit (too small a share of the cell's samples) is
# recorded again with twice the work (up to 4x), then fails: no skip.
done_private=""
for loops in 4000 8000 16000; do
	n="numa-private-$loops"
	run "$n" --backend decode -F 4000 -- perf bench numa mem -p 2 -t 2 -G 0 -P 4 -T 0 -l $loops -s 100000 -q || break
	if ! is_unit "$n" "thread 0/" || ! is_unit "$n" "thread 1/"; then
		echo "info: $n: a bench process is no unit: $(tr '\n' ' ' <"$WORK/$n/sub")"
		continue
	fi
	v=$(verdict "$n" "thread 0/" "thread 1/")
	check "perf bench numa -P 4, -l $loops: thread 0/ ~ thread 1/ (own buffers) not shared ($v: $(pairline "$n" "thread 0/" "thread 1/"))" \
		sh -c "[ '$v' != shared ]"
	check "perf bench numa -P 4, -l $loops: thread 0/ and thread 1/ not merged ($(tr '\n' ' ' <"$WORK/$n/sub"))" \
		bash -c "! grep -F 'thread 0/' '$WORK/$n/sub' | grep -qF 'thread 1/'"
	done_private=1
	break
done
[ -n "$done_private" ] || fail "perf bench numa -P 4: both bench processes are units" \
	"not after 16000 loops: $(tr '\n' ' ' <"$WORK/$n/sub" 2>/dev/null)"
