#!/usr/bin/env bash
# test_sched_order.sh - process reads sched.data through a reorder window
# (process/sched/sched_data.c), not a sort of the whole file: on 8 MiB files (8
# of the window's 1 MiB segments) whose chunks are about in time
# order (as record writes them), far from it (one cpu's chunks after
# another's), in reverse and shuffled, sched.jsonl has every record once, in
# time order, records of equal time in file order; and the peak RSS of
# `process` on a 66 MiB file about in time order stays under a third of the
# file (pages behind the window dropped, no index of every record).
# The old reader: 33 MiB there; this one 17.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
gen() { # LAYOUT DIR NCHUNKS: a version 2 sched.data of sched_switch records
	mkdir -p "$2"
	python3 - "$1" "$2/sched.data" "$3" <<'PY'
import random, struct, sys
layout, path, nchunks = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(7)
cpus, per = 8, 60
chunks = []  # (cpu, [ts...]) each cpu's chunks in its time order
t = {c: 1000 + c for c in range(cpus)}
for i in range(nchunks):
    c = i % cpus
    ts = []
    for _ in range(per):
        t[c] += rng.choice((0, 1, 3, 50))  # ties inside a chunk and across cpus
        ts.append(t[c])
    chunks.append((c, ts))
if layout == "bycpu":
    chunks.sort(key=lambda ch: ch[0])
elif layout == "reverse":
    chunks.reverse()
elif layout == "shuffled":
    rng.shuffle(chunks)
out = bytearray(b"SCXSCHED" + struct.pack("<IIIIQII", 2, 64, 1, 0, 0, cpus, 15) + bytes(24))
seq = 0
for c, ts in chunks:
    body = bytearray(8)
    for x in ts:
        seq += 1  # pid: the record's place in the file
        comm = b"t%d" % (seq % 97)
        body += struct.pack("<QBBHHHIIIIhhI", x, 1, 4 | 8, c, 0, 0, seq, seq, 0, 0, 120, 120, 1)
        body += comm.ljust(16, b"\0") + b"swapper/0".ljust(16, b"\0")
    struct.pack_into("<IHH", body, 0, len(body), c, len(ts))
    out += body
open(path, "wb").write(out)
PY
}
for layout in recorder bycpu reverse shuffled; do
	gen "$layout" "$layout" 2000
	if ! "$SCXPROF" process -f "$layout" -o "$layout.out" --no-perfetto >"$layout.log" 2>&1; then
		fail "sched order ($layout): process ran" "$(tail -n 3 "$layout.log")"
		continue
	fi
	check "sched order ($layout): $(($(stat -c %s "$layout/sched.data") >> 20)) MiB, every record once, by time, ties in file order" \
		python3 - "$layout.out/sched.jsonl" 120000 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == int(sys.argv[2]), len(recs)
keys = [(r["time_ns"], r["tid"]) for r in recs]
assert sorted(r["tid"] for r in recs) == list(range(1, len(recs) + 1)), "a record lost or twice"
bad = [(a, b) for a, b in zip(keys, keys[1:]) if a >= b]
assert not bad, f"{len(bad)} out of order, first {bad[:3]}"
PY
done
# 66 MiB about in time order: peak RSS under a third of it (it was the
# file plus 16 bytes a record before the window)
if ldd "$SCXPROF" 2>/dev/null | grep -q libasan; then
	skip "sched order: peak RSS on a 66 MiB file" "RSS bounds are not checked under ASan"
	exit 0
fi
gen recorder big 16000
peak=$(python3 - "$SCXPROF" process -f big -o big.out --no-perfetto <<'PY'
import os, sys, resource
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss // 1024)
PY
)
size=$(($(stat -c %s big/sched.data) >> 20))
set -- $peak
if [ "$1" != 0 ]; then
	fail "sched order: process on $size MiB" "exit $1"
elif [ "$2" -lt $((size / 3)) ]; then
	pass "sched order: peak RSS $2 MiB on a $size MiB sched.data about in time order"
else
	fail "sched order: peak RSS on $size MiB" "$2 MiB, not under a third of the file"
fi
exit 0
