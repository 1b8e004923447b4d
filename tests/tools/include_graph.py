#!/usr/bin/env python3
"""include_graph.py [--root DIR] [--edges] [--decls|--calls] DIR... - find
include circles among modules, (--decls) headers that declare functions
another module defines, and (--calls) two files that call each other.

A module is a .c file and the .h of the same name beside it (process/hints.c
and process/hints.h are the module process/hints); an X_internal.h beside X.c
or X.h belongs to module X (the header a module split in several files
shares: extract/mem/mem_agg_internal.h). Module A depends on module B
when A's .c or .h says `#include "B.h"` (quoted includes only; a name is
looked up beside the including file, then from the root, as the Makefile's
-I. does). With each header declaring only what its own .c defines, such an
edge is a real call or type dependency, so a circle means two modules need
each other: one of them is both a dispatcher and a toolkit of its callees.

Only modules under the given directories are checked; includes of files
elsewhere (bpf/, cmd/) are still listed by --edges. Prints each circle as
"cycle: a -> b -> a" (strongly connected components of more than one module,
the shortest loop through each) and exits 1 when there is any.

--decls checks instead that each header declares only functions its own
module defines: X.h those of X.c or of X_*.c (a module split in several
files, as lib/perfdata.c and perfdata_write.c), a header named after its
folder (place/place.h, a room's contract), or one that opens saying it is
"the contract of" its folder (record/perfdata/record_perfdata.h: named for
its job, since lib/perfdata.h has the folder's name), those of the .c files
in that folder, an internal header
(X_internal.h) those of the .c files that include it, and a header in a
folder below the given ones (process/sym/, a package) those of the .c files
beside it. A function declared in
one module's header and defined in another's hides a dependency from the
include graph (a dispatcher whose callees are declared in its own header).
Prints "HEADER: declares NAME, defined in FILE" and exits 1 when there is any.

--calls checks instead that no two .c files call each other: file A uses
(calls, or takes the address of) a function file B defines and B uses one
A defines. Includes cannot show this (both may include one header, or a
shared internal one): a module split in parts that call each other is a
ring, where the parts should call a core and never each other. A function
is a non-static definition at column 0 (FUNC_DEF); a name defined in more
than one file, or by the using file itself (a static of the same name), is
not counted; comments and string literals are skipped. Prints
"calls: A <-> B (A uses f, ...; B uses g, ...)" per pair and exits 1 when
there is any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# a header's opening comment naming it a room's contract: "NAME.h - the contract of FOLDER/"
CONTRACT = re.compile(r"/\*\s*\*?\s*([\w.]+\.h) - the contract of ([\w/]+)/")
# a definition or declaration starts at column 0 with its return type
FUNC_DEF = re.compile(r"^(?!static\b|typedef\b|extern\b|return\b)(?:[A-Za-z_]\w*[ \t*]+)+\**(\w+)\([^;{}]*?\)\s*\{", re.M)
FUNC_DECL = re.compile(r"^(?!static\b|typedef\b|extern\b|return\b)(?:[A-Za-z_]\w*[ \t*]+)+\**(\w+)\([^;{}]*?\)[^;{}=]*;", re.M)


def source_files(root, dirs):
    for d in dirs:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for fn in sorted(files):
                if fn.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, fn), root)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def strip_comments(text):
    return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def is_contract(rel, text):
    """A room's contract: the header named after its folder, or one whose
    opening comment says "NAME.h - the contract of FOLDER/" of its own folder."""
    folder = os.path.dirname(rel)
    if os.path.basename(rel) == os.path.basename(folder) + ".h":
        return True
    m = CONTRACT.match(text)
    return bool(m) and m.group(1) == os.path.basename(rel) and os.path.normpath(m.group(2)) == folder


def misplaced_declarations(root, dirs):
    defined, declared, includes, contracts = {}, [], {}, set()
    tops = {os.path.normpath(d) for d in dirs}
    for rel in source_files(root, dirs):
        raw = read(root, rel)
        if rel.endswith(".h") and is_contract(rel, raw):
            contracts.add(rel)
        text = strip_comments(raw)
        includes[rel] = {resolve(root, rel, n) for n in INCLUDE.findall(text)}
        if rel.endswith(".c"):
            for name in FUNC_DEF.findall(text):
                defined.setdefault(name, []).append(rel)
        else:
            declared += [(rel, name) for name in FUNC_DECL.findall(text)]
    out = []
    for header, name in declared:
        mod = module_of(header)
        for src in defined.get(name, ()):
            other = module_of(src)
            if other == mod or other.startswith(mod + "_"):
                continue
            if os.path.dirname(header) not in tops and os.path.dirname(src) == os.path.dirname(header):
                continue  # a package in a folder of its own (process/sym/): its headers serve its files
            if header in contracts and os.path.dirname(src) == os.path.dirname(header):
                continue  # a room's contract (place/place.h): declares what its files offer
            if mod.endswith("internal") and header in includes.get(src, ()):
                continue
            out.append(f"{header}: declares {name}, defined in {src}")
    return sorted(out)


STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
# any function definition at column 0, static ones too (a file's own names)
ANY_DEF = re.compile(r"^(?!typedef\b|extern\b|return\b)(?:[A-Za-z_]\w*[ \t*]+)+\**(\w+)\([^;{}]*?\)\s*\{", re.M)


def mutual_calls(root, dirs):
    """Pairs of .c files each using a function the other defines."""
    defined, own, uses = {}, {}, {}
    for rel in source_files(root, dirs):
        if not rel.endswith(".c"):
            continue
        text = STRING.sub('""', strip_comments(read(root, rel)))
        for name in FUNC_DEF.findall(text):
            defined.setdefault(name, set()).add(rel)
        own[rel] = set(ANY_DEF.findall(text))
        uses[rel] = set(IDENT.findall(text))
    dep = {}
    for f, names in uses.items():
        for name in names - own[f]:
            where = defined.get(name, ())
            if len(where) == 1:
                dep.setdefault(f, {}).setdefault(next(iter(where)), set()).add(name)
    out = []
    for a in sorted(dep):
        for b in sorted(dep[a]):
            if a < b and a in dep.get(b, {}):
                out.append(f"calls: {a} <-> {b} ({a} uses {', '.join(sorted(dep[a][b]))}; "
                           f"{b} uses {', '.join(sorted(dep[b][a]))})")
    return out


def module_of(path):
    return os.path.splitext(path)[0]


def graph_module(root, path):
    """The module a file belongs to in the include graph: X_internal.h is
    part of module X when X.c or X.h is beside it (the header the files of a
    module split in several .c files share, extract/mem/mem_agg_internal.h);
    otherwise module_of(path)."""
    if path.endswith("_internal.h"):
        stem = path[: -len("_internal.h")]
        if os.path.isfile(os.path.join(root, stem + ".c")) or os.path.isfile(os.path.join(root, stem + ".h")):
            return stem
    return module_of(path)


def resolve(root, including, name):
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if os.path.isfile(os.path.join(root, beside)):
        return beside
    top = os.path.normpath(name)
    if os.path.isfile(os.path.join(root, top)):
        return top
    return None


def build_graph(root, dirs):
    edges = {}
    for rel in source_files(root, dirs):
        src = graph_module(root, rel)
        edges.setdefault(src, set())
        for name in INCLUDE.findall(strip_comments(read(root, rel))):
            target = resolve(root, rel, name)
            if target and graph_module(root, target) != src:
                edges[src].add(graph_module(root, target))
    return edges


def components(edges, nodes):
    """Tarjan's strongly connected components over nodes (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()) & nodes)))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ()) & nodes))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def shortest_loop(edges, comp):
    """A shortest circle through the first module of comp (breadth first)."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ()) & members):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main(argv):
    root = "."
    show_edges = False
    decls = False
    calls = False
    dirs = []
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 2
            continue
        if argv[i] == "--edges":
            show_edges = True
        elif argv[i] == "--decls":
            decls = True
        elif argv[i] == "--calls":
            calls = True
        else:
            dirs.append(argv[i].rstrip("/"))
        i += 1
    if not dirs:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    for d in dirs:
        if not os.path.isdir(os.path.join(root, d)):
            print(f"include_graph.py: {d}: not a directory under {root}", file=sys.stderr)
            return 2
    if calls:
        bad = mutual_calls(root, dirs)
        for line in bad:
            print(line)
        print(f"{len(bad)} pairs of files that call each other")
        return 1 if bad else 0
    if decls:
        bad = misplaced_declarations(root, dirs)
        for line in bad:
            print(line)
        print(f"{len(bad)} declarations outside their module")
        return 1 if bad else 0
    edges = build_graph(root, dirs)
    if show_edges:
        for src in sorted(edges):
            for dst in sorted(edges[src]):
                print(f"{src} -> {dst}")
    nodes = set(edges)
    bad = 0
    for comp in components(edges, nodes):
        if len(comp) > 1:
            bad += 1
            print("cycle: " + " -> ".join(shortest_loop(edges, comp)) +
                  (f" ({len(comp)} modules in the circle)" if len(comp) > 2 else ""))
    print(f"{len(nodes)} modules, {sum(len(v & nodes) for v in edges.values())} edges, {bad} circles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
