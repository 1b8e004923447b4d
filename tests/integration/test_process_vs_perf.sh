#!/usr/bin/env bash
# test_process_vs_perf.sh - differential test: perf.data files recorded here
# with the system perf are decoded by `scxprof process` and compared, sample
# by sample and in order, with `perf script` (the oracle nobody here wrote):
# pid, tid, comm, time (ns), ip, addr, phys_addr, data_page_size, dso, sym.
# Also checks cgroup paths against `perf report --sort cgroup`.
# suite: long
# (one of the slowest under ASan: started early, so the run does not end on one slot)
. "$(dirname "$0")/lib.sh"
WL="$TOP/$BUILD/workloads/scxprof-workload"

if ! perf record -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "process matches perf script" "perf cannot record page-fault samples here"
	exit 0
fi

# 1. page-fault samples with data addresses, system-wide, a workload whose
#    thread names contain spaces
mkdir -p "$WORK/pf"
perf_record_clean "$WORK/pf/perf.data" -q -e page-faults -c 1 -d --phys-data --data-page-size -a \
	-- "$WL" -i 100 -p 32 "alpha worker:2:A" beta:1:A gamma:1
if "$SCXPROF" process -f "$WORK/pf" --no-filter >"$WORK/pf.log" 2>&1; then
	check "page faults: every sample equals perf script" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/pf/perf.data" "$WORK/pf.out/perf.jsonl"
else
	fail "page faults: process ran" "$(tail -n 3 "$WORK/pf.log")"
fi
check "page faults: perf.jsonl valid against its schema" validate "$TOP/schemas/perf-sample.schema.json" "$WORK/pf.out/perf.jsonl" --jsonl
check "page faults: process.json valid against its schema" validate "$TOP/schemas/process-summary.schema.json" "$WORK/pf.out/process.json"
check "page faults: process.json counts every sample" python3 -c '
import json,sys; p=json.load(open(sys.argv[1])); n=sum(1 for _ in open(sys.argv[2]))
assert p["samples"]["total"]==n==p["records"]["SAMPLE"], (p["samples"], n)
assert p["ordering"]["mode"]=="time" and p["ordering"]["rounds"]>0, p["ordering"]' "$WORK/pf.out/process.json" "$WORK/pf.out/perf.jsonl"
n=$(wc -l <"$WORK/pf.out/perf.jsonl" 2>/dev/null || echo 0)
if [ "$n" -gt 1000 ]; then pass "page faults: recorded a real workload ($n samples)"; else fail "page faults: sample count" "only $n samples"; fi

# -j N: the same files for every N (lines and trace samples are formatted on
# N-1 threads, written in order); -z goes through the compressing writer.
# The profile gets a kallsyms snapshot: /proc/kallsyms itself changes while
# other tests load BPF programs (process.json counts the kernel symbols).
same_for_jobs() { # LABEL PROFILE_DIR [PROCESS OPTIONS...]
	local label=$1 dir=$2.jobs j f bad=""
	shift 2
	mkdir -p "$dir"
	ln -sf "$(cd "${dir%.jobs}" && pwd)/perf.data" "$dir/perf.data"
	[ -f "$dir/kallsyms" ] || cp /proc/kallsyms "$dir/kallsyms"
	for j in 1 2 4; do
		rm -rf "$dir.j$j"
		if ! "$SCXPROF" process -j $j -f "$dir" -o "$dir.j$j" "$@" >/dev/null 2>"$dir.j$j.err"; then
			fail "$label: process -j $j ran" "$(tail -n 3 "$dir.j$j.err")"
			return
		fi
	done
	for f in $(cd "$dir.j1" && ls); do
		for j in 2 4; do
			cmp -s "$dir.j1/$f" "$dir.j$j/$f" || bad="$bad $f(-j $j)"
		done
	done
	# enough lines for two batches (2048 lines, process/emit/emit_pool.c) on
	# each of -j 4's three formatting threads; counted in process.json, since
	# the size of perf.jsonl.zst depends on compression
	kept=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"]["kept"])' "$dir.j1/process.json" 2>/dev/null)
	if [ -z "$bad" ] && [ -s "$dir.j1/trace.pftrace" ] && [ "${kept:-0}" -ge 12288 ]; then
		pass "$label: -j 1, -j 2 and -j 4 write the same bytes ($kept samples: $(ls "$dir.j1" | tr '\n' ' '))"
	else
		fail "$label: -j 1, -j 2 and -j 4 write the same bytes" "differ:${bad:- (no trace, or ${kept:-no} samples, under 12288)}"
	fi
}
# the workload alone (files of processes other tests start and delete would
# resolve differently from run to run), in a cgroup of its own when there is
# one (its samples' cgroup changes while it runs), comms changed by exec and
# by its threads
mkdir -p "$WORK/jobs"
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$cg2" ] && [ -w "$cg2" ]; then
	cgj=$cg2/scxprof-test-jobs-$$
	mkdir -p "$cgj"
	trap 'cgroup_remove "$cgj" "${cg:-}"; rm -rf "$WORK"' EXIT
	perf record -q -e page-faults -c 1 -d --phys-data --data-page-size --all-cgroups -o "$WORK/jobs/perf.data" \
		-- sh -c "echo \$\$ > $cgj/cgroup.procs && exec $WL -i 200 -p 32 'alpha worker:2:A' beta:2" >/dev/null 2>&1
	cgroup_remove "$cgj"
