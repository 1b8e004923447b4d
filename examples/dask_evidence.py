#!/usr/bin/env python3
"""dask_evidence.py - one cell config from a directory of recordings, with
the per-recording step run on a Dask distributed cluster.

Map: each recording (PROFILE.tar.gz, a profile directory, PROFILE.out/ or
a perf.jsonl) goes to a worker, which runs

    scxprof extract -f RECORDING --evidence-out EVIDENCE.json

and sends back the evidence file's text (a few KB: units, demand and
per-pair statistics; schemas/evidence.schema.json). The heavy step (decode
and aggregate millions of samples) runs where the recording is, in
parallel; nothing large crosses the network.

Combine: on the client, the evidence files are written to --evidence-dir
and combined by

    scxprof extract --evidence-in EVIDENCE.json ... [-v]

into one config on stdout (the -v report on stderr): the same config, byte
for byte, as `scxprof extract -f A -f B ...` over the same recordings.

    python3 examples/dask_evidence.py RECORDINGS_DIR --evidence-dir ev/ \\
        [--scheduler tcp://HOST:8786 | --workers N] [--scxprof PATH] [-v] \\
        [-- EXTRACT OPTIONS...]

Without --scheduler it starts a LocalCluster of --workers processes. The
workers need scxprof on their PATH (or --scxprof) and the recordings at the
same path (a shared filesystem, or one directory per host and a scheduler
that places each task where its file is). docs/extract.md ("Many recordings, one
config") shows the same map/combine on Spark and as a Kubernetes Job.
"""
import argparse
import os
import subprocess
import sys
import tempfile

RECORDING_SUFFIXES = (".tar.gz", ".jsonl", ".jsonl.zst")


def recordings(top):
    """The recordings directly under top, sorted by name."""
    found = []
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if name.endswith(RECORDING_SUFFIXES) and os.path.isfile(path):
            found.append(path)
        elif os.path.isdir(path) and not os.path.exists(path + ".tar.gz"):
            found.append(path)  # a profile directory or PROFILE.out/ (not one a .tar.gz was extracted to)
    return found


def evidence_of(recording, scxprof, extract_args):
    """Worker side: one recording's evidence as text (raises with scxprof's message on failure)."""
    with tempfile.TemporaryDirectory(prefix="scxprof-ev.") as tmp:
        out = os.path.join(tmp, "evidence.json")
        proc = subprocess.run(
            [scxprof, "extract", "-f", recording, "--evidence-out", out, *extract_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError("%s: %s" % (recording, proc.stderr.strip().splitlines()[-1:]))
        with open(out, encoding="utf-8") as f:
            return f.read()


def evidence_name(recording):
    base = os.path.basename(recording.rstrip("/"))
    for suffix in RECORDING_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base + ".evidence.json"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recordings_dir")
    ap.add_argument("--evidence-dir", required=True, help="where the evidence files are written (must not hold them yet)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--scxprof", default="scxprof", help="scxprof binary on the workers and here")
    ap.add_argument("-v", "--verbose", action="store_true", help="the combine's -v report on stderr")
    ap.add_argument("extract_args", nargs="*", help="extract options for every recording (after --)")
    a = ap.parse_args()

    from dask.distributed import Client, LocalCluster  # python3-distributed (Debian)

    paths = [os.path.abspath(p) for p in recordings(a.recordings_dir)]
    if not paths:
        sys.exit("dask_evidence: no recordings in %s" % a.recordings_dir)
    names = [evidence_name(p) for p in paths]
    if len(set(names)) != len(names):
        sys.exit("dask_evidence: two recordings would write the same evidence file name")
    os.makedirs(a.evidence_dir, exist_ok=True)
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)
    try:
        # map: one task per recording; pure=False, each runs once
        futures = client.map(evidence_of, paths, scxprof=a.scxprof, extract_args=a.extract_args, pure=False)
        texts = client.gather(futures)
    finally:
        client.close()
        if cluster:
            cluster.close()
    files = []
    for name, text in zip(names, texts):
        path = os.path.join(a.evidence_dir, name)
        with open(path, "x", encoding="utf-8") as f:  # never over an existing file
            f.write(text)
        files.append(path)
    # combine: a few KB per recording, on one machine
    cmd = [a.scxprof, "extract", *(["-v"] if a.verbose else []), *a.extract_args, "--evidence-in", *files]
    sys.exit(subprocess.run(cmd, check=False).returncode)


if __name__ == "__main__":
    main()
