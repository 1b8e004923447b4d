#!/usr/bin/env bash
# test_extract_mem.sh - extract mem end to end through the CLI.
# Upstream parity (--cluster comm): exact config and -v/-vv text on
# hand-built fixtures whose expected outputs were derived by hand from the
# rules in upstream-behaviour.md (tests/fixtures/extract/*.json, *.txt):
#   groups.jsonl  two allotments, workload, rest; web1/web2/web3 merge to
#                 web (CommPrefix web), redis7 alone stays CommPrefix redis7,
#                 an all-digit comm, a comm written with \u escapes, a 1%
#                 comm hidden by the strict "> 1%" rule, hints 0/7/10/9.
#   hints.jsonl   upstream's own unit-test cases (mcrpxy-webNR1/2 hint
#                 splits), a comm with 25 hints none above 5% (not split),
#                 "... K more hints below 1%", no rest group at all.
# Sharing clustering: planted groups from tests/tools/gen_planted.py, scored
# with the adjusted Rand index (tests/tools/ari.py).
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures/extract"
TOOLS="$TOP/tests/tools"
SCHEMA="$TOP/schemas/cell-config.schema.json"

# expect_output NAME EXPECTED_FILE CMD...: stdout of CMD equals the file byte for byte
expect_stdout() {
	local name=$1 want=$2; shift 2
	if "$@" >"$WORK/out" 2>"$WORK/err" && cmp -s "$WORK/out" "$want"; then pass "$name"
	else fail "$name" "$(diff "$want" "$WORK/out" | head -n 8 | tr '\n' ' ') $(head -c 300 "$WORK/err")"; fi
}
expect_stderr() {
	local name=$1 want=$2; shift 2
	if "$@" >/dev/null 2>"$WORK/err" && cmp -s "$WORK/err" "$want"; then pass "$name"
	else fail "$name" "$(diff "$want" "$WORK/err" | head -n 8 | tr '\n' ' ')"; fi
}

# --- upstream parity (--cluster comm) ---
G="$FIX/groups.jsonl"
expect_stdout "comm: groups config (suffix merge, clause forms, group order, rest subcell)" \
	"$FIX/groups.comm.json" "$SCXPROF" extract mem --cluster comm -f "$G"
expect_stderr "comm: -v report text" "$FIX/groups.v.txt" "$SCXPROF" extract mem --cluster comm -v -f "$G"
expect_stdout "comm: --use-hints splits memcached@hint=0/7/10 in numeric order, drops hint 9 (<5%)" \
	"$FIX/groups.comm-hints.json" "$SCXPROF" extract mem --cluster comm --use-hints -f "$G"
expect_stderr "comm: -vv --use-hints report (hint lines, concrete comms, 1% lines)" \
	"$FIX/groups.vv-hints.txt" "$SCXPROF" extract mem --cluster comm --use-hints -vv -f "$G"
H="$FIX/hints.jsonl"
expect_stdout "comm: hints fixture without --use-hints: no split" "$FIX/hints.comm.json" \
	"$SCXPROF" extract mem --cluster comm -f "$H"
expect_stdout "comm: merged numeric-suffix comm split by hint (upstream's unit test)" \
	"$FIX/hints.comm-hints.json" "$SCXPROF" extract mem --cluster comm --use-hints -f "$H"
expect_stderr "comm: -v --use-hints: '... 1 more hints below 1%'" "$FIX/hints.v-hints.txt" \
	"$SCXPROF" extract mem --cluster comm --use-hints -v -f "$H"
"$SCXPROF" extract mem --cluster comm -f "$G" >"$WORK/a.json"
"$SCXPROF" extract --cluster comm -f "$G" >"$WORK/b.json"
check "extract without subcommand means mem" cmp "$WORK/a.json" "$WORK/b.json"
check "comm config valid against cell-config.schema.json" validate "$SCHEMA" "$WORK/a.json"
"$SCXPROF" extract mem --cluster comm --use-hints -f "$H" >"$WORK/h.json"
check "comm hints config valid against the schema" validate "$SCHEMA" "$WORK/h.json"

# custom workload string and allotment regex; the regex's matched text names the -v block
"$SCXPROF" extract mem --cluster comm -v --workload-cgroup-regex system.slice \
	--workload-allotment-cgroup-regex 'ss[a-z]+' -f "$G" >"$WORK/c.json" 2>"$WORK/c.txt"
