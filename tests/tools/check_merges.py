#!/usr/bin/env python3
"""check_merges.py CONFIG EXPECT - check a cell config against expectations.

EXPECT has lines "merge A B" (units A and B are in one subcell) and
"apart A B" (no subcell holds both); A and B are fnmatch patterns over the
units of merged subcell names ("x+y" holds units x and y), any cell.
Prints one line per failed expectation and exits 1 when any failed.
"""
import fnmatch
import json
import sys


def main():
    cfg = json.load(open(sys.argv[1]))
    subcells = [s["name"].split("+") for cell in cfg for s in cell.get("subcells", [])]
    bad = 0
    for line in open(sys.argv[2]):
        parts = line.split()
        if len(parts) != 3:
            continue
        verb, a, b = parts
        together = any(fnmatch.filter(units, a) and fnmatch.filter(units, b) and
                       (set(fnmatch.filter(units, a)) | set(fnmatch.filter(units, b))) != set() and
                       not (a == b) for units in subcells)
        if verb == "merge" and not together:
            print("expected %s and %s in one subcell: %s" % (a, b, ["+".join(s) for s in subcells]))
            bad += 1
        if verb == "apart" and together:
            print("expected %s and %s apart: %s" % (a, b, ["+".join(s) for s in subcells]))
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
