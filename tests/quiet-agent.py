#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""quiet-agent.py: the scripted agent of one remote rig for
tests/t5003-quiet-lab.sh.  It answers the rig's jobs until the file STOP
exists, each with tiobench-like results drawn from ONE noisy distribution
(normal, CV 3%) whatever the kernel, seeded per cell ("KERNEL/N": the
N-th cell of that kernel), so a run of the test is the same every time
and no two cells share their noise.  A kernel built from commit BAD of
the git repository REPO, or from a descendant of it, reads 15% slower
(seq_read.rate) once the file BAD holds that commit: the positive
control.  A head's kernel trkT-HASH12 names its commit; a bisection's
candidate bisN-IDX is looked up in the database DB.

    quiet-agent.py URL TOKEN DB REPO BAD STOP LOG

LOG gets one line a job: "kernel n value-of-seq_read.rate"."""
import json
import os
import random
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

CV = 0.03
# metric, unit, direction, level: the rates and latencies are judged,
# the counter (direction none) never is, however it moves
METRICS = [
    ("tiobench.seq_read.rate", "MB/s", "higher", 100.0),
    ("tiobench.seq_write.rate", "MB/s", "higher", 60.0),
    ("tiobench.rand_read.rate", "MB/s", "higher", 2.0),
    ("tiobench.rand_write.rate", "MB/s", "higher", 1.5),
    ("tiobench.seq_read.avg_lat", "ms", "lower", 0.5),
    ("tiobench.seq_read.dev_write_sectors", "sectors", "none", 4000.0),
]


def call(url, token, path, body=None):
    req = urllib.request.Request(
        url + path, method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": "Bearer " + token,
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


def commit_of(db, repo, kernel):
    """The commit kernel was built from, or None (not a git build)."""
    if kernel.startswith("trk"):
        out = subprocess.run(["git", "-C", repo, "rev-parse", "--verify",
                              "-q", kernel.split("-", 1)[1] + "^{commit}"],
                             capture_output=True, text=True)
        return out.stdout.strip() or None
    if kernel.startswith("bis"):
        b, i = kernel[3:].split("-", 1)
        with sqlite3.connect(db, timeout=30) as c:
            row = c.execute("SELECT file FROM bisection_candidates WHERE "
                            "bisection_id = ? AND idx = ?",
                            (int(b), int(i))).fetchone()
        return row[0] if row else None
    return None


def slow(db, repo, badfile, kernel):
    """1 when kernel holds the bad commit."""
    try:
        with open(badfile) as f:
            bad = f.read().strip()
    except OSError:
        return False
    c = commit_of(db, repo, kernel) if bad else None
    return bool(c) and subprocess.run(
        ["git", "-C", repo, "merge-base", "--is-ancestor", bad, c]).returncode == 0


def results(kernel, n, is_slow):
    rng = random.Random("%s/%d" % (kernel, n))
    out = []
    for name, unit, direction, level in METRICS:
        v = level * rng.gauss(1.0, CV if direction != "none" else 0.3)
        if is_slow and name == "tiobench.seq_read.rate":
            v *= 0.85
        out.append({"metric": name, "unit": unit, "value": round(max(v, 0.001), 4),
                    "direction": direction})
    return {"schema": "klab-results/1", "results": out}


def main():
    url, token, db, repo, badfile, stop, log = sys.argv[1:8]
    call(url, token, "/api/agent/register",
         {"kernel_release": "6.1.0-host", "job": 0})
    cells = {}
    with open(log, "a") as lf:
        while not os.path.exists(stop):
            st, body = call(url, token, "/api/agent/next?wait=1")
            if st != 200:
                continue
            job = json.loads(body)["job"]
            k = job["kernel"]
            n = cells.get(k, 0)
            cells[k] = n + 1
            doc = results(k, n, slow(db, repo, badfile, k))
            st, body = call(url, token, "/api/agent/jobs/%d/results" % job["id"], doc)
            lf.write("%s %d %s %d\n" % (k, n, doc["results"][0]["value"], st))
            lf.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