check "custom regex: -v block named by the matched text" grep -qx "sshd: 100 samples (39.68%)" "$WORK/c.txt"
check "custom regex: workload cell named by the string" \
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert [x["name"] for x in c]==["allotment","rest"], c; assert c[0]["matches"]=={"CgroupRegex":"ss[a-z]+"}' "$WORK/c.json"

# --- string escapes ---
printf '%s\n' \
	'{"comm":"\ud83d\ude80app1","tid":1,"pid":1,"time":"1","addr":"0","cgroup":"/workload.slice/workload-tw-a.allotment.slice","ip":"0","sym":"s","dso":"d","phys_addr":"1000","data_page_size":4096,"hint":0}' \
	'{"comm":"\ud83d\ude80app2","tid":1,"pid":1,"time":"1","addr":"0","cgroup":"/workload.slice/workload-tw-a.allotment.slice","ip":"0","sym":"s","dso":"d","phys_addr":"1000","data_page_size":4096,"hint":0}' \
	'{"comm":"q\"b\\s\/x","tid":1,"pid":1,"time":"1","addr":"0","cgroup":"/workload.slice/workload-tw-a.allotment.slice","ip":"0","sym":"s","dso":"d","phys_addr":"1000","data_page_size":4096,"hint":0}' \
	>"$WORK/esc.jsonl"
"$SCXPROF" extract mem --cluster comm -f "$WORK/esc.jsonl" >"$WORK/esc.json" 2>"$WORK/esc.err"
check "escapes: surrogate pair decoded to UTF-8, suffixes merged" \
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[0]["subcells"]; assert s[1]=={"name":"\U0001F680app","matches":[[{"CommPrefix":"\U0001F680app"}]]}, s' "$WORK/esc.json"
check "escapes: \\\" \\\\ \\/ decoded and re-escaped" \
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))[0]["subcells"]; assert s[0]["name"]=="q\"b\\s/x", s' "$WORK/esc.json"
check "escapes: output is raw UTF-8, not \\u escapes" grep -q $'\xf0\x9f\x9a\x80app' "$WORK/esc.json"

# --- errors ---
bad_line() { # NAME LINE EXPECTED_SUBSTRING
	printf '%s\n' "$(head -n 1 "$G")" "$2" >"$WORK/bad.jsonl"
	if "$SCXPROF" extract mem -f "$WORK/bad.jsonl" >/dev/null 2>"$WORK/bad.err"; then fail "$1" "exit 0"
	else
		rc=$?
		if [ $rc -eq 1 ] && grep -qF "$WORK/bad.jsonl:2: $3" "$WORK/bad.err"; then pass "$1"
		else fail "$1" "rc=$rc $(cat "$WORK/bad.err")"; fi
	fi
}
bad_line "malformed: missing key names it (FILE:LINE:)" '{"comm":"a","tid":1,"pid":1,"phys_addr":"1","data_page_size":0}' 'missing key "cgroup"'
bad_line "malformed: truncated line" '{"comm":"a","tid":1,' 'expected a key'
bad_line "malformed: lone surrogate" '{"comm":"\ud83d","tid":1,"pid":1,"cgroup":"","phys_addr":"1","data_page_size":0}' 'lone high surrogate'
bad_line "malformed: bad escape" '{"comm":"\q","tid":1,"pid":1,"cgroup":"","phys_addr":"1","data_page_size":0}' 'bad escape \q'
bad_line "malformed: tid not an integer" '{"comm":"a","tid":1.5,"pid":1,"cgroup":"","phys_addr":"1","data_page_size":0}' '"tid": expected an integer'
bad_line "malformed: phys_addr not hex" '{"comm":"a","tid":1,"pid":1,"cgroup":"","phys_addr":"zz","data_page_size":0}' '"phys_addr": '"'zz'"' is not hex'
bad_line "malformed: trailing garbage" '{"comm":"a","tid":1,"pid":1,"cgroup":"","phys_addr":"1","data_page_size":0} x' 'trailing characters'
bad_line "malformed: empty line" '' 'empty line'
: >"$WORK/none.jsonl"
"$SCXPROF" extract mem -f "$WORK/none.jsonl" >"$WORK/none.out" 2>"$WORK/none.err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$WORK/none.out" ] && grep -qF "$WORK/none.jsonl: no samples, so no config:" "$WORK/none.err" \
	&& pass "no samples (process kept none): exit 1, says why, no config" || fail "no samples" "rc=$rc $(cat "$WORK/none.err")"
