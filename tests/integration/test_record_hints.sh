#!/usr/bin/env bash
# test_record_hints.sh - the hints tracer (record/streams/hints_tracer.c) end to end:
# a pinned task-storage map, a helper that sets hints of its threads at known
# CLOCK_MONOTONIC times (tests/workloads/hint-setter.c) and the tracer driver
# (tests/workloads/hints-trace.c, which can force snapshot mode; test_record_hints_cli.sh
# drives `scxprof record --hints-map`).
# Every update the helper made must be in hints.jsonl, in order, with the
# right pid/tgid/value and a timestamp between the update and the next one.
# The default run tries fentry first (the mode it ends up in is checked either
# way); a second run forces the iter/task snapshot mode on a map with another
# value size. Needs root; pins in a bpffs instance of its own (lib.sh).
# No check depends on timing: in snapshot mode the helper holds each value
# until the tracer has completed two snapshots after the change (the
# tracer's -P progress file), so every value is seen however loaded the
# machine is.
. "$(dirname "$0")/lib.sh"
TRACE="$TOP/$BUILD/workloads/hints-trace"
SETTER="$TOP/$BUILD/workloads/hint-setter"

if [ "$(id -u)" -ne 0 ]; then
	skip "record hints" "needs root (bpf maps, bpffs)"
	exit 0
fi
for b in "$TRACE" "$SETTER"; do
	if [ ! -x "$b" ]; then fail "record hints: build" "$b missing (make $BUILD/workloads/$(basename "$b"))"; exit 0; fi
done
cleanup() { bpffs_private_umount; rm -rf "$WORK"; }
trap cleanup EXIT
if ! PIN=$(bpffs_private 2>"$WORK/mount.err"); then
	skip "record hints" "mount -t bpf failed: $(cat "$WORK/mount.err")"
	exit 0
fi
if ! "$TRACE" --create "$PIN/hints" 2>"$WORK/create.err"; then
	skip "record hints" "cannot create a task-storage map: $(cat "$WORK/create.err")"
	exit 0
fi
check "create a 32-byte-value task-storage map" "$TRACE" --create "$PIN/hints32" --value-size 32
check "create a hash map" "$TRACE" --create "$PIN/hash" --hash

# the driver, given bad ARGS, fails as bad input must (lib.sh's expect_error)
hints_args_error() { # NAME WANT_REGEX ARGS...
	local name=$1 want=$2
	shift 2
	expect_error "$name" "$want" "$TRACE" "$@" -o "$WORK/err.jsonl" -d 1
}
hints_args_error "missing map path is named" "$PIN/nope: no such file" -m "$PIN/nope"
hints_args_error "file outside bpffs is refused" "/etc/hostname: not a pinned BPF object" -m /etc/hostname
hints_args_error "hash map: says its type" "is a hash map \\(type 1\\), not a task-storage map" -m "$PIN/hash"
hints_args_error "ring size must be a power of two" "must be a power of two" -m "$PIN/hints" -r 3

# record MAP NAME EXTRA...: run the tracer around one hint-setter run; leaves
# $WORK/NAME.{jsonl,stats,err,set}
record() {
	local map=$1 name=$2; shift 2
	# -d only guards against a hang: SIGINT ends it
	"$TRACE" -m "$map" -o "$WORK/$name.jsonl" -d 600 -P "$WORK/$name.progress" "$@" \
		>"$WORK/$name.stats" 2>"$WORK/$name.err" &
	local pid=$! i progress=
	# until it says ready or exits (no time limit: a loaded host loads BPF slowly)
	while ! grep -q '^ready ' "$WORK/$name.err" && kill -0 $pid 2>/dev/null; do sleep 0.1; done
	if ! grep -q '^ready ' "$WORK/$name.err"; then
		kill -INT $pid 2>/dev/null; wait $pid
		fail "$name: tracer started" "$(cat "$WORK/$name.err")"
		return 1
	fi
	pass "$name: tracer started ($(sed -n 's/^ready //p' "$WORK/$name.err"))"
	# snapshot mode: hold each value until the tracer has seen it
	grep -qx 'ready iter-snapshot' "$WORK/$name.err" && progress="$WORK/$name.progress"
	"$SETTER" "$map" 4 5 60 $progress >"$WORK/$name.set" 2>"$WORK/$name.set.err" ||
		fail "$name: hint-setter ran" "$(cat "$WORK/$name.set.err")"
	kill -INT $pid
	wait $pid
	local rc=$?
	[ $rc -eq 0 ] && pass "$name: tracer exits 0 on SIGINT" || fail "$name: tracer exit" "rc=$rc: $(cat "$WORK/$name.err")"
	# the signal ended it, not its deadline (what it says, not how long it took)
	grep -qx "stopped by signal" "$WORK/$name.err" && pass "$name: stopped by the signal" ||
		fail "$name: stop" "$(grep '^stopped by' "$WORK/$name.err")"
	return 0
}

