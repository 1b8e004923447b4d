#!/usr/bin/env python3
"""perf_ksymbol.py - gives a real perf.data file a BPF program that came and
went while it was recorded, as a host running a sched_ext scheduler (BPF
code) or any BPF tracer has: a KSYMBOL register record, kernel-mode samples
whose ip is inside the program, a KSYMBOL unregister record, and one sample
inside the old range after it.

The file keeps its size: each KSYMBOL record takes the place of a run of
consecutive samples (lost to both perf script and scxprof alike), its name
padded with NULs and its sample_id (tid, time, id, cpu) the first replaced
sample's, so that perf orders it where those samples were. The program's
address range is above every kernel map of the file (0xffffffffc1f00000,
the module area) so that no map holds it before the KSYMBOL.

Usage: perf_ksymbol.py IN OUT
Prints: the program's name, then the number of samples moved into it while
registered and after it was unregistered. Exit 2 on a file it cannot use.
Needs one sample layout (every attr's) with IP, TID, TIME and sample_id_all.
"""
import struct
import sys

IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID = (1 << b for b in range(10))
IDENTIFIER = 1 << 16
KSYMBOL, SAMPLE = 17, 9
NAME = b"bpf_prog_0123456789abcdef_scx_dispatch"
ADDR_START, LENGTH = 0xffffffffc1f00000, 0x800


def fail(msg):
    print("perf_ksymbol.py: " + msg, file=sys.stderr)
    sys.exit(2)


def main(src, dst):
    d = bytearray(open(src, "rb").read())
    if d[:8] != b"PERFILE2":
        fail(src + ": not a perf.data file")
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", d, 16)
    types = {struct.unpack_from("<Q", d, o + 24)[0] for o in range(attrs_off, attrs_off + attrs_size, attr_size)}
    if len(types) != 1:
        fail(src + ": needs one sample layout (every event's sample_type the same)")
    st = types.pop()
    flags = struct.unpack_from("<Q", d, attrs_off + 40)[0]
    if st & (READ | CALLCHAIN | IDENTIFIER) or not (st & IP and st & TID and st & TIME) or not flags & (1 << 18):
        fail(src + ": needs IP, TID, TIME, sample_id_all and no READ, CALLCHAIN or IDENTIFIER")
    # offsets of the sample's fields (after the header)
    at, off = {}, 0
    for bit in (IP, TID, TIME, ADDR, ID, STREAM_ID, CPU):
        if st & bit:
            at[bit] = off
            off += 8

    def trailer(pos):  # sample_id_all: TID, TIME, ID, STREAM_ID, CPU of the sample at pos
        return b"".join(bytes(d[pos + 8 + at[b]:pos + 16 + at[b]]) for b in (TID, TIME, ID, STREAM_ID, CPU) if b in at)

    recs, pos = [], data_off
    while pos + 8 <= data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", d, pos)
        if size < 8:
            fail(src + ": bad record size at %d" % pos)
        recs.append((pos, typ, misc, size))
        pos += size
    samples = [i for i, r in enumerate(recs) if r[1] == SAMPLE]
    if len(samples) < 400:
        fail(src + ": needs at least 400 samples, has %d" % len(samples))
    tail = len(trailer(recs[samples[0]][0]))
    need = 8 + 16 + len(NAME) + 1 + tail

    def replace_run(first, unregister):
        """KSYMBOL in place of consecutive samples from index first; returns the index after."""
        i, total = first, 0
        while total < need:
            if recs[i][1] != SAMPLE:
                return None
            total += recs[i][3]
            i += 1
        pos = recs[first][0]
        body = struct.pack("<QIHH", ADDR_START, LENGTH, 1, 1 if unregister else 0)
        name = NAME + b"\0" * (total - 8 - len(body) - tail - len(NAME))
        rec = struct.pack("<IHH", KSYMBOL, 0, total) + body + name + trailer(pos)
        assert len(rec) == total
        d[pos:pos + total] = rec
        return i

    def time_of(pos):
        return struct.unpack_from("<Q", d, pos + 8 + at[TIME])[0]

    def place(start, t_min, unregister):
        """the first run of samples from file index start whose first
        sample's time is at least t_min becomes a KSYMBOL: its index, the
        index after it, its time (its first sample's)"""
        for k in range(start, len(recs)):
            if recs[k][1] == SAMPLE and time_of(recs[k][0]) >= t_min:
                t = time_of(recs[k][0])
                after = replace_run(k, unregister)
                if after is not None:
                    return k, after, t
        fail(src + ": no run of samples to replace")

    # perf and process order records by time, not by file position (each
    # cpu's ring is written in chunks: a short recording may hold all of
    # cpu 0's samples before cpu 1's): the program is registered at the
    # samples' 10th time percentile and unregistered at the 60th, and a
    # sample is moved into it only when it comes after the KSYMBOL both in
    # the file and in time
    times = sorted(time_of(recs[i][0]) for i in samples)
    reg_at, after_reg, t_reg = place(0, times[len(times) // 10], False)
    unreg_at, after_unreg, t_unreg = place(after_reg, max(times[len(times) * 6 // 10], t_reg + 1), True)
    moved = moved_after = 0
    for idx in range(after_reg, len(recs)):
        pos, typ, misc, size = recs[idx]
        if idx in range(unreg_at, after_unreg):
            continue
        if typ == SAMPLE and (misc & 7) == 1 and moved < 40 and t_reg < time_of(pos) < t_unreg:
            struct.pack_into("<Q", d, pos + 8 + at[IP], ADDR_START + 16 * (moved % 64))
            moved += 1
    for idx in range(after_unreg, len(recs)):
        pos, typ, misc, size = recs[idx]
        if typ == SAMPLE and (misc & 7) == 1 and time_of(pos) > t_unreg:
            struct.pack_into("<Q", d, pos + 8 + at[IP], ADDR_START + 8)
            moved_after = 1
            break
    if not moved or not moved_after:
        fail(src + ": too few kernel-mode samples (%d inside, %d after)" % (moved, moved_after))
    open(dst, "wb").write(d)
    print(NAME.decode(), moved, moved_after)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: perf_ksymbol.py IN OUT")
    main(sys.argv[1], sys.argv[2])