"$SCXPROF" extract mem -f "$G" --workload-allotment-cgroup-regex 'a(b' >/dev/null 2>"$WORK/re.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--workload-allotment-cgroup-regex: missing closing parenthesis at offset 3" "$WORK/re.err" \
	&& pass "invalid regex: exit 2, option named, PCRE2 message and offset" || fail "invalid regex" "rc=$rc $(cat "$WORK/re.err")"
"$SCXPROF" extract sched -f "$G" >/dev/null 2>"$WORK/sched.err"
rc=$?
[ $rc -eq 2 ] && pass "extract sched without util|stats: usage error, exit 2" || fail "extract sched without a subcommand" "rc=$rc"
"$SCXPROF" extract mem --cluster bogus -f "$G" >/dev/null 2>&1
check "bad --cluster value: exit 2" test $? -eq 2
"$SCXPROF" extract mem --share-threshold 1.5 -f "$G" >/dev/null 2>&1
check "bad --share-threshold: exit 2" test $? -eq 2
"$SCXPROF" extract mem -f "$WORK/does-not-exist" >/dev/null 2>&1
check "missing input: exit 1" test $? -eq 1
for h in "extract --help" "extract mem --help"; do
	$SCXPROF $h >"$WORK/help" 2>&1
	missing=""
	for o in --file --workload-cgroup-regex --workload-allotment-cgroup-regex --use-hints --verbose --cluster \
		--granularity --share-threshold --max-cell-cpus --evidence-keys --min-share --min-shared-keys \
		--min-shared-samples; do
		grep -q -- "$o" "$WORK/help" || missing="$missing $o"
	done
	[ -z "$missing" ] && pass "$h lists every option" || fail "$h lists every option" "missing:$missing"
done

# --- sharing clustering ---
"$SCXPROF" extract mem -f "$G" >"$WORK/s.json" 2>"$WORK/s.err"
check "sharing: config valid against the schema" validate "$SCHEMA" "$WORK/s.json"
check "sharing: workload and rest groups get subcells too (upstream's TODO)" python3 -c '
import json,sys; c={x["name"]:x for x in json.load(open(sys.argv[1]))}
assert [s["name"] for s in c["workload.slice"]["subcells"]][-1]=="rest", c["workload.slice"]
assert any("systemd" in s["name"] for s in c["workload.slice"]["subcells"]), c["workload.slice"]
assert any("kworker/3:" in s["name"] for s in c["rest"]["subcells"]), c["rest"]' "$WORK/s.json"
"$SCXPROF" extract mem --share-threshold 1 -f "$G" >"$WORK/s1.json"
check "sharing with nothing merged: allotment cell is upstream's" python3 -c '
import json,sys; a=json.load(open(sys.argv[1]))[0]; b=json.load(open(sys.argv[2]))[0]; assert a==b, (a,b)' "$WORK/s1.json" "$FIX/groups.comm.json"
"$SCXPROF" extract mem --share-threshold 1 --use-hints -f "$G" >"$WORK/s2.json"
check "sharing with nothing merged, --use-hints: allotment cell is upstream's" python3 -c '
import json,sys; a=json.load(open(sys.argv[1]))[0]; b=json.load(open(sys.argv[2]))[0]; assert a==b, (a,b)' "$WORK/s2.json" "$FIX/groups.comm-hints.json"

