#!/usr/bin/env bash
# llc_real.sh - issue 27's "real programs at two rates": redis and memcached
# under a placement this script holds fixed, recorded at two sample rates,
# so the measured cross-LLC figure (docs/llc-sharing.md "## Measured") can
# be compared across rates on the same physical placement. Under a topology
# that puts cpu0 and cpu1 in two LLCs:
#   redis-apart      redis-server --io-threads 2 pinned to cpu0, its io_thd_1 moved to cpu1
#   redis-alt        the same, io_thd_1 moved between cpu1 and cpu0 every 500 ms
#   memcached-apart  memcached -t 2 pinned to cpu0, its second mc-worker moved to cpu1
#   memcached-alt    the same, the second mc-worker alternating every 500 ms
# The server runs in this run's allotment cgroup (so the allotment cell is
# the server alone); the client runs outside it, pinned to cpu1, on loopback:
# redis-benchmark (set,get, 50 connections, pipeline 4), or memcslap -t get
# with 2 connections (one per worker) on the same 20,000 keys, run again and
# again (one memcslap with -e 100000000 spends the whole recording
# generating its keys before it sends anything: last session's "none").
# For each recording: the allotment cell's measured figure (extract -v
# --llc-json with the split topology) and the definition's value from the
# recording's own scheduling stream (bench/llc_truth_sched.py over the
# server threads that share data: redis-server + io_thd_1; the mc-workers
# and mc-lrumaint, taken as sharing everything, an approximation).
# usage: bench/llc_real.sh [-s] [-r "HZ HZ"] [-t SECS] [-o DIR] [WORKLOAD...]
#   -r rates (default "250 4000"; "default" is record's own rate), -t SECS (10)
#   -s one run per workload recorded at every rate at once (two recordings of
#      the same execution; without -s, a fresh run per rate, same placement)
#   DIR (default a new /tmp/llc-real.XXXXXX) keeps recordings, configs, --llc-json;
#   existing recordings in DIR are kept and only extracted again.
#   BEFORE=BIN (environment): also extract each with BIN (e.g. a c0543fb
#   build, the coincidence count) into DIR/before/, a column of its own.
# Prints one markdown row per workload and rate, then per workload whether
# the rates agree (each point inside the other's interval, or inside the
# bounds of a "too few to say"). Root; one run at a time (system-wide
# sampling); mc-lrumaint (cpu0 with the first worker) shares item headers
# with the workers, so its runs are in memcached's schedule value too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
BUILD=${BUILD:-build}
SCXPROF=${SCXPROF:-$top/$BUILD/scxprof}
rates="250 4000" secs=10 dir="" same=""
while getopts "r:t:o:s" o; do
	case $o in
	s) same=2 ;;
	r) rates=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
wls=${*:-redis-apart redis-alt memcached-apart memcached-alt}
[ -n "$dir" ] || dir=$(mktemp -d /tmp/llc-real.XXXXXX)
mkdir -p "$dir"
. "$here/llc_lib.sh"
llc_cgroup
llc_split "$dir/split.json"
port=$((27000 + $$ % 2000))
mover=""

# tid_of PID COMM [NTH]: the NTH (default 1) thread of PID named COMM, by tid
tid_of() {
	local t n=0
	for t in $(ls /proc/"$1"/task 2>/dev/null | sort -n); do
		[ "$(cat /proc/"$1"/task/"$t"/comm 2>/dev/null)" = "$2" ] || continue
		n=$((n + 1))
		[ $n -eq "${3:-1}" ] && { echo "$t"; return 0; }
	done
	return 1
}

# move TID MODE: apart (to cpu1 once) or alt (cpu1 and cpu0 in turn, 500 ms
# each, in the background until stop_mover)
move() {
	if [ "$2" = apart ]; then
		taskset -p -c 1 "$1" >/dev/null
	else
		(while taskset -p -c 1 "$1" >/dev/null 2>&1 && sleep 0.5 &&
			taskset -p -c 0 "$1" >/dev/null 2>&1 && sleep 0.5; do :; done) &
		mover=$!
	fi
}
stop_mover() {
	[ -n "$mover" ] && kill "$mover" 2>/dev/null && wait "$mover" 2>/dev/null
	mover=""
}

