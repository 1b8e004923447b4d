#!/usr/bin/env python3
"""hostile_archive.py - writes one hostile or malformed profile archive.

usage: hostile_archive.py KIND OUT.tar.gz
KIND: not-gzip, gzip-not-tar, empty, two-top, absolute, dotdot, symlink-out,
      symlink-then-file, hardlink-out, fifo, chardev, truncated
"""
import gzip
import io
import sys
import tarfile


def add_file(t, name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    t.addfile(info, io.BytesIO(data))


def add(t, name, kind, target=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    t.addfile(info)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "not-gzip":
        open(out, "w").write("this is not an archive\n")
        return
    if kind == "gzip-not-tar":
        open(out, "wb").write(gzip.compress(b"plain text, no tar headers\n" * 40))
        return
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as t:
        if kind != "empty":
            add(t, "prof", tarfile.DIRTYPE)
            add_file(t, "prof/perf.mem.script", b"")
        if kind == "two-top":
            add(t, "other", tarfile.DIRTYPE)
        elif kind == "absolute":
            add_file(t, "/tmp/scxprof-evil-abs")
        elif kind == "dotdot":
            add_file(t, "prof/../../scxprof-evil-dotdot")
        elif kind == "symlink-out":
            add(t, "prof/link", tarfile.SYMTYPE, "../../..")
        elif kind == "symlink-then-file":
            add(t, "prof/link", tarfile.SYMTYPE, "/tmp")
            add_file(t, "prof/link/scxprof-evil-through-link")
        elif kind == "hardlink-out":
            add(t, "prof/hard", tarfile.LNKTYPE, "/etc/passwd")
        elif kind == "fifo":
            add(t, "prof/fifo", tarfile.FIFOTYPE)
        elif kind == "chardev":
            add(t, "prof/null", tarfile.CHRTYPE)
        elif kind == "truncated":
            add_file(t, "prof/big", bytes(range(256)) * 4096)
    data = buf.getvalue()
    if kind == "truncated":
        data = data[: len(data) // 2]
    open(out, "wb").write(data)


if __name__ == "__main__":
    main()