mkdir -p "$WORK/pl"
cp "$FIX/topology-8cpu-2llc.json" "$WORK/pl/topology.json"
plant() { python3 "$TOOLS/gen_planted.py" "$WORK/pl/$1.jsonl" "${@:2}"; }
score() { python3 "$TOOLS/ari.py" "$WORK/pl/$1.json" "$WORK/pl/${2:-$1}.jsonl.truth"; } # CONFIG [INPUT]: ARI
no_mix() { python3 "$TOOLS/ari.py" "$WORK/pl/$1.json" "$WORK/pl/${2:-$1}.jsonl.truth" --cross >/dev/null; } # no subcell mixes groups
plant moderate --noise moderate --seed 7 --lone 3
"$SCXPROF" extract mem -v -f "$WORK/pl/moderate.jsonl" >"$WORK/pl/moderate.json" 2>"$WORK/pl/moderate.err"
ari=$(score moderate)
[ "$ari" = "1.0000" ] && pass "planted, moderate noise (4x4 units + 3 lone): ARI 1.0" || fail "planted moderate ARI" "$ari"
check "planted, moderate: no subcell mixes planted groups" no_mix moderate
check "planted: config valid against the schema" validate "$SCHEMA" "$WORK/pl/moderate.json"
check "planted: merged name joins sorted members with +" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))[0]["subcells"]
assert s[0]=={"name":"ga-wa+ga-wb+ga-wc+ga-wd","matches":[[{"CommPrefix":m}] for m in ["ga-wa","ga-wb","ga-wc","ga-wd"]]}, s[0]' "$WORK/pl/moderate.json"
check "planted: -v uses topology.json next to the input" grep -q "8 online CPUs (topology.json), at most each thread's time seen (100 ms bins); cap 4.00 CPUs per cell (largest LLC)" "$WORK/pl/moderate.err"
check "planted: -v lists top shared pairs" grep -qE "^    ga-w[a-d] ~ ga-w[a-d]: 0\.[0-9]{3}$" "$WORK/pl/moderate.err"
check "planted: -v explains each merge" grep -qE "^  merge ga-w.* \+ ga-w.*: affinity 0\.[0-9]{3}, demand [0-9.]+ CPUs$" "$WORK/pl/moderate.err"
check "planted: -v says why it stopped" grep -qE "^  stop: best remaining affinity 0\.[0-9]{3} <= threshold 0\.065$" "$WORK/pl/moderate.err"
"$SCXPROF" extract mem -f "$WORK/pl/moderate.jsonl" >"$WORK/pl/again.json"
check "sharing: deterministic (same input, same bytes)" cmp "$WORK/pl/moderate.json" "$WORK/pl/again.json"
plant heavy --noise heavy --seed 7
"$SCXPROF" extract mem -f "$WORK/pl/heavy.jsonl" >"$WORK/pl/heavy.json"
ari=$(score heavy)
python3 -c "import sys; sys.exit(0 if float('$ari') >= 0.9 else 1)" && pass "planted, heavy noise: ARI $ari >= 0.9" || fail "planted heavy ARI" "$ari"
plant heavylone --noise heavy --seed 8 --lone 3
"$SCXPROF" extract mem -f "$WORK/pl/heavylone.jsonl" >"$WORK/pl/heavylone.json"
ari=$(score heavylone)
python3 -c "import sys; sys.exit(0 if float('$ari') >= 0.9 else 1)" && pass "planted, heavy noise + 3 lone units: ARI $ari >= 0.9" || fail "planted heavy+lone ARI" "$ari"
plant nobg --noise moderate --background 0 --seed 3
"$SCXPROF" extract mem -v --share-threshold 0 -f "$WORK/pl/nobg.jsonl" >"$WORK/pl/nobg.json" 2>"$WORK/pl/nobg.err"
check "groups sharing nothing never merge, even at threshold 0" no_mix nobg
plant lines --noise moderate --seed 5 --lines 4
"$SCXPROF" extract mem --granularity line -f "$WORK/pl/lines.jsonl" >"$WORK/pl/lines.json"
ari=$(score lines)
[ "$ari" = "1.0000" ] && pass "--granularity line: ARI 1.0 at moderate noise (4 lines per page)" || fail "--granularity line ARI" "$ari"
"$SCXPROF" extract mem --evidence-keys 1024 -v -f "$WORK/pl/moderate.jsonl" >"$WORK/pl/small.json" 2>"$WORK/pl/small.err"
ari=$(score small moderate)
grep -q "sampled: 1 in" "$WORK/pl/small.err" && [ "$ari" = "1.0000" ] \
	&& pass "evidence budget of 1024 keys: sampled down (1 in 16), still ARI 1.0" || fail "evidence budget" "ari=$ari $(grep Sharing "$WORK/pl/small.err")"
