#!/usr/bin/env python3
"""gen_sysfs_cpu.py [ROOT] - write the CPU part of each sysfs fixture host
(tests/fixtures/sysfs/HOST/devices/system/cpu/): online, and per CPU
topology/ (core_id, die_id, physical_package_id, thread_siblings_list),
cache/indexN/ (level, type, size, shared_cpu_list, id) and the nodeM link,
only the files lib/host reads. Each host is its machine's shape scaled
down to a few CPUs, keeping what matters to the LLC: which cache index is
the LLC (index3; index2 where the kernel reports no L3, as on Ampere Altra),
how CPU numbers interleave SMT siblings and LLCs (EPYC: 0-1,4-5 and
2-3,6-7), sockets and nodes, offline CPUs, kernels without cache id files.
ROOT defaults to tests/fixtures/sysfs of this tree; the unit tests
(tests/unit/test_host.c) hold the expected map of each.
"""
import os
import sys

# host: cpus {cpu: (core, die, package, node, siblings)}, caches [(index, level, type, size, [cpulists]) ],
# online, ids (write cache id files)
def smt(pairs):
    return {c: s for s in pairs for c in s}

def lst(cpus):
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)

def host(n, core, pkg, node, sib, caches, online=None, ids=True, die=None, offline=()):
    return dict(n=n, core=core, pkg=pkg, node=node, sib=sib, caches=caches,
                online=online if online is not None else [c for c in range(n) if c not in offline],
                ids=ids, die=die or (lambda c: pkg(c)))

def groups(*gs):
    return [list(g) for g in gs]

L1D = (0, 1, "Data", "48K", None)          # None: per core (the SMT siblings)

HOSTS = {
    # Alder Lake: 2 P-cores with SMT (0-1, 2-3), 4 E-cores sharing an L2 (4-7), one L3
    "adl": host(8, lambda c: c // 2 if c < 4 else c - 2, lambda c: 0, lambda c: 0,
                lambda c: [c - c % 2, c - c % 2 + 1] if c < 4 else [c],
                [L1D, (2, 2, "Unified", "1280K", groups([0, 1], [2, 3], range(4, 8))),
                 (3, 3, "Unified", "24576K", groups(range(8)))]),
    # Skylake client: 4 cores, SMT siblings n and n+4, one L3; cpu7 offline
    "skl": host(8, lambda c: c % 4, lambda c: 0, lambda c: 0, lambda c: [c % 4, c % 4 + 4],
                [(2, 2, "Unified", "256K", groups(*[[i, i + 4] for i in range(4)])),
                 (3, 3, "Unified", "8192K", groups(range(8)))], offline=(7,)),
    # Sapphire Rapids, 2 sockets (a node each), 2 cores with SMT per socket: siblings n and n+4
    "spr": host(8, lambda c: c % 2, lambda c: (c % 4) // 2, lambda c: (c % 4) // 2,
                lambda c: [c % 4, c % 4 + 4],
                [(2, 2, "Unified", "2048K", groups(*[[i, i + 4] for i in range(4)])),
                 (3, 3, "Unified", "107520K", groups([0, 1, 4, 5], [2, 3, 6, 7]))]),
    # EPYC (Zen 4): 2 CCDs of 2 cores with SMT, numbered as on the EPYC 9254: CCD0 0-1,4-5, CCD1 2-3,6-7
    "zen4": host(8, lambda c: c % 4, lambda c: 0, lambda c: 0, lambda c: [c % 4, c % 4 + 4],
                 [L1D, (2, 2, "Unified", "1024K", groups(*[[i, i + 4] for i in range(4)])),
                  (3, 3, "Unified", "32768K", groups([0, 1, 4, 5], [2, 3, 6, 7]))]),
    # Zen 5 without SMT: 2 CCDs of 4 cores, on two dies
    "zen5": host(8, lambda c: c, lambda c: 0, lambda c: 0, lambda c: [c],
                 [(2, 2, "Unified", "1024K", groups(*[[i] for i in range(8)])),
                  (3, 3, "Unified", "32768K", groups(range(4), range(4, 8)))], die=lambda c: c // 4),
    # Ampere Altra (Neoverse N1): no L3 reported (the SLC is not a CPU cache): the LLC is each core's L2, index2
    "neoverse-n1": host(4, lambda c: c, lambda c: 0, lambda c: 0, lambda c: [c],
                        [L1D, (1, 1, "Instruction", "64K", None),
                         (2, 2, "Unified", "1024K", groups(*[[i] for i in range(4)]))]),
    # Graviton3 (Neoverse V1): one L3 over all cores as index3
    "neoverse-v1": host(4, lambda c: c, lambda c: 0, lambda c: 0, lambda c: [c],
                        [(2, 2, "Unified", "1024K", groups(*[[i] for i in range(4)])),
                         (3, 3, "Unified", "32768K", groups(range(4)))]),
    # Grace (Neoverse V2): 2 sockets of 2 cores, an L3 and a node each
    "neoverse-v2": host(4, lambda c: c % 2, lambda c: c // 2, lambda c: c // 2, lambda c: [c],
                        [(2, 2, "Unified", "1024K", groups(*[[i] for i in range(4)])),
                         (3, 3, "Unified", "116736K", groups([0, 1], [2, 3]))]),
    # a VM: 2 vCPUs, one L3, a kernel without cache id files (the id is the lowest CPU)
    "vm": host(2, lambda c: c, lambda c: 0, lambda c: 0, lambda c: [c],
               [(3, 3, "Unified", "16384K", groups(range(2)))], ids=False),
}


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def write(root, name, h):
    base = os.path.join(root, name, "devices/system/cpu")
    put(os.path.join(base, "online"), lst(h["online"]))
    for c in range(h["n"]):
        d = os.path.join(base, f"cpu{c}")
        if c not in h["online"]:
            put(os.path.join(d, "online"), "0")
            continue
        put(os.path.join(d, "topology/core_id"), str(h["core"](c)))
        put(os.path.join(d, "topology/die_id"), str(h["die"](c)))
        put(os.path.join(d, "topology/physical_package_id"), str(h["pkg"](c)))
        put(os.path.join(d, "topology/thread_siblings_list"), lst(h["sib"](c)))
        for idx, level, typ, size, gs in h["caches"]:
            shared = h["sib"](c) if gs is None else next(g for g in gs if c in g)
            k = os.path.join(d, f"cache/index{idx}")
            put(os.path.join(k, "level"), str(level))
            put(os.path.join(k, "type"), typ)
            put(os.path.join(k, "size"), size)
            put(os.path.join(k, "shared_cpu_list"), lst(shared))
            if h["ids"]:
                ident = min(shared) if gs is None else gs.index(next(g for g in gs if c in g))
                put(os.path.join(k, "id"), str(ident))
        link = os.path.join(d, f"node{h['node'](c)}")
        if not os.path.islink(link):
            os.symlink(f"../../node/node{h['node'](c)}", link)


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "tests/fixtures/sysfs")
    for name, h in HOSTS.items():
        write(root, name, h)


if __name__ == "__main__":
    main()
