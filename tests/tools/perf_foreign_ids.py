#!/usr/bin/env python3
"""perf_foreign_ids.py - counts the samples of a perf.data file whose sample id
belongs to no event of the file's header.

Seen here when two system-wide recordings of the same software event run at
once (two test suites on one machine): one file then holds the other
session's samples, under that session's ids. perf 6.1's `perf script` stops
at the first with "failed to process type: 9 [Bad address]" (exit 242);
`scxprof process` skips them with a warning. Tests that use perf script as
their oracle record again when this prints a number above 0, and fail on any
other perf script error.

Usage: perf_foreign_ids.py FILE   (prints the count; exit 2 on a file it cannot read)
"""
import struct
import sys

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6
SAMPLE_IDENTIFIER = 1 << 16


def main(path):
    d = open(path, "rb").read()
    if d[:8] != b"PERFILE2":
        raise ValueError("not a perf.data file")
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", d, 16)
    ids, sample_types = set(), set()
    for o in range(attrs_off, attrs_off + attrs_size, attr_size):
        sample_types.add(struct.unpack_from("<Q", d, o + 24)[0])  # perf_event_attr.sample_type
        ids_off, ids_size = struct.unpack_from("<QQ", d, o + attr_size - 16)
        ids.update(struct.unpack_from("<%dQ" % (ids_size // 8), d, ids_off))
    if len(sample_types) != 1:
        # several layouts: perf places the id where every attr has it (IDENTIFIER)
        if not all(t & SAMPLE_IDENTIFIER for t in sample_types):
            raise ValueError("attrs with different sample layouts and no IDENTIFIER")
    st = next(iter(sample_types))
    if st & SAMPLE_IDENTIFIER:
        id_at = 8
    elif st & SAMPLE_ID:
        id_at = 8 + 8 * sum(1 for f in (SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR) if st & f)
    else:
        return 0  # one event and no id: nothing can be foreign
    o, end, foreign = data_off, data_off + data_size, 0
    while o + 8 <= end:
        rtype, _, size = struct.unpack_from("<IHH", d, o)
        if size < 8:
            raise ValueError("record of size %d at offset %d" % (size, o))
        if rtype == 9 and size >= id_at + 8 and struct.unpack_from("<Q", d, o + id_at)[0] not in ids:
            foreign += 1
        o += size
    return foreign


if __name__ == "__main__":
    try:
        print(main(sys.argv[1]))
    except (OSError, ValueError, struct.error) as e:
        print("%s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(2)