"$SCXPROF" extract mem -v --max-cell-cpus 1 -f "$WORK/pl/moderate.jsonl" >"$WORK/pl/cap.json" 2>"$WORK/pl/cap.err"
check "cap: -v explains refused merges" grep -qE "^  refuse .*: affinity 0\.[0-9]{3}, demand [0-9.]+ CPUs > cap 1\.00$" "$WORK/pl/cap.err"
check "cap: no merged cell above 1 CPU (units of 0.42 CPUs: at most 2 members)" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))[0]["subcells"]
assert max(len(x["name"].split("+")) for x in s)==2, [x["name"] for x in s]' "$WORK/pl/cap.json"
check "cap: still never mixes planted groups" no_mix cap moderate

# --- sched.jsonl next to perf.jsonl: CPU demand and -v sched lines ---
# tests/fixtures/extract/sched-demand: allotment units web (tids 1000, 1001,
# 1500 sampled as web1/web2/web3) and db (tid 2000) share pages; 80 samples
# on 8 CPUs (topology.json) give web 0.30 + db 0.20 = 0.50 CPUs by sample
# share. The 10 ms sched trace on 4 CPUs says web1 4 ms + web2 2 ms = 0.60
# CPUs (tid 1500 runs as "logger": allotment/rest, 1 ms), db 5 ms = 0.50,
# so the merge is 1.10 CPUs and --max-cell-cpus 1 refuses it. Latencies:
# web2 50 and 150 us (one migration), db 100 us; thread 9999 was never
# sampled and is left out. Expected lines: sched-*.v.txt, computed by hand.
SD="$FIX/sched-demand"
SDMIN="--min-shared-keys 1 --min-shared-samples 1"
mkdir -p "$WORK/sd/only" "$WORK/sd/both"
cp "$SD/perf.jsonl" "$SD/topology.json" "$WORK/sd/only/"
cp "$SD/perf.jsonl" "$SD/topology.json" "$SD/sched.jsonl" "$WORK/sd/both/"
(cd "$WORK/sd/only" && "$SCXPROF" extract mem -v $SDMIN --max-cell-cpus 1 -f perf.jsonl >"$WORK/sd/only.json" 2>"$WORK/sd/only.err")
(cd "$WORK/sd/both" && "$SCXPROF" extract mem -v $SDMIN --max-cell-cpus 1 -f perf.jsonl >"$WORK/sd/both.json" 2>"$WORK/sd/both.err")
check "sched: without sched.jsonl, demand is the sample share" grep -qx \
	"CPU demand: share of samples x 8 online CPUs (topology.json), at most each thread's time seen (100 ms bins); cap 1.00 CPUs per cell (--max-cell-cpus)" "$WORK/sd/only.err"
check "sched: sample share 0.50 CPUs <= cap 1: db + web merge" grep -qx "  merge db + web: affinity 1.000, demand 0.50 CPUs" "$WORK/sd/only.err"
check "sched: no sched lines without sched.jsonl" bash -c "! grep -q '^  sched ' '$WORK/sd/only.err'"
check "sched: sched.jsonl next to perf.jsonl is the demand source" grep -qx \
	"CPU demand: sched runtime / trace duration (sched.jsonl: 0.010 s, 4 CPUs); cap 1.00 CPUs per cell (--max-cell-cpus)" "$WORK/sd/both.err"
check "sched: runtime demand 1.10 CPUs > cap 1: the merge is refused" grep -qx \
	"  refuse db + web: affinity 1.000, demand 1.10 CPUs > cap 1.00" "$WORK/sd/both.err"
