#!/usr/bin/env bash
# test_docs.sh - README.md stays a one-page user's guide that points at the
# rest: at most 300 lines (and docs/performance.md, today's figures only, at
# most 150); a section for every command in cmd/main.c's table; the test
# command .ci/run runs ("the README's test command") shown in a
# code block; every docs/*.md page listed in its documentation table; every
# relative link of README.md and docs/*.md names a file that exists; and every
# source path they and the man page name exists (files move between rooms).
# Reads files only: no build, no recording.
# suite: once
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

lines=$(wc -l <README.md)
if [ "$lines" -le 300 ]; then
	pass "README.md is at most 300 lines ($lines)"
else
	fail "README.md is at most 300 lines" "$lines lines"
fi
lines=$(wc -l <docs/performance.md)
if [ "$lines" -le 150 ]; then
	pass "docs/performance.md is at most 150 lines ($lines)"
else
	fail "docs/performance.md is at most 150 lines" "$lines lines"
fi

# commands: the names in cmd/main.c's table, {"name", cmd_name, "..."}
cmds=$(sed -n 's/^[[:space:]]*{"\([a-z-]*\)", cmd_[a-z_]*,.*/\1/p' cmd/main.c)
if [ -z "$cmds" ]; then
	fail "README: a section per command" "no command table found in cmd/main.c"
fi
for c in $cmds; do
	if grep -qx "### $c" README.md; then
		pass "README: section for command $c"
	else
		fail "README: section for command $c" "no '### $c' heading"
	fi
done

# the test command: .ci/run's first make target is the README's test command
ci_cmd=$(grep -m1 -E '^make [a-z]+$' .ci/run)
if [ -n "$ci_cmd" ] && python3 - "$ci_cmd" <<'PY'
import re, sys
text = open("README.md").read()
blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
sys.exit(0 if any(re.match(re.escape(sys.argv[1]) + r"(\s|$)", l) for b in blocks for l in b.splitlines()) else 1)
PY
then
	pass "README shows .ci/run's test command ($ci_cmd) in a code block"
else
	fail "README shows .ci/run's test command" "'$ci_cmd' not at the start of a line in a sh block"
fi

for f in docs/*.md; do
	if grep -qF "]($f)" README.md; then
		pass "README links $f"
	else
		fail "README links $f" "not in README's documentation table"
	fi
done

# relative links, [text](path) or [text](path#anchor), resolved from the
# linking file's folder
check "README.md and docs/*.md: every relative link names an existing file" python3 - README.md docs/*.md <<'PY'
import os, re, sys
bad = []
for f in sys.argv[1:]:
    text = open(f).read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(f), target.split("#")[0]))
        if not os.path.exists(path):
            bad.append(f"{f}: {target}")
if bad:
    sys.exit("missing: " + ", ".join(bad))
PY

# source paths: every path under a folder of the tree that README.md, docs/*.md
# or the man page names exists (after files move: extract/, process/ rooms);
# a glob (`mem_*.c`, `perfetto_pb.[ch]`) must match something, a workload
# named by its binary (tests/workloads/warm-share) must have its .c
check "README.md, docs/*.md, docs/scxprof.1: every source path named exists" python3 - README.md docs/*.md docs/scxprof.1 <<'PY'
import glob, os, re, sys
top = r"(?:cmd|process|extract|record|lib|pipeline|report|bpf|bench|tests|fuzz|scripts|schemas|examples)"
pat = re.compile(r"(?<![\w./-])(" + top + r"/[\w./*\[\]<>-]*[\w*\]>])")
bad = []
for f in sys.argv[1:]:
    text = open(f).read().replace("\\-", "-")
    for p in sorted(set(m.group(1) for m in pat.finditer(text))):
        if p.endswith("]") and "[" not in p:
            p = p[:-1]  # the end of a markdown link's text, [schemas/](...)
        if "<" in p:
            ok = os.path.isdir(p[:p.index("<")])
        elif "*" in p or "[" in p:
            ok = bool(glob.glob(p))
        else:
            ok = os.path.exists(p) or os.path.exists(p + ".c")
        if not ok:
            bad.append(f"{f}: {p}")
if bad:
    sys.exit("missing: " + ", ".join(bad))
PY
