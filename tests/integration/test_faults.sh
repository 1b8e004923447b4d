#!/usr/bin/env bash
# test_faults.sh - messages under faults say what happened: a full file
# system (a tiny tmpfs mounted here) while record writes its files or its
# archive, and while process writes its output; extract writing to a full
# device; a directory given where a file is expected. One clear line naming
# the file and the system's reason, non-zero exit, nothing left behind.
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"
FULL="$WORK/full"

if [ "$(id -u)" != 0 ]; then
	skip "faults" "not root (mounting a tmpfs and recording need it)"
	exit 0
fi
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=256k tmpfs "$FULL" 2>"$WORK/mount.err"; then
	skip "faults" "cannot mount a tmpfs: $(cat "$WORK/mount.err")"
	exit 0
fi
trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT
empty() { # DIR: nothing in it
	[ -z "$(ls -A "$1")" ] || { ls -la "$1"; return 1; }
}
one_error() { # FILE PATTERN: exactly one "scxprof CMD:" line, and it matches
	local n
	n=$(grep -c '^scxprof [a-z]*: ' "$1")
	[ "$n" = 1 ] && grep -q "$2" "$1" || { cat "$1"; return 1; }
}

# --- record --disable-archive: kallsyms (5 MB) does not fit ------------------------
"$SCXPROF" record --disable-archive -o "$FULL/out" -t 1 -- true >"$WORK/r1.out" 2>"$WORK/r1.err"
rc=$?
if [ $rc -ne 0 ]; then pass "full fs, no archive: record fails"; else fail "full fs, no archive: record fails" "exit 0"; fi
check "full fs, no archive: says the disk is full (ENOSPC), not another errno" \
	one_error "$WORK/r1.err" 'kallsyms: write failed: No space left on device$'
check "full fs, no archive: nothing left behind" empty "$FULL"

# --- record with the archive on a full fs (the profile itself fits elsewhere) ------
"$SCXPROF" record -o "$WORK/prof" -f "$FULL/prof.tar.gz" -t 1 -- true >"$WORK/r2.out" 2>"$WORK/r2.err"
rc=$?
if [ $rc -ne 0 ]; then pass "full fs, archive: record fails"; else fail "full fs, archive: record fails" "exit 0"; fi
check "full fs, archive: says the disk is full, not only 'Write error'" \
	one_error "$WORK/r2.err" 'prof.tar.gz: .*No space left on device$'
check "full fs, archive: no partial archive" empty "$FULL"
check "full fs, archive: no profile directory left" bash -c '! ls -d "$1"* 2>/dev/null | grep -q .' _ "$WORK/prof"

# --- process: output on a full fs ---------------------------------------------------
mkdir -p "$WORK/pf"
perf record -q -e page-faults -c 1 -d --phys-data -o "$WORK/pf/perf.data" -- "$WL" -d 0.2 -p 16 a:1 >/dev/null 2>&1
if [ -s "$WORK/pf/perf.data" ]; then
	"$SCXPROF" process -f "$WORK/pf" -o "$FULL/pout" --no-filter >/dev/null 2>"$WORK/p.err"
	rc=$?
	if [ $rc -ne 0 ]; then pass "full fs: process fails"; else fail "full fs: process fails" "exit 0"; fi
	check "full fs: process says No space left on device, once" one_error "$WORK/p.err" 'No space left on device'
	check "full fs: process leaves nothing behind" empty "$FULL"
	"$SCXPROF" process -f "$WORK/pf" -o "$WORK/pf.out" --no-filter >/dev/null 2>&1
	if [ -s "$WORK/pf.out/perf.jsonl" ]; then
		"$SCXPROF" extract -f "$WORK/pf.out/perf.jsonl" >/dev/full 2>"$WORK/x.err"
		rc=$?
		if [ $rc -ne 0 ]; then pass "extract to a full device fails"; else fail "extract to a full device fails" "exit 0"; fi
		check "extract to a full device: says No space left on device" one_error "$WORK/x.err" 'No space left on device'
	else
		fail "process into a roomy directory" "no perf.jsonl"
	fi
else
	skip "full fs: process output" "perf cannot record page faults here"
fi

# --- a directory where a file is expected ----------------------------------------
# (extract takes a profile directory too: an empty one has no stream to read)
mkdir -p "$WORK/adir"
"$SCXPROF" extract -f "$WORK/adir" >"$WORK/d.out" 2>"$WORK/d.err"
rc=$?
if [ $rc -ne 0 ] && [ ! -s "$WORK/d.out" ]; then pass "directory given as a file: fails, no output"; else fail "directory given as a file" "exit $rc, output $(head -c 100 "$WORK/d.out")"; fi
check "directory given as a file: names it" one_error "$WORK/d.err" "adir: no memory stream found"
