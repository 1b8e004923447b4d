# llc_lib.sh - shared by bench/llc_truth.sh and bench/closed_loop.sh (sourced,
# not run): this run's allotment cgroup, the split topology (cpu0 and cpu1 in
# two LLCs), running a workload in the cgroup, recording, and reading the
# cross-LLC figure of the allotment cell from extract --llc-json.
# Needs root (record) and a cgroup2 mount. Set SCXPROF (the binary that
# records and places) and WL (llc-truth) before sourcing. Each recording's
# cgroup is written beside it (DIR/NAME.cgroup) and extract counts that
# cgroup alone as the allotment cell.
set -u
LLC_CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$LLC_CG2" ] || { echo "no cgroup2 mount" >&2; exit 1; }
# LLC_TAG (default llcbench) and this script's pid name the run's own cgroup:
# two runs at once (or a run beside the suite) never share one. llc_cgroup
# makes it; it is removed at exit, on an error and on an interrupt.
LLC_TAG=${LLC_TAG:-llcbench}
LLC_CG="workload.slice/workload-tw-$LLC_TAG-$$.allotment.slice"
LLC_PIDS=()
LLC_REC=""
llc_cleanup() {
	local p
	[ -z "$LLC_REC" ] || kill -INT "$LLC_REC" 2>/dev/null
	for p in "${LLC_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$LLC_CG2/$LLC_CG" ] || return 0
	# what is left in the cgroup was started by this run (a recorded workload)
	[ -e "$LLC_CG2/$LLC_CG/cgroup.kill" ] && echo 1 >"$LLC_CG2/$LLC_CG/cgroup.kill" 2>/dev/null
	for _ in $(seq 50); do
		[ -s "$LLC_CG2/$LLC_CG/cgroup.procs" ] || break
		sleep 0.1
	done
	rmdir "$LLC_CG2/$LLC_CG" 2>/dev/null || echo "llc_lib.sh: could not remove $LLC_CG2/$LLC_CG" >&2
}
# llc_cgroup: make this run's cgroup; the traps remove it (and what runs in it).
# The run holds a shared lock on tests/run.sh's suite lock while it lasts, so a
# test that measures the machine as a whole ("# suite: alone", e.g.
# test_closed_loop, whose placement counts every busy thread of the host)
# waits for it rather than failing beside it.
llc_cgroup() {
	local d=/run/lock
	[ -d "$d" ] && [ -w "$d" ] || d=/tmp
	LLC_LOCK=${SCX_SUITE_LOCK:-$d/scxprof-suite.lock}
	exec 8>>"$LLC_LOCK.gate" 9>>"$LLC_LOCK" &&
		flock -s 8 && flock -s 9 && flock -u 8 && exec 8>&- || exit 1
	mkdir -p "$LLC_CG2/$LLC_CG" || exit 1
	trap llc_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

# llc_allot PROFILE: the --workload-allotment-cgroup-regex of PROFILE
# (DIR/NAME.tar.gz): the cgroup its run recorded in DIR/NAME.cgroup, that
# cgroup alone. A recording made before those files: any llcbench run's
# cgroup (a run beside it would be counted too), said on stderr.
llc_allot() {
	local f=${1%.tar.gz}.cgroup
	if [ -s "$f" ]; then
		sed 's/\./\\./g' "$f"
	else
		echo "llc_lib.sh: no $f: $1's allotment cell is every cgroup named workload-tw-$LLC_TAG-PID" >&2
		echo "workload-tw-$LLC_TAG-[0-9]+\\.allotment\\.slice"
	fi
}

# llc_serve CMD...: a server in the cgroup, in the background ($! is its pid)
llc_serve() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$LLC_CG2/$LLC_CG" "$@" >/dev/null 2>&1 &
	LLC_PIDS+=($!)
}

# llc_split FILE: a topology.json with cpu0 and cpu1 in LLCs of their own
llc_split() {
	cat >"$1" <<'JSON'
{"version": 1, "cpus": [
 {"cpu": 0, "core": 0, "package": 0, "llc": 0, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "0", "node": 0, "siblings": "0"},
 {"cpu": 1, "core": 1, "package": 0, "llc": 1, "llc_level": 3, "llc_size": 1048576, "llc_cpus": "1", "node": 0, "siblings": "1"}]}
JSON
}

