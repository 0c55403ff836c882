#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""noise_table: the rig's noise per suite (issue 9, "Noise: goal under 3%").

For each suite, per metric, the coefficient of variation (sample sd /
mean) of the cell values over the cells of one kernel on one rig: a
cell's value is klab-run's mean of its repetitions, as stored in
/api/runs/ID `results`.  Metrics are split into

  headline  each tiobench phase's `rate` and `avg_lat`, `iops.total`
            (iops-alldisks) and rio's read rate `readlat.rate`
            (rio-under-dbench): judged against the 3% goal;
  tail      percentiles from p90 up, max latencies, the shares of slow
            requests (`lat_2s`, `lat_10s`): reported, not judged;
  other     every other directional metric (CPU, minimum latency, ...):
            reported, not judged.

Metrics without a direction (device counters `dev_*`, `cached` marks,
sizes, counts) are not measurements of performance and are left out.

bench/lab_report.py uses it for bench_lab.sh's report; run on its own
against any klabd:

  bench/noise_table.py --url http://127.0.0.1:PORT --rig scsi0 \\
      --suites tiobench,iops-alldisks,rio-under-dbench [--kernel K]
"""
import argparse
import json
import math
import re
import statistics
import urllib.request

GOAL = 3.0
TIOBENCH_PHASES = ("seq_write", "seq_read", "rand_write", "rand_read")
# the headline metrics a suite must have: a missing one fails the goal
EXPECTED = {
    "tiobench": ["tiobench.%s.%s" % (p, f) for p in TIOBENCH_PHASES
                 for f in ("rate", "avg_lat")],
    "iops-alldisks": ["iops.total"],
    "rio-under-dbench": ["readlat.rate"],
}


def get(url):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=60) as r:
        return json.load(r)


def rigconf_value(text, key):
    """A key of a run's canonical rig configuration (key=value lines)."""
    for line in (text or "").splitlines():
        k, sep, v = line.partition("=")
        if sep and k.strip() == key:
            return v.strip()
    return None


def suite_results(url, suite, jobs=None, rig="scsi0", kernel=None):
    """The cells of one suite: per job the cell's values (klab-run's mean
    of its repetitions), each repetition's values pooled per metric,
    units, directions and the rig configurations the runs recorded.
    jobs: a set of job ids to keep (None: every done run)."""
    q = "%s/api/runs?rig=%s&suite=%s&limit=10000" % (url, rig, suite)
    if kernel:
        q += "&kernel=" + kernel
    runs = get(q)
    cell, reps, units, dirs, rigconfs = {}, {}, {}, {}, []
    for run in runs["runs"]:
        if jobs is not None and run["job"] not in jobs:
            continue
        if run["status"] != "done":
            continue
        doc = get("%s/api/runs/%d" % (url, run["id"]))
        key = run["job"] or -run["id"]   # an import has no job
        for r in doc["results"]:
            cell.setdefault(key, {})[r["metric"]] = r["value"]
            units[r["metric"]] = r["unit"]
            dirs[r["metric"]] = r["direction"]
        rc = doc.get("rigconf") or run.get("rigconf") or {}
        rigconfs.append(rc.get("text", "") if isinstance(rc, dict) else "")
        got = [r for r in doc.get("repetitions", []) if r.get("complete")]
        for r in got:
            reps.setdefault(r["metric"], []).append(r["value"])
        if got:
            continue
        # runs stored before run_reps: each repetition's raw rep-N.json
        for name in doc.get("raw", []):
            if not re.fullmatch(r"rep-\d+\.json", name):
                continue
            rep = get("%s/api/runs/%d/raw/%s" % (url, run["id"], name))
            for r in rep["results"]:
                reps.setdefault(r["metric"], []).append(r["value"])
    return {"suite": suite, "cell": cell, "reps": reps, "units": units,
            "dirs": dirs, "rigconfs": rigconfs}


def cv(values):
    if len(values) < 2:
        return float("nan")
    m = statistics.mean(values)
    return statistics.stdev(values) / abs(m) * 100 if m else float("nan")


def med(v):
    return statistics.median(v) if v else float("nan")


def measured(metric, direction):
    """A measurement of performance (not a counter, mark or size)."""
    field = metric.rsplit(".", 1)[-1]
    return direction != "none" and not field.startswith("dev_") and \
        field != "cached"


def metric_kind(metric):
    """headline, tail or other (see the module's comment)."""
    parts = metric.split(".")
    field = parts[-1]
    if metric in ("iops.total", "readlat.rate"):
        return "headline"
    if parts[0] == "tiobench" and len(parts) == 3 and \
            field in ("rate", "avg_lat"):
        return "headline"
    if re.fullmatch(r"lat_p(9\d|99_\d+)", field) or "max" in field or \
            field in ("lat_2s", "lat_10s"):
        return "tail"
    return "other"


def suite_rows(data):
    """Per measured metric of one suite: a dict with metric, kind, unit,
    n (cells with it), mean, cv (of cells, %), cv_reps; and the tail and
    other metrics left without a CV (0 in every cell, or in fewer than 2
    cells).  A headline metric stays in the rows (NaN CV: it fails)."""
    cell, jobs = data["cell"], sorted(data["cell"])
    rows, nocv = [], []
    names = {k for j in jobs for k in cell[j]}
    for k in sorted(names):
        if not measured(k, data["dirs"].get(k)):
            continue
        v = [cell[j][k] for j in jobs if k in cell[j]]
        c = cv(v)
        row = {"metric": k, "kind": metric_kind(k), "n": len(v),
               "unit": data["units"].get(k, ""), "mean": statistics.mean(v),
               "cv": c, "cv_reps": cv(data["reps"].get(k, []))}
        if math.isnan(c) and row["kind"] != "headline":
            nocv.append(row)
        else:
            rows.append(row)
    for k in EXPECTED.get(data["suite"], []):
        if k not in names:
            rows.append({"metric": k, "kind": "headline", "n": 0, "unit": "",
                         "mean": float("nan"), "cv": float("nan"),
                         "cv_reps": float("nan"), "missing": True})
    return rows, nocv