else
	perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/jobs/perf.data" \
		-- "$WL" -i 200 -p 32 "alpha worker:2:A" beta:2 >/dev/null 2>&1
fi
same_for_jobs "page faults" "$WORK/jobs" --no-filter
same_for_jobs "page faults, -z" "$WORK/jobs" --no-filter -z

# 1b. a sample under an id of no event in the file (what a concurrent
#     system-wide recording of the same event leaves, seen with two suites on
#     one machine): process skips it with a warning and keeps the rest;
#     perf_foreign_ids.py, which tests use to record such a file again, counts it
mkdir -p "$WORK/foreign"
python3 "$TOP/tests/integration/corrupt_perf.py" foreign-id "$WORK/pf/perf.data" "$WORK/foreign/perf.data"
check "foreign sample id: perf_foreign_ids.py counts 1 (0 in the recording)" sh -c \
	'[ "$(python3 "$1" "$2")" = 1 ] && [ "$(python3 "$1" "$3")" = 0 ]' _ "$TOP/tests/tools/perf_foreign_ids.py" \
	"$WORK/foreign/perf.data" "$WORK/pf/perf.data"
if "$SCXPROF" process -f "$WORK/foreign" --no-filter --no-perfetto >"$WORK/foreign.log" 2>&1; then
	check "foreign sample id: process warns, and keeps every other sample" sh -c \
		'grep -q "1 records carry a sample id of no event in the file" "$1" && [ $(($(wc -l <"$2") + 1)) -eq $(wc -l <"$3") ]' \
		_ "$WORK/foreign.log" "$WORK/foreign.out/perf.jsonl" "$WORK/pf.out/perf.jsonl"
else
	fail "foreign sample id: process ran" "$(tail -n 3 "$WORK/foreign.log")"
fi

# 2. several events in one file: samples find their attr by id
mkdir -p "$WORK/multi"
perf_record_clean "$WORK/multi/perf.data" -q -e page-faults/period=1/ -e cpu-clock/period=200000/ -d \
	--phys-data --data-page-size -a -- "$WL" -d 0.3 -H 1 -p 16 multi:2
if "$SCXPROF" process -f "$WORK/multi" --no-filter >"$WORK/multi.log" 2>&1; then
	check "two events: every sample equals perf script" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/multi/perf.data" "$WORK/multi.out/perf.jsonl"
	events=$(python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l).get("event","?") for l in open(sys.argv[1])})))' "$WORK/multi.out/perf.jsonl")
	# perf names the events as they were asked for on its command line
	if [ "$events" = "cpu-clock/period=200000/ page-faults/period=1/" ]; then pass "two events: event names from EVENT_DESC"; else fail "two events: event names" "got '$events'"; fi
else
	fail "two events: process ran" "$(tail -n 3 "$WORK/multi.log")"
fi

