# lib.sh - shared helpers for integration tests (sourced, not run).
# Each check reports one line: PASS: name | FAIL: name: why | SKIP: name: reason.
set -u
: "${SCXPROF:?run through tests/run.sh}"
WORK=$(mktemp -d /tmp/scxprof-it.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; }
skip() { echo "SKIP: $1: $2"; }
# check NAME CMD...: PASS if CMD succeeds, else FAIL with its output.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | tail -n 5 | tr '\n' ' ')"; fi
}
# validate SCHEMA FILE [jsonl]: validate a JSON file (or every line of a JSONL file) with ajv.
validate() {
	node "$TOP/tests/validate.js" "$@"
}
# assert_jobs NAME PROFILE [EXTRACT OPTIONS...]: one pass with -j 1, 2, 3, 4
# and 8 writes the same config, -v report, --llc-json and --evidence-out
# files byte for byte (the threads split the streams and, from -j 4, the
# evidence maps, never the result). --llc-json evaluates against
# tests/fixtures/extract/topology-8cpu-2llc.json unless OPTIONS give a
# --topology (a recording without a topology gets no figures otherwise).
assert_jobs() {
	local name=$1 prof=$2 d j why="" topo
	shift 2
	topo=(--topology "$TOP/tests/fixtures/extract/topology-8cpu-2llc.json")
	case " $* " in *" --topology "*) topo=() ;; esac
	d=$(mktemp -d "$WORK/jobs.XXXXXX")
	for j in 1 2 3 4 8; do
		if ! "$SCXPROF" extract -v -j $j -f "$prof" --llc-json "$d/llc.$j.json" "${topo[@]}" "$@" >"$d/cfg.$j.json" 2>"$d/log.$j"; then
			why="-j $j failed: $(tail -n 2 "$d/log.$j")"; break
		fi
		"$SCXPROF" extract -j $j -f "$prof" --evidence-out "$d/ev.$j.json" "$@" >"$d/plain.$j.json" 2>/dev/null ||
			{ why="-j $j --evidence-out failed"; break; }
		for f in cfg log llc ev plain; do
			ls "$d/$f".1* >/dev/null 2>&1 || continue
			if ! cmp -s "$d/$f.1"* "$d/$f.$j"*; then
				why="$f differs between -j 1 and -j $j: $(diff "$d/$f.1"* "$d/$f.$j"* | head -n 4 | tr '\n' ' ')"; break 2
			fi
		done
	done
	if [ -z "$why" ] && [ ! -s "$d/cfg.1.json" ]; then why="no config"; fi
	if [ -z "$why" ]; then
		pass "$name: -j 1, 2, 3, 4, 8 give the same config, -v, --llc-json and --evidence-out"
	else
		fail "$name: the same outputs for every -j" "$why"
	fi
	rm -rf "$d"
}