def pct(v):
    return "" if math.isnan(v) else "%.1f%%" % v


def summary(rows, what="headline"):
    """"headline: N of M at or under 3%, median CV X%, largest Y% (metric)"."""
    have = [r for r in rows if not math.isnan(r["cv"])]
    if not rows:
        return "%s: no metric" % what
    under = sum(1 for r in have if r["cv"] <= GOAL)
    line = "%s: %d of %d at or under %g%%" % (what, under, len(rows), GOAL)
    if have:
        top = max(have, key=lambda r: r["cv"])
        line += ", median CV %.1f%%, largest %.1f%% (%s)" % (
            med([r["cv"] for r in have]), top["cv"], top["metric"])
    missing = [r["metric"] for r in rows if r.get("missing")]
    if missing:
        line += "; no value: %s" % ", ".join(missing)
    return line


def noise_section(suites, disk_model=None):
    """Markdown: per suite a headline table (judged against 3%) and a
    table of the tail and other metrics; a summary line per suite and
    one over every suite's headline metrics."""
    ns = sorted({len(d["cell"]) for d in suites})
    out = ["**Noise** (issue 9, goal: CV at most %g%% for the headline "
           "metrics): coefficient of variation (sample sd / mean) of each "
           "metric over the cells of one kernel%s (a cell's value is "
           "klab-run's mean of its repetitions; \"CV of repetitions\" "
           "pools the single repetitions of all cells).  Headline: each "
           "tiobench phase's `rate` and `avg_lat`, `iops.total`, rio's "
           "`readlat.rate`; tail (p90 and up, max, `lat_2s`, `lat_10s`) "
           "and other directional metrics are reported, not judged; "
           "metrics without a direction (`dev_*` counters, `cached`, "
           "sizes) are left out.  With n cells per kernel the smallest "
           "difference a two-sided test at 5%% finds with 80%% power is "
           "about 2.8 x CV x sqrt(2/n)." %
           (GOAL, " with disk model `%s`" % disk_model if disk_model else "")]
    every = []
    for d in suites:
        rows, nocv = suite_rows(d)
        n = len(d["cell"])
        head = [r for r in rows if r["kind"] == "headline"]
        rest = [r for r in rows if r["kind"] != "headline"]
        every += head
        if not n:
            out += ["", "Suite `%s`: no run done, no noise figures%s." %
                    (d["suite"], "; " + summary(head) if head else "")]
            continue
        det = (lambda c: pct(2.8 * c * math.sqrt(2 / n)))
        out += ["", "Suite `%s`, %d cells:" % (d["suite"], n), "",
                "| headline metric | mean | unit | CV of cells | <= %g%% | "
                "CV of repetitions | detectable, %d vs %d cells |" %
                (GOAL, n, n),
                "| --- | ---: | --- | ---: | --- | ---: | ---: |"]
        for r in head:
            ok = "pass" if r["cv"] <= GOAL else "**fail**"
            if r.get("missing"):
                ok = "**fail** (no value)"
            elif math.isnan(r["cv"]):
                ok = "**fail** (no CV)"
            out.append("| %s | %s | %s | %s | %s | %s | %s |" %
                       (r["metric"], "" if math.isnan(r["mean"]) else
                        "%.4g" % r["mean"], r["unit"], pct(r["cv"]), ok,
                        pct(r["cv_reps"]), det(r["cv"])))
        if rest:
            out += ["", "| tail / other metric | kind | mean | unit | "
                    "CV of cells | CV of repetitions |",
                    "| --- | --- | ---: | --- | ---: | ---: |"]
            for r in sorted(rest, key=lambda r: (r["kind"] != "tail",
                                                 r["metric"])):
                out.append("| %s | %s | %.4g | %s | %s | %s |" %
                           (r["metric"], r["kind"], r["mean"], r["unit"],
                            pct(r["cv"]), pct(r["cv_reps"])))
        out += ["", summary(head)]
        tail = [r for r in rest if r["kind"] == "tail"]
        if tail:
            top = max(tail, key=lambda r: r["cv"])
            out[-1] += "; tail: median CV %.1f%%, largest %.1f%% (%s)" % (
                med([r["cv"] for r in tail]), top["cv"], top["metric"])
        if nocv:
            out += ["", "No CV (0 in every cell, or in fewer than 2 cells): "
                    + ", ".join("`%s`" % r["metric"] for r in nocv) + "."]
        if any(r["n"] < n for r in rows if not r.get("missing")):
            out += ["", "Some metrics are missing from some cells: " +
                    ", ".join("`%s` (%d)" % (r["metric"], r["n"]) for r in rows
                              if r["n"] < n and not r.get("missing")) + "."]
    if len(suites) > 1:
        out += ["", "**All suites, %s**." % summary(every)]
    return out


def disk_models(suites):
    """The disk models the runs' rig configurations recorded."""
    return sorted({m for d in suites for t in d["rigconfs"]
                   for m in [rigconf_value(t, "disk_model")] if m})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--rig", default="scsi0")
    ap.add_argument("--suites", default="tiobench")
    ap.add_argument("--kernel")
    a = ap.parse_args()
    data = [suite_results(a.url, s, None, a.rig, a.kernel)
            for s in a.suites.split(",") if s]
    models = disk_models(data)
    print("\n".join(noise_section(data, "/".join(models) or None)))


if __name__ == "__main__":
    main()
