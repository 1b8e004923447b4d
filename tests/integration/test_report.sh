#!/usr/bin/env bash
# test_report.sh - `scxprof report` end to end, the page checked in a real
# browser (Debian's headless chromium driven by playwright-core, see
# tests/report_browser.js): a planted profile (tests/tools/gen_planted.py:
# three groups of three units sharing pages, two lone units), a profile
# whose comms are HTML/script injections, and a real recording of the
# workload generator (the suite's shared recording, lib.sh; process,
# report). On each page: no network request, no script error or dialog, every unit labelled on both axes of
# the heatmap, one heatmap square per unit pair, the merged subcells
# flagged, the config equal to extract mem's; a screenshot is saved in the
# test's work dir. CLI errors: missing -f, a missing input, an existing
# output (refused, left as it was). The pairs the samples cannot decide
# (tests/tools/gen_density.py, too few samples): the page's are -v's.
. "$(dirname "$0")/lib.sh"
TOOLS="$TOP/tests/tools"
BROWSER="$TOP/tests/report_browser.js"

# --- CLI ---
"$SCXPROF" report >/dev/null 2>"$WORK/e1"; rc=$?
check "report without -f: usage error (exit 2)" test $rc -eq 2
"$SCXPROF" report -f "$WORK/nothere.out" -o "$WORK/x.html" >/dev/null 2>"$WORK/e2"; rc=$?
check "report of a missing profile: exit 1, names the file, no output" \
	bash -c "[ $rc -eq 1 ] && grep -q 'nothere.out: cannot open' '$WORK/e2' && [ ! -e '$WORK/x.html' ]"

# --- planted profile ---
mkdir -p "$WORK/planted.out"
python3 "$TOOLS/gen_planted.py" "$WORK/planted.out/perf.jsonl" --groups 3 --units 3 --lone 2 >/dev/null
if "$SCXPROF" report -f "$WORK/planted.out" >"$WORK/p.stdout" 2>"$WORK/p.err"; then
	pass "planted: report written"
else
	fail "planted: report written" "$(head -c 300 "$WORK/p.err")"
fi
P="$WORK/planted.out/report.html"
cp "$P" "$WORK/p.before"
"$SCXPROF" report -f "$WORK/planted.out" >/dev/null 2>"$WORK/p2.err"; rc=$?
check "planted: an existing report is refused and left as it was" \
	bash -c "[ $rc -eq 1 ] && grep -q 'already exists' '$WORK/p2.err' && cmp -s '$P' '$WORK/p.before' &&
		[ -z \"\$(ls '$WORK/planted.out' | grep tmp)\" ]"
"$SCXPROF" extract mem -f "$WORK/planted.out/perf.jsonl" >"$WORK/planted.config.json" 2>/dev/null

# --- the pairs the samples cannot decide: the page lists extract's own ---
# (alpha and beta on one 1 GiB region at 500 samples/s: too few to tell)
python3 "$TOOLS/gen_density.py" shared --size $((1 << 30)) --rate 500 --seconds 3 "$WORK/sparse.jsonl" >/dev/null
"$SCXPROF" extract mem -v -f "$WORK/sparse.jsonl" >/dev/null 2>"$WORK/sparse.v"
"$SCXPROF" report -f "$WORK/sparse.jsonl" -o "$WORK/sparse.html" >/dev/null 2>&1
want=$(grep -A1 -x '    alpha ~ beta' "$WORK/sparse.v" | sed -n '2s/^ *//p')
got=$(sed -n '/cannot decide (not merged/,/<\/pre>/p' "$WORK/sparse.html" | grep -A1 -E '^(<pre>)?alpha ~ beta$' | sed -n '2s/^ *//p')
check "undecided: the page lists the pair -v cannot tell (alpha ~ beta) with -v's line evidence" \
	bash -c "[[ '$want' == 'lines: '*'cannot tell: about'* ]] && [ '$want' = '$got' ]"

# --- hostile comms ---
mkdir -p "$WORK/hostile.out"
python3 - "$WORK/hostile.out/perf.jsonl" <<'PY'
import json, sys
comms = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "a'b&amp;c", "</pre><script>alert(3)</script>"]
with open(sys.argv[1], "w") as f:
    for c, comm in enumerate(comms):
        for i in range(50):
            base = 0x10000 if c < 2 else 0x900000 * (c + 1)
            f.write(json.dumps({"comm": comm, "tid": 10 + c, "pid": 1, "time": "1", "addr": "0",
                                "cgroup": "/workload.slice/workload-tw-<i>x</i>.allotment.slice", "ip": "0",
                                "sym": "s", "dso": "d", "phys_addr": "%x" % (base + (i % 8) * 4096),
                                "data_page_size": 4096, "hint": 0}) + "\n")
