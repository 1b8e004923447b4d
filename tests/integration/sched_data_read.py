#!/usr/bin/env python3
"""sched_data_read.py - tiny independent reader of sched.data
(schemas/sched-data.md) for tests/integration/test_record_sched.sh.

Usage: sched_data_read.py FILE [T0_NS T1_NS]
Checks the header and every record, prints one JSON object:
{"header": {...}, "counts": {TYPE_NAME: n}, "in_window": {TYPE_NAME: n},
 "bad": [reasons...], "records": n}.
in_window counts records with T0 <= timestamp <= T1 (when given).
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


def main():
    path = sys.argv[1]
    t0 = int(sys.argv[2]) if len(sys.argv) > 3 else None
    t1 = int(sys.argv[3]) if len(sys.argv) > 3 else None
    data = open(path, "rb").read()
    bad = []
    magic, version, hsize, clock, rsize, start, ncpu, tmax = struct.unpack_from("<8sIIIIQII", data, 0)
    hdr = {"magic": magic.decode("ascii", "replace"), "version": version, "header_size": hsize,
           "clock_id": clock, "record_size": rsize, "start_ns": start, "nr_cpus": ncpu, "type_max": tmax}
    if magic != b"SCXSCHED" or version != 1 or hsize != 64 or clock != 1 or rsize != 88:
        bad.append("bad header %r" % hdr)
    if any(data[40:64]):
        bad.append("reserved header bytes not zero")
    body = len(data) - hsize
    if body % rsize:
        bad.append("trailing partial record (%d bytes)" % (body % rsize))
    counts, window = {}, {}
    zero_pid = {}
    n = body // rsize
    for i in range(n):
        (ts, cpu, typ, pad, pid, tgid, pid2, tgid2, prio, prio2, a0, a1, comm, comm2) = \
            REC.unpack_from(data, hsize + i * rsize)
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
        if len(bad) > 20:
            break
    for k, v in zero_pid.items():
        bad.append("%d %s records with tid 0 for a task that is not the idle task" % (v, k))
    print(json.dumps({"header": hdr, "records": n, "counts": counts, "in_window": window, "bad": bad}))


main()
