#!/usr/bin/env bash
# test_process_errors.sh - hostile and corrupt input: every case must give a
# clear one-line error naming the file, exit 1, and leave no output behind
# (no PROFILE.out, no extracted directory, nothing outside the target).
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"

# expect_process_error NAME DIR_OR_ARCHIVE PATTERN: process fails as bad
# input must (lib.sh's error_exit: exit 1, one line matching PATTERN, no
# stdout), the line names the file, and no output is left behind
expect_process_error() {
	local name=$1 input=$2 pattern=$3 base
	base=${input%.tar.gz}
	if ! error_exit "$pattern" "$SCXPROF" process -f "$input"; then
		fail "$name" "$ERROR_WHY"
	elif ! grep -qF -- "$(basename "$base")" "$WORK/cmd.err"; then
		fail "$name" "error does not name the file: $(cat "$WORK/cmd.err")"
	elif ls -d "$base.out"* >/dev/null 2>&1; then
		fail "$name" "output left behind: $(ls -d "$base.out"*)"
	else
		pass "$name"
	fi
}

# --- corrupt perf.data ----------------------------------------------------
if perf record -q -e page-faults -c 1 -g -d -o "$WORK/good.data" -- "$WL" -i 20 -p 8 g:1 >/dev/null 2>&1; then
	for kind in truncated-header bad-magic data-past-eof attrs-past-eof record-size-zero record-past-end \
		short-sample absurd-callchain truncated-data; do
		mkdir -p "$WORK/c-$kind"
		python3 "$TOP/tests/integration/corrupt_perf.py" "$kind" "$WORK/good.data" "$WORK/c-$kind/perf.data"
		expect_process_error "corrupt perf.data: $kind" "$WORK/c-$kind" "perf.data"
	done
else
	skip "corrupt perf.data cases" "perf cannot record here to make the valid base file"
fi
mkdir -p "$WORK/empty-file"
: >"$WORK/empty-file/perf.data"
expect_process_error "corrupt perf.data: empty file" "$WORK/empty-file" "perf.data"

# --- hostile archives -------------------------------------------------------
for kind in not-gzip gzip-not-tar empty two-top absolute dotdot symlink-out symlink-then-file \
	hardlink-out fifo chardev truncated; do
	python3 "$TOP/tests/integration/hostile_archive.py" "$kind" "$WORK/a-$kind.tar.gz"
	expect_process_error "hostile archive: $kind" "$WORK/a-$kind.tar.gz" "a-$kind"
	if [ -e "$WORK/a-$kind" ] || ls "$WORK"/a-$kind.tmp* >/dev/null 2>&1; then
		fail "hostile archive: $kind leaves nothing" "$(ls -d "$WORK"/a-$kind*)"
	fi
done
for evil in /tmp/scxprof-evil-abs /tmp/scxprof-evil-through-link "$(dirname "$WORK")/scxprof-evil-dotdot"; do
	if [ -e "$evil" ]; then fail "hostile archives wrote outside the target" "$evil exists"; rm -f "$evil"; fi
done
check "empty archive: upstream wording" bash -c "'$SCXPROF' process -f '$WORK/a-empty.tar.gz' 2>&1 | grep -q 'appears to be empty'"
check "two top-level entries: upstream wording" bash -c "'$SCXPROF' process -f '$WORK/a-two-top.tar.gz' 2>&1 | grep -q 'contains multiple top-level entries'"

# --- output directory rules -------------------------------------------------
cp -r "$TOP/tests/fixtures/profile_basic" "$WORK/p"
"$SCXPROF" process -f "$WORK/p" >/dev/null 2>&1
echo keep >"$WORK/p.out/marker"
"$SCXPROF" process -f "$WORK/p" >/dev/null 2>"$WORK/err.txt"
rc=$?
if [ $rc -eq 1 ] && grep -q "already exists" "$WORK/err.txt" && [ -f "$WORK/p.out/marker" ]; then
	pass "existing output directory is refused and kept"
else
	fail "existing output directory is refused" "rc=$rc $(cat "$WORK/err.txt")"
fi
if "$SCXPROF" process -f "$WORK/p" --force >/dev/null 2>&1 && [ ! -e "$WORK/p.out/marker" ] && [ -s "$WORK/p.out/perf.jsonl" ]; then
	pass "--force replaces the output directory"
else
	fail "--force replaces the output directory" "$(ls "$WORK/p.out")"
fi
expect_process_error "missing input" "$WORK/does-not-exist" "No such file"
mkdir -p "$WORK/nostream"
expect_process_error "directory without a memory stream" "$WORK/nostream" "no memory stream"
mkdir -p "$WORK/badhints" && cp "$TOP/tests/fixtures/profile_basic/perf.mem.script" "$WORK/badhints/"
echo '{"pid": 1, "tgid": 1, "hints": "x", "timestamp": 5}' >"$WORK/badhints/hints.jsonl"
expect_process_error "malformed hints.jsonl" "$WORK/badhints" "hints.jsonl:1"
