#!/usr/bin/env python3
"""corrupt_perf.py - makes one corrupt variant of a valid perf.data file.

usage: corrupt_perf.py KIND IN OUT
KIND: truncated-header, bad-magic, data-past-eof, attrs-past-eof, record-size-zero,
      record-past-end, short-sample, absurd-callchain, truncated-data,
      foreign-id (the first sample under an id no event of the file has, as a
      concurrent system-wide recording of the same event leaves them),
      no-comm (every COMM record removed, as a kernel that lost them under
      load leaves the file: the data section and the feature sections after
      it move up, their offsets with them; a valid file)
"""
import struct
import sys

SAMPLE_BITS = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID"]


def records(b):
    off, size = struct.unpack_from("<QQ", b, 40)
    pos, end = off, off + size
    while pos + 8 <= end:
        typ, misc, sz = struct.unpack_from("<IHH", b, pos)
        if sz < 8:
            break
        yield pos, typ, sz
        pos += sz


def first_attr(b):
    attrs_off = struct.unpack_from("<Q", b, 24)[0]
    typ, size, config, period, sample_type = struct.unpack_from("<IIQQQ", b, attrs_off)
    return sample_type


def drop_comms(b):
    """b without its COMM records (type 3). Whatever lies after the data
    section (our recorder writes the attrs and their ids there; the feature
    section table and its sections) moves up, and the offsets to it with it."""
    off, size = struct.unpack_from("<QQ", b, 40)
    keep = bytearray()
    for pos, typ, sz in records(b):
        if typ != 3:
            keep += b[pos:pos + sz]
    end, cut = off + size, size - len(keep)
    out = bytearray(b[:off]) + keep + b[end:]

    def move(at):
        val = struct.unpack_from("<Q", out, at)[0]
        if val >= end:
            struct.pack_into("<Q", out, at, val - cut)

    struct.pack_into("<Q", out, 48, len(keep))
    attr_size = struct.unpack_from("<Q", out, 16)[0]
    move(24)  # attrs
    move(56)  # event types
    attrs_off, attrs_size = struct.unpack_from("<QQ", out, 24)
    for a in range(attrs_off, attrs_off + attrs_size, attr_size):
        move(a + attr_size - 16)  # the attr's ids section
    feats = int.from_bytes(bytes(b[72:72 + 32]), "little")  # adds_features: 256 bits
    table = off + len(keep)
    for i in range(bin(feats).count("1")):
        move(table + 16 * i)
    return out


def main():
    kind, src, dst = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    if kind == "truncated-header":
        b = b[:50]
    elif kind == "bad-magic":
        b[0:8] = b"NOTPERF!"
    elif kind == "data-past-eof":
        struct.pack_into("<Q", b, 40, len(b) + 4096)
    elif kind == "attrs-past-eof":
        struct.pack_into("<Q", b, 24, len(b) + 8)
    elif kind == "record-size-zero":
        pos = next(records(b))[0]
        struct.pack_into("<H", b, pos + 6, 0)
    elif kind == "record-past-end":
        last = list(records(b))[-1][0]
        struct.pack_into("<H", b, last + 6, 0xfff8)
    elif kind == "truncated-data":
        off, size = struct.unpack_from("<QQ", b, 40)
        b = b[:off + size // 2]
    elif kind in ("short-sample", "absurd-callchain"):
        st = first_attr(b)
        pos = next(p for p, t, s in records(b) if t == 9)
        if kind == "short-sample":
            struct.pack_into("<H", b, pos + 6, 16)  # header + one u64
            # pad with a FINISHED_ROUND-free, valid-looking tail is not needed:
            # the reader must fail on the sample itself
        else:
            if not st & (1 << 5):
                sys.exit("absurd-callchain needs a file recorded with -g")
            off = pos + 8
            if st & (1 << 16):
                off += 8  # IDENTIFIER
            for bit in (0, 1, 2, 3):  # IP TID TIME ADDR
                if st & (1 << bit):
                    off += 8
            for bit in (6, 9, 7, 8):  # ID STREAM_ID CPU PERIOD
                if st & (1 << bit):
                    off += 8
            if st & (1 << 4):
                sys.exit("READ not handled")
            struct.pack_into("<Q", b, off, 1 << 60)
    elif kind == "foreign-id":
        st = first_attr(b)
        if st & (1 << 16) or not st & (1 << 6):
            sys.exit("foreign-id needs a sample id after IP TID TIME ADDR")
        at = 8 + 8 * sum(1 for bit in (0, 1, 2, 3) if st & (1 << bit))
        pos = next(p for p, t, s in records(b) if t == 9)
        old = struct.unpack_from("<Q", b, pos + at)[0]
        struct.pack_into("<Q", b, pos + at, old + (1 << 40))
    elif kind == "no-comm":
        b = drop_comms(b)
    else:
        sys.exit("unknown kind " + kind)
    open(dst, "wb").write(b)


if __name__ == "__main__":
    main()