# 2b. code that comes and goes in the kernel (a BPF program: a sched_ext
#     scheduler, a tracer): PERF_RECORD_KSYMBOL names it. perf names a sample
#     inside it after the program (sym and dso), and [unknown] once it is
#     unregistered. tests/tools/perf_ksymbol.py gives a real cpu-clock
#     recording such a program, with kernel-mode samples moved into it.
mkdir -p "$WORK/ksym"
perf_record_clean "$WORK/ksym/real.data" -q -e cpu-clock -c 200000 -a -- "$WL" -d 0.5 -p 16 ksym:2
if python3 "$TOP/tests/tools/perf_ksymbol.py" "$WORK/ksym/real.data" "$WORK/ksym/perf.data" >"$WORK/ksym.made" 2>&1 &&
	"$SCXPROF" process -f "$WORK/ksym" --no-filter --no-perfetto >"$WORK/ksym.log" 2>&1; then
	perf script -i "$WORK/ksym/perf.data" -F comm,tid,time,ip,sym,dso --ns 2>/dev/null |
		awk '{$1 = $1; sub(/: /, " "); print}' >"$WORK/ksym.perf"
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    print(j["comm"], j["tid"], j["time"], j["ip"], j["sym"], "(" + j["dso"] + ")")' "$WORK/ksym.out/perf.jsonl" >"$WORK/ksym.ours"
	read -r kname kin kafter <"$WORK/ksym.made"
	check "KSYMBOL: every sample's comm, tid, time, ip, sym and dso equal perf script's" \
		diff -q "$WORK/ksym.perf" "$WORK/ksym.ours"
	check "KSYMBOL: the $kin samples inside the BPF program are named after it, sym and dso" \
		sh -c '[ "$(grep -c " $1 ($1)\$" "$2")" = "$3" ]' _ "$kname" "$WORK/ksym.ours" "$kin"
	check "KSYMBOL: a sample in its range after it was unregistered is [unknown]" \
		grep -q "ffffffffc1f00008 \[unknown\] (\[unknown\])" "$WORK/ksym.ours"
else
	fail "KSYMBOL: the file made and processed" "$(tail -n 3 "$WORK/ksym.made" "$WORK/ksym.log")"
fi

# 2c. code in anonymous executable memory (a JIT's: java, node, python -X
#     perf): perf names its dso /tmp/perf-PID.map (the file a JIT lists its
#     symbols in). A system-wide recording holds such samples whenever a
#     process with JIT code runs beside it (a cold CI run's KSYMBOL check
#     failed on one); -J makes the workload write 8 fresh pages from code it
#     copied into an anonymous executable page, so every run has 8 of them.
mkdir -p "$WORK/jit"
perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/jit/perf.data" \
	-- "$WL" -J -i 1 -p 8 jit:1 >/dev/null 2>"$WORK/jit.rec.err"
if grep -q -- "-J: cannot run code in anonymous memory: Function not implemented" "$WORK/jit.rec.err"; then
	skip "JIT code" "the workload has no JIT code for $(uname -m)"
elif "$SCXPROF" process -f "$WORK/jit" --no-filter --no-perfetto >"$WORK/jit.log" 2>&1; then
	check "JIT code: every sample equals perf script (dso /tmp/perf-PID.map)" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/jit/perf.data" "$WORK/jit.out/perf.jsonl"
	check "JIT code: its 8 page faults have dso /tmp/perf-PID.map and data_map //anon" python3 -c '
import json, sys
j = [d for d in map(json.loads, open(sys.argv[1])) if d["comm"] == "jit-0" and d["dso"].startswith("/tmp/perf-")]
assert len(j) == 8 and all(d["dso"] == "/tmp/perf-%d.map" % d["pid"] and d["data_map"] == "//anon" for d in j), j[:2]' \
		"$WORK/jit.out/perf.jsonl"
else
	fail "JIT code: process ran" "$(tail -n 3 "$WORK/jit.log" "$WORK/jit.rec.err")"
fi

# 3. cgroups: samples of a workload in its own cgroup carry its path
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$cg2" ] && [ -w "$cg2" ]; then
	cg=$cg2/scxprof-test-$$
	trap 'cgroup_remove "${cgj:-}" "$cg"; rm -rf "$WORK"' EXIT
	mkdir -p "$cg" && mkdir -p "$WORK/cg"
	perf_record_clean "$WORK/cg/perf.data" -q -e page-faults -c 1 -d --phys-data --data-page-size --all-cgroups -a \
		-- sh -c "echo \$\$ > $cg/cgroup.procs && exec $WL -i 200 -p 16 cgw:1"
	cgroup_remove "$cg"
	if "$SCXPROF" process -f "$WORK/cg" --no-filter >"$WORK/cg.log" 2>&1; then
		# perf report's per-cgroup sample counts must equal ours
		perf report -i "$WORK/cg/perf.data" --sort cgroup --stdio -F sample,cgroup 2>/dev/null |
			awk '!/^#/ && NF==2 {print $2, $1}' | sort >"$WORK/cg.perf"
		python3 -c '
