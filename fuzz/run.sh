#!/usr/bin/env bash
# fuzz/run.sh - run libFuzzer targets for a fixed time each.
#
# usage: fuzz/run.sh SECONDS BIN...
#
# For each binary build-fuzz/fuzz_NAME the corpus is fuzz/corpus-NAME/
# (gitignored), seeded from the committed seeds in fuzz/corpus/NAME/ (small
# files; regress-* are inputs that once broke an invariant), from
# tests/fixtures/*.data (files under 1 MiB, for the binary readers) and from
# the files the target itself writes when SCX_FUZZ_SEED_DIR is set. Crash
# artifacts go to build-fuzz/artifacts-NAME/. Prints one line per target:
#   fuzz NAME: N execs, C crashes
# and exits non-zero if any target crashed (or failed to run).
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS BIN..." >&2
	exit 2
fi
seconds=$1
shift

root=$(cd "$(dirname "$0")/.." && pwd)
status=0

seed_corpus() {
	local corpus=$1 name=$2 f
	mkdir -p "$corpus"
	for f in "$root/fuzz/corpus/$name"/*; do
		[ -f "$f" ] && cp -n "$f" "$corpus/seed-$(basename "$f")"
	done
	case $name in mem_script | sched_script | jsonl_scan | hints | sched_tracefmt | metadata | topology) return ;; esac
	for f in "$root"/tests/fixtures/*.data; do
		[ -f "$f" ] || continue
		[ "$(stat -c %s "$f")" -lt 1048576 ] || continue
		cp -n "$f" "$corpus/fixture-$(basename "$f")" 2>/dev/null || true
	done
	# ELF images: small real binaries (fuzz_elf_funcs)
	if [ "$(basename "$corpus")" = corpus-elf_funcs ]; then
		for f in /bin/true /usr/lib/x86_64-linux-gnu/libpfm.so.4; do
			[ -f "$f" ] && [ "$(stat -L -c %s "$f")" -lt 1048576 ] && cp -nL "$f" "$corpus/seed-$(basename "$f")" 2>/dev/null
		done
	fi
	# archives: valid and hostile tars; fuzz_archive reads its first byte as
	# a mode (odd: gzip the rest itself, even: the rest is the archive)
	if [ "$(basename "$corpus")" = corpus-archive ] && [ ! -e "$corpus/seed-valid-tar" ] && command -v python3 >/dev/null; then
		python3 - "$corpus" "$root/tests/integration/hostile_archive.py" <<'PY'
import gzip, importlib.util, io, os, sys, tarfile
corpus, script = sys.argv[1], sys.argv[2]
def tar_bytes(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, kind, data, link in entries:
            info = tarfile.TarInfo(name); info.type = kind; info.linkname = link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    return buf.getvalue()
seeds = {
    "valid": [("p", tarfile.DIRTYPE, b"", ""), ("p/perf.data", tarfile.REGTYPE, b"PERFILE2" + bytes(96), ""),
              ("p/sub", tarfile.DIRTYPE, b"", ""), ("p/sub/hints.jsonl", tarfile.REGTYPE, b"{}\n", "")],
    "dotdot": [("p", tarfile.DIRTYPE, b"", ""), ("p/../../x", tarfile.REGTYPE, b"x", "")],
    "symlink": [("p", tarfile.DIRTYPE, b"", ""), ("p/l", tarfile.SYMTYPE, b"", "/tmp"), ("p/l/f", tarfile.REGTYPE, b"x", "")],
    "hardlink": [("p", tarfile.DIRTYPE, b"", ""), ("p/h", tarfile.LNKTYPE, b"", "/etc/passwd")],
    "fifo": [("p", tarfile.DIRTYPE, b"", ""), ("p/f", tarfile.FIFOTYPE, b"", "")],
    "two": [("p", tarfile.DIRTYPE, b"", ""), ("q", tarfile.DIRTYPE, b"", "")],
}
for name, entries in seeds.items():
    raw = tar_bytes(entries)
    open(os.path.join(corpus, f"seed-{name}-tar"), "wb").write(b"\x01" + raw)
    open(os.path.join(corpus, f"seed-{name}-tgz"), "wb").write(b"\x00" + gzip.compress(raw))
PY
	fi
	# a small real recording (page faults with data addresses) as a seed
	if [ "$(basename "$corpus")" = corpus-perfdata ] && [ ! -e "$corpus/real-pf.data" ] &&
		command -v perf >/dev/null; then
		perf record -q -e page-faults -c 1 -d --phys-data --data-page-size -o "$corpus/real-pf.data" \
			-- true >/dev/null 2>&1 || rm -f "$corpus/real-pf.data"
	fi
	# perf.jsonl lines for the extract scanner: the fixtures' lines, and one
	# with every key the evidence reads (data_id, data_map, data_sym, data_src)
	if [ "$(basename "$corpus")" = corpus-jsonl_scan ] && [ ! -e "$corpus/seed-ids" ]; then
		local i=0 l
		for f in "$root"/tests/fixtures/extract/*.jsonl; do
			while IFS= read -r l && [ $i -lt 64 ]; do
				printf '%s' "$l" >"$corpus/seed-line-$i"
				i=$((i + 1))
			done <"$f"
		done
		printf '%s' '{"comm":"a1","tid":1,"pid":1,"time":"1.5","time_ns":1500000000,"cgroup":"/workload.slice/workload-tw-x.allotment.slice","phys_addr":"1000","data_page_size":4096,"hint":0,"weight":30,"data_src":{"hitm":"remote","snoop":"HIT|PEER"},"data_map":"/dev/shm/x","data_sym":"buf","data_id":"F:0:1a:2b:0:3"}' >"$corpus/seed-ids"
	fi
}

# Executions: the final stats line, else "Done N runs", else the last "#N" status line.
parse_execs() {
	local log=$1 n
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	echo "${n:-0}"
}

for bin in "$@"; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	corpus="$root/fuzz/corpus-$name"
	artifacts="$root/build-fuzz/artifacts-$name"
	log="$root/build-fuzz/fuzz-$name.log"
	mkdir -p "$artifacts" "$(dirname "$log")"
	seed_corpus "$corpus" "$name"
	before=$(find "$artifacts" -type f | wc -l)

	SCX_FUZZ_SEED_DIR="$corpus" "$bin" -max_total_time="$seconds" -print_final_stats=1 \
		-timeout=20 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
	rc=$?

	after=$(find "$artifacts" -type f | wc -l)
	crashes=$((after - before))
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1 # died without leaving an artifact
	fi
	echo "fuzz $name: $(parse_execs "$log") execs, $crashes crashes"
	if [ "$crashes" -ne 0 ]; then
		echo "  log: $log" >&2
		grep -m 5 -E 'ERROR|runtime error|Test unit written' "$log" | sed 's/^/  /' >&2
		status=1
	fi
done
exit $status