PY
check "hostile: report written" "$SCXPROF" report -f "$WORK/hostile.out"

# --- the browser ---
if [ ! -x /usr/bin/chromium ]; then
	skip "report pages in chromium" "Debian's chromium is not installed (make deps installs it)"
	exit 0
fi
if [ ! -f "$TOP/tests/node_modules/playwright-core/package.json" ]; then
	skip "report pages in chromium" "playwright-core is not installed in tests/node_modules (make deps)"
	exit 0
fi
render() { # NAME HTML: DOM facts in $WORK/NAME.json, screenshot $WORK/NAME.png
	if node "$BROWSER" "$2" "$WORK/$1.png" >"$WORK/$1.json" 2>"$WORK/$1.err"; then
		pass "$1: page rendered in chromium, screenshot saved"
	else
		fail "$1: page rendered in chromium" "$(tail -n 3 "$WORK/$1.err")"
	fi
}
# assert NAME CONFIG PYTHON-CHECKS: run checks on d (browser facts) and cfg (extract mem's config)
assert_page() {
	local name=$1 json=$2 cfg=$3; shift 3
	check "$name" python3 - "$json" "$cfg" "$@"
}
common_checks='
import json, sys
d = json.load(open(sys.argv[1])); dom = d["dom"]
cfg = json.load(open(sys.argv[2])) if sys.argv[2] != "-" else None
assert d["requests"] == [], ("network requests", d["requests"])
assert d["errors"] == [] and d["dialogs"] == [], (d["errors"], d["dialogs"])
assert dom["scripts"] == 1 and dom["injected"] == 0, dom
assert open(sys.argv[3], "rb").read(8) == b"\x89PNG\r\n\x1a\n", "screenshot is not a PNG"
if cfg is not None:
    assert json.loads(dom["config"]) == cfg, "config differs from extract mem"
    assert [c["name"] for c in cfg] == dom["cells"], (dom["cells"],)
    subs = [s["name"] for c in cfg for s in c.get("subcells", [])]
    assert [s["name"] for s in dom["subcells"]] == subs, (dom["subcells"], subs)
    # a cell with a single unit has nothing to compare: no heatmap (the page says so)
    cell_units = [[u for s in c.get("subcells", []) if s["name"] != "rest" for u in s["name"].split("+")] for c in cfg]
    units = sorted(u for cu in cell_units if len(cu) >= 2 for u in cu)
    labels = sorted(l for h in dom["heatmaps"] for l in h["rowNames"])
    # a unit folded into the catch-all (the reader takes 8 subcells a cell) keeps its row
    assert set(units) <= set(labels) and (labels == units or len(subs) >= 8), ("heatmap rows", labels, units)
for h in dom["heatmaps"]:
    assert h["rowNames"] == h["colNames"] and h["rowLabels"] == h["colLabels"], h
    assert all(l == n or (l.endswith("...") and n.startswith(l[:-3])) or (n == "others" and l == "others (%d units)" % (h["units"] - h["rows"] + 1))
               for l, n in zip(h["rowLabels"], h["rowNames"])), h
    assert h["rows"] == len(h["rowNames"]) and (h["rows"] == h["units"] or h["rowNames"][-1] == "others"), h
    pairs = {tuple(c.split("\u0000")) for c in h["cells"]}
    assert len(h["cells"]) == h["rows"] ** 2 == len(pairs), ("one square per pair", len(h["cells"]), h["rows"])
    assert pairs == {(a, b) for a in h["rowNames"] for b in h["rowNames"]}
    assert h["titles"] == len(h["cells"]) and h["visible"], h
merged = {s["name"] for s in dom["subcells"] if s["merged"]}
assert merged == {s["name"] for s in dom["subcells"] if "+" in s["name"]}, merged
assert {m["name"] for m in dom["merges"]} == merged, dom["merges"]
'