import json,sys,collections
c=collections.Counter(json.loads(l)["cgroup"] for l in open(sys.argv[1]))
for k,v in sorted(c.items()): print(k, v)' "$WORK/cg.out/perf.jsonl" | sort >"$WORK/cg.ours"
		if diff -u "$WORK/cg.perf" "$WORK/cg.ours" >"$WORK/cg.diff" && grep -q "scxprof-test-$$" "$WORK/cg.ours"; then
			pass "cgroups: per-cgroup counts equal perf report --sort cgroup"
		else
			fail "cgroups: per-cgroup counts" "$(head -c 600 "$WORK/cg.diff"; head -c 300 "$WORK/cg.ours")"
		fi
	else
		fail "cgroups: process ran" "$(tail -n 3 "$WORK/cg.log")"
	fi
else
	skip "cgroups: per-cgroup counts equal perf report" "no writable cgroup2 hierarchy mounted"
fi

# 4. kernel symbols, chosen as perf chooses them: /proc/kallsyms serves a
#    recording only when its kernel build-id (BUILD_ID feature) is the running
#    kernel's and its kernel map sits at the running _text; the file's mtime
#    proves nothing. A kallsyms snapshot in the profile comes first.
KID="$TOP/tests/integration/kernel_id_perf.py"
kernel_unknown() { # every kernel-mode sample keeps its dso, symbol [unknown]
	python3 -c '
import json,sys
k=[json.loads(l) for l in open(sys.argv[1]) if "\"[kernel.kallsyms]\"" in l]
assert k and all(s["sym"]=="[unknown]" for s in k), len(k)' "$1"
}
# -K: the workload's thread reads /dev/zero into 8 fresh pages first, so the
# kernel takes 8 page faults in kernel mode (read_zero): the recording always
# has kernel-mode samples, whatever else it catches (exec's faults vary)
mkdir -p "$WORK/kern"
perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/kern/perf.data" \
	-- "$WL" -K -i 200 -p 8 kern:1 >/dev/null 2>"$WORK/kern.rec.err"
