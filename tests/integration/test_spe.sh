#!/usr/bin/env bash
# test_spe.sh - Arm SPE AUX data in perf.data (issue 28). No machine here has
# SPE: the files are made by tests/tools/spe_encode.py (packets encoded from
# the Arm ARM, wrapped as perf record writes arm_spe) and checked in under
# tests/fixtures/spe. perf script 6.1 decodes SPE offline on any host: the
# memory samples it synthesizes (--itrace=M) are the oracle, generated here
# at test time. For each fixture `scxprof process` must agree with it sample
# by sample and in order (pid, tid, cpu, time, ip, addr, phys_addr, the whole
# data_src, weight = total latency); one-pass extract must print what
# process + extract print; hostile variants either agree with perf (bytes of
# no packet, cut records, split packets, AUX records outside the data,
# FINISHED_ROUND records, no event timed), give the same samples (the
# versioned header of perf >= 6.9, which perf 6.1 cannot read) or fail with
# one line naming the file and no output.
. "$(dirname "$0")/lib.sh"
ENC="$TOP/tests/tools/spe_encode.py"
CMP="$TOP/tests/integration/compare_spe_perf.py"
FIX="$TOP/tests/fixtures/spe"

if ! perf script -i "$FIX/spe_ctx_pa.data" --itrace=M -F hw:ip >/dev/null 2>&1; then
	skip "SPE decoding matches perf script" "perf cannot decode Arm SPE data here"
	exit 0
fi

# 0. the checked-in fixtures are what the encoder writes
python3 "$ENC" "$WORK/regen"
bad=""
for f in $(python3 "$ENC" --list); do
	cmp -s "$FIX/$f" "$WORK/regen/$f" || bad="$bad $f"
done
if [ -z "$bad" ] && [ -n "$(python3 "$ENC" --list)" ]; then
	pass "the fixtures are what spe_encode.py writes ($(python3 "$ENC" --list | tr '\n' ' '))"
else
	fail "the fixtures are what spe_encode.py writes" "differ:$bad (python3 tests/tools/spe_encode.py tests/fixtures/spe)"
fi

# 1. each fixture against perf script
# json_check LABEL FILE PYTHON-EXPR: the expression over p (process.json) holds
json_check() {
	check "$1" python3 -c "import json,sys; p=json.load(open(sys.argv[1])); s=p['spe']; assert $3, (s, p['warnings'])" "$2"
}
for name in spe_ctx_pa spe_switch_nopa spe_lost; do
	d=$WORK/$name
	mkdir -p "$d"
	cp "$FIX/$name.data" "$d/perf.data"
	if ! "$SCXPROF" process -v -f "$d" -o "$d.out" --no-filter >"$d.log" 2>&1; then
		fail "$name: process ran" "$(tail -n 3 "$d.log")"
		continue
	fi
	check "$name: every sample equals perf script's (pid tid cpu time ip addr phys_addr data_src weight)" \
		python3 "$CMP" "$d/perf.data" "$d.out/perf.jsonl"
	check "$name: perf.jsonl valid against its schema" validate "$TOP/schemas/perf-sample.schema.json" "$d.out/perf.jsonl" --jsonl
	check "$name: process.json valid against its schema" validate "$TOP/schemas/process-summary.schema.json" "$d.out/process.json"
	n=$(wc -l <"$d.out/perf.jsonl")
	json_check "$name: process.json counts every sample ($n)" "$d.out/process.json" \
		"s['samples'] == $n == p['samples']['total'] and s['records'] == s['samples'] + s['not_memory']"
	check "$name: -v says what the SPE decoder did" grep -q "Arm SPE: .* memory samples" "$d.log"
done
json_check "spe_ctx_pa: threads from CONTEXT packets, Neoverse data source" "$WORK/spe_ctx_pa.out/process.json" \
	"s['threads_from'] == 'context' and s['data_source'] == 'neoverse' and s['context_samples'] == s['samples'] and s['not_memory'] == 4"
