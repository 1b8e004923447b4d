#!/usr/bin/env bash
# test_source_shape.sh - the source tree keeps its shape (issues 14, 21, 29):
# - no include circle among the modules of the whole tree (lib/ process/
#   record/ extract/ llc/ place/ report/ cmd/ bpf/ fuzz/ tests/unit/ tests/workloads/
#   bench/, their folders included);
# - no two .c files of that tree call each other (A uses a function B
#   defines and B one A defines: a module split into a ring; its parts
#   should call a core, never each other);
# - each header of lib/ process/ record/ extract/ llc/ place/ report/ declares only
#   what its own module defines (cmd/commands.h, the CLI's command table, is
#   the one header that names other files' functions); in the folders that are rooms of their own
#   (lib/pftrace/, lib/host/, record/backend/ decode/ perfdata/ streams/, process/mem/
#   sched/ order/ emit/ summary/, extract/mem/ sharing/ evidence/ sched/,
#   llc/, place/) each header too, not the folder's files at large (process/sym/ is
#   a package with one API header, symbols.h, and is checked as one);
# - data flows one way: lib/ includes only lib/ (so the trace writer,
#   lib/pftrace/, includes nothing from process/); process/ includes nothing
#   from record/, bpf/, extract/, llc/, place/ or report/; record/ nothing from
#   process/, extract/, llc/, place/ or report/; extract/ nothing from process/,
#   record/, llc/, place/, report/ or bpf/ (llc/'s step reaches extract mem
#   through a hook cmd/ sets); llc/ (the effect of a config) nor place/
#   (the runtime pinner) nothing from process/, record/, report/ or bpf/, llc/
#   nothing from place/; report/ nothing from process/, record/, place/ or bpf/;
# - outside each room the library includes only the room's contract
#   headers (CONTRACTS; record/backend/ has one, backend.h);
# - cmd/, report/ and pipeline/ include from another top-level room only
#   its contract, the header named after it (TOP_CONTRACTS: extract.h,
#   llc.h, place.h, process.h, record.h, report.h, pipeline.h);
# - the trace writer has a core the encoders call, never the reverse:
#   perfetto_writer.c/h include no other file of lib/pftrace/ but the wire
#   format and the types;
# - no .c or .h file of the sources (lib/ process/ record/ extract/ llc/ place/
#   report/ pipeline/ cmd/ bpf/ fuzz/ bench/) is over 800 lines, and none of the files split
#   for issue 21 (SPLIT) is over 600;
# - no two headers of that tree share a name (a room's contract is named for
#   its job where another room or lib/ has the room's name, and opens saying
#   it is the contract of its folder).
#
# tests/tools/include_graph.py does the graph work (a module is X.c with X.h).
# KNOWN_* list what was there when a rule was written; an empty list means
# any new circle, misplaced declaration or long file fails.
# suite: once
. "$(dirname "$0")/lib.sh"
GRAPH="$TOP/tests/tools/include_graph.py"
DIRS="lib process record extract llc place report pipeline cmd bpf fuzz tests/unit tests/workloads bench"
DECL_DIRS="lib process record extract llc place report pipeline"
ROOMS="lib/pftrace lib/host record/backend record/decode record/perfdata record/streams
process/mem process/sched process/order process/emit process/summary
extract/mem extract/sharing extract/evidence extract/sched llc place"

KNOWN_CYCLES=''
KNOWN_CALLS=''
KNOWN_DECLS=''
KNOWN_LONG=''

# against_known NAME KNOWN FOUND: PASS when FOUND (lines) is exactly KNOWN
against_known() {
	local name=$1 known=$2 found=$3 new gone
	new=$(comm -13 <(sort <<<"$known") <(sort <<<"$found") | sed '/^$/d')
	gone=$(comm -23 <(sort <<<"$known") <(sort <<<"$found") | sed '/^$/d')
	if [ -n "$new" ]; then
		fail "$name" "new: $(tr '\n' ';' <<<"$new")"
	elif [ -n "$gone" ]; then
		fail "$name" "gone (remove from KNOWN in $(basename "$0")): $(tr '\n' ';' <<<"$gone")"
	else
		pass "$name"
	fi
}

