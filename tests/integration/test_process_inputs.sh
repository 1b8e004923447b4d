#!/usr/bin/env bash
# test_process_inputs.sh - the ways a profile reaches `process`: a .tar.gz
# (extracted next to itself, reused when already there), perf.mem.data
# taking precedence over the other names, pipe-mode perf.data refused
# clearly, and --symfs finding binaries that moved.
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"

# --- archive round trip -------------------------------------------------------
mkdir -p "$WORK/a/myprofile"
cp "$TOP/tests/fixtures/profile_basic/"* "$WORK/a/myprofile/"
(cd "$WORK/a" && tar czf myprofile.tar.gz myprofile && rm -rf myprofile)
if (cd "$WORK/a" && "$SCXPROF" process -f myprofile.tar.gz >"$WORK/a.out.txt" 2>&1); then
	check "archive: extracted next to itself" test -f "$WORK/a/myprofile/perf.mem.script"
	check "archive: output in PROFILE.out" test -s "$WORK/a/myprofile.out/perf.jsonl"
	check "archive: says where it extracted" grep -q "Extracted myprofile.tar.gz to myprofile" "$WORK/a.out.txt"
	rm -rf "$WORK/a/myprofile.out"
	(cd "$WORK/a" && "$SCXPROF" process -f myprofile.tar.gz >"$WORK/a2.out.txt" 2>&1)
	check "archive: existing extraction reused" grep -q "Using already extracted myprofile" "$WORK/a2.out.txt"
	check "archive: same result the second time" test "$(wc -l <"$WORK/a/myprofile.out/perf.jsonl")" -eq 8
else
	fail "archive: process ran" "$(cat "$WORK/a.out.txt")"
fi
# a top-level directory named differently from the archive (upstream renames it)
mkdir -p "$WORK/b/other-name"
cp "$TOP/tests/fixtures/profile_basic/"* "$WORK/b/other-name/"
(cd "$WORK/b" && tar czf renamed.tar.gz other-name && rm -rf other-name)
if "$SCXPROF" process -f "$WORK/b/renamed.tar.gz" >/dev/null 2>&1 && [ -f "$WORK/b/renamed/perf.mem.script" ]; then
	pass "archive: extracted into the archive's base name"
else
	fail "archive: extracted into the archive's base name" "$(ls -R "$WORK/b")"
fi

# --- which file wins ------------------------------------------------------------
mkdir -p "$WORK/both"
cp "$TOP/tests/fixtures/profile_basic/perf.mem.script" "$WORK/both/perf.script"
printf 'garbage\n' >"$WORK/both/perf.mem.script"
"$SCXPROF" process -f "$WORK/both" >"$WORK/both.txt" 2>&1
check "inputs: perf.mem.script wins over perf.script" grep -q "Parsed 0 of 1 records (0 skipped, 1 unparseable)" "$WORK/both.txt"

# --- symbolic links ------------------------------------------------------------------
# stream files may be links to regular files (followed, as perf does); a link
# to anything else is an error that says what it points to
mkdir -p "$WORK/store" "$WORK/ln"
cp "$TOP/tests/fixtures/profile_basic/perf.mem.script" "$WORK/store/big.script"
cp "$TOP/tests/fixtures/profile_basic/hints.jsonl" "$WORK/store/h.jsonl"
ln -s "$WORK/store/big.script" "$WORK/ln/perf.mem.script"
ln -s ../store/h.jsonl "$WORK/ln/hints.jsonl"
"$SCXPROF" process -f "$WORK/ln" >"$WORK/ln.txt" 2>&1
check "symlinks: linked perf.mem.script and hints.jsonl are read" \
	cmp "$WORK/ln.out/perf.jsonl" <("$SCXPROF" process -f "$TOP/tests/fixtures/profile_basic" -o "$WORK/basic.out" >/dev/null 2>&1; cat "$WORK/basic.out/perf.jsonl")
check "symlinks: the hints were applied" grep -q '"hint":[1-9]' "$WORK/ln.out/perf.jsonl"
link_error() { # NAME TARGET-SETUP EXPECTED: a perf.mem.script link to something odd
	local d="$WORK/bad-$1"
	mkdir -p "$d"
	eval "$2"
	"$SCXPROF" process -f "$d" >/dev/null 2>"$d.err"
	local rc=$?
	if [ $rc -eq 1 ] && grep -q "$d/perf.mem.script: symbolic link to .*$3" "$d.err" && [ ! -e "$d.out" ]; then
		pass "symlinks: link to $1 refused, saying so"
	else
		fail "symlinks: link to $1" "rc=$rc $(cat "$d.err")"
	fi
}
link_error directory 'mkdir -p "$d/sub"; ln -s sub "$d/perf.mem.script"' "which is a directory, not a regular file"
link_error fifo 'mkfifo "$d/f"; ln -s f "$d/perf.mem.script"' "which is a fifo, not a regular file"
link_error nothing 'ln -s gone "$d/perf.mem.script"' "gone, which does not exist (dangling link)"
link_error itself 'ln -s perf.mem.script "$d/perf.mem.script"' "which cannot be followed: Too many levels"
# a link inside an archive is never followed, even one that stays in the tree
mkdir -p "$WORK/arl/p"
cp "$TOP/tests/fixtures/profile_basic/perf.mem.script" "$WORK/arl/p/real.script"
ln -s real.script "$WORK/arl/p/perf.mem.script"
(cd "$WORK/arl" && tar czf p.tar.gz p && rm -rf p)
"$SCXPROF" process -f "$WORK/arl/p.tar.gz" >/dev/null 2>"$WORK/arl.err"
if [ $? -ne 0 ] && [ ! -L "$WORK/arl/p/perf.mem.script" ] && [ ! -e "$WORK/arl/p.out" ]; then
	pass "symlinks: a link inside an archive is not extracted nor followed"
