#!/usr/bin/env bash
# llc_truth.sh - the cross-LLC figure on workloads whose answer is known
# (docs/llc-sharing.md "## Measured"): tests/workloads/llc-truth with two or
# three threads on one 4 MiB region, pinned by the workload itself, each at
# most BUSY% of a CPU (default 40: two on one CPU run as fast as apart, so
# access rates do not depend on the placement), under a topology that puts
# cpu0 and cpu1 in two LLCs. The truth, by the
# definition "of the accesses to data another thread also uses, the share
# whose previous access by another thread came from another LLC":
#   apart        alpha-0:0 beta-0:1                   100%
#   together     alpha-0:0 beta-0:0                     0%
#   alternating  alpha-0:0 beta-0:0/1 (500 ms each)    50%
#   three        alpha-0:0 beta-0:0 gamma-0:1          67%
# and two real programs, unpinned, whose figure should not move with the
# sample rate (CASES="redis memcached", their own DIR):
#   redis        redis-server --io-threads 2 under redis-benchmark (loopback)
#   memcached    memcached -t 4 under memcslap -t get, run again and again (loopback)
# (bench/llc_real.sh holds their placement fixed instead: the same
# placement at two rates)
# Recording and extracting are separate steps, so one recording is
# extracted by two builds (before and after a change) on the same samples:
#   bench/llc_truth.sh record DIR               record every case x CELLS (existing ones kept)
#   bench/llc_truth.sh extract DIR LABEL BIN    extract each with BIN into DIR/LABEL/
#   bench/llc_truth.sh schedule DIR             the definition's value from each recording's
#                                               scheduling stream (bench/llc_truth_sched.py)
#   bench/llc_truth.sh table DIR LABEL...       one markdown row per case and cell
# WLARGS (environment): more llc-truth options (e.g. "-z 20": the region's
# pages fault again every 20 ms, for LLC_BACKEND=page-fault, see llc_lib.sh).
# CELLS (environment): "HZ:SECS ..." (default "250:10 default:10 4000:10 250:30
# default:30 4000:30"; HZ "default" is record's own rate). Run as root. Each
# run records in a cgroup of its own (DIR/NAME.cgroup) and extracts that one
# alone, so two runs at once never count each other's threads (their load
# still moves the schedule: one at a time for figures to quote).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
BUILD=${BUILD:-build}
SCXPROF=${SCXPROF:-$top/$BUILD/scxprof}
WL=${WL:-$top/$BUILD/workloads/llc-truth}
CELLS=${CELLS:-250:10 default:10 4000:10 250:30 default:30 4000:30}
CASES=${CASES:-apart together alternating three}
BUSY=${BUSY:-40}
WLARGS=${WLARGS:-}

threads_of() {
	case $1 in
	apart) echo "alpha-0:0 beta-0:1" ;;
	together) echo "alpha-0:0 beta-0:0" ;;
	alternating) echo "alpha-0:0 beta-0:0/1@0.5" ;;
	three) echo "alpha-0:0 beta-0:0 gamma-0:1" ;;
	esac
}
truth_of() {
	case $1 in apart) echo 100% ;; together) echo 0% ;; alternating) echo 50% ;; three) echo 66.7% ;; *) echo "unknown" ;; esac
}

