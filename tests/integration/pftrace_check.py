#!/usr/bin/env python3
"""pftrace_check.py - checks a trace.pftrace against the JSONL process wrote
next to it, with a protobuf wire-format reader of its own (no protobuf
library): field numbers are Perfetto's, from the tables in
schemas/trace-pftrace.md.

usage: pftrace_check.py OUTDIR [--release R] [--expect-sched] [--expect-mem] [--expect-hints]

Checks (each failure is one line on stderr, exit 1):
- the file is a sequence of Trace.packet fields and nothing else; a
  compressed_packets packet (under 512 KiB) inflates to such a sequence, in
  place;
- the first packet is SystemInfo with sysname "Linux" (and release R);
- the first packet of every trusted sequence has SEQ_INCREMENTAL_STATE_CLEARED,
  and every packet has a sequence id;
- timestamps on a sequence's incremental clock (TracePacketDefaults,
  ClockSnapshot with is_incremental, equal to the trace's clock 6 there)
  are deltas, added up here;
- every track_uuid and parent_uuid is a declared TrackDescriptor uuid, every
  interned id used was interned earlier on its sequence;
- compact_sched arrays of a bundle have equal lengths;
- per CPU, the switches (full and compact, the prev task of a compact one
  taken from the switch before it, as trace_processor does) are exactly the
  sched_switch lines of sched.jsonl: cpu, time, prev pid/prio/comm/state,
  next pid/comm/prio; the wakings are the sched_waking and sched_wakeup_new lines
  (time, pid, target cpu, waker: a compact waking's is the task the switch
  before it put on the cpu); irq/softirq/local-timer events match.
  "Before" is trace_processor's order: by timestamp, and at equal timestamps
  in the order it tokenized the events (TraceSorter sorts by (ts, alloc
  id)): bundle by bundle in file order, in each its compact switches, then
  its compact wakings, then its full events (ftrace_tokenizer.cc);
- the memory samples are the perf.jsonl lines (tid, time, addr, phys_addr,
  sym and dso (the SourceLocation), cgroup, weight, data_map, data_id,
  data_sym), on the "mem samples" track of their thread's track;
- the hint counters are hints.jsonl's updates, on the "hint" track of
  their thread's track;
- ProcessTree gives every sample's tid its pid.
Prints a one-line summary with sizes on success.
"""
import collections
import json
import os
import struct
import sys
import zlib


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise ValueError("varint runs past the end")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if c < 0x80:
            return v, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(b):
    """[(field, wiretype, value)] of one message; LEN values are bytes."""
    out, i = [], 0
    while i < len(b):
        tag, i = varint(b, i)
        f, w = tag >> 3, tag & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif w == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("length runs past the end")
            v = bytes(b[i:i + n])
            i += n
        elif w == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out


def source_location(m):
    """SourceLocation (function_name 3 = sym, file_name 2 = dso)."""
    return one(m, 3, b"").decode(errors="replace"), one(m, 2, b"").decode(errors="replace")


def msg(b):
    d = collections.defaultdict(list)
    for f, _, v in fields(b):
        d[f].append(v)
    return d


def one(d, f, default=None):
    return d[f][-1] if d.get(f) else default