# record_run WORKLOAD HZ...: one run of WORKLOAD (server pinned, thread
# moved, client started), recorded at each HZ at once into $dir/NAME(HZ)
# (several HZ: the same execution sampled at each rate)
record_run() {
	local wl=$1 prog=${1%-*} mode=${1##*-} srv tid client cl hz n f pids=() rc=0
	shift
	case $prog in
	redis)
		llc_serve taskset -c 0 redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no \
			--io-threads 2 --io-threads-do-reads yes --daemonize no
		srv=$!
		while [ "$(redis-cli -p $port ping 2>/dev/null)" != PONG ] && kill -0 $srv 2>/dev/null; do sleep 0.1; done
		tid=$(tid_of $srv io_thd_1)
		client="redis-benchmark -p $port -t set,get -n 100000000 -c 50 -P 4 -d 256 -q" ;;
	memcached)
		llc_serve taskset -c 0 memcached -t 2 -p $port -U 0 -u root -m 64 -l 127.0.0.1
		srv=$!
		while ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && kill -0 $srv 2>/dev/null; do sleep 0.1; done
		tid=$(tid_of $srv mc-worker 2)
		client="while :; do memcslap -s 127.0.0.1:$port -c 4 -e 20000 -t get || exit 1; done" ;;
	esac
	if [ -z "$tid" ]; then
		echo "llc_real.sh: $wl: no thread to move in pid $srv" >&2
		kill $srv 2>/dev/null; wait $srv 2>/dev/null
		return 1
	fi
	move "$tid" "$mode"
	# the client outside the allotment cgroup, on cpu1, until the recordings end
	taskset -c 1 timeout $((secs + 30)) sh -c "$client" >/dev/null 2>&1 &
	cl=$!
	sleep 1
	for hz in "$@"; do
		n=$(name_of "$wl" "$hz" "$#")
		rm -rf "${dir:?}/$n" "$dir/$n.tar.gz"
		basename "$LLC_CG" >"$dir/$n.cgroup" # this run's cgroup alone: another run's llcbench cgroup may be recorded too
		f=()
		[ "$hz" = default ] || f=(-F "$hz")
		"$SCXPROF" record "${f[@]}" -t "$secs" -o "$dir/$n" >"$dir/$n.record.log" 2>&1 &
		pids+=($!)
	done
	for n in "${pids[@]}"; do wait "$n" || rc=1; done
	kill $cl 2>/dev/null
	wait $cl 2>/dev/null
	stop_mover
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	return $rc
}

# name_of WORKLOAD HZ NRATES: the recording's name (a run recorded at several rates at once: "-same")
name_of() {
	[ "$3" -gt 1 ] && echo "$1-same-$2-${secs}s" || echo "$1-$2-${secs}s"
}

# schedule N NAMES...: the definition's value from N's scheduling stream
schedule() {
	local n=$1
	shift
	[ -s "$dir/$n.schedule" ] && return 0
	rm -rf "$dir/proc-$n"
	"$SCXPROF" process --no-perfetto -f "$dir/$n.tar.gz" -o "$dir/proc-$n" >/dev/null 2>&1 &&
		LLC_CGROUP=$(cat "$dir/$n.cgroup") python3 "$here/llc_truth_sched.py" "$dir/proc-$n" "$@" >"$dir/$n.schedule" 2>&1 ||
		echo "llc_real.sh: schedule failed: $n" >&2
	rm -rf "$dir/proc-$n"
}