# The checker itself finds what it is for, on planted trees.
mkdir -p "$WORK/t/m"
printf '#include "m/b.h"\n' >"$WORK/t/m/a.h"
printf '#include "a.h"\nint f(void) { return 0; }\n' >"$WORK/t/m/b.c"
printf 'int g(void);\n' >"$WORK/t/m/b.h"
printf '#include "m/a.h"\nint h(void)\n{\n\treturn 0;\n}\n' >"$WORK/t/m/a.c"
out=$(python3 "$GRAPH" --root "$WORK/t" m 2>&1)
if [ $? -eq 1 ] && grep -qx 'cycle: m/a -> m/b -> m/a' <<<"$out"; then
	pass "include_graph.py finds a planted circle"
else
	fail "include_graph.py finds a planted circle" "$out"
fi
printf '#include "m/a.h"\nint h(void);\n' >"$WORK/t/m/b.h"
out=$(python3 "$GRAPH" --root "$WORK/t" --decls m 2>&1)
if [ $? -eq 1 ] && grep -qx 'm/b.h: declares h, defined in m/a.c' <<<"$out"; then
	pass "include_graph.py --decls finds a function declared in another module's header"
else
	fail "include_graph.py --decls finds a function declared in another module's header" "$out"
fi
# a room's contract named for its job (it opens "NAME.h - the contract of
# FOLDER/") declares what the room's files define; a header saying it is the
# contract of another folder does not
mkdir -p "$WORK/t7/r"
printf 'int xf(void)\n{\n\treturn 0;\n}\n' >"$WORK/t7/r/x.c"
printf 'int yf(void)\n{\n\treturn 1;\n}\n' >"$WORK/t7/r/y.c"
printf '/*\n * r_api.h - the contract of r/: x and y\n */\nint xf(void);\nint yf(void);\n' >"$WORK/t7/r/r_api.h"
printf '/*\n * fake.h - the contract of q/: y\n */\nint yf(void);\n' >"$WORK/t7/r/fake.h"
out=$(python3 "$GRAPH" --root "$WORK/t7" --decls r 2>&1)
if [ $? -eq 1 ] && [ "$(grep ': declares ' <<<"$out")" = 'r/fake.h: declares yf, defined in r/y.c' ]; then
	pass "include_graph.py --decls: a contract named for its job declares its room's functions, one naming another folder does not"
else
	fail "include_graph.py --decls: a contract named for its job declares its room's functions, one naming another folder does not" "$out"
fi

# an X_internal.h is part of module X: X.c and its internal header are no circle
mkdir -p "$WORK/t2/m"
printf '#include "m/x_internal.h"\nint x(void) { return 0; }\n' >"$WORK/t2/m/x.c"
printf 'int x(void);\n' >"$WORK/t2/m/x.h"
printf '#include "m/x.h"\nint x_part(void);\n' >"$WORK/t2/m/x_internal.h"
out=$(python3 "$GRAPH" --root "$WORK/t2" m 2>&1)
if [ $? -eq 0 ] && grep -qx '1 modules, 0 edges, 0 circles' <<<"$out"; then
	pass "include_graph.py: X_internal.h belongs to module X"
else
	fail "include_graph.py: X_internal.h belongs to module X" "$out"
fi