"$SCXPROF" process -f "$WORK/kern" --no-filter >/dev/null 2>"$WORK/kern.err"
kk=$(grep -c '"comm":"kern-0".*"dso":"\[kernel.kallsyms\]"' "$WORK/kern.out/perf.jsonl" 2>/dev/null)
if [ "${kk:-0}" -ge 8 ]; then
	pass "kernel symbol policy: the -K recording has its $kk kernel-mode samples (8 or more)"
	# a copy with an mtime before this boot, still this kernel: symbols as perf
	mkdir -p "$WORK/old"
	cp "$WORK/kern/perf.data" "$WORK/old/perf.data"
	touch -d "@$(( $(date +%s) - $(awk '{print int($1)}' /proc/uptime) - 3600 ))" "$WORK/old/perf.data"
	if "$SCXPROF" process -f "$WORK/old" --no-filter >/dev/null 2>"$WORK/old.err"; then
		check "copied file, old mtime, same kernel: every sample equals perf script" \
			python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/old/perf.data" "$WORK/old.out/perf.jsonl"
		check "copied file, same kernel: process.json says /proc/kallsyms" grep -q '"kallsyms_source":"/proc/kallsyms"' "$WORK/old.out/process.json"
		check "copied file, same kernel: no kernel-symbol warning" bash -c '! grep -q "kernel symbols" "$1"' _ "$WORK/old.err"
	else
		fail "copied file: process ran" "$(tail -n 3 "$WORK/old.err")"
	fi
	# the same recording, said to come from another kernel build
	mkdir -p "$WORK/otherk"
	python3 "$KID" other-build-id "$WORK/kern/perf.data" "$WORK/otherk/perf.data"
	want=$(python3 "$KID" show "$WORK/otherk/perf.data" | cut -d' ' -f1)
	"$SCXPROF" process -f "$WORK/otherk" --no-filter >/dev/null 2>"$WORK/otherk.err"
	check "another kernel's build-id: warns, naming both build-ids" \
		grep -q "recorded on another kernel (build-id $want, running $(python3 "$KID" show "$WORK/kern/perf.data" | cut -d' ' -f1)).*kernel symbols shown as \[unknown\]" "$WORK/otherk.err"
	check "another kernel's build-id: kernel samples [unknown]" kernel_unknown "$WORK/otherk.out/perf.jsonl"
	check "another kernel's build-id: every sample equals perf script (its kernel symbols [unknown] too)" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/otherk/perf.data" "$WORK/otherk.out/perf.jsonl"
	check "another kernel's build-id: process.json says none" grep -q '"kallsyms_source":"none"' "$WORK/otherk.out/process.json"
	# this kernel, but relocated elsewhere (another boot under KASLR)
	mkdir -p "$WORK/moved"
	python3 "$KID" moved-map "$WORK/kern/perf.data" "$WORK/moved/perf.data"
	"$SCXPROF" process -f "$WORK/moved" --no-filter >/dev/null 2>"$WORK/moved.err"
	check "kernel map elsewhere: warns about the relocation" grep -q "kernel map starts at 0x.*_text is at 0x.*another boot" "$WORK/moved.err"
	check "kernel map elsewhere: kernel samples [unknown]" kernel_unknown "$WORK/moved.out/perf.jsonl"
	# no kernel build-id recorded at all
	mkdir -p "$WORK/nobid"
	python3 "$KID" no-build-id "$WORK/kern/perf.data" "$WORK/nobid/perf.data"
	"$SCXPROF" process -f "$WORK/nobid" --no-filter >/dev/null 2>"$WORK/nobid.err"
	check "no kernel build-id: warns" grep -q "no kernel build-id in the file" "$WORK/nobid.err"
	check "no kernel build-id: kernel samples [unknown]" kernel_unknown "$WORK/nobid.out/perf.jsonl"
	# a snapshot restores the symbols of the other kernel's recording
	mkdir -p "$WORK/snap"
	cp -p "$WORK/old/perf.data" "$WORK/snap/perf.data"
	cp /proc/kallsyms "$WORK/snap/kallsyms"
	if "$SCXPROF" process -f "$WORK/snap" --no-filter >/dev/null 2>&1; then
		check "kallsyms snapshot: every sample equals perf script again" \
			python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/snap/perf.data" "$WORK/snap.out/perf.jsonl"
		check "kallsyms snapshot: process.json names the source" grep -q '"kallsyms_source":"snapshot"' "$WORK/snap.out/process.json"
	else
		fail "kallsyms snapshot: process ran" "see log"
	fi
	# metadata.json names the snapshot's kernel: another one than perf.data's is said
	mkdir -p "$WORK/snapmixed"
	cp "$WORK/snap/perf.data" "$WORK/snap/kallsyms" "$WORK/snapmixed/"
	run_bid=$(python3 "$KID" show "$WORK/kern/perf.data" | cut -d' ' -f1)
	echo "{\"kernel_build_id\": \"$(echo "$run_bid" | tr 0-9a-f f-f0-9)\"}" >"$WORK/snapmixed/metadata.json"
	"$SCXPROF" process -f "$WORK/snapmixed" --no-filter >/dev/null 2>"$WORK/snapmixed.err"
	check "snapshot of another kernel (metadata.json): warns, naming both" \
		grep -q "kernel build-id $run_bid, but the kallsyms snapshot .* was taken on kernel .*kernel symbols may be wrong" "$WORK/snapmixed.err"
	echo "{\"kernel_build_id\": \"$run_bid\"}" >"$WORK/snapmixed/metadata.json"
	rm -rf "$WORK/snapmixed.out"
	"$SCXPROF" process -f "$WORK/snapmixed" --no-filter >/dev/null 2>"$WORK/snapmixed.err"
	check "snapshot of the same kernel (metadata.json): no warning" bash -c '! grep -q "kernel symbols" "$1"' _ "$WORK/snapmixed.err"
	echo '{"kernel_build_id": "xyz"}' >"$WORK/snapmixed/metadata.json"
	rm -rf "$WORK/snapmixed.out"
	"$SCXPROF" process -f "$WORK/snapmixed" --no-filter >/dev/null 2>"$WORK/snapmixed.err"
	check "malformed kernel_build_id: said, snapshot still used" bash -c \
		'grep -q "cannot tell which kernel the kallsyms snapshot is from: .*kernel_build_id \"xyz\" is not hex" "$1" && grep -q "\"kallsyms_source\":\"snapshot\"" "$2"' \
		_ "$WORK/snapmixed.err" "$WORK/snapmixed.out/process.json"
	# a snapshot that does not fit the recording's kernel map is still used, with a warning
	mkdir -p "$WORK/snapmoved"
	cp "$WORK/moved/perf.data" "$WORK/snapmoved/perf.data"
	cp /proc/kallsyms "$WORK/snapmoved/kallsyms"
	"$SCXPROF" process -f "$WORK/snapmoved" --no-filter >/dev/null 2>"$WORK/snapmoved.err"
	check "snapshot of another boot: warns that kernel symbols may be wrong" \
		grep -q "snapshot is from another boot or kernel.*kernel symbols may be wrong" "$WORK/snapmoved.err"