# assert_onepass NAME PROFILE [EXTRACT OPTIONS...]: one-pass `extract -f PROFILE`
# (directory or .tar.gz) prints byte for byte what `process` then `extract -f
# OUT/perf.jsonl` print: the config on stdout, and on stderr the same report
# after the process stage's WARNING lines (each one process printed too; the
# kernel-symbol ones it does not need are left out). Checked without and
# with -v, with -j 1 and -j 2. The -v lines naming an input name what each
# read: OUT/sched.jsonl and PROFILE/sched.data both become SCHED,
# OUT/topology.json (process's copy) and PROFILE/topology.json TOPOLOGY.
assert_onepass() {
	local name=$1 prof=$2 d v j out dir sched f rc=0 why=""
	shift 2
	d=$(mktemp -d "$WORK/onepass.XXXXXX")
	if ! "$SCXPROF" process -f "$prof" -o "$d/out" --no-perfetto >"$d/p.out" 2>"$d/p.err"; then
		fail "$name: one pass = process + extract" "process failed: $(tail -n 2 "$d/p.err")"
		return
	fi
	dir=${prof%.tar.gz}
	sched=""
	for f in sched.data perf.sched.data perf.sched.script; do
		if [ -f "$dir/$f" ]; then sched="$dir/$f"; break; fi
	done
	for v in "" -v; do
		"$SCXPROF" extract $v -f "$d/out/perf.jsonl" "$@" >"$d/two.json" 2>"$d/two.err" || { rc=1; why="two-step extract $v failed: $(tail -n 2 "$d/two.err")"; break; }
		sed -i "s|$d/out/sched.jsonl|SCHED|g; s|$d/out/topology.json|TOPOLOGY|g" "$d/two.err"
		for j in 1 2; do
			if ! "$SCXPROF" extract $v -j $j -f "$prof" "$@" >"$d/one.json" 2>"$d/one.err"; then
				rc=1; why="one-pass extract $v -j $j failed: $(tail -n 2 "$d/one.err")"; break 2
			fi
			[ -n "$sched" ] && sed -i "s|$sched|SCHED|g" "$d/one.err"
			sed -i "s|$dir/topology.json|TOPOLOGY|g" "$d/one.err"
			grep '^WARNING: ' "$d/one.err" >"$d/one.warn"
			grep -v '^WARNING: ' "$d/one.err" >"$d/one.rest"
			grep -v '^WARNING: ' "$d/two.err" >"$d/two.rest"
			if ! cmp -s "$d/two.json" "$d/one.json"; then
				rc=1; why="config differs ($v -j $j): $(diff "$d/two.json" "$d/one.json" | head -n 4 | tr '\n' ' ')"; break 2
			elif ! cmp -s "$d/two.rest" "$d/one.rest" || ! cat "$d/one.warn" "$d/one.rest" | cmp -s - "$d/one.err"; then
				rc=1; why="stderr differs ($v -j $j): $(diff "$d/two.rest" "$d/one.rest" | head -n 4 | tr '\n' ' ')"; break 2
			elif [ -n "$(grep -vxFf "$d/p.err" "$d/one.warn")" ]; then
				rc=1; why="a WARNING process did not print ($v -j $j): $(grep -vxFf "$d/p.err" "$d/one.warn" | head -n 2)"; break 2
			fi
		done
	done
	if [ $rc -eq 0 ]; then
		pass "$name: one pass = process + extract (config and -v, -j 1 and -j 2)"
	else
		fail "$name: one pass = process + extract" "$why"
	fi
	rm -rf "$d"
}
# bpffs_private: mount a bpffs instance of this test's own at $WORK/bpffs and
# print its path (fails if it cannot). Each bpf mount is a separate instance:
# tests running at the same time never see each other's pins, and none
# mounts or unmounts the shared /sys/fs/bpf under another. The test's
# cleanup must call bpffs_private_umount before removing $WORK.
bpffs_private() {
	mkdir -p "$WORK/bpffs" && mount -t bpf bpf "$WORK/bpffs" && echo "$WORK/bpffs"
}
bpffs_private_umount() {
	mountpoint -q "$WORK/bpffs" 2>/dev/null && umount "$WORK/bpffs"
	return 0
}

# own_session "$@": this test runs again in a session of its own (setsid)
# whose autogroup has nice -20: with autogrouping the scheduler shares the
# CPUs between sessions first, so busy loops and other tests elsewhere do not
# starve the programs it measures. Call it first thing after sourcing this
# file (the first run's $WORK is removed before the exec).
own_session() {
	if [ -z "${SCX_OWN_SESSION:-}" ] && command -v setsid >/dev/null; then
		rm -rf "$WORK"
		SCX_OWN_SESSION=1 exec setsid -w bash "$0" "$@"
	fi
	[ -w /proc/self/autogroup ] && echo -20 >/proc/self/autogroup 2>/dev/null
	echo "info: autogroup $(cat /proc/self/autogroup 2>/dev/null)"
}

# cgroup_remove DIR...: remove cgroups this test made, after ending what
# still runs in them (cgroup.kill: a workload whose recorder or script was
# interrupted); the cgroups are the test's own, so is what runs in them
cgroup_remove() {
	local d
	for d in "$@"; do
		[ -d "$d" ] || continue
		[ -e "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill" 2>/dev/null
		for _ in $(seq 50); do [ -s "$d/cgroup.procs" ] || break; sleep 0.1; done
		rmdir "$d" 2>/dev/null
	done
}

# allotment_cgroup NAME: an allotment cgroup of this run's own
# (workload.slice/workload-tw-NAME-PID.allotment.slice), removed at exit
# with $WORK; sets cg2 (the cgroup2 mount), cg, ALLOT (a regex matching
# that cgroup only) and IN_CG (a command prefix: runs its command inside it).
# Fails without a cgroup2 mount.
allotment_cgroup() {
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$cg2" ] || return 1
	cg="workload.slice/workload-tw-$1-$$.allotment.slice"
	mkdir -p "$cg2/$cg"
	trap 'cgroup_remove "$cg2/$cg"; rm -rf "$WORK"' EXIT
	ALLOT="workload-tw-$1-$$\\.allotment\\.slice"
	IN_CG=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg2/$cg")
}

# split_topology FILE: a topology.json of two CPUs in two LLCs (cpu0 and
# cpu1, a core each, one package and node, 1 MiB LLCs), the layout the
# cross-LLC tests evaluate this VM's recordings under
split_topology() {
	cat >"$1" <<'JSON'
{"version": 1, "cpus": [
 {"cpu": 0, "core": 0, "package": 0, "llc": 0, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "0", "node": 0, "siblings": "0"},
 {"cpu": 1, "core": 1, "package": 0, "llc": 1, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "1", "node": 0, "siblings": "1"}]}
JSON
}

# pinned_setup WHAT NAME: the set-up of a test that records threads pinned
# to cpu0 and cpu1: "SKIP: WHAT: ..." and exit 0 without root, two CPUs or
# a cgroup2 mount; else allotment_cgroup NAME and $WORK/split.json
# (split_topology)
pinned_setup() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1" "needs root (record, cgroups)"
		exit 0
	fi
	if [ "$(nproc)" -lt 2 ]; then
		skip "$1" "needs 2 CPUs (threads pinned to cpu0 and cpu1)"
		exit 0
	fi
	if ! allotment_cgroup "$2"; then
		skip "$1" "no cgroup2 mount"
		exit 0
	fi
	split_topology "$WORK/split.json"
}

