#!/usr/bin/env python3
"""kernel_id_perf.py - rewrites what a perf.data file says about its kernel,
so that a recording made here looks like one from another kernel or boot.

usage: kernel_id_perf.py KIND IN OUT
KIND: other-build-id  the [kernel.kallsyms] build-id in the BUILD_ID feature
                      with every byte inverted (another kernel build)
      no-build-id     that entry renamed away (no kernel build-id recorded)
      moved-map       the kernel MMAP record moved by 2 MiB (another KASLR slide)
      show            print the kernel build-id and map start (no OUT needed)
"""
import struct
import sys

BUILD_ID_BIT = 2
KERNEL = b"[kernel.kallsyms]"


def feature_sections(b):
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    bits = struct.unpack_from("<4Q", b, 72)
    pos = data_off + data_size
    out = {}
    for bit in range(256):
        if bits[bit // 64] >> (bit % 64) & 1:
            out[bit] = struct.unpack_from("<QQ", b, pos)
            pos += 16
    return out


def kernel_build_id_entry(b):
    """(offset of the 20 id bytes, id size) of the kernel entry."""
    off, size = feature_sections(b)[BUILD_ID_BIT]
    pos, end = off, off + size
    while pos + 36 <= end:
        typ, misc, sz = struct.unpack_from("<IHH", b, pos)
        name = bytes(b[pos + 36:pos + sz]).split(b"\0")[0]
        if name == KERNEL:
            n = b[pos + 32] if misc & (1 << 15) else 20
            return pos + 12, n, pos + 36
        pos += sz
    sys.exit("no [kernel.kallsyms] entry in the BUILD_ID feature")


def kernel_map(b):
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    pos, end = data_off, data_off + data_size
    while pos + 8 <= end:
        typ, misc, sz = struct.unpack_from("<IHH", b, pos)
        if sz < 8:
            break
        if typ in (1, 10):  # MMAP, MMAP2
            name_at = pos + 8 + (32 if typ == 1 else 64)
            if bytes(b[name_at:name_at + len(KERNEL)]) == KERNEL:
                return pos
        if typ == 9:
            break
        pos += sz
    sys.exit("no kernel map record before the first sample")


def main():
    kind, src = sys.argv[1], sys.argv[2]
    b = bytearray(open(src, "rb").read())
    if kind == "show":
        at, n, _ = kernel_build_id_entry(b)
        print(bytes(b[at:at + n]).hex(), hex(struct.unpack_from("<Q", b, kernel_map(b) + 16)[0]))
        return
    if kind == "other-build-id":
        at, n, _ = kernel_build_id_entry(b)
        for i in range(n):
            b[at + i] ^= 0xff
    elif kind == "no-build-id":
        _, _, name_at = kernel_build_id_entry(b)
        b[name_at:name_at + len(KERNEL)] = b"[kernel.renamed]\0"
    elif kind == "moved-map":
        pos = kernel_map(b)
        start, length, pgoff = struct.unpack_from("<QQQ", b, pos + 16)
        struct.pack_into("<QQQ", b, pos + 16, start + (2 << 20), length, pgoff + (2 << 20))
    else:
        sys.exit("unknown kind " + kind)
    open(sys.argv[3], "wb").write(b)


if __name__ == "__main__":
    main()
