#!/usr/bin/env bash
# closed_loop.sh - issue 27's closed loop on this VM: does a config's
# placement achieve what extract predicted? Under a topology that puts cpu0
# and cpu1 in two LLCs (or TOPOLOGY, a topology.json naming this host's
# online CPUs: e.g. one whose LLCs interleave the CPU numbers, so that a
# subcell's run of scx_mitosis CPUs straddles two), for each workload:
#   1. run it unpinned (or pinned badly), record SECS, extract: the config
#      and the allotment cell's predicted cross-LLC figure with its interval;
#   2. run it again, fresh, apply that config with `scxprof place --follow`
#      (the model's own placement, pinned with sched_setaffinity), record
#      SECS, extract: the measured figure is what the placement achieved;
#   3. print run 1's measured figure, predicted vs achieved, whether the achieved
#      point is inside the predicted interval and the predicted point inside
#      the achieved interval.
# It runs in a session of its own whose autogroup has nice -20 (as the tests'
# own_session), so that other work on the host does not starve the workloads.
# Workloads (default: truth spread three onebyone planted prodcons redis):
#   truth     llc-truth alpha-0:0 beta-0:1 (pinned apart), then unpinned and placed;
#             64 KiB random read/write, each thread at most 40% busy (-u 40) so the
#             pair fits one 1-CPU LLC: the answer is exact (placed together: 0%)
#   spread    llc-truth a-0 b-0 c-0 d-0 unpinned, 64 KiB, 40% busy: 1.6 CPUs, so the
#             clustering's cap (one LLC) makes two subcells of two, placed on the
#             two LLCs: a prediction that is not 0% (about 2/3)
#   three     the same with a-0 b-0 c-0: a subcell of two and one of one
#   cells     a-0 b-0 in the run's cgroup, c-0 d-0 in a second process in a cgroup of
#             the rest cell (llc-truth "+", -G), one shared region: two cells, so
#             two subcells whatever the CPU demand (test_closed_loop's case)
#   onebyone  spread's threads extracted with --max-cell-cpus 2: one subcell of
#             1.6 CPUs, larger than every LLC, placed thread by thread (worst fit)
#   planted   the workload generator (scxprof-workload, as make demo: alpha:2 + beta:2
#             share region A, gamma:2 and delta:2 private), page-fault backend
#   prodcons  llc-truth -k ring: a producer and a consumer over a 64 KiB ring, 40% busy,
#             pinned apart in run 1, unpinned and placed in run 2
#   redis     redis-server --io-threads 2 on loopback under redis-benchmark (both in
#             the run's cgroup), decode backend
# usage: [MODEL=mitosis] [TOPOLOGY=FILE] bench/closed_loop.sh [-F HZ] [-t SECS] [-o DIR] [WORKLOAD...]
# DIR (default a new /tmp/closed-loop.XXXXXX) keeps every recording, config,
# plan and --llc-json, and the topology used (DIR/split.json). Root. The
# run's workloads are in cgroups of its own (removed at exit or interrupt)
# and extract counts only those, so two runs at once never count each
# other's threads (their load still moves the placement: one at a time for
# figures to quote).
set -u
if [ -z "${CLOSED_LOOP_SESSION:-}" ] && command -v setsid >/dev/null; then
	CLOSED_LOOP_SESSION=1 exec setsid -w bash "$0" "$@"
fi
[ -w /proc/self/autogroup ] && echo -20 >/proc/self/autogroup 2>/dev/null
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
BUILD=${BUILD:-build}
SCXPROF=${SCXPROF:-$top/$BUILD/scxprof}
WL=$top/$BUILD/workloads/llc-truth
GEN=$top/$BUILD/workloads/scxprof-workload
hz=default secs=8 dir=""
while getopts "F:t:o:" o; do
	case $o in
	F) hz=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- truth spread three onebyone cells planted prodcons redis
[ -n "$dir" ] || dir=$(mktemp -d /tmp/closed-loop.XXXXXX)
mkdir -p "$dir"
. "$here/llc_lib.sh"
llc_cgroup
if [ -n "${TOPOLOGY:-}" ]; then
	cp "$TOPOLOGY" "$dir/split.json" || exit 1