# subcells CONFIG: the subcells of CONFIG's allotment cell (the programs
# under test), one a line, units joined by +
subcells() { python3 -c 'import json,sys; [print(s["name"]) for c in json.load(open(sys.argv[1])) if c["name"] == "allotment" for s in c.get("subcells",[])]' "$1"; }

# allotment_run DIR SECONDS RECORD-OPTION... -- CMD...: in a fresh DIR (a
# retry starts afresh: record and process refuse to overwrite), `record -t
# SECONDS` of CMD in this run's allotment cgroup (allotment_cgroup first;
# no scheduling stream), `process --no-perfetto` and `extract mem -v` with
# that cgroup as the allotment cell: the config in DIR/cfg.json, -v in
# DIR/err, the allotment's subcells in DIR/sub, the logs in DIR/record.log
# and DIR/process.log, the archive in DIR/prof.tar.gz. Returns 1 with
# RUN_WHY (the last lines of the logs) when a step fails.
allotment_run() {
	local d=$1 secs=$2 ropts=()
	shift 2
	while [ "$1" != "--" ]; do ropts+=("$1"); shift; done
	shift
	rm -rf "$d"
	mkdir -p "$d"
	"$SCXPROF" record -t "$secs" "${ropts[@]}" --disable-sched-trace -o "$d/prof" -- "${IN_CG[@]}" "$@" >"$d/record.log" 2>&1 &&
		"$SCXPROF" process --no-perfetto -f "$d/prof.tar.gz" >"$d/process.log" 2>&1 &&
		"$SCXPROF" extract mem -v --max-cell-cpus 64 --workload-allotment-cgroup-regex "$ALLOT" \
			-f "$d/prof.out/perf.jsonl" >"$d/cfg.json" 2>"$d/err" || {
		RUN_WHY=$(tail -n 2 "$d/record.log" "$d/process.log" "$d/err" 2>/dev/null | tr '\n' ' ')
		return 1
	}
	subcells "$d/cfg.json" >"$d/sub"
}

# allotment_log FILE: the lines of extract -v's report FILE about the
# allotment cell only (another suite recording the same workloads at the
# same time has units of the same names in other cells of a system-wide
# recording)
allotment_log() {
	sed -n '/^Sharing clusters of allotment:/,/^Sharing clusters of /p' "$1"
}

# error_exit WANT CMD...: CMD fails as bad input must (one clear line, exit
# 1, no output): exit status 1, nothing on stdout and one line on stderr,
# matching the extended regex WANT. CMD's stdout and stderr stay in
# $WORK/cmd.out and $WORK/cmd.err for further checks. Returns 1 with
# ERROR_WHY saying what was wrong.
error_exit() {
	local want=$1 rc
	shift
	"$@" >"$WORK/cmd.out" 2>"$WORK/cmd.err"
	rc=$?
	ERROR_WHY=""
	if [ $rc -ne 1 ]; then
		ERROR_WHY="exit $rc (want 1): $(head -c 300 "$WORK/cmd.err")"
	elif [ "$(wc -l <"$WORK/cmd.err")" -ne 1 ]; then
		ERROR_WHY="want one line of error, got $(wc -l <"$WORK/cmd.err"): $(head -c 300 "$WORK/cmd.err")"
	elif ! grep -qE -- "$want" "$WORK/cmd.err"; then
		ERROR_WHY="error does not match '$want': $(head -c 300 "$WORK/cmd.err")"
	elif [ -s "$WORK/cmd.out" ]; then
		ERROR_WHY="stdout not empty: $(head -c 200 "$WORK/cmd.out")"
	fi
	[ -z "$ERROR_WHY" ]
}

