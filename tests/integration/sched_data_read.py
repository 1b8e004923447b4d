#!/usr/bin/env python3
"""sched_data_read.py - tiny independent reader of sched.data
(schemas/sched-data.md; versions 1 and 2) for tests/integration/test_record_sched.sh.

Usage: sched_data_read.py FILE [T0_NS T1_NS]
       sched_data_read.py FILE --switches-out TIDS_JSON
Checks the header and every record, prints one JSON object:
{"header": {...}, "counts": {TYPE_NAME: n}, "in_window": {TYPE_NAME: n},
 "bad": [reasons...], "records": n, "bytes": file size,
 "chunks", "comms_inline", "comms_ref": version 2 counts (0 for version 1)}.
in_window counts records with T0 <= timestamp <= T1 (when given).
With --switches-out, TIDS_JSON is {"t": NS, "counts": {TID: n}} (the kernel's
voluntary + nonvoluntary switch counts of live tasks, read at or before NS
while they were frozen) and the object also has "switches_out": {TID: n},
the sched_switch records with prev = TID stamped after TID's last
sched_process_fork (as the child) and at or before NS, and "no_fork": the
tids with no such fork record.
"""
import json
import struct
import sys

NAMES = {1: "sched_switch", 2: "sched_wakeup", 3: "sched_wakeup_new", 4: "sched_waking",
         5: "sched_migrate_task", 6: "sched_process_exit", 7: "sched_process_exec",
         8: "sched_process_fork", 9: "irq_handler_entry", 10: "irq_handler_exit",
         11: "softirq_entry", 12: "softirq_exit", 13: "nmi_handler",
         14: "local_timer_entry", 15: "local_timer_exit"}
REC = struct.Struct("<QIHHIIIIiiQQ16s16s")
assert REC.size == 88
REC2 = struct.Struct("<QBBHHHIIIIhhI")  # version 2 base record
assert REC2.size == 40
F_ARG0_64, F_ARG1, F_COMM, F_COMM2, F_PREEMPT = 1, 2, 4, 8, 16


