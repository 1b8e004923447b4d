#!/usr/bin/env python3
"""ari.py CONFIG TRUTH [CELL] - adjusted Rand index of the subcells of one
cell (default allotment) of an extract mem config against planted groups
(TRUTH: lines "comm group"). A unit found in no subcell (it fell into
rest) is its own cluster. Prints the ARI and, with --cross, exits 1 if a
subcell mixes units of different planted groups."""
import json
import sys
from math import comb


def ari(a, b):
    n = len(a)
    pairs = {}
    for x, y in zip(a, b):
        pairs[(x, y)] = pairs.get((x, y), 0) + 1
    ca, cb = {}, {}
    for x in a:
        ca[x] = ca.get(x, 0) + 1
    for y in b:
        cb[y] = cb.get(y, 0) + 1
    index = sum(comb(v, 2) for v in pairs.values())
    sa = sum(comb(v, 2) for v in ca.values())
    sb = sum(comb(v, 2) for v in cb.values())
    expected = sa * sb / comb(n, 2)
    top = (sa + sb) / 2
    return 1.0 if top == expected else (index - expected) / (top - expected)


def main():
    args = [x for x in sys.argv[1:] if not x.startswith("--")]
    cfg = json.load(open(args[0]))
    truth = dict(l.split() for l in open(args[1]) if l.strip())
    cell = args[2] if len(args) > 2 else "allotment"
    found = {}
    subs = next(c for c in cfg if c["name"] == cell).get("subcells", [])
    for i, s in enumerate(subs):
        for clause in s["matches"]:
            for cond in clause:
                if "CommPrefix" in cond and cond["CommPrefix"] in truth:
                    found[cond["CommPrefix"]] = i
    comms = sorted(truth)
    rec = [found.get(c, "alone-" + c) for c in comms]
    print("%.4f" % ari([truth[c] for c in comms], rec))
    if "--cross" in sys.argv:
        for i in set(found.values()):
            groups = {truth[c] for c in comms if found.get(c) == i}
            if len(groups) > 1:
                print("subcell %s mixes planted groups %s" % (subs[i]["name"], sorted(groups)))
                sys.exit(1)


if __name__ == "__main__":
    main()