# compare NAME: every update of the setter is in NAME.jsonl (see the header)
compare() {
	python3 - "$WORK/$1.set" "$WORK/$1.jsonl" "$WORK/$1.stats" <<'EOF'
import json, re, sys
sets = [json.loads(l) for l in open(sys.argv[1])]
lines = open(sys.argv[2]).read().splitlines()
stats = json.loads(open(sys.argv[3]).read())
errs = []
pat = re.compile(r'^\{"pid":\d+,"tgid":\d+,"hints":\d+,"timestamp":\d+\}$')
bad = [l for l in lines if not pat.match(l)]
if bad:
    errs.append("lines not in upstream form: %r" % bad[:2])
recs = [json.loads(l) for l in lines]
if stats["updates_written"] != len(recs):
    errs.append("updates_written %d but %d lines" % (stats["updates_written"], len(recs)))
if len(sets) != 4 * 5 + 1 + 4 + 1:
    errs.append("setter made %d updates" % len(sets))
tgid = sets[0]["tgid"]
fentry = stats["mode"] == "fentry"
by_tid = {}
for s in sets:
    by_tid.setdefault(s["tid"], []).append(s)
got = {}
for r in recs:
    if r["tgid"] == tgid or r["pid"] in by_tid:
        got.setdefault(r["pid"], []).append(r)
if set(got) != set(by_tid):
    errs.append("tids traced %s, set %s" % (sorted(got), sorted(by_tid)))
for tid, want in by_tid.items():
    have = got.get(tid, [])
    if [r["hints"] for r in have] != [s["hints"] for s in want]:
        errs.append("tid %d: values %s, want %s" % (tid, [r["hints"] for r in have], [s["hints"] for s in want]))
        continue
    for i, (r, s) in enumerate(zip(have, want)):
        hi = s["after"] if fentry else (want[i + 1]["after"] if i + 1 < len(want) else float("inf"))
        if r["tgid"] != tgid:
            errs.append("tid %d: tgid %d, want %d" % (tid, r["tgid"], tgid))
        if not s["before"] <= r["timestamp"] <= hi:
            errs.append("tid %d value %d: timestamp %d outside [%d, %s]" % (tid, r["hints"], r["timestamp"], s["before"], hi))
big = [r for r in recs if r["hints"] >= 1 << 63]
if not big:
    errs.append("no value above 2^63 recorded")
if errs:
    print("; ".join(errs[:5]))
    sys.exit(1)
EOF
}

if record "$PIN/hints" default; then
	check "default: every update in hints.jsonl, in order, with its tid/tgid/value/time" compare default
	check "default: hints.jsonl valid" validate "$TOP/schemas/hints.schema.json" "$WORK/default.jsonl" --jsonl
	mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mode"])' "$WORK/default.stats" 2>/dev/null)
	why=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["why_not_fentry"])' "$WORK/default.stats" 2>/dev/null)
	case "$mode" in
	fentry) [ -z "$why" ] && pass "default: fentry mode" || fail "default: fentry mode" "why_not_fentry set: $why" ;;
	iter-snapshot)
		# fentry was tried first and the reason names the attach point and the kernel's answer
		if [[ "$why" == fentry/bpf_* ]] && [[ "$why" == *failed:* ]]; then
			pass "default: fell back to iter-snapshot, fentry tried first ($why)"
		else
			fail "default: why not fentry" "'$why'"
		fi ;;
	*) fail "default: mode" "'$mode' in $(cat "$WORK/default.stats")" ;;
	esac
	check "default: no drops" grep -q '"drops":0,' "$WORK/default.stats"
fi

if record "$PIN/hints32" forced -s -p 5; then
	check "forced snapshot: every update in hints.jsonl (32-byte values)" compare forced
	check "forced snapshot: mode and reason" grep -q '"mode":"iter-snapshot","why_not_fentry":"snapshot mode forced"' "$WORK/forced.stats"
	# snapshots kept coming while the helper ran: it held each change until
	# two more snapshots completed (it exits 1 if none comes), and its
	# longest chain of changes one after another is 12 (worker 0: 5 sets, a
	# delete, a set; then the main thread's 5): at least 24 snapshots, a
	# count of the tracer's progress, not of time
	snaps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["snapshots"])' "$WORK/forced.stats" 2>/dev/null)
	[ "${snaps:-0}" -ge 24 ] && pass "forced snapshot: snapshots kept coming ($snaps)" || fail "forced snapshot: snapshots" "${snaps:-none}"
fi