json_check "spe_switch_nopa: threads from switch records, generic data source, a warning says so" \
	"$WORK/spe_switch_nopa.out/process.json" \
	"s['threads_from'] == 'switch' and s['data_source'] == 'generic' and s['switch_samples'] == 48 and any('no CONTEXT packets' in w for w in p['warnings'])"
json_check "spe_lost: AUX losses counted and warned (2 truncated, 1 partial, 1 collision; 3 bytes skipped)" \
	"$WORK/spe_lost.out/process.json" \
	"(s['aux_records'], s['aux_truncated'], s['aux_partial'], s['aux_collision'], s['bad_bytes'], s['not_memory']) == (6, 2, 1, 1, 3, 1) and any('lost 2 times out of 6' in w for w in p['warnings']) and any('3 bytes of no packet' in w for w in p['warnings'])"

# 2. without --no-filter the upstream filter drops samples with no
# phys_addr: all of spe_switch_nopa's, none of spe_ctx_pa's
"$SCXPROF" process -f "$WORK/spe_switch_nopa" -o "$WORK/nopa.filtered" >/dev/null 2>&1
"$SCXPROF" process -f "$WORK/spe_ctx_pa" -o "$WORK/pa.filtered" >/dev/null 2>&1
check "the phys_addr filter: spe_switch_nopa keeps 0 of 48, spe_ctx_pa 32 of 32" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert (a["samples"]["kept"], a["samples"]["skipped"]["no_phys_addr"]) == (0, 48), a["samples"]
assert b["samples"]["kept"] == 32, b["samples"]' "$WORK/nopa.filtered/process.json" "$WORK/pa.filtered/process.json"

# 3. one pass: extract -f PROFILE prints what process + extract print
assert_onepass "spe_ctx_pa" "$WORK/spe_ctx_pa"
assert_onepass "spe_lost" "$WORK/spe_lost"

# 4. hostile variants
python3 "$ENC" --hostile "$WORK/hostile"
for f in "$WORK"/hostile/*.data; do
	n=$(basename "$f" .data)
	d=$WORK/hostile/$n
	mkdir -p "$d"
	cp "$f" "$d/perf.data"
	"$SCXPROF" process -f "$d" -o "$d.out" --no-filter >"$d.log" 2>"$d.err"
	rc=$?
	case $n in
	agree-*)
		if [ $rc -ne 0 ]; then
			fail "$n: process ran" "$(tail -n 2 "$d.err")"
		else
			check "$n: every sample equals perf script's" python3 "$CMP" "$d/perf.data" "$d.out/perf.jsonl"
		fi
		;;
	same-*)
		if [ $rc -eq 0 ] && cmp -s "$d.out/perf.jsonl" "$WORK/spe_ctx_pa.out/perf.jsonl"; then
			pass "$n: the versioned AUXTRACE_INFO (perf >= 6.9) gives spe_ctx_pa's samples byte for byte"
		else
			fail "$n: the versioned AUXTRACE_INFO gives spe_ctx_pa's samples" "rc $rc: $(head -c 200 "$d.err")"
		fi
		;;
	fail-*)
		if [ $rc -ne 0 ] && [ "$(wc -l <"$d.err")" -eq 1 ] && grep -q "$d/perf.data" "$d.err" && [ ! -e "$d.out" ]; then
			pass "$n: one error line naming the file, no output ($(cut -c1-110 "$d.err"))"
		else
			fail "$n: one error line naming the file, no output" "rc $rc, $(wc -l <"$d.err") lines: $(head -c 200 "$d.err")"
		fi
		;;
	esac
done
json_check "same-v2: the CPUs' MIDR (Neoverse N1) from the header, not CPUID's core" "$WORK/hostile/same-v2.out/process.json" \
	"s['versioned_header'] and s['midr'] == '0x410fd0c1' and s['data_source'] == 'neoverse'"
json_check "agree-garbage: skipped bytes and cut records counted" "$WORK/hostile/agree-garbage.out/process.json" \
	"s['bad_bytes'] > 100 and s['cut_records'] > 0 and s['bad_ops'] == 1"
