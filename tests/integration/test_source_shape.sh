#!/usr/bin/env bash
# test_source_shape.sh - the source tree keeps its shape (issue 14): no include
# circle among the modules of lib/ process/ record/ extract/ report/, each
# header in lib/ process/ record/ extract/ report/ declares only what its own
# module defines, process/ takes the sched.data format from lib/, not from
# bpf/, and no .c or .h file in process/ (its folders included) is over 800
# lines.
#
# tests/tools/include_graph.py does the work (a module is X.c with X.h).
# KNOWN_* once listed the circles and declarations that were there when this
# test was written; all are gone now, so both lists are empty and any new
# circle or misplaced declaration fails.
. "$(dirname "$0")/lib.sh"
GRAPH="$TOP/tests/tools/include_graph.py"
DIRS="lib process record extract report"

KNOWN_CYCLES=''
KNOWN_DECLS=''

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

found=$(cd "$TOP" && python3 "$GRAPH" $DIRS | grep '^cycle: ')
against_known "no include circle among modules of $DIRS but the known ones" "$KNOWN_CYCLES" "$found"
found=$(cd "$TOP" && python3 "$GRAPH" --decls lib process record extract report | grep ': declares ')
against_known "headers of lib/ process/ record/ extract/ report/ declare only their own module's functions but the known ones" \
	"$KNOWN_DECLS" "$found"

found=$(cd "$TOP" && grep -n '#include "bpf/' process/*.[ch] lib/*.[ch] 2>/dev/null)
if [ -z "$found" ]; then
	pass "process/ and lib/ include nothing from bpf/"
else
	fail "process/ and lib/ include nothing from bpf/" "$(tr '\n' ';' <<<"$found")"
fi

found=$(cd "$TOP" && find process -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 800 {print $2 " " $1}')
if [ -z "$found" ]; then
	pass "no .c/.h file in process/ over 800 lines"
else
	fail "no .c/.h file in process/ over 800 lines" "$(tr '\n' ';' <<<"$found")"
fi
