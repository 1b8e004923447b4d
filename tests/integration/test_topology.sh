#!/usr/bin/env bash
# test_topology.sh - the topology comes from the recording (issue 34 item 3):
# - a perf.data on its own (the EPYC 9254 fixture of
#   tests/tools/gen_perf_topology.py; a perf record of this machine): process
#   writes PROFILE.out/topology.json from its CACHE, CPU_TOPOLOGY and
#   NUMA_TOPOLOGY headers ("source": "perf.data headers", schema-valid);
#   for this machine's recording every CPU's LLC list is what sysfs gives
#   (cache index3, else index2) and its node; extract on PROFILE.out/ takes
#   it and one-pass extract on the perf.data the headers, both named
#   "perf.data headers", never "host";
# - a perf.jsonl without any topology: -v says so in one line and computes
#   no cross-LLC figure, --llc-json refuses (exit 1, nothing written, no
#   config), --topology host uses this machine's as asked; sched stats
#   --by llc refuses with one line, and takes topology.json next to the input.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

# The EPYC fixture: 48 CPUs, 4 LLCs of 12 (6k..6k+5 with 24+6k..), no samples
cp "$TOP/tests/fixtures/topology/epyc9254-headers.data" epyc.data
"$SCXPROF" process -f epyc.data >/dev/null 2>epyc.err
check "process -f PERF.DATA: topology.json from its headers" test -f epyc.data.out/topology.json
check "the headers' topology.json is schema-valid" validate "$TOP/schemas/topology.schema.json" epyc.data.out/topology.json
check "EPYC 9254 from the headers: 48 CPUs, 4 LLCs of 12, numbered as on the host" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == "perf.data headers", d["source"]
c = d["cpus"]
assert [x["cpu"] for x in c] == list(range(48))
want = lambda k: "%d-%d,%d-%d" % (6 * k, 6 * k + 5, 24 + 6 * k, 29 + 6 * k)
assert all(x["llc_cpus"] == want((x["cpu"] % 24) // 6) and x["llc_level"] == 3 for x in c), c
assert len({x["llc"] for x in c}) == 4 and all(x["node"] == 0 and x["package"] == 0 for x in c)
' epyc.data.out/topology.json

# A perf record of this machine: its headers against this machine's sysfs
if ! perf_record_clean pf.data -q -e page-faults -c 1 -d -- sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i+1)); done'; then
	skip "a perf record of this machine" "perf_event_open of software events is refused here"
else
	"$SCXPROF" process -f pf.data >/dev/null 2>pf.err || fail "process -f pf.data" "$(tail -n 3 pf.err)"
	check "perf record's headers: every CPU's LLC list and node as sysfs gives them (index3, else index2)" python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == "perf.data headers"
def rd(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None
for x in d["cpus"]:
    base = "/sys/devices/system/cpu/cpu%d" % x["cpu"]
    llc = rd(base + "/cache/index3/shared_cpu_list") or rd(base + "/cache/index2/shared_cpu_list") or ""
    nodes = [n for n in os.listdir(base) if n.startswith("node") and n[4:].isdigit()]
    assert x["llc_cpus"] == llc, (x, llc)
    assert not nodes or x["node"] == int(nodes[0][4:]), (x, nodes)
assert len(d["cpus"]) == len([c for c in os.listdir("/sys/devices/system/cpu") if c[3:].isdigit() and c.startswith("cpu")
                              and rd("/sys/devices/system/cpu/%s/online" % c) != "0"])
' pf.data.out/topology.json
	"$SCXPROF" extract -v -f pf.data.out/perf.jsonl >/dev/null 2>two.err
	check "extract on PROFILE.out: process's topology.json from the headers, not this host's" bash -c \
		"grep -q '^Cross-LLC sharing (perf.data headers: ' two.err && grep -q 'online CPUs (perf.data headers)' two.err && ! grep -q '(host' two.err"
	"$SCXPROF" extract -v -f pf.data >/dev/null 2>one.err
	check "one-pass extract on the perf.data: its headers" bash -c \
		"grep -q '^Cross-LLC sharing (perf.data headers: ' one.err && ! grep -q '(host' one.err"
fi

# No topology at all: said, no figure, --llc-json refused, the host only when asked
mkdir -p bare
python3 - bare/perf.jsonl <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(400):
        f.write(json.dumps({"comm": "w%d" % (i % 2), "tid": 10 + i % 2, "pid": 10, "cpu": i % 2, "time": 1000 + i,
                            "cgroup": "/workload.slice/a", "phys_addr": "0x%x" % (0x1000 + 64 * (i % 8)),
                            "data_page_size": 4096, "addr": "0x%x" % (0x7f0000 + 64 * (i % 8))}) + "\n")
PY
"$SCXPROF" extract -v -f bare/perf.jsonl >bare/cfg.json 2>bare/err
check "no topology: extract still writes the config" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' bare/cfg.json
check "no topology: -v says so in one line, names the input, takes no host" bash -c \
	"[ \$(grep -c '^topology: the recording has none (no bare/topology.json)' bare/err) = 1 ] &&
	 grep -q '^Cross-LLC sharing: not computed: the recording has no topology' bare/err && ! grep -q '(host' bare/err"
"$SCXPROF" extract -f bare/perf.jsonl --llc-json bare/llc.json >bare/llc.out 2>bare/llc.err; rc=$?
check "no topology: --llc-json refused (exit 1, one line, no file, no config)" bash -c \
	"[ $rc = 1 ] && [ \$(wc -l <bare/llc.err) = 1 ] && grep -q 'the recording has no topology' bare/llc.err &&
	 ! test -e bare/llc.json && ! test -s bare/llc.out && [ \$(ls bare | grep -c tmp) = 0 ]"
"$SCXPROF" extract -v -f bare/perf.jsonl --topology host --llc-json bare/host.json >/dev/null 2>bare/host.err
check "--topology host: this machine's, as asked" bash -c \
	"grep -q '^Cross-LLC sharing (host: ' bare/host.err && python3 -c 'import json; assert json.load(open(\"bare/host.json\"))[\"topology\"][\"source\"] == \"host\"'"

# sched stats --by llc: the recording's topology.json, else one line
cp "$TOP/tests/fixtures/sched/stats_basic.jsonl" s.jsonl
if [ -f s.jsonl ]; then
	"$SCXPROF" extract sched stats -f s.jsonl --by llc >s.out 2>s.err; rc=$?
	check "sched stats --by llc without a topology: one line, exit 1" bash -c \
		"[ $rc = 1 ] && [ \$(wc -l <s.err) = 1 ] && grep -q 'the recording has no topology' s.err && ! test -s s.out"
	mkdir -p st && cp s.jsonl st/ && cp "$TOP/tests/fixtures/extract/topology-8cpu-2llc.json" st/topology.json
	check "sched stats --by llc: topology.json next to the input" bash -c \
		"'$SCXPROF' extract sched stats -f st/s.jsonl --by llc | python3 -c 'import json,sys; d=json.load(sys.stdin); assert [k[\"llc\"] for k in d[\"keys\"]] == [0, 4], d'"
else
	fail "sched stats fixture" "stats_basic.jsonl not found"
fi