# llc_record OUT HZ SECS CMD...: record system-wide while CMD (run in the
# cgroup) lasts; OUT.tar.gz. HZ "default": record's own rate. LLC_BACKEND
# (environment): record's --backend (default its own choice).
llc_record() {
	local out=$1 hz=$2 secs=$3 f=()
	shift 3
	[ "$hz" = default ] || f=(-F "$hz")
	[ -z "${LLC_BACKEND:-}" ] || f+=(--backend "$LLC_BACKEND")
	rm -rf "$out" "$out.tar.gz"
	basename "$LLC_CG" >"$out.cgroup"
	"$SCXPROF" record "${f[@]}" -t $((secs + 20)) -o "$out" -- sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' \
		"$LLC_CG2/$LLC_CG" "$@" >"$out.record.log" 2>&1 &
	LLC_REC=$!
	wait "$LLC_REC"
	local rc=$?
	LLC_REC=""
	return $rc
}

# llc_extract BIN PROFILE TOPOLOGY OUTPREFIX [ARG...]: the config (OUTPREFIX.cfg.json),
# -v (OUTPREFIX.err) and --llc-json (OUTPREFIX.llc.json) of BIN's one-pass extract
# (ARGs added to its command line), the allotment cell PROFILE's own cgroup (llc_allot)
llc_extract() {
	local allot
	rm -f "$4.llc.json"
	allot=$(llc_allot "$2")
	"$1" extract -v -f "$2" --topology "$3" --workload-allotment-cgroup-regex "$allot" \
		--llc-json "$4.llc.json" "${@:5}" >"$4.cfg.json" 2>"$4.err"
}

# llc_figure LLCJSON WHICH [SCOPE]: "share low high x n state" of the
# allotment cell (or SCOPE, a subcell name) for WHICH = measured|predicted,
# "-" for what is not there. Reads both forms of --llc-json: the counted
# figure (ratio objects: accesses of shared_accesses; state "count") and the
# estimate (share, low, high, state point|too_few|none; n = shared_samples,
# x "-").
llc_figure() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); which = sys.argv[2]; scope = sys.argv[3] if len(sys.argv) > 3 else None
cell = {c["name"]: c for c in d["cells"]}.get("allotment")
s = cell
if cell is not None and scope:
    s = {x["name"]: x for x in cell.get("subcells", [])}.get(scope)
if s is None:
    print("- - - - 0 none"); sys.exit()
r = s[which]["llc"]
f = lambda v: "-" if v is None else "%.4f" % v
if "state" in r:
    print(f(r.get("share")), f(r.get("low")), f(r.get("high")), "-", "%.0f" % s.get("shared_samples", 0), r["state"])
else:
    print(f(r.get("share")), f(r.get("low")), f(r.get("high")), r.get("accesses", 0), s.get("shared_accesses", 0), "count")
PY
}

# llc_pct "share low high x n state": "61.5% (95% CI 55.0-67.6%, 123 of 200)"
llc_pct() {
	python3 - "$@" <<'PY'
import sys
s, lo, hi, x, n, st = (sys.argv[1:] + ["-"] * 6)[:6]
p = lambda v: "%.1f%%" % (100 * float(v))
if st == "none" or (st == "count" and n == "0"): print("none: no line seen from two threads" if st == "none" else "no shared accesses")
elif st == "count" and s == "-": print("between %s and %s (%s of %s: too few for a point)" % (p(lo), p(hi), x, n))
elif st == "count": print("%s (95%% CI %s-%s, %s of %s)" % (p(s), p(lo)[:-1], p(hi), x, n))
elif st == "too_few": print("between %s and %s (too few to say)" % (p(lo), p(hi)))
else: print("%s (95%% CI %s-%s, %s shared samples)" % (p(s), p(lo)[:-1], p(hi), n))
PY
}