def records_v1(data, hsize, rsize, bad):
    body = len(data) - hsize
    if body % rsize:
        bad.append("trailing partial record (%d bytes)" % (body % rsize))
    for i in range(body // rsize):
        yield REC.unpack_from(data, hsize + i * rsize)


def records_v2(data, hsize, bad, stats):
    """Version 2: chunks of packed records; yields each as the v1 tuple."""
    off = hsize
    while off < len(data):
        if len(data) - off < 8:
            bad.append("trailing partial chunk header (%d bytes)" % (len(data) - off))
            return
        size, ccpu, nrec = struct.unpack_from("<IHH", data, off)
        if size < 8 or size % 8 or off + size > len(data):
            bad.append("chunk at %d: bad size %d" % (off, size))
            return
        chunk = data[off:off + size]
        rel = 8
        stats["chunks"] += 1
        for _ in range(nrec):
            if rel + 40 > size:
                bad.append("chunk at %d: record past its end" % off)
                break
            ts, typ, flags, cpu, cref, c2ref, pid, tgid, pid2, tgid2, prio, prio2, a0 = REC2.unpack_from(chunk, rel)
            p = rel + 40
            if flags & ~31:
                bad.append("chunk at %d: unknown flags %#x" % (off, flags))
                break
            if cpu != ccpu:
                bad.append("chunk at %d: record of cpu %d in a chunk of cpu %d" % (off, cpu, ccpu))
            a1 = 1 if flags & F_PREEMPT else 0
            if flags & F_ARG0_64:
                a0, = struct.unpack_from("<Q", chunk, p)
                p += 8
            if flags & F_ARG1:
                a1, = struct.unpack_from("<Q", chunk, p)
                p += 8
            comms = []
            for flag, ref in ((F_COMM, cref), (F_COMM2, c2ref)):
                if flags & flag:
                    comms.append(chunk[p:p + 16])
                    p += 16
                    stats["comms_inline"] += 1
                elif ref:
                    if ref < 8 or ref + 16 > rel:
                        bad.append("chunk at %d: comm ref %d not before record at %d" % (off, ref, rel))
                    comms.append(chunk[ref:ref + 16])
                    stats["comms_ref"] += 1
                else:
                    comms.append(bytes(16))
            if p > size:
                bad.append("chunk at %d: record past its end" % off)
                break
            rel = p
            yield (ts, cpu, typ, 0, pid, tgid, pid2, tgid2, prio, prio2, a0, a1, comms[0], comms[1])
        if rel != size:
            bad.append("chunk at %d: %d bytes after its %d records" % (off, size - rel, nrec))
        off += size


def main():
    path = sys.argv[1]
    tids = None
    if len(sys.argv) > 3 and sys.argv[2] == "--switches-out":
        tids = json.load(open(sys.argv[3]))
        tids_t = tids["t"]
        want = {int(k) for k in tids["counts"]}
        born, outs = {}, []  # tid -> ts of its last fork before tids_t; (ts, prev) of their switches
        t0 = t1 = None
    else:
        t0 = int(sys.argv[2]) if len(sys.argv) > 3 else None
        t1 = int(sys.argv[3]) if len(sys.argv) > 3 else None
    data = open(path, "rb").read()
    bad = []
    magic, version, hsize, clock, rsize, start, ncpu, tmax = struct.unpack_from("<8sIIIIQII", data, 0)
    hdr = {"magic": magic.decode("ascii", "replace"), "version": version, "header_size": hsize,
           "clock_id": clock, "record_size": rsize, "start_ns": start, "nr_cpus": ncpu, "type_max": tmax}
    if magic != b"SCXSCHED" or version not in (1, 2) or hsize != 64 or clock != 1 or \
            rsize != (88 if version == 1 else 0):
        bad.append("bad header %r" % hdr)
    if any(data[40:64]):
        bad.append("reserved header bytes not zero")
    counts, window = {}, {}
    zero_pid = {}
    stats = {"chunks": 0, "comms_inline": 0, "comms_ref": 0}
    n = 0
    recs = records_v1(data, hsize, rsize or 88, bad) if version == 1 else records_v2(data, hsize, bad, stats)
    for i, rec in enumerate(recs):
        n += 1
        (ts, cpu, typ, pad, pid, tgid, pid2, tgid2, prio, prio2, a0, a1, comm, comm2) = rec
        name = NAMES.get(typ)
        if name is None:
            bad.append("record %d: unknown type %d" % (i, typ))
            continue
        counts[name] = counts.get(name, 0) + 1
        if t0 is not None and t0 <= ts <= t1:
            window[name] = window.get(name, 0) + 1
        if pad or (ncpu and cpu >= ncpu) or ts < start:
            bad.append("record %d (%s): pad %d cpu %d ts %d" % (i, name, pad, cpu, ts))
        if b"\0" not in comm or b"\0" not in comm2:
            bad.append("record %d: comm not NUL terminated" % i)
        # tids that must be non-zero: only the idle task (comm swapper/N) has pid 0
        must = []
        if typ in (2, 3, 4, 5, 6, 7):
            must.append((pid, comm))
        if typ == 8:
            must += [(pid, comm), (pid2, comm2)]
        if typ == 1:
            must += [(pid, comm), (pid2, comm2)]
        for p, c in must:
            if p == 0 and not c.startswith(b"swapper/"):
                zero_pid[name] = zero_pid.get(name, 0) + 1
        if typ == 1 and pid == pid2:
            bad.append("record %d: switch from %d to itself" % (i, pid))
        if tids is not None and ts <= tids_t:
            if typ == 8 and pid2 in want and ts > born.get(pid2, -1):
                born[pid2] = ts
            elif typ == 1 and pid in want:
                outs.append((ts, pid))
        if len(bad) > 20:
            break
    for k, v in zero_pid.items():
        bad.append("%d %s records with tid 0 for a task that is not the idle task" % (v, k))
    out = {"header": hdr, "records": n, "counts": counts, "in_window": window, "bad": bad,
           "chunks": stats["chunks"], "comms_inline": stats["comms_inline"],
           "comms_ref": stats["comms_ref"], "bytes": len(data)}
    if tids is not None:
        sw = {str(t): 0 for t in sorted(want)}
        for ts, t in outs:
            if t in born and ts > born[t]:
                sw[str(t)] += 1
        out["switches_out"] = sw
        out["no_fork"] = sorted(want - set(born))
    print(json.dumps(out))


main()