# expect_error NAME WANT CMD...: PASS if error_exit WANT CMD..., else FAIL
# saying why.
expect_error() {
	local name=$1
	shift
	if error_exit "$@"; then pass "$name"; else fail "$name" "$ERROR_WHY"; fi
}

# perf_record_clean OUT PERF-RECORD-ARGS...: `perf record -o OUT ARGS`, recorded
# again (up to 3 times) while OUT holds samples under ids of no event of its
# own: another system-wide recording of the same event at the same time (a
# second suite on the machine) puts its samples there, and perf 6.1's perf
# script, the oracle, stops at the first ("failed to process type: 9").
# process skips them with a warning. Returns perf's status, or 3.
perf_record_clean() {
	local out=$1 try n rc
	shift
	for try in 1 2 3; do
		rm -f "$out"
		perf record -o "$out" "$@" >/dev/null 2>&1 || { rc=$?; return $rc; }
		n=$(python3 "$TOP/tests/tools/perf_foreign_ids.py" "$out") || return 3
		[ "$n" = 0 ] && return 0
		echo "info: $out holds $n samples of another session's events (try $try); recording again"
	done
	return 3
}

# study: true under `make bench` (SCX_STUDY=1, bench/bench_studies.sh). A
# script that repeats recordings to show a rate or a distribution (every
# sample rate, every region size, the bound of a detection limit) makes
# under `make test` one recording per behaviour, with every assertion that
# guards a behaviour, and the repetitions only when study is true.
study() { [ -n "${SCX_STUDY:-}" ]; }

# shared_recording DEST: copy the suite's shared recording to DEST (made once
# per suite run, on first use, into $SCX_SHARED_DIR, which tests/run.sh sets;
# .ci/run keeps one for both passes). For scripts whose checks are about the
# readers (process, extract, report, gen_profile), not about record or its
# options: `record --backend page-fault` of the demo workload (alpha and beta
# share region A, gamma and delta alone, -d 1 -p 64 -H 20), with sched.data.
# Two scripts asking at once: the second waits on the lock for the first's
# recording. It is made in a session of its own at autogroup nice -20 (as
# own_session), so the suite's other slot and busy loops do not starve the
# recorder. A failed recording is not made again: every script asking says
# it failed (SHARED_WHY holds the reason) and returns 1. Run alone (not
# through run.sh), a script makes its own in $WORK.
shared_recording() {
	local dir=${SCX_SHARED_DIR:-$WORK/shared}
	mkdir -p "$dir" || return 1
	(
		flock 9 || exit 1
		[ -e "$dir/rc" ] && exit 0
		rm -rf "$dir/rec"
		setsid -w sh -c 'echo -20 >/proc/self/autogroup 2>/dev/null; exec "$@"' sh \
			"$SCXPROF" record -t 20 --backend page-fault -o "$dir/rec" --disable-archive -- \
			"$TOP/$BUILD/workloads/scxprof-workload" -d 1 -p 64 -H 20 alpha:2:A beta:2:A gamma:2 delta:2 \
			>"$dir/record.out" 2>"$dir/record.err"
		echo $? >"$dir/rc"
	) 9>"$dir/lock"
	if [ "$(cat "$dir/rc" 2>/dev/null)" != 0 ]; then
		SHARED_WHY="the shared recording failed (exit $(cat "$dir/rc" 2>/dev/null)): $(tail -n 3 "$dir/record.err" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	cp -r "$dir/rec" "$1"
}

# generated OUT GENERATOR ARGS...: OUT is what `python3 GENERATOR ARGS... OUT`
# writes. A generator of tests/tools (seeded, so the same arguments give the
# same bytes) is input, not the code under test: its output is made once per
# suite run into $SCX_SHARED_DIR/gen, keyed by the generator's bytes and the
# arguments (under a lock: two scripts asking at once make it once), and OUT
# is a hard link to it (a copy across file systems). .ci/run keeps that
# directory for both passes, so the ASan pass reads what the first wrote and
# generates nothing. Returns the generator's status when it fails.
generated() {
	local out=$1 gen=$2 dir=${SCX_SHARED_DIR:-$WORK/shared}/gen key
	shift 2
	key=$( { sha256sum <"$gen"; printf '%s\n' "$@"; } | sha256sum | cut -c1-32)
	mkdir -p "$dir" || return 1
	(
		flock 9 || exit 1
		[ -e "$dir/$key" ] && exit 0
		python3 "$gen" "$@" "$dir/$key.tmp" && mv "$dir/$key.tmp" "$dir/$key"
	) 9>"$dir/$key.lock" || { rm -f "$dir/$key.tmp"; return 1; }
	rm -f "$out"
	ln "$dir/$key" "$out" 2>/dev/null || cp "$dir/$key" "$out"
}