else
	llc_split "$dir/split.json"
fi
OTHER_CG="scxprof-closed-loop-other-$$" # cells: the second process's cgroup (rest cell)
PLACE_PIDS=()
# at exit, error or interrupt: this run's cgroups, after what runs in them
cleanup() {
	llc_cleanup
	[ -d "$LLC_CG2/$OTHER_CG" ] || return 0
	echo 1 >"$LLC_CG2/$OTHER_CG/cgroup.kill" 2>/dev/null
	for _ in $(seq 50); do [ -s "$LLC_CG2/$OTHER_CG/cgroup.procs" ] || break; sleep 0.1; done
	rmdir "$LLC_CG2/$OTHER_CG" 2>/dev/null || echo "closed_loop.sh: could not remove $LLC_CG2/$OTHER_CG" >&2
}
trap cleanup EXIT

# start NAME CMD...: CMD in the cgroup, in the background (its pid in LLC_PIDS)
start() {
	local name=$1; shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$LLC_CG2/$LLC_CG" "$@" >"$dir/$name.wl.log" 2>&1 &
	LLC_PIDS+=($!) # sh execs the workload: this is its pid
}
stop_all() {
	local p
	for p in "${LLC_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	LLC_PIDS=()
}
wait_file() { # FILE PID: until FILE exists (or PID is gone)
	while [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 0.05; done
	[ -s "$1" ]
}

# run_truth NAME PLACED: the workload of $workload, pinned as in run 1 or unpinned (run 2)
launch() {
	local w=$1 run=$2 name=$3 ready="$dir/$3.ready" d=$((secs + 30))
	rm -f "$ready"
	case $w in
	truth)
		if [ "$run" = 1 ]; then start "$name" "$WL" -d $d -m 64k -u 40 -R "$ready" alpha-0:0 beta-0:1
		else start "$name" "$WL" -d $d -m 64k -u 40 -R "$ready" alpha-0 beta-0; fi
		wait_file "$ready" "${LLC_PIDS[-1]}" ;;
	spread | onebyone)
		start "$name" "$WL" -d $d -m 64k -u 40 -R "$ready" a-0 b-0 c-0 d-0
		wait_file "$ready" "${LLC_PIDS[-1]}" ;;
	three)
		start "$name" "$WL" -d $d -m 64k -u 40 -R "$ready" a-0 b-0 c-0
		wait_file "$ready" "${LLC_PIDS[-1]}" ;;
	cells)
		mkdir -p "$LLC_CG2/$OTHER_CG"
		start "$name" "$WL" -d $d -m 64k -u 40 -R "$ready" -G "$LLC_CG2/$OTHER_CG/cgroup.procs" a-0 b-0 + c-0 d-0
		wait_file "$ready" "${LLC_PIDS[-1]}" && PLACE_PIDS=(-p "$(cut -d' ' -f2 "$ready")") ;;
	prodcons)
		if [ "$run" = 1 ]; then start "$name" "$WL" -k ring -d $d -m 64k -u 40 -R "$ready" producer-0:0 consumer-0:1
		else start "$name" "$WL" -k ring -d $d -m 64k -u 40 -R "$ready" producer-0 consumer-0; fi
		wait_file "$ready" "${LLC_PIDS[-1]}" ;;
	planted)
		start "$name" "$GEN" -d $d -p 64 -H 20 alpha:2:A beta:2:A gamma:2 delta:2
		sleep 0.5 ;;
	redis)
		local port=$((26000 + $$ % 3000))
		start "$name.server" redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no \
			--io-threads 2 --io-threads-do-reads yes --daemonize no
		while [ "$(redis-cli -p $port ping 2>/dev/null)" != PONG ] && kill -0 "${LLC_PIDS[-1]}" 2>/dev/null; do sleep 0.1; done
		start "$name.client" redis-benchmark -p $port -t set,get -n 100000000 -c 50 -P 4 -d 256 --threads 2 -q
		sleep 0.5 ;;
	esac
}