# record_real OUT HZ SECS CASE: the server in the cgroup, the client (also in it) recorded for SECS
record_real() {
	local out=$1 hz=$2 secs=$3 port=$((27000 + $$ % 2000)) srv rc
	local for_secs='timeout "$0" "$@" >/dev/null 2>&1; exit 0' # the client for SECS, then a clean exit for record
	case $4 in
	redis)
		llc_serve redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --io-threads 2 \
			--io-threads-do-reads yes --daemonize no
		srv=$!
		while [ "$(redis-cli -p $port ping 2>/dev/null)" != PONG ] && kill -0 $srv 2>/dev/null; do sleep 0.1; done
		llc_record "$out" "$hz" "$secs" sh -c "$for_secs" "$secs" redis-benchmark -p $port -t set,get -n 100000000 -c 50 -P 4 \
			-d 256 --threads 2 -q
		rc=$? ;;
	memcached)
		llc_serve memcached -t 4 -p $port -U 0 -u root -m 64 -l 127.0.0.1
		srv=$!
		while ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && kill -0 $srv 2>/dev/null; do sleep 0.1; done
		# memcslap again and again on 20,000 keys: one with -e 100000000 spends the whole
		# recording generating its keys and never reaches the server (an earlier "none")
		llc_record "$out" "$hz" "$secs" sh -c "$for_secs" "$secs" sh -c \
			"while :; do memcslap -s 127.0.0.1:$port -c 4 -e 20000 -t get || exit 1; done"
		rc=$? ;;
	esac
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	[ -s "$out.tar.gz" ] && return 0 || return $rc
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mkdir -p "$dir"
case $cmd in
record)
	. "$here/llc_lib.sh"
	llc_cgroup
	for cell in $CELLS; do
		hz=${cell%%:*} secs=${cell##*:}
		for c in $CASES; do
			out="$dir/$c-$hz-${secs}s"
			[ -s "$out.tar.gz" ] && continue
			if [ -z "$(threads_of $c)" ]; then
				record_real "$out" "$hz" "$secs" $c
			else
				# shellcheck disable=SC2046
				llc_record "$out" "$hz" "$secs" "$WL" -d "$secs" -u "$BUSY" -P 1000 $WLARGS $(threads_of $c)
			fi
			if [ $? -eq 0 ]; then
				echo "recorded $out.tar.gz"
			else
				echo "record failed: $out ($(tail -n 2 "$out.record.log" | tr '\n' ' '))" >&2
			fi
		done
	done
	;;
extract)
	label=${3:?label} bin=${4:?binary}
	. "$here/llc_lib.sh"
	mkdir -p "$dir/$label"
	llc_split "$dir/split.json"
	for p in "$dir"/*.tar.gz; do
		n=$(basename "$p" .tar.gz)
		llc_extract "$bin" "$p" "$dir/split.json" "$dir/$label/$n" ||
			echo "extract failed: $n ($(tail -n 1 "$dir/$label/$n.err"))" >&2
	done
	;;
schedule)
	for p in "$dir"/*.tar.gz; do
		n=$(basename "$p" .tar.gz)
		[ -s "$dir/$n.schedule" ] && continue
		rm -rf "$dir/proc/$n"
		mkdir -p "$dir/proc"
		# the recording's own cgroup (another run's llc-truth threads may be in it too)
		cg=$(cat "$dir/$n.cgroup" 2>/dev/null) || cg=llcbench
		"$SCXPROF" process --no-perfetto -f "$p" -o "$dir/proc/$n" >/dev/null 2>&1 &&
			LLC_CGROUP=$cg python3 "$here/llc_truth_sched.py" "$dir/proc/$n" >"$dir/$n.schedule" 2>&1 || echo "schedule failed: $n" >&2
		rm -rf "$dir/proc/$n"
	done
	;;
table)
	shift 2
	printf '| case (truth) | rate, length | schedule |'
	for l in "$@"; do printf ' %s |' "$l"; done
	printf '\n|---|---|---|'
	for l in "$@"; do printf -- '---|'; done
	printf '\n'
	. "$here/llc_lib.sh" >/dev/null 2>&1
	for c in $CASES; do
		for cell in $CELLS; do
			hz=${cell%%:*} secs=${cell##*:} n="$c-$hz-${secs}s"
			[ -s "$dir/$n.tar.gz" ] || continue
			printf '| %s (%s) | %s, %s s | %s |' "$c" "$(truth_of $c)" "$([ "$hz" = default ] && echo default || echo "-F $hz")" "$secs" \
				"$(sed -n 's/^schedule: //p' "$dir/$n.schedule" 2>/dev/null)"
			for l in "$@"; do
				if [ -s "$dir/$l/$n.llc.json" ]; then
					# shellcheck disable=SC2046
					printf ' %s |' "$(llc_pct $(llc_figure "$dir/$l/$n.llc.json" measured))"
				else
					printf ' (no figure) |'
				fi
			done
			printf '\n'
		done
	done
	;;
*)
	echo "llc_truth.sh: unknown step '$cmd' (record, extract, table)" >&2
	exit 2
	;;
esac