def s32(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def packed(b):
    out, i = [], 0
    while i < len(b):
        v, i = varint(b, i)
        out.append(v)
    return out


STATE_BITS = {"S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64, "I": 128}


def state_bits(s):
    bits = 0
    for c in s:
        if c == "+":
            bits |= 0x100
        elif c in STATE_BITS:
            bits |= STATE_BITS[c]
    return bits


errors = []


def err(m):
    if len(errors) < 20:
        errors.append(m)


def main():
    args = sys.argv[1:]
    outdir = args[0]
    release = args[args.index("--release") + 1] if "--release" in args else None
    data = open(os.path.join(outdir, "trace.pftrace"), "rb").read()

    packets = []
    ncompressed = 0
    for f, w, v in fields(data):
        if f != 1 or w != 2:
            err("top level field %d (wire %d): only Trace.packet (1) expected" % (f, w))
            continue
        p = msg(v)
        if 50 in p:  # compressed_packets: a zlib-deflated Trace, its packets in place
            ncompressed += 1
            if len(v) >= 512 << 10:
                err("compressed packet of %d bytes (at most 512 KiB)" % len(v))
            if len(p) != 1:
                err("compressed packet with other fields")
            for f2, w2, v2 in fields(zlib.decompress(one(p, 50))):
                if f2 != 1 or w2 != 2:
                    err("compressed: field %d (wire %d): only Trace.packet (1) expected" % (f2, w2))
                    continue
                packets.append(msg(v2))
            continue
        packets.append(msg(v))
    if not packets:
        err("no packets")

    # SystemInfo first
    si = one(packets[0], 45) if packets else None
    if si is None:
        err("first packet is not SystemInfo")
    else:
        uts = msg(one(msg(si), 1, b""))
        if one(uts, 1) != b"Linux":
            err("SystemInfo sysname %r" % one(uts, 1))
        if release and one(uts, 3, b"").decode() != release:
            err("SystemInfo release %r, want %r" % (one(uts, 3), release))

    seq_seen = set()
    uuids = set()
    used_uuids = []
    interned = collections.defaultdict(set)  # (seq, kind) -> iids
    strings = {}  # (seq, kind, iid) -> str
    switches = collections.defaultdict(list)  # cpu -> [(ts, order, kind, data)]
    irqs = collections.Counter()
    samples = collections.Counter()
    counters = collections.Counter()
    tree = {}
    track_parent = {}
    track_name = {}
    thread_of_track = {}
    compact_bytes = compact_switches = 0
    order = 0
    default_clock = {}  # seq -> clock id of its TracePacketDefaults
    inc_last = {}  # (seq, clock) -> the incremental clock's last value
    for n, p in enumerate(packets):
        seq = one(p, 10)
        flags = one(p, 13, 0)
        if seq is None:
            err("packet %d has no trusted_packet_sequence_id" % n)
            continue
        if seq not in seq_seen:
            seq_seen.add(seq)
            if not flags & 1:
                err("packet %d: first of sequence %d without SEQ_INCREMENTAL_STATE_CLEARED" % (n, seq))
        if 59 in p:  # TracePacketDefaults: timestamp_clock_id
            default_clock[seq] = one(msg(one(p, 59)), 58, 0)
        if 6 in p:  # ClockSnapshot: an incremental clock starts again at its timestamp
            clocks = {one(c, 1): (one(c, 2), one(c, 3, 0)) for c in map(msg, msg(one(p, 6)).get(1, []))}
            for cid, (cts, inc) in clocks.items():
                if cid == 6:
                    continue
                if clocks.get(6, (None,))[0] != cts:
                    err("packet %d: clock %d snapshot not equal to the trace clock (6)" % (n, cid))
                if inc:
                    inc_last[(seq, cid)] = cts
        ts = one(p, 8)
        clock = one(p, 58, default_clock.get(seq, 0))
        if ts is not None and clock not in (0, 6):
            if (seq, clock) not in inc_last:
                err("packet %d: timestamp on clock %d, which no ClockSnapshot of sequence %d defines" % (n, clock, seq))
            else:
                ts = inc_last[(seq, clock)] = inc_last[(seq, clock)] + ts
        if 12 in p:  # interned data
            idata = msg(one(p, 12))
            for kind in (1, 2, 3, 29):
                for e in idata.get(kind, []):
                    e = msg(e)
                    interned[(seq, kind)].add(one(e, 1))
                    strings[(seq, kind, one(e, 1))] = one(e, 2, b"").decode(errors="replace")
            for e in idata.get(4, []):  # source_locations
                e = msg(e)
                interned[(seq, 4)].add(one(e, 1))
                strings[(seq, 4, one(e, 1))] = source_location(e)
        if 60 in p:  # TrackDescriptor
            td = msg(one(p, 60))
            u = one(td, 1)
            if not u or u in uuids:
                err("packet %d: track uuid %r zero or declared twice" % (n, u))
            uuids.add(u)
            if 5 in td:
                used_uuids.append((n, one(td, 5)))
                track_parent[u] = one(td, 5)
            track_name[u] = one(td, 2, b"").decode()
            if 4 in td:
                th = msg(one(td, 4))
                thread_of_track[u] = (s32(one(th, 1, 0)), s32(one(th, 2, 0)))
        if 11 in p:  # TrackEvent
            te = msg(one(p, 11))
            u = one(te, 11)
            used_uuids.append((n, u))
            for c in te.get(3, []):
                if c not in interned[(seq, 1)]:
                    err("packet %d: category iid %d not interned" % (n, c))
            if 10 in te and one(te, 10) not in interned[(seq, 2)]:
                err("packet %d: name iid %d not interned" % (n, one(te, 10)))
            ann = {}
            if 34 in te:  # source_location_iid: the sample's sym and dso
                if one(te, 34) not in interned[(seq, 4)]:
                    err("packet %d: source location iid %d not interned" % (n, one(te, 34)))
                ann["sym"], ann["dso"] = strings.get((seq, 4, one(te, 34)), (None, None))
            elif 33 in te:
                ann["sym"], ann["dso"] = source_location(msg(one(te, 33)))
            for a in te.get(4, []):
                a = msg(a)
                if one(a, 1) not in interned[(seq, 3)]:
                    err("packet %d: annotation name iid %r not interned" % (n, one(a, 1)))
                    continue
                name = strings[(seq, 3, one(a, 1))]
                if 17 in a:
                    if one(a, 17) not in interned[(seq, 29)]:
                        err("packet %d: string iid %d not interned" % (n, one(a, 17)))
                    ann[name] = strings.get((seq, 29, one(a, 17)))
                elif 6 in a:
                    ann[name] = one(a, 6).decode()
                else:
                    ann[name] = one(a, 7, one(a, 3))
            if one(te, 9) == 4:  # counter_value, or double_counter_value past int64
                value = s32(one(te, 30)) if 30 in te else struct.unpack("<d", one(te, 44).to_bytes(8, "little"))[0]
                counters[(u, ts, value)] += 1
            elif one(te, 9) == 3:
                samples[(u, ts, ann.get("addr"), ann.get("phys_addr", 0), ann.get("sym"), ann.get("dso"),
                         ann.get("cgroup", ""), ann.get("weight"), ann.get("data_map"), ann.get("data_id"),
                         ann.get("data_sym"))] += 1
        if 2 in p:  # ProcessTree
            pt = msg(one(p, 2))
            for t in pt.get(2, []):
                t = msg(t)
                tree[s32(one(t, 1))] = s32(one(t, 3, 0))
            for pr in pt.get(1, []):
                if not msg(pr).get(3):
                    err("ProcessTree process without cmdline")
        if 1 in p:  # FtraceEventBundle
            bundle = msg(one(p, 1))
            cpu = one(bundle, 1)
            # trace_processor's order: compact switches, compact wakings,
            # then the full events (see the header)
            if 4 in bundle:
                cs = msg(one(bundle, 4))
                table = [x.decode() for x in cs.get(5, [])]
                arr = {f: [] for f in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11)}
                for f in arr:
                    for chunk in cs.get(f, []):
                        arr[f] += packed(chunk)
                        if f in (1, 2, 3, 4, 6):
                            compact_bytes += len(chunk)
                if len({len(arr[f]) for f in (1, 2, 3, 4, 6)}) != 1 or len({len(arr[f]) for f in (7, 8, 9, 10, 11)}) != 1:
                    err("packet %d: compact_sched arrays of unequal length" % n)
                t = 0
                for i, d in enumerate(arr[1]):
                    t = d if i == 0 else t + d
                    order += 1
                    compact_switches += 1
                    comm = table[arr[6][i]] if arr[6][i] < len(table) else None
                    if comm is None:
                        err("packet %d: comm index out of the intern table" % n)
                    switches[cpu].append((t, order, "compact", (s32(arr[2][i]), comm, s32(arr[3][i]), s32(arr[4][i]))))
                t = 0
                for i, d in enumerate(arr[7]):
                    t = d if i == 0 else t + d
                    order += 1
                    switches[cpu].append((t, order, "compact waking", (s32(arr[8][i]), s32(arr[9][i]))))
            for ev in bundle.get(2, []):
                ev = msg(ev)
                ets, pid = one(ev, 1), one(ev, 2, 0)
                order += 1
                if 4 in ev:
                    s = msg(one(ev, 4))
                    switches[cpu].append((ets, order, "full", (
                        s32(one(s, 2)), s32(one(s, 3)), s32(one(s, 4)), one(s, 5, b"").decode(),
                        s32(one(s, 6)), s32(one(s, 7)), one(s, 1, b"").decode())))
                elif 20 in ev:
                    s = msg(one(ev, 20))
                    switches[cpu].append((ets, order, "full waking", (s32(one(s, 2)), s32(one(s, 5)), pid)))
                else:
                    for fld, name in ((36, "irq_handler_entry"), (37, "irq_handler_exit"), (24, "softirq_entry"),
                                      (25, "softirq_exit"), (559, "local_timer_entry"), (560, "local_timer_exit")):
                        if fld in ev:
                            irqs[(name, cpu, ets)] += 1
    for n, u in used_uuids:
        if u not in uuids:
            err("packet %d: track uuid %r used but never declared" % (n, u))

    # --- sched.jsonl
    have_sched = os.path.exists(os.path.join(outdir, "sched.jsonl"))
    want_sw, want_wk, want_irq = collections.Counter(), collections.Counter(), collections.Counter()
    if have_sched:
        for line in open(os.path.join(outdir, "sched.jsonl")):
            r = json.loads(line)
            ev, f = r["event"], r["fields"]
            if ev == "sched:sched_switch":
                want_sw[(r["cpu"], r["time_ns"], f["prev_pid"], f["prev_prio"], f["prev_comm"][:15], state_bits(f["prev_state"]),
                         f["next_pid"], f["next_comm"][:15], f["next_prio"])] += 1
            elif ev in ("sched:sched_waking", "sched:sched_wakeup_new"):
                want_wk[(r["cpu"], r["time_ns"], f["pid"], f["target_cpu"], r["tid"])] += 1
            elif ev.split(":")[1] in ("irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
                                      "local_timer_entry", "local_timer_exit"):
                want_irq[(ev.split(":")[1], r["cpu"], r["time_ns"])] += 1
    # per CPU, switches and wakings in trace_processor's order: by time, then
    # in the order it tokenized them (the order given above); a compact
    # switch's prev and a compact waking's waker come from the switch before
    # it in that order, as trace_processor takes them
    got_sw = collections.Counter()
    got_wk, got_wakers = collections.Counter(), collections.defaultdict(list)
    nfull = nwakings = 0
    for cpu, evs in switches.items():
        evs.sort()
        last = None
        for ts, o, kind, d in evs:
            if kind.endswith("waking"):
                nwakings += 1
                pid, target = d[0], d[1]
                if kind == "full waking":
                    waker = d[2]
                else:
                    waker = last[0] if last is not None else -1
                got_wk[(cpu, ts, pid, target)] += 1
                got_wakers[(cpu, ts, pid, target)].append(waker)
                continue
            if kind == "full":
                prev_pid, prev_prio, state, next_comm, next_pid, next_prio, prev_comm = d
                nfull += 1
                if last is not None and last == (prev_pid, prev_prio, prev_comm):
                    err("cpu %d ts %d: full switch where a compact one would do" % (cpu, ts))
            else:
                state, next_comm, next_pid, next_prio = d
                if last is None:
                    err("cpu %d ts %d: compact switch first on its cpu (its prev is unknown)" % (cpu, ts))
                    last = (-1, -1, "")
                prev_pid, prev_prio, prev_comm = last
            got_sw[(cpu, ts, prev_pid, prev_prio, prev_comm, state, next_pid, next_comm, next_prio)] += 1
            last = (next_pid, next_prio, next_comm)
    if have_sched and got_sw != want_sw:
        miss, extra = want_sw - got_sw, got_sw - want_sw
        err("switches differ from sched.jsonl: %d missing (e.g. %s), %d extra (e.g. %s)" % (
            sum(miss.values()), list(miss)[:2], sum(extra.values()), list(extra)[:2]))
    # wakings: (cpu, time, pid, target cpu) as multisets, then the wakers of
    # each; sched.jsonl's tid -1 (the input did not know the current task)
    # matches whatever the trace says
    if have_sched:
        want_keys = collections.Counter()
        for (cpu, ts, pid, target, waker), c in want_wk.items():
            want_keys[(cpu, ts, pid, target)] += c
        if got_wk != want_keys:
            miss, extra = want_keys - got_wk, got_wk - want_keys
            err("wakings differ from sched.jsonl: %d missing (e.g. %s), %d extra (e.g. %s)" % (
                sum(miss.values()), list(miss)[:2], sum(extra.values()), list(extra)[:2]))
        want_wakers = collections.defaultdict(list)
        for (cpu, ts, pid, target, waker), c in want_wk.items():
            want_wakers[(cpu, ts, pid, target)] += [waker] * c
        bad = 0
        for key, w in want_wakers.items():
            g = got_wakers.get(key, [])
            known_w = collections.Counter(x for x in w if x >= 0)
            known_g = collections.Counter(g)
            if known_w - known_g or sum((known_g - known_w).values()) > sum(1 for x in w if x < 0):
                bad += 1
                if bad <= 2:
                    err("waking %s: wakers %s in sched.jsonl, %s in the trace" % (key, w, g))
        if irqs != want_irq:
            err("irq/softirq/timer events differ: %d in sched.jsonl, %d in the trace" % (
                sum(want_irq.values()), sum(irqs.values())))

    # --- perf.jsonl
    nsamples = 0
    if os.path.exists(os.path.join(outdir, "perf.jsonl")):
        want = collections.Counter()
        for line in open(os.path.join(outdir, "perf.jsonl")):
            r = json.loads(line)
            if r["tid"] <= 0:
                continue
            nsamples += 1
            if tree.get(r["tid"]) != r["pid"]:
                err("ProcessTree gives tid %d pid %r, perf.jsonl %d" % (r["tid"], tree.get(r["tid"]), r["pid"]))
            want[(r["tid"], r["time_ns"], int(r["addr"], 16), int(r["phys_addr"], 16), r["sym"], r["dso"],
                  r["cgroup"], r.get("weight"), r.get("data_map"), r.get("data_id"), r.get("data_sym"))] += 1
        for u in {k[0] for k in samples}:
            parent = track_parent.get(u)
            if track_name.get(u) != "mem samples" or parent not in thread_of_track:
                err("samples track %x is not the 'mem samples' child of a thread's track" % u)
        samples = collections.Counter({(thread_of_track.get(track_parent.get(k[0]), (0, -1))[1],) + k[1:]: c
                                       for k, c in samples.items()})
        if samples != want:
            miss, extra = want - samples, samples - want
            err("memory samples differ from perf.jsonl: %d missing (e.g. %s), %d extra (e.g. %s)" % (
                sum(miss.values()), list(miss)[:2], sum(extra.values()), list(extra)[:2]))
    # --- hints.jsonl
    if os.path.exists(os.path.join(outdir, "hints.jsonl")):
        want = collections.Counter()
        for line in open(os.path.join(outdir, "hints.jsonl")):
            if line.strip():
                h = json.loads(line)
                if h["pid"] > 0:
                    v = h["hints"] if h["hints"] < 1 << 63 else float(h["hints"])
                    want[(h["pid"], h["timestamp"], v)] += 1
        for u in {k[0] for k in counters}:
            if track_name.get(u) != "hint" or track_parent.get(u) not in thread_of_track:
                err("counter track %x is not the 'hint' child of a thread's track" % u)
        counters = collections.Counter({(thread_of_track.get(track_parent.get(k[0]), (0, -1))[1],) + k[1:]: c
                                        for k, c in counters.items()})
        if counters != want:
            err("hint counters differ from hints.jsonl: %d vs %d" % (sum(counters.values()), sum(want.values())))

    for flag, what in (("--expect-sched", sum(got_sw.values())), ("--expect-mem", sum(samples.values())),
                       ("--expect-hints", sum(counters.values()))):
        if flag in args and not what:
            err("%s: the trace has none" % flag)
    if errors:
        for e in errors:
            print("pftrace_check: " + e, file=sys.stderr)
        sys.exit(1)
    nsw = sum(got_sw.values())
    print("ok: %d packets (%d compressed batches), %d bytes; %d switches (%d full; compact arrays %.1f B/switch), %d wakings, "
          "%d irq events, %d samples, %d hint values, %d threads in ProcessTree" % (
              len(packets), ncompressed, len(data), nsw, nfull, compact_bytes / compact_switches if compact_switches else 0,
              nwakings, sum(irqs.values()), sum(samples.values()), sum(counters.values()), len(tree)))


if __name__ == "__main__":
    main()