else
	fail "kernel symbol policy: the -K recording has 8 or more kernel-mode samples of kern-0" \
		"${kk:-0}: $(tail -n 2 "$WORK/kern.rec.err" "$WORK/kern.err" | tr '\n' ' ')"
fi

# 5. a binary replaced after recording: perf symbolizes from its build-id
#    cache (~/.debug); so must we (the recording's BUILD_ID feature names it),
#    instead of reading the new file's symbols
mkdir -p "$WORK/rebuilt" "$WORK/rbin"
cp "$WL" "$WORK/rbin/wl"
perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/rebuilt/perf.data" -- "$WORK/rbin/wl" -K -i 100 -p 8 r:1 >/dev/null 2>&1
cp /usr/bin/ls "$WORK/rbin/wl" # a different ELF at the same path
if "$SCXPROF" process -f "$WORK/rebuilt" --no-filter >/dev/null 2>&1; then
	check "replaced binary: every sample equals perf script (build-id cache)" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/rebuilt/perf.data" "$WORK/rebuilt.out/perf.jsonl"
	check "replaced binary: its samples still have symbols" python3 -c '
import json,sys
w=[json.loads(l) for l in open(sys.argv[1]) if "/rbin/wl" in l]
assert w and sum(s["sym"] != "[unknown]" for s in w) * 2 > len(w), len(w)' "$WORK/rebuilt.out/perf.jsonl"
else
	fail "replaced binary: process ran" "see log"
fi

# 6. kernel symbols are read only once a sample is in kernel mode: a
#    recording attached to a running workload (no exec in it) usually has
#    none, so process.json counts no kernel symbol (or some, when it has
#    kernel-mode samples after all); the recording of 5 has kernel-mode
#    samples (-K: the kernel writes fresh pages), so it counts them
"$WL" -d 30 -p 32 -H 2 attached:1 >/dev/null 2>&1 &
wpid=$!
for _ in $(seq 300); do # until the worker thread runs (the exec is over)
	grep -q "^attached-" /proc/$wpid/task/*/comm 2>/dev/null && break
	sleep 0.1
done
mkdir -p "$WORK/attach"
# --buildid-all: the kernel's build-id is noted without a kernel sample, so
# the kernel symbols would be usable (kallsyms_source /proc/kallsyms)
perf record -q --buildid-all -e page-faults -c 1 -d --phys-data --data-page-size -o "$WORK/attach/perf.data" -p "$wpid" -- sleep 0.5 >/dev/null 2>&1
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
kn=$(perf script -i "$WORK/attach/perf.data" -F ip,dso 2>/dev/null | grep -c 'kernel.kallsyms')
if "$SCXPROF" process -f "$WORK/attach" --no-filter >/dev/null 2>&1; then
	check "attached recording: every sample equals perf script" \
		python3 "$TOP/tests/integration/compare_perf_script.py" "$WORK/attach/perf.data" "$WORK/attach.out/perf.jsonl"
	if [ -z "$(perf buildid-list -k 2>/dev/null)" ]; then
		skip "no kernel-mode sample: no kernel symbol read" "this kernel has no build-id (perf buildid-list -k): no kernel symbols either way"
	elif ! grep -q '"kallsyms_source":"/proc/kallsyms"' "$WORK/attach.out/process.json"; then
		fail "attached recording (--buildid-all notes the running kernel): kernel symbols from /proc/kallsyms" \
			"$(grep -o '"kallsyms_source":"[^"]*"' "$WORK/attach.out/process.json")"
	elif [ "$kn" -eq 0 ]; then
		check "no kernel-mode sample: no kernel symbol read" grep -q '"kernel_symbols":0,' "$WORK/attach.out/process.json"
	else
		check "attached recording with $kn kernel-mode samples: kernel symbols read" \
			grep -q '"kernel_symbols":[1-9]' "$WORK/attach.out/process.json"
	fi
else
	fail "attached recording: process ran" "see log"
fi
kn=$(perf script -i "$WORK/rebuilt/perf.data" -F ip,dso 2>/dev/null | grep -c 'kernel.kallsyms')
check "-K recording, $kn kernel-mode samples (8 or more): kernel symbols read from /proc/kallsyms" bash -c \
	'[ "$1" -ge 8 ] && grep -q "\"kallsyms_source\":\"/proc/kallsyms\"" "$2" && grep -q "\"kernel_symbols\":[1-9]" "$2"' \
	_ "$kn" "$WORK/rebuilt.out/process.json"