backend_of() { [ "$1" = planted ] && echo page-fault || echo decode; }
# MODEL=packing (default) or mitosis: extract's --sched-model and place's --model (mitosis places once:
# no --follow yet)
MODEL=${MODEL:-packing}
extract_args() { echo --sched-model "$MODEL"; [ "$1" = onebyone ] && echo --max-cell-cpus 2; }
place_args() { if [ "$MODEL" = mitosis ]; then echo --model mitosis; else echo --follow --interval 200; fi; }

# record_run NAME WORKLOAD: record SECS system-wide while the workload runs, extract with the run's topology (DIR/split.json)
record_run() {
	local name=$1 w=$2 f=()
	[ "$hz" = default ] || f=(-F "$hz")
	rm -rf "$dir/$name" "$dir/$name.tar.gz"
	basename "$LLC_CG" >"$dir/$name.cgroup" # extract's allotment cell: this run's cgroup alone
	"$SCXPROF" record "${f[@]}" --backend "$(backend_of $w)" -t "$secs" -o "$dir/$name" >"$dir/$name.record.log" 2>&1 &
	LLC_REC=$!
	wait "$LLC_REC" || { LLC_REC=""; return 1; }
	LLC_REC=""
	llc_extract "$SCXPROF" "$dir/$name.tar.gz" "$dir/split.json" "$dir/$name" $(extract_args $w)
}

echo "| workload | run 1 measured | predicted (run 1, under its config) | achieved (run 2, placed) | achieved in predicted interval | predicted in achieved interval |"
echo "|---|---|---|---|---|---|"
for w in "$@"; do
	if [ "$w" = redis ] && ! command -v redis-server >/dev/null; then
		echo "| redis | (redis-server not installed) | | | | |"
		continue
	fi
	launch $w 1 "$w-1" && record_run "$w-1" $w
	rc=$?
	stop_all
	if [ $rc -ne 0 ]; then
		echo "| $w | run 1 failed: $(tail -n 1 "$dir/$w-1.err" "$dir/$w-1.record.log" 2>/dev/null | tr '\n' ' ') | | | | |"
		continue
	fi
	PLACE_PIDS=()
	launch $w 2 "$w-2"
	"$SCXPROF" place --model packing -c "$dir/$w-1.cfg.json" --topology "$dir/split.json" --cgroup "$LLC_CG" "${PLACE_PIDS[@]}" --window 500 \
		$(place_args) >"$dir/$w-2.plan" 2>"$dir/$w-2.place.err" &
	pp=$!
	LLC_PIDS+=($pp)
	while ! grep -qs '^tid' "$dir/$w-2.plan" && kill -0 $pp 2>/dev/null; do sleep 0.05; done
	record_run "$w-2" $w
	rc=$?
	stop_all
	if [ $rc -ne 0 ] || ! grep -q '^tid' "$dir/$w-2.plan"; then
		echo "| $w | run 2 failed: $(tail -n 1 "$dir/$w-2.place.err" "$dir/$w-2.err" "$dir/$w-2.record.log" 2>/dev/null | tr '\n' ' ') | | | | |"
		continue
	fi
	read -r rs rl rh rx rn rst <<<"$(llc_figure "$dir/$w-1.llc.json" measured)"
	# shellcheck disable=SC2046
	read -r ps pl ph px pn pst <<<"$(llc_figure "$dir/$w-1.llc.json" predicted)"
	# shellcheck disable=SC2046
	read -r ms ml mh mx mn mst <<<"$(llc_figure "$dir/$w-2.llc.json" measured)"
	# inside A LOW HIGH: "yes" when the point A is within [LOW, HIGH]
	inside() {
		python3 -c '
import sys
a, lo, hi = sys.argv[1:]
if "-" in (a, lo, hi): print("cannot tell")
else: print("yes" if float(lo) - 1e-9 <= float(a) <= float(hi) + 1e-9 else "no")' "$@"
	}
	echo "| $w | $(llc_pct $rs $rl $rh $rx $rn $rst) | $(llc_pct $ps $pl $ph $px $pn $pst) | $(llc_pct $ms $ml $mh $mx $mn $mst) |" \
		"$(inside "$ms" "$pl" "$ph") | $(inside "$ps" "$ml" "$mh") |"
done
echo "(recordings, configs, plans and --llc-json in $dir)"