# two files that call each other's functions (a ring, which includes cannot
# show): planted, with a one-way call and a same-named static that must not count
mkdir -p "$WORK/t5/m"
printf 'int pong(int n);\nint ping(int n)\n{\n\treturn n ? pong(n - 1) : 0;\n}\n' >"$WORK/t5/m/a.c"
printf 'int ping(int n);\nint pong(int n)\n{\n\treturn n ? ping(n - 1) : 1;\n}\n' >"$WORK/t5/m/b.c"
printf 'int ping(int n);\nint solo(void);\nint top(void)\n{\n\treturn ping(3) + solo();\n}\n' >"$WORK/t5/m/c.c"
printf 'static int top(void)\n{\n\treturn 0;\n}\nint solo(void)\n{\n\treturn top(); /* ping( in a comment */\n}\n' >"$WORK/t5/m/d.c"
out=$(python3 "$GRAPH" --root "$WORK/t5" --calls m 2>&1)
if [ $? -eq 1 ] && grep -qx 'calls: m/a.c <-> m/b.c (m/a.c uses pong; m/b.c uses ping)' <<<"$out" &&
	grep -qx '1 pairs of files that call each other' <<<"$out"; then
	pass "include_graph.py --calls finds two planted files that call each other (and not a one-way call or a static of the same name)"
else
	fail "include_graph.py --calls finds two planted files that call each other (and not a one-way call or a static of the same name)" "$out"
fi

found=$(cd "$TOP" && python3 "$GRAPH" $DIRS | grep '^cycle: ')
against_known "no include circle among modules of $DIRS but the known ones" "$KNOWN_CYCLES" "$found"
found=$(cd "$TOP" && python3 "$GRAPH" --decls $DECL_DIRS | grep ': declares ')
against_known "headers of $DECL_DIRS declare only their own module's functions but the known ones" \
	"$KNOWN_DECLS" "$found"
found=$(cd "$TOP" && python3 "$GRAPH" --calls $DIRS | grep '^calls: ')
against_known "no two files of $DIRS call each other's functions but the known ones" "$KNOWN_CALLS" "$found"
found=$(cd "$TOP" && python3 "$GRAPH" --decls $ROOMS | grep ': declares ')
against_known "each header of $ROOMS declares only its own module's functions" "" "$found"
for room in $ROOMS; do
	[ -d "$TOP/$room" ] || fail "room $room exists" "no such folder"
done

# includes_from DIRS... -- PATTERN: the #include lines of DIRS' .c/.h files naming PATTERN
includes_from() {
	local dirs=() pat
	while [ "$1" != -- ]; do dirs+=("$1"); shift; done
	pat=$2
	(cd "$TOP" && grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"($pat)" --include='*.[ch]' "${dirs[@]}")
}
# rule NAME DIRS... -- PATTERN: PASS when no file of DIRS includes PATTERN
rule() {
	local name=$1 found; shift
	found=$(includes_from "$@")
	if [ -z "$found" ]; then pass "$name"; else fail "$name" "$(tr '\n' ';' <<<"$found")"; fi
}
rule "lib/ (the trace writer lib/pftrace/ included) includes nothing but lib/" lib -- '(process|record|extract|llc|place|report|pipeline|cmd|bpf|fuzz|tests|bench)/'

rule "process/ includes nothing from record/, bpf/, extract/, llc/, place/ or report/" process -- '(record|bpf|extract|llc|place|report)/'
rule "record/ includes nothing from process/, extract/, llc/, place/ or report/" record -- '(process|extract|llc|place|report)/'
EXTRACT_NOT='(process|record|llc|place|report|bpf)/'
rule "extract/ includes nothing from process/, record/, llc/, place/, report/ or bpf/ (the config's stage runs llc/'s step through extract_mem_opts.step)" \
	extract -- "$EXTRACT_NOT"
