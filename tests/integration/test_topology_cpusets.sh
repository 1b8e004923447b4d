#!/usr/bin/env bash
# test_topology_cpusets.sh - record writes the host's cpusets into
# topology.json (issue 34, "cpusets claimed"): a cgroup2 cgroup of this
# test's own with cpuset.cpus set, a trivial workload recorded in it
# (record -t 1), is listed under "cpusets" with its cpuset.cpus.effective,
# the file schema-valid; and check --topology host lays its cell on those
# CPUs. Needs root and a cgroup2 mount offering the cpuset controller
# (cgroup.controllers): where it lacks one (a host whose cpuset hierarchy is
# cgroup v1's) a cgroup2 cpuset cannot be made, and it prints SKIP.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ "$(id -u)" -ne 0 ]; then
	skip "record's cpusets" "needs root (cgroups, record)"
	exit 0
fi
if [ -z "$cg2" ]; then
	skip "record's cpusets" "no cgroup2 mount"
	exit 0
fi
if ! grep -qw cpuset "$cg2/cgroup.controllers" 2>/dev/null; then
	skip "record's cpusets" "the cgroup2 mount $cg2 offers no cpuset controller ($(cat "$cg2/cgroup.controllers" 2>/dev/null)); the cpuset hierarchy is cgroup v1's"
	exit 0
fi
if ! perf record -q -e page-faults -c 1 -o probe.data -- true >/dev/null 2>&1; then
	skip "record's cpusets" "perf_event_open of software events is refused here"
	exit 0
fi
enabled=0
if ! grep -qw cpuset "$cg2/cgroup.subtree_control"; then # ours to enable, and to disable again
	echo +cpuset >"$cg2/cgroup.subtree_control" || { skip "record's cpusets" "cannot enable cpuset in $cg2"; exit 0; }
	enabled=1
fi
name="scxprof-cpusets-$$.allotment.slice"
dir="$cg2/$name"
trap 'cgroup_remove "$dir"; [ $enabled -eq 0 ] || echo -cpuset >"$cg2/cgroup.subtree_control" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir "$dir"
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then skip "record's cpusets" "one CPU: a cpuset of it leaves cell 0 none"; exit 0; fi
cpu=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1) # the first online CPU
echo "$cpu" >"$dir/cpuset.cpus"
want=$(cat "$dir/cpuset.cpus.effective")
check "the test's cgroup has the cpuset it was given" test "$want" = "$cpu"
"$SCXPROF" record -t 1 -o prof --backend page-fault -- sh -c 'echo $$ >"$0/cgroup.procs" && exec sleep 0.2' "$dir" \
	>rec.out 2>rec.err
rc=$?
if [ $rc -ne 0 ]; then
	fail "record in a cgroup with a cpuset" "exit $rc: $(tail -n 3 rec.err)"
	exit 0
fi
tar xzf prof.tar.gz
check "record: topology.json valid with its cpusets" validate "$TOP/schemas/topology.schema.json" prof/topology.json
check "record: topology.json lists the cgroup's cpuset.cpus.effective under its path" python3 -c '
import json, sys
c = json.load(open(sys.argv[1])).get("cpusets", {})
assert c.get("/" + sys.argv[2]) == sys.argv[3], c
assert list(c) == sorted(c) and "/" not in c, c
' prof/topology.json "$name" "$want"
printf '[{"name": "a", "matches": {"CgroupRegex": "scxprof-cpusets-%s"}}, {"name": "rest", "matches": {}}]\n' "$$" >cfg.json
"$SCXPROF" check --topology host --cgroup "/$name" cfg.json >chk.out 2>chk.err
rc=$?
check "check --topology host: the cgroup's cell takes its cpuset's CPUs" bash -c \
	"[ $rc -eq 0 ] && grep -q '^# scx_mitosis cell 1 /$name CPUs $want: ' chk.out"