for wl in $wls; do
	case $wl in redis-apart | redis-alt | memcached-apart | memcached-alt) ;;
	*) echo "llc_real.sh: unknown workload '$wl' (redis-apart, redis-alt, memcached-apart, memcached-alt)" >&2; exit 2 ;;
	esac
	if [ -n "$same" ]; then
		ls "$dir/$(name_of "$wl" "${rates%% *}" 2)".tar.gz >/dev/null 2>&1 ||
			record_run "$wl" $rates || echo "llc_real.sh: record failed: $wl ($rates at once)" >&2
	fi
	for hz in $rates; do
		n=$(name_of "$wl" "$hz" "${same:-1}")
		if [ ! -s "$dir/$n.tar.gz" ]; then
			[ -z "$same" ] && record_run "$wl" "$hz"
			[ -s "$dir/$n.tar.gz" ] || { echo "llc_real.sh: record failed: $n ($(tail -n 2 "$dir/$n.record.log" | tr '\n' ' '))" >&2; continue; }
		fi
		llc_extract "$SCXPROF" "$dir/$n.tar.gz" "$dir/split.json" "$dir/$n" ||
			echo "llc_real.sh: extract failed: $n ($(tail -n 1 "$dir/$n.err"))" >&2
		if [ -n "${BEFORE:-}" ]; then
			mkdir -p "$dir/before"
			llc_extract "$BEFORE" "$dir/$n.tar.gz" "$dir/split.json" "$dir/before/$n" ||
				echo "llc_real.sh: extract by $BEFORE failed: $n ($(tail -n 1 "$dir/before/$n.err"))" >&2
		fi
		case $wl in redis-*) schedule "$n" redis-server io_thd_1 ;; *) schedule "$n" mc-worker mc-lrumaint ;; esac
	done
done

echo "recordings in $dir"
echo "| workload | rate, length | schedule | measured (allotment cell)${BEFORE:+ | before: $BEFORE} |"
echo "|---|---|---|---|${BEFORE:+---|}"
for wl in $wls; do
	for hz in $rates; do
		n=$(name_of "$wl" "$hz" "${same:-1}")
		[ -s "$dir/$n.llc.json" ] || continue
		# shellcheck disable=SC2046
		printf '| %s | %s, %s s | %s | %s |' "$wl" "$([ "$hz" = default ] && echo default || echo "-F $hz")" "$secs" \
			"$(sed -n 's/^schedule: //p' "$dir/$n.schedule" 2>/dev/null)" "$(llc_pct $(llc_figure "$dir/$n.llc.json" measured))"
		# shellcheck disable=SC2046
		[ -z "${BEFORE:-}" ] || printf ' %s |' "$(llc_pct $(llc_figure "$dir/before/$n.llc.json" measured))"
		printf '\n'
	done
done
# agree: each rate's point inside every other rate's interval; else why not
for wl in $wls; do
	figs=()
	for hz in $rates; do
		n=$(name_of "$wl" "$hz" "${same:-1}")
		[ -s "$dir/$n.llc.json" ] && figs+=("$(llc_figure "$dir/$n.llc.json" measured)")
	done
	python3 - "$wl" "${figs[@]}" <<'PY'
import sys
wl, figs = sys.argv[1], [f.split() for f in sys.argv[2:]]
pts = [f for f in figs if f[5] == "point"]
ivs = [f for f in figs if f[5] in ("point", "too_few") and f[1] != "-"]
if len(figs) < 2: print("%s: fewer than two recordings" % wl); sys.exit()
def show(f):
    lo, hi = 100 * float(f[1]), 100 * float(f[2])
    return "%.1f%% [%.1f-%.1f]" % (100 * float(f[0]), lo, hi) if f[5] == "point" else "too few to say (%.1f-%.1f%%)" % (lo, hi)
figtxt = " vs ".join(show(f) if f in ivs else f[5] for f in figs)
if not pts: print("%s: %s; no point at any rate: not decided" % (wl, figtxt)); sys.exit()
if len(ivs) < len(figs): print("%s: %s; not decided" % (wl, figtxt)); sys.exit()
# every point inside every other recording's interval (a point's 95% interval, or too few's bounds)
ok = all(float(b[1]) <= float(a[0]) <= float(b[2]) for a in pts for b in ivs if b is not a)
print("%s: %s; each point inside the other's interval or bounds: %s" % (wl, figtxt, "yes" if ok else "no"))
PY
done