rule "llc/ (a config's effect) includes nothing from process/, record/, place/, report/ or bpf/" llc -- '(process|record|place|report|bpf)/'
rule "place/ (the runtime pinner) includes nothing from process/, record/, report/ or bpf/" place -- '(process|record|report|bpf)/'
rule "report/ includes nothing from process/, record/, place/ or bpf/" report -- '(process|record|place|bpf)/'
rule "pipeline/ (process -> extract in one pass) includes nothing from record/, place/, report/ or bpf/" pipeline -- '(record|place|report|bpf)/'
rule "process/, extract/, llc/ and place/ include nothing from pipeline/ (it composes them)" process extract llc place -- 'pipeline/'
rule "the trace writer's core includes no encoder nor the file (perfetto_writer -> pb, types only)" \
	lib/pftrace/perfetto_writer.c lib/pftrace/perfetto_writer.h -- 'lib/pftrace/perfetto_(trace|sched|track)\.h'
rule "the trace encoders include not the file (perfetto_trace.h)" \
	lib/pftrace/perfetto_sched.c lib/pftrace/perfetto_track.c -- 'lib/pftrace/perfetto_trace\.h'
# The headers each room shows the rest of the library (tests and fuzz
# targets are white-box and may include any): a room's contract is the
# header named after it (record/backend/backend.h, decode/decode.h,
# streams/streams.h: it includes sched_stream.h, part of its contract), or,
# where two rooms have one name or the room's name is lib/'s, after its
# job and stage (record/perfdata/record_perfdata.h; process/'s
# mem/mem_decode.h and sched/sched_decode.h; extract/'s mem/mem_agg.h and
# sched/extract_sched.h): no two headers share a name (checked below). lib/pftrace/ shows process its file, the two encoders
# and their types. lib/host/ (the CPU lists, topology, cgroup mount and
# atomic file write every stage reads the machine with) shows host.h.
# process/'s rooms (mem/ and sched/ decoding, order/ the
# time-ordered walk over perf.data, emit/ the memory stream's sink and
# formatting, summary/ metadata.json read and process.json written) each
# show one (emit.h includes its parts mem_jsonl.h and emit_pool.h).
# extract/'s rooms likewise: mem/mem_agg.h, sharing/sharing.h,
# evidence/evidence.h, sched/extract_sched.h (it includes its
# parts sched_events.h and sched_stats.h). The room of a config's effect,
# llc/, shows llc/llc.h (it includes its parts llc_share.h, llc_map.h,
# placement.h, config_match.h, thread_demand.h, sched_model_mitosis.h,
# llc_mitosis_print.h).
CONTRACTS='record/backend: backend.h
record/decode: decode.h
record/perfdata: record_perfdata.h
record/streams: streams.h
process/mem: mem_decode.h
process/sched: sched_decode.h
process/order: order.h
process/emit: emit.h
process/summary: summary.h
lib/pftrace: perfetto_trace.h perfetto_sched.h perfetto_track.h perfetto_types.h
lib/host: host.h
extract/mem: mem_agg.h
extract/sharing: sharing.h
extract/evidence: evidence.h
extract/sched: extract_sched.h
llc: llc.h
place: place.h'
LIBRARY="lib process record extract llc place report pipeline cmd"
while IFS=: read -r room heads; do
	heads=${heads# }
	found=$(cd "$TOP" && grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"$room/" --include='*.[ch]' $LIBRARY |
		grep -v "^$room/" | while IFS= read -r line; do
			h=${line##*\"$room/}; h=${h%%\"*}
			case " $heads " in *" $h "*) ;; *) echo "$line" ;; esac
		done)
	if [ -z "$found" ]; then
		pass "outside $room/ the library includes only its contract headers ($heads)"
	else
		fail "outside $room/ the library includes only its contract headers ($heads)" "$(tr '\n' ';' <<<"$found")"
	fi
done <<<"$CONTRACTS"

