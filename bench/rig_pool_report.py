#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rig_pool_report: the markdown summary of bench/bench_rig_pool.sh.

Reads the run's database and its levels file (one line a level: "N K
START END LOAD1 LOAD5 LOAD15 LOAD1' LOAD5' LOAD15' JOB..."), makes each
job's cell value per metric (the mean of its repetitions; rates by
harmonic mean, as judge/verdict.c does), and prints, per headline metric,
each level's mean, CV and ratio against level 1 (every level-1 block of
the run pooled) with a 95% CI from Welch's t on the logs of the cells;
then the levels' cells per hour against level 1 and their load
averages.  A ratio is marked "moved" when its CI excludes 1 or it is off
by 3% or more.
"""
import argparse
import math
import sqlite3
import statistics
import sys

HEADLINE = ("rate", "avg_lat", "lat_avg", "total", "iops", "throughput",
            "nb_throughput")


def t95(df):
    """Two-sided 95% Student t quantile (a table, then the normal)."""
    table = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45,
             7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 12: 2.18, 15: 2.13,
             20: 2.09, 30: 2.04}
    df = max(1, int(df))
    for k in sorted(table):
        if df <= k:
            return table[k]
    return 1.96


def cells(db, jobs):
    """{metric: [cell value, ...]} of the done runs of jobs."""
    if not jobs:
        return {}
    q = ("SELECT r.job_id, m.name, m.unit, m.direction, x.value FROM runs r"
         " JOIN results x ON x.run_id = r.id JOIN metrics m ON m.id ="
         " x.metric_id WHERE r.status = 'done' AND r.job_id IN (%s)"
         % ",".join("?" * len(jobs)))
    reps = {}
    rate = {}
    for job, name, unit, direction, value in db.execute(q, jobs):
        reps.setdefault((name, job), []).append(value)
        rate[name] = direction == 1 and "/s" in unit
    out = {}
    for (name, _job), v in sorted(reps.items()):
        if rate[name] and all(x > 0 for x in v):
            cv = len(v) / sum(1 / x for x in v)
        else:
            cv = sum(v) / len(v)
        out.setdefault(name, []).append(cv)
    return out


def ratio_ci(ref, v):
    """Ratio of means of v over ref and a 95% CI (Welch on the logs)."""
    if len(ref) < 2 or len(v) < 2 or min(ref + v) <= 0:
        return None
    r = statistics.mean(v) / statistics.mean(ref)
    a = statistics.variance([math.log(x) for x in ref]) / len(ref)
    b = statistics.variance([math.log(x) for x in v]) / len(v)
    if a + b == 0:
        return r, r, r
    df = (a + b) ** 2 / (a * a / (len(ref) - 1) + b * b / (len(v) - 1)) \
        if a * b > 0 else len(ref) + len(v) - 2
    h = t95(df) * math.sqrt(a + b)
    return r, r * math.exp(-h), r * math.exp(h)


def main():
    p = argparse.ArgumentParser()
    for k in ("db", "levels", "kernel", "suite", "scale", "model", "rigs",
              "cells", "start", "load0", "load1"):
        p.add_argument("--" + k, required=True)
    a = p.parse_args()
    db = sqlite3.connect(a.db)
    levels = []
    for line in open(a.levels):
        f = line.split()
        levels.append({"n": int(f[0]), "k": int(f[1]), "start": int(f[2]),
                       "end": int(f[3]), "load0": " ".join(f[4:7]),
                       "load1": " ".join(f[7:10]),
                       "jobs": [int(j) for j in f[10:]]})
    for lv in levels:
        lv["cells"] = cells(db, lv["jobs"])
    ref_jobs = [j for lv in levels if lv["k"] == 1 for j in lv["jobs"]]
    ref = cells(db, ref_jobs)
    busy = float(a.load0.split()[0]) > 0.5
    print("## Rig pools: %s rigs of disk model %s on one box (%s)"
          % (a.rigs, a.model, a.start))
    print()
    print("Kernel %s, suite %s at scale %s, %s cells a rig a level; "
          "levels (rigs at once) in run order: %s.  Load average before "
          "%s, after %s%s." % (a.kernel, a.suite, a.scale, a.cells,
                               " ".join(str(lv["k"]) for lv in levels),
                               a.load0, a.load1,
                               " (taken under load)" if busy else ""))
    print()
    print("| metric | level | rigs | cells | mean | CV % | ratio to 1 rig "
          "| 95% CI | |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    moved = {}
    for name in sorted(ref):
        if name.rsplit(".", 1)[-1] not in HEADLINE:
            continue
        for lv in levels:
            v = lv["cells"].get(name, [])
            if not v:
                continue
            cv = (100 * statistics.stdev(v) / statistics.mean(v)
                  if len(v) > 1 and statistics.mean(v) else float("nan"))
            rc = ratio_ci(ref[name], v) if lv["k"] > 1 else None
            mark = ""
            if rc and (rc[1] > 1 or rc[2] < 1 or abs(rc[0] - 1) >= 0.03):
                mark = "moved"
                moved.setdefault(lv["k"], []).append(name)
            print("| %s | %d | %d | %d | %.4g | %.1f | %s | %s | %s |"
                  % (name, lv["n"], lv["k"], len(v), statistics.mean(v), cv,
                     "%.3f" % rc[0] if rc else "1 (ref)" if lv["k"] == 1
                     else "-",
                     "%.3f..%.3f" % (rc[1], rc[2]) if rc else "-", mark))
    print()
    print("| level | rigs | cells | wall s | cells/hour | x 1 rig "
          "| load before | load after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    per_hour = {}
    for lv in levels:
        n = sum(1 for _ in lv["jobs"])
        wall = max(1, lv["end"] - lv["start"])
        per_hour.setdefault(lv["k"], []).append(3600.0 * n / wall)
    ref_rate = statistics.mean(per_hour.get(1, [float("nan")]))
    for lv in levels:
        n = len(lv["jobs"])
        wall = max(1, lv["end"] - lv["start"])
        cph = 3600.0 * n / wall
        print("| %d | %d | %d | %d | %.1f | %.2f | %s | %s |"
              % (lv["n"], lv["k"], n, wall, cph, cph / ref_rate,
                 lv["load0"], lv["load1"]))
    print()
    ok = [k for k in sorted(per_hour) if k > 1 and k not in moved]
    print("Rigs at once with no headline metric moved: %s; moved: %s."
          % (", ".join(str(k) for k in ok) or "none",
             "; ".join("%d rigs: %s" % (k, ", ".join(v))
                       for k, v in sorted(moved.items())) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
