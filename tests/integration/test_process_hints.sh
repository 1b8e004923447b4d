#!/usr/bin/env bash
# test_process_hints.sh - upstream's hint semantics and filters, end to end
# through the CLI, on hand-written profiles in perf script text form
# (tests/fixtures/profile_basic: upstream's peer fixture; profile_unordered:
# hints and samples going back in time).
. "$(dirname "$0")/lib.sh"
FIX="$TOP/tests/fixtures"

cp -r "$FIX/profile_basic" "$WORK/basic"
if "$SCXPROF" process -f "$WORK/basic" >"$WORK/basic.out.txt" 2>"$WORK/basic.err"; then
	got=$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["hint"]) for l in open(sys.argv[1])))' "$WORK/basic.out/perf.jsonl")
	[ "$got" = "0 7 7 9 0 5 5 0" ] && pass "profile_basic: hints 0 7 7 9 0 5 5 0" || fail "profile_basic: hints" "got '$got'"
	check "profile_basic: summary line" grep -qx "Parsed 8 of 12 records (3 skipped, 1 unparseable)" "$WORK/basic.out.txt"
	check "profile_basic: Output directory line" grep -qx "Output directory: $WORK/basic.out" "$WORK/basic.out.txt"
	check "profile_basic: hints.jsonl copied verbatim" cmp "$FIX/profile_basic/hints.jsonl" "$WORK/basic.out/hints.jsonl"
	first=$(head -n 1 "$WORK/basic.out/perf.jsonl")
	want='{"comm":"alpha worker","tid":2001,"pid":1000,"time":"0.000000050","addr":"7f2519e64408","cgroup":"","ip":"55bc4761452d","sym":"main","dso":"/usr/bin/app","phys_addr":"1a2b000","data_page_size":4096,"hint":0,"time_ns":50,"data_id":null}'
	[ "$first" = "$want" ] && pass "profile_basic: first line, keys in upstream order" || fail "profile_basic: first line" "$first"
	sizes=$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["data_page_size"]) for l in open(sys.argv[1])))' "$WORK/basic.out/perf.jsonl")
	[ "$sizes" = "4096 4096 4096 4096 2097152 2097152 2097152 0" ] && pass "profile_basic: page sizes" || fail "profile_basic: page sizes" "$sizes"
	check "profile_basic: text input warns about clocks" grep -q "hint times may be skewed" "$WORK/basic.err"
	check "profile_basic: perf.jsonl valid" validate "$TOP/schemas/perf-sample.schema.json" "$WORK/basic.out/perf.jsonl" --jsonl
	check "profile_basic: hints.jsonl valid" validate "$TOP/schemas/hints.schema.json" "$WORK/basic.out/hints.jsonl" --jsonl
	check "profile_basic: process.json valid" validate "$TOP/schemas/process-summary.schema.json" "$WORK/basic.out/process.json"
else
	fail "profile_basic: process ran" "$(cat "$WORK/basic.err")"
fi

# -v names every skipped record and its reason
cp -r "$FIX/profile_basic" "$WORK/verbose"
"$SCXPROF" process -v -f "$WORK/verbose" >/dev/null 2>"$WORK/verbose.err"
# upstream prints the input line itself after the reason
check "-v: filtered comm perf" grep -qF "skipped (filtered comm):             perf  6000/6000 " "$WORK/verbose.err"
check "-v: filtered comm swapper" grep -qF "skipped (filtered comm):          swapper     0/0 " "$WORK/verbose.err"
check "-v: no phys_addr" grep -qF "skipped (no phys_addr):            delta  7000/7000 " "$WORK/verbose.err"
check "-v: unparseable" grep -qx "unparseable: this line is not a perf script sample" "$WORK/verbose.err"
check "-v: one line per skipped record" test "$(wc -l <"$WORK/verbose.err")" -ge 4

cp -r "$FIX/profile_unordered" "$WORK/unordered"
if "$SCXPROF" process -f "$WORK/unordered" >/dev/null 2>"$WORK/unordered.err"; then
	got=$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["hint"]) for l in open(sys.argv[1])))' "$WORK/unordered.out/perf.jsonl")
	[ "$got" = "2 1 0 3 4" ] && pass "unordered: lookups stay correct (2 1 0 3 4)" || fail "unordered: hints" "got '$got'"
	check "unordered: upstream's warning for hint updates, naming tids" grep -qxF "WARNING: detected 2 out-of-order hint timeline violation(s) across 2 tid(s) while processing hints.jsonl. Hint events will be sorted conservatively before annotation. Example tids: 11, 12. Please fix the input ordering if possible." "$WORK/unordered.err"
	check "unordered: upstream's warning for samples going back, naming tid 11" grep -qxF "WARNING: detected 2 out-of-order sample timeline violation(s) across 1 tid(s) while processing $WORK/unordered/perf.mem.script. Hint lookup fell back conservatively for out-of-order samples. Example tids: 11. Please fix the input ordering if possible." "$WORK/unordered.err"
	check "unordered: process.json counts them" python3 -c '
import json,sys; h=json.load(open(sys.argv[1]))["hints"]
assert h["unordered_updates"]==2 and h["unordered_update_tids"]==[11,12], h
assert h["unordered_lookups"]==2 and h["unordered_lookup_tids"]==[11], h' "$WORK/unordered.out/process.json"
else
	fail "unordered: process ran" "$(cat "$WORK/unordered.err")"
fi