# The top-level rooms each show the rest of the program one contract, the
# header named after the room (TOP_CONTRACTS). cmd/ (the CLI), report/ (the
# HTML page) and pipeline/ (the one pass) compose the stages: they include
# from another room its contract only, besides their own files and lib/.
TOP_CONTRACTS='extract extract/extract.h
llc llc/llc.h
place place/place.h
process process/process.h
record record/record.h
report report/report.h
pipeline pipeline/pipeline.h'
# contract_breaches DIRS...: the #include lines of DIRS' .c/.h files that
# name a file of another top-level room but its contract header
contract_breaches() {
	local d
	for d in "$@"; do
		(cd "$TOP" && grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+/' --include='*.[ch]' "$d") |
			while IFS= read -r line; do
				local h=${line#*\"} room head ok=1
				h=${h%%\"*}
				room=${h%%/*}
				[ "$room" = "${d%%/*}" ] && continue
				while read -r r c; do
					[ "$r" = "$room" ] && { [ "$h" = "$c" ] || ok=0; }
				done <<<"$TOP_CONTRACTS"
				[ $ok = 1 ] || echo "$line"
			done
	done
}
for room in $(cut -d' ' -f2 <<<"$TOP_CONTRACTS"); do
	[ -f "$TOP/$room" ] || fail "contract $room exists" "no such file"
done
found=$(contract_breaches cmd report pipeline)
if [ -z "$found" ]; then
	pass "cmd/, report/ and pipeline/ include from another room only its contract ($(cut -d' ' -f2 <<<"$TOP_CONTRACTS" | tr '\n' ' '| sed 's/ $//'))"
else
	fail "cmd/, report/ and pipeline/ include from another room only its contract" "$(tr '\n' ';' <<<"$found")"
fi
# planted: cmd/ including extract's inner sharing.h and place's plan is
# found; its own file, lib/, and the contracts extract.h, place.h are not
mkdir -p "$WORK/t6/cmd" "$WORK/t6/report"
printf '#include "cmd/opts.h"\n#include "extract/extract.h"\n#include "extract/sharing/sharing.h"\n#include "lib/error.h"\n#include "place/place.h"\n#include <stdio.h>\n' >"$WORK/t6/cmd/a.c"
printf '#include "report/html.h"\n  #  include "place/place_plan.h"\n#include "llc/llc.h"\n' >"$WORK/t6/report/b.h"
found=$(TOP="$WORK/t6" contract_breaches cmd report pipeline | cut -d: -f1,2 | sort | tr '\n' ' ')
if [ "$found" = "cmd/a.c:3 report/b.h:2 " ]; then
	pass "the contract rule finds a planted include of extract/sharing/sharing.h in cmd/ and of place/place_plan.h in report/, not the contracts"
else
	fail "the contract rule finds a planted include of extract/sharing/sharing.h in cmd/ and of place/place_plan.h in report/, not the contracts" "found: $found"
fi

# the planted rule checker finds an include it is for
mkdir -p "$WORK/t3/lib"
printf '#include "process/x.h"\n' >"$WORK/t3/lib/y.c"
if (TOP="$WORK/t3" includes_from lib -- 'process/' | grep -q 'lib/y.c:1:'); then
	pass "the folder rules find a planted include of process/ in lib/"
else
	fail "the folder rules find a planted include of process/ in lib/" "not found"
fi
# ... and extract/'s stage including llc/'s contract (the step it runs is a hook), not lib/ nor its own rooms
mkdir -p "$WORK/t3/extract"
printf '#include "extract/mem/mem_agg.h"\n#include "lib/error.h"\n#include "llc/llc.h"\n' >"$WORK/t3/extract/extract_mem.c"
found=$(TOP="$WORK/t3" includes_from extract -- "$EXTRACT_NOT" | cut -d: -f1,2)
if [ "$found" = extract/extract_mem.c:3 ]; then
	pass "the folder rules find a planted include of llc/llc.h in extract/extract_mem.c, not its own rooms or lib/"
else
	fail "the folder rules find a planted include of llc/llc.h in extract/extract_mem.c, not its own rooms or lib/" "found: $found"
fi

# long_files LIMIT PATHS...: the .c/.h files under PATHS over LIMIT lines
long_files() {
	local limit=$1; shift
	(cd "$TOP" && find "$@" -name '*.[ch]' -exec wc -l {} + | awk -v l="$limit" '$2 != "total" && $1 > l {print $2}' | sort)
}
mkdir -p "$WORK/t4/d"
seq 801 | sed 's/^/int x/' >"$WORK/t4/d/long.c"
seq 800 | sed 's/^/int y/' >"$WORK/t4/d/ok.c"
if [ "$(TOP="$WORK/t4" long_files 800 d)" = d/long.c ]; then
	pass "the length rule finds a planted 801-line file, not an 800-line one"
else
	fail "the length rule finds a planted 801-line file, not an 800-line one" "$(TOP="$WORK/t4" long_files 800 d)"
fi
found=$(long_files 800 lib process record extract llc place report pipeline cmd bpf fuzz bench)
against_known "no .c/.h file of lib process record extract llc place report pipeline cmd bpf fuzz bench over 800 lines" \
	"$KNOWN_LONG" "$found"
# No two headers share a name (issue 36): a reader, a search or an include
# without its folder cannot tell two sched.h apart. The room's contract is
# named for its job where another room or lib/ has its name.
# dup_headers PATHS...: the header names found more than once under PATHS
dup_headers() {
	(cd "$TOP" && find "$@" -name '*.h' -not -path '*/node_modules/*' | xargs -r -n1 basename | sort | uniq -d)
}
mkdir -p "$WORK/t8/a" "$WORK/t8/b/c"
touch "$WORK/t8/a/x.h" "$WORK/t8/b/c/x.h" "$WORK/t8/a/y.h" "$WORK/t8/b/z.h" "$WORK/t8/b/x.c"
if [ "$(TOP="$WORK/t8" dup_headers a b)" = x.h ]; then
	pass "the header-name rule finds a planted a/x.h and b/c/x.h (not y.h, z.h or x.c)"
else
	fail "the header-name rule finds a planted a/x.h and b/c/x.h (not y.h, z.h or x.c)" "$(TOP="$WORK/t8" dup_headers a b)"
fi
found=$(dup_headers $DIRS)
if [ -z "$found" ]; then
	pass "no two headers of $DIRS share a name"
else
	fail "no two headers of $DIRS share a name" "$(tr '\n' ' ' <<<"$found")"
fi
# the files split for issue 21 (the trace writer's file and core; mem_agg,
# sched_stats and sched_util of extract/; lib/'s perf.data reader and archives)
SPLIT="lib/pftrace/perfetto_trace.c lib/pftrace/perfetto_writer.c lib/pftrace/perfetto_writer.h
$(cd "$TOP" && ls extract/mem/mem_agg*.[ch] extract/sched/sched_stats*.[ch] extract/sched/sched_util*.[ch] lib/perfdata*.[ch] lib/archive*.[ch])"
found=$(long_files 600 $SPLIT)
if [ -z "$found" ]; then
	pass "no file split for issue 21 over 600 lines"
else
	fail "no file split for issue 21 over 600 lines" "$(tr '\n' ';' <<<"$found")"
fi

# Every source file the docs, scripts and benchmarks name exists (a move
# that left a path behind fails here, not in a benchmark's awk).
found=$(cd "$TOP" && git ls-files -- '*.md' '*.1' '*.sh' '*.py' Makefile 2>/dev/null |
	grep -v '^tests/integration/test_source_shape.sh$' |
	xargs grep -ohP '(?:(?<=\$top/)|(?<=\$TOP/)|(?<![\w/.)$-]))(lib|process|record|extract|llc|place|report|pipeline|cmd|bpf)/[a-z0-9_/]+\.(c|h)\b' 2>/dev/null |
	sort -u | while read -r f; do [ -e "$f" ] || echo "$f"; done)
if [ -z "$found" ]; then
	pass "every source path named in docs, scripts and benchmarks exists"
else
	fail "every source path named in docs, scripts and benchmarks exists" "$(tr '\n' ';' <<<"$found")"
fi