render planted "$P"
assert_page "planted: labels, one square per pair, merged subcells, no request" "$WORK/planted.json" \
	"$WORK/planted.config.json" "$WORK/planted.png" <<<"$common_checks
assert {'ga-wa+ga-wb+ga-wc', 'gb-wa+gb-wb+gb-wc', 'gc-wa+gc-wb+gc-wc'} == merged, merged
h = dom['heatmaps'][0]
assert h['rows'] == 11 and h['clusters'] == 3, h
assert all(m['members'] == 3 for m in dom['merges']), dom['merges']
assert dom['cpuCharts'] == [], 'no sched.jsonl, no chart'
"

# 200 units (planted, 50 groups of 4; --min-share 0.1 makes every comm a unit): folded, and said
mkdir -p "$WORK/many.out"
python3 "$TOOLS/gen_planted.py" "$WORK/many.out/perf.jsonl" --groups 50 --units 4 --samples 100 >/dev/null
check "200 units: report written" "$SCXPROF" report -f "$WORK/many.out" --min-share 0.1
render many "$WORK/many.out/report.html"
assert_page "200 units: heatmap folds the smaller subcells into others and says so" "$WORK/many.json" - \
	"$WORK/many.png" <<<"$common_checks
h = dom['heatmaps'][0]
assert h['units'] == 200 and h['rows'] <= 40 and h['rowNames'][-1] == 'others', (h['units'], h['rows'], h['rowNames'][-3:])
assert len(dom['foldNotes']) == 1 and dom['foldNotes'][0].startswith('200 units: the %d smaller' % (201 - h['rows'])), dom['foldNotes']
assert len(dom['subcells']) == 8, ('the reader takes 8 subcells a cell, rest included', len(dom['subcells']))
"

render hostile "$WORK/hostile.out/report.html"
"$SCXPROF" extract mem -f "$WORK/hostile.out/perf.jsonl" >"$WORK/hostile.config.json" 2>/dev/null
assert_page "hostile: comms shown as text, nothing injected or run" "$WORK/hostile.json" \
	"$WORK/hostile.config.json" "$WORK/hostile.png" <<<"$common_checks
labels = dom['heatmaps'][0]['rowNames']
assert '<script>alert(1)</script>' in labels and '\"><img src=x onerror=alert(2)>' in labels, labels
assert \"a'b&amp;c\" in labels, labels
assert '<script>alert(1)</script>+\"><img src=x onerror=alert(2)>' in merged or '\"><img src=x onerror=alert(2)>+<script>alert(1)</script>' in merged, merged
assert '</pre><script>alert(3)</script>' in dom['vtext'], dom['vtext']
"

# --- a real recording ---
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "report of a real recording" "perf_event_open of software events is refused here"
	exit 0
fi
cd "$WORK" || exit 1
# the suite's shared recording (lib.sh; its one pass is checked in test_zstd)
if shared_recording rec &&
	"$SCXPROF" process -f rec >/dev/null 2>proc.err &&
	"$SCXPROF" report -f rec.out -o real.html >/dev/null 2>rep.err; then
	pass "real: process, report of the shared recording"
else
	fail "real: process, report of the shared recording" "${SHARED_WHY:-$(tail -n 2 proc.err rep.err 2>/dev/null | tr '\n' ' ')}"
fi
"$SCXPROF" extract mem -f rec.out/perf.jsonl >real.config.json 2>/dev/null
render real "$WORK/real.html"
assert_page "real: header, labels, one square per pair, CPU chart, no request" "$WORK/real.json" \
	"$WORK/real.config.json" "$WORK/real.png" <<<"$common_checks
for k in ['Host', 'Kernel', 'CPU', 'Backend', 'Duration', 'Samples analysed', 'Lost or skipped']:
    assert k in dom['header'], (k, dom['header'])
assert len(dom['heatmaps']) >= 1, 'no heatmap'
assert dom['cpuCharts'] and dom['cpuCharts'][0]['series'] >= 1 and dom['cpuCharts'][0]['windows'] > 10, dom['cpuCharts']
assert 'Scheduling' in dom['vtext'] or 'sched ' in dom['vtext'], 'no sched lines in the -v text'
"
echo "screenshots: $WORK/planted.png $WORK/hostile.png $WORK/real.png (removed with the work dir)"