else
	fail "symlinks: a link inside an archive" "$(ls -la "$WORK/arl/p" 2>&1; cat "$WORK/arl.err")"
fi

if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "pipe-mode and --symfs" "perf cannot record here"
	exit 0
fi

# --- pipe-mode perf.data -----------------------------------------------------------
mkdir -p "$WORK/pipe"
perf record -q -e page-faults -c 1 -o - -- true 2>/dev/null >"$WORK/pipe/perf.data"
"$SCXPROF" process -f "$WORK/pipe" >/dev/null 2>"$WORK/pipe.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "pipe-mode" "$WORK/pipe.err" && [ ! -e "$WORK/pipe.out" ]; then
	pass "pipe-mode perf.data refused with a clear message"
else
	fail "pipe-mode perf.data refused" "rc=$rc $(cat "$WORK/pipe.err")"
fi

# --- pid/tid -1 in perf script text ----------------------------------------------------
# perf prints a sample's u32 tid with %d: -1 for a task the kernel had no id for
# (comm ":-1"). The text reader keeps such a sample as the perf.data reader does
# (int32 -1), and the Perfetto trace gives it no thread track (tid <= 0).
mkdir -p "$WORK/neg"
head -2 "$TOP/tests/fixtures/profile_basic/perf.mem.script" >"$WORK/neg/perf.mem.script"
printf '             :-1 24659/-1       0.000000300:     7f2519e64408 [unknown] ([heap])     55bc4761452d main (/usr/bin/app)            1a2b000 4K\n' >>"$WORK/neg/perf.mem.script"
if "$SCXPROF" process -f "$WORK/neg" -o "$WORK/neg.out" >"$WORK/neg.txt" 2>&1; then
	check "pid/tid -1: a record, not unparseable" grep -q "Parsed 3 of 3 records (0 skipped, 0 unparseable)" "$WORK/neg.txt"
	check "pid/tid -1: in perf.jsonl as tid -1 of pid 24659" grep -q '"comm":":-1","tid":-1,"pid":24659,' "$WORK/neg.out/perf.jsonl"
	check "pid/tid -1: no thread track for it in trace.pftrace, the other 2 samples there" \
		grep -q "2 memory samples" "$WORK/neg.txt"
	check "pid/tid -1: trace.pftrace agrees with perf.jsonl" python3 "$TOP/tests/integration/pftrace_check.py" "$WORK/neg.out" --expect-mem
else
	fail "pid/tid -1: process ran" "$(cat "$WORK/neg.txt")"
fi

# --- --symfs --------------------------------------------------------------------------
# record a copy of the workload (no build-ids, no perf build-id cache), then
# move the binary away: only --symfs finds it
mkdir -p "$WORK/bin" "$WORK/sy"
cp "$WL" "$WORK/bin/wl"
perf record -q -N -B -e page-faults -c 1 -d -o "$WORK/sy/perf.data" -- "$WORK/bin/wl" -i 200 -p 8 s:1 >/dev/null 2>&1
mkdir -p "$WORK/symfs$WORK/bin"
mv "$WORK/bin/wl" "$WORK/symfs$WORK/bin/wl"
count_wl_syms() { # OUTDIR: samples in wl that got a symbol
	python3 -c '
import json,sys
s=[json.loads(l) for l in open(sys.argv[1])]
w=[x for x in s if x["dso"].endswith("/bin/wl")]
print(len(w), sum(1 for x in w if x["sym"] != "[unknown]"))' "$1/perf.jsonl"
}
"$SCXPROF" process -f "$WORK/sy" --no-filter -o "$WORK/sy-plain" >/dev/null 2>&1
"$SCXPROF" process -f "$WORK/sy" --no-filter -o "$WORK/sy-symfs" --symfs "$WORK/symfs" >/dev/null 2>&1
read -r n_plain named_plain <<<"$(count_wl_syms "$WORK/sy-plain")"
read -r n_symfs named_symfs <<<"$(count_wl_syms "$WORK/sy-symfs")"
if [ "${n_plain:-0}" -gt 0 ] && [ "$named_plain" -eq 0 ] && [ "$named_symfs" -eq "$n_symfs" ]; then
	pass "--symfs: moved binary's samples resolved only with --symfs ($named_symfs of $n_symfs)"
else
	fail "--symfs" "plain: $named_plain of $n_plain named; symfs: $named_symfs of $n_symfs"
fi

# --- a recording without physical addresses (perf record -d, no --phys-data) ----------
# process drops every sample, as upstream does, and says why and what keeps them
"$SCXPROF" process -f "$WORK/sy" -o "$WORK/sy-nophys" >"$WORK/sy-nophys.log" 2>&1
rc=$?
check "no physical address in any sample: exit 0, a warning naming the file and --no-filter, nothing kept" sh -c \
	'[ "$1" -eq 0 ] && grep -q "WARNING: $2/perf.data: none of its [0-9]* samples has a physical address .*--no-filter keeps them" "$3" &&
	 [ ! -s "$4/perf.jsonl" ] && grep -q "has a physical address" "$4/process.json"' \
	_ "$rc" "$WORK/sy" "$WORK/sy-nophys.log" "$WORK/sy-nophys"