check "sched: refused merge leaves db and web subcells" python3 -c '
import json,sys; c=json.load(open(sys.argv[1])); assert [x["name"] for x in c[0]["subcells"]]==["db","web","rest"], c' "$WORK/sd/both.json"
grep '^  sched ' "$WORK/sd/both.err" >"$WORK/sd/both.sched"
check "sched: -v lines per cell and subcell (hand-computed)" cmp "$SD/sched-cap1.v.txt" "$WORK/sd/both.sched"
"$SCXPROF" extract mem -v $SDMIN -f "$SD/perf.jsonl" 2>&1 >/dev/null | grep '^  sched ' >"$WORK/sd/default.sched"
check "sched: default cap merges db+web, one merged line" cmp "$SD/sched-default.v.txt" "$WORK/sd/default.sched"
"$SCXPROF" extract mem -v $SDMIN --max-cell-cpus 1 --sched "$SD/sched.jsonl" -f "$WORK/sd/only/perf.jsonl" >/dev/null 2>"$WORK/sd/opt.err"
grep '^  sched ' "$WORK/sd/opt.err" >"$WORK/sd/opt.sched"
check "sched: --sched FILE gives the same lines" cmp "$SD/sched-cap1.v.txt" "$WORK/sd/opt.sched"
"$SCXPROF" extract mem --cluster comm -v -f "$SD/perf.jsonl" 2>&1 >/dev/null | grep '^  sched ' >"$WORK/sd/comm.sched"
check "sched: --cluster comm prints the lines of its units" cmp "$WORK/sd/comm.sched" <(grep -v -e '^  sched rest/' "$SD/sched-cap1.v.txt")
"$SCXPROF" extract mem --sched "$WORK/sd/nonexistent.jsonl" -f "$SD/perf.jsonl" >/dev/null 2>"$WORK/sd/bad.err"
check "sched: a missing --sched FILE is an error" grep -q "nonexistent.jsonl: cannot open" "$WORK/sd/bad.err"
: >"$WORK/sd/only/sched.jsonl"
(cd "$WORK/sd/only" && "$SCXPROF" extract mem -v $SDMIN --max-cell-cpus 1 -f perf.jsonl >/dev/null 2>"$WORK/sd/empty.err")
check "sched: an empty sched.jsonl next to perf.jsonl is ignored (sample share)" grep -q "^CPU demand: share of samples" "$WORK/sd/empty.err"

# --- demand without a sched trace: a workload-only recording (perf c2c record -- CMD) ---
# writer and reader share 256 lines for 2 s on a 48-CPU host (4 LLCs of 12),
# and every sample is theirs: by sample share x CPUs each would demand 24
# CPUs and the merge would be refused (48 > cap 12); each was seen running
# all along, so each demands 1 CPU at most: merged, packed on one LLC.
mkdir -p "$WORK/wo"
python3 - "$WORK/wo" <<'PY'
import json, sys
d = sys.argv[1]
cg = "/workload.slice/workload-tw-wo.allotment.slice/task"
with open(d + "/perf.jsonl", "w") as f:
    for i in range(4000):
        tid = 10 + i % 2
        va = 0x7f0000000000 + ((i // 2) * 7) % 256 * 64
        f.write(json.dumps({"comm": "writer" if tid == 10 else "reader", "tid": tid, "pid": 10, "cgroup": cg,
                            "addr": "%x" % va, "phys_addr": "%x" % (0x100000 + va % 65536), "data_page_size": 4096,
                            "hint": 0, "time_ns": 1000000000 + i * 500000, "cpu": 0 if tid == 10 else 12,
                            "data_map": "//anon", "data_id": "A:10:%x" % (va >> 12)}) + "\n")
cpus = [{"cpu": c, "core": c, "package": 0, "llc": c // 12 * 12, "llc_level": 3, "llc_size": 33554432,
         "llc_cpus": "%d-%d" % (c // 12 * 12, c // 12 * 12 + 11), "node": 0, "siblings": str(c)} for c in range(48)]
json.dump({"version": 1, "cpus": cpus}, open(d + "/topology.json", "w"))
PY
(cd "$WORK/wo" && "$SCXPROF" extract -v -f perf.jsonl >wo.json 2>wo.err)
check "demand by samples: two threads seen all along demand 1 CPU each, not 24: merged" grep -qx \
	"  merge reader + writer: affinity 1.000, demand 2.00 CPUs" "$WORK/wo/wo.err"
check "demand by samples: the config holds reader+writer" python3 -c '
import json,sys; c=json.load(open(sys.argv[1])); assert [x["name"] for x in c[0]["subcells"]]==["reader+writer","rest"], c' "$WORK/wo/wo.json"
check "demand by samples: LLC-packing places the pair on one LLC (2 CPUs, not thread by thread)" grep -q \
	"LLC-packing placement: allotment/reader+writer 2.00 CPUs -> LLC 0;" "$WORK/wo/wo.err"

# --- demand attribution: a thread moved into its cgroup after fork, a thread never sampled ---
# tid 5000 (app) has 2 samples in rest (before the move) and 8 in the allotment;
# it runs 10 ms: 8 ms are charged to the allotment, 2 ms to rest (by its first
# sample, all 10 ms went to rest). tid 5001 of the same process is never
# sampled and runs 5 ms: charged through its process, 4 + 1 ms. tid 7777
# (its own process, never sampled) runs 2 ms: unattributed. Trace: 10 ms, 4 CPUs.
mkdir -p "$WORK/mv"
python3 - "$WORK/mv" <<'PY'
import json, sys
d = sys.argv[1]
A = "/workload.slice/workload-tw-m.allotment.slice"
with open(d + "/perf.jsonl", "w") as f:
    for i in range(10):
        f.write(json.dumps({"comm": "app", "tid": 5000, "pid": 5000, "cgroup": "/user.slice/s.scope" if i < 2 else A,
                            "phys_addr": "%x" % (0x1000 * (i + 1)), "data_page_size": 4096, "hint": 0}) + "\n")
def sw(cpu, t, prev, prev_pid, prev_tgid, nxt, nxt_pid):
    return {"comm": prev, "pid": prev_tgid, "tid": prev_pid, "cpu": cpu, "time": "%.6f" % t, "event": "sched:sched_switch",
            "trace": "", "fields": {"prev_comm": prev, "prev_pid": prev_pid, "prev_prio": 120, "prev_state": "S",
                                    "next_comm": nxt, "next_pid": nxt_pid, "next_prio": 120}, "hint": 0}
recs = [sw(0, 0, "swapper/0", 0, 0, "app", 5000), sw(1, 0, "swapper/1", 0, 0, "app", 5001),
        sw(2, 0, "swapper/2", 0, 0, "ghost", 7777), sw(3, 0, "swapper/3", 0, 0, "swapper/3", 0),
        sw(2, 0.002, "ghost", 7777, 7777, "swapper/2", 0), sw(1, 0.005, "app", 5001, 5000, "swapper/1", 0),
        sw(0, 0.010, "app", 5000, 5000, "swapper/0", 0), sw(3, 0.010, "swapper/3", 0, 0, "swapper/3", 0)]
with open(d + "/sched.jsonl", "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
PY
cp "$FIX/sched-demand/topology.json" "$WORK/mv/"
"$SCXPROF" extract mem -v -f "$WORK/mv/perf.jsonl" >/dev/null 2>"$WORK/mv/err"
check "sched: a moved thread's runtime goes to the groups of its samples (8 + 4 ms allotment)" \
	grep -q "^  sched allotment/app: cpu 1.20 (30.0%), runtime 12.0 ms," "$WORK/mv/err"
check "sched: ... and the rest to rest (2 + 1 ms)" grep -q "^  sched rest/app: cpu 0.30 (7.5%), runtime 3.0 ms," "$WORK/mv/err"
check "sched: never-sampled threads charged through their process; the rest reported unattributed" grep -qx \
	"sched attribution: 1 threads (5.0 ms) charged through their process (never sampled themselves); unattributed (neither the thread nor its process sampled): 1 threads, 2.0 ms" "$WORK/mv/err"
check "sched: 2 of 17 ms unattributed (12%): no note" bash -c "! grep -q 'of the traced CPU time is unattributed' '$WORK/mv/err'"
# the same with tid 7777 running 10 ms: 10 of 25 ms unattributed (40%), which
# the cells' figures leave out: -v says so and how to name them
mkdir -p "$WORK/mv2"
cp "$WORK/mv/perf.jsonl" "$WORK/mv/topology.json" "$WORK/mv2/"
sed '/"prev_comm": "ghost"/s/"time": "0.002000"/"time": "0.010000"/' "$WORK/mv/sched.jsonl" >"$WORK/mv2/sched.jsonl"
"$SCXPROF" extract mem -v -f "$WORK/mv2/perf.jsonl" >/dev/null 2>"$WORK/mv2/err"
check "sched: 10 of 25 ms unattributed: -v notes the 40% the cpu figures leave out" grep -q \
	"^sched attribution: 40% of the traced CPU time is unattributed, and the cpu and runtime figures above leave it out" "$WORK/mv2/err"
