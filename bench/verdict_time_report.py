#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verdict_time_report: the markdown summary of bench/bench_verdict_time.sh.

Reads the run's cases file (one line a submission: "CASE ID START END
LOAD1 LOAD5 LOAD15 LOAD1' LOAD5' LOAD15'"), each submission's API
documents in the run's directory (sub-ID.json: GET /api/submissions/ID;
cmp-C.json: GET /api/comparisons/C of each of its comparisons) and
klabd's database (the builds' and the cells' times, the rig of each
cell), and prints per submission: when its builds finished (the later
of the two builds' end), when its verdict was reached (the end of its
verdict stage), the minutes between against the case's bound (worse:
ends worse within 20; aa: ends same on every headline metric within
30), the verdict of each headline metric, the cells per side, which rig
ran each cell and the load average before and after; then the lab's
cells per hour over the cell phases (a submission's cells stage start to
its last done cell's end) against the issue's reference (one hdd rig,
364 s a cell) and against one rig of this run running cells back to
back (3600 / the run's mean cell time).  tests/t1002-verdict-time-report.sh
runs it on a made-up run.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
import time

BOUND_MIN = {"worse": 20, "aa": 30}
PATCH = {"worse": "elv-writes-first.patch", "aa": "aa-comment.patch"}
REF_CELL_S = 364.0	# issue 31: an hdd cell, mean of 8
REF_TIMES = 4.0		# done when: at least 4x that rig's cells per hour


def hms(t):
    """An epoch second as HH:MM:SS UTC, "-" for none."""
    return time.strftime("%H:%M:%S", time.gmtime(t)) if t else "-"


def under_load(load):
    """True when the 1-minute figure of "L1 L5 L15" is above 0.5."""
    try:
        return float(load.split()[0]) > 0.5
    except (ValueError, IndexError):
        return False


def load_json(path):
    """The document at path, {} when it is missing or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def builds(db, sub):
    """The submission's builds: [(which, state, created, finished,
    cache, build_seconds)]."""
    out = []
    for which in ("base", "patched"):
        bid = (sub.get("builds") or {}).get(which) or 0
        row = db.execute("SELECT state, created, finished, record FROM"
                         " builds WHERE id = ?", (bid,)).fetchone()
        if not row:
            out.append((which, "none", None, None, "-", "-"))
            continue
        rec = row[3] or ""
        cache = re.search(r"^cache=(\S+)", rec, re.M)
        secs = re.search(r"^build_seconds=(\S+)", rec, re.M)
        out.append((which, row[0], row[1], row[2],
                    cache.group(1) if cache else "-",
                    secs.group(1) if secs else "-"))
    return out


def cells(db, cmp_ids):
    """The cells of the comparisons: [{cmp, side, job, rig, state,
    started, finished}] in the order they started."""
    if not cmp_ids:
        return []
    q = ("SELECT cj.comparison_id, cj.side, j.id, COALESCE(r.name, '?'),"
         " j.state, j.started, j.finished FROM comparison_jobs cj"
         " JOIN jobs j ON j.id = cj.job_id LEFT JOIN rigs r"
         " ON r.id = j.rig_id WHERE cj.comparison_id IN (%s)"
         " ORDER BY j.started IS NULL, j.started, j.id"
         % ",".join("?" * len(cmp_ids)))
    return [{"cmp": c, "side": s, "job": j, "rig": r, "state": st,
             "started": a, "finished": b}
            for c, s, j, r, st, a, b in db.execute(q, cmp_ids)]


def stage_times(sub):
    """{stage: (started, finished)} of a submission's document."""
    return {s.get("stage"): (s.get("started") or None,
                             s.get("finished") or None)
            for s in sub.get("stages", [])}


def one_case(db, d, line):
    """A case's figures from its line of the cases file."""
    f = line.split()
    c = {"case": f[0], "id": int(f[1]), "s0": int(f[2]), "s1": int(f[3]),
         "load0": " ".join(f[4:7]), "load1": " ".join(f[7:10])}
    sub = load_json(os.path.join(d, "sub-%d.json" % c["id"]))
    c["state"] = sub.get("state", "?")
    c["verdict"] = sub.get("verdict") or "-"
    c["builds"] = builds(db, sub)
    ends = [b[3] for b in c["builds"] if b[1] == "done"]
    c["built"] = max(ends) if len(ends) == 2 else None
    st = stage_times(sub)
    c["decided"] = (st.get("verdict", (None, None))[1] or
                    (sub.get("finished") if c["state"] == "finished"
                     else None) or None)
    c["minutes"] = ((c["decided"] - c["built"]) / 60.0
                    if c["built"] and c["decided"] else None)
    c["cmps"] = [load_json(os.path.join(d, "cmp-%d.json" % x["comparison"]))
                 for x in sub.get("cells", [])]
    c["cells"] = cells(db, [x["comparison"] for x in sub.get("cells", [])])
    done = [x for x in c["cells"] if x["state"] == "done"
            and x["started"] and x["finished"]]
    c["done"] = done
    c["phase0"] = st.get("cells", (None, None))[0] or c["built"]
    c["phase1"] = max([x["finished"] for x in done] or [c["decided"] or 0])
    c["wall"] = (c["phase1"] - c["phase0"]
                 if c["phase0"] and c["phase1"] > c["phase0"] else 0)
    c["met"] = met(c)
    return c


def headline(cmp):
    """{metric: verdict} of a comparison's document, open ones
    "undecided"."""
    out = dict(cmp.get("metrics_decided") or {})
    for m in cmp.get("metrics_open") or []:
        out[m] = "undecided"
    return out


def met(c):
    """"met", "missed" or "-" (no bound) for a case."""
    bound = BOUND_MIN.get(c["case"])
    if bound is None or c["minutes"] is None:
        return "-" if bound is None else "missed"
    if c["case"] == "worse":
        ok = c["verdict"] == "worse"
    else:
        ok = (c["verdict"] == "same" and c["cmps"] and
              all(headline(x) and all(v == "same"
                                      for v in headline(x).values())
                  for x in c["cmps"]))
    return "met" if ok and c["minutes"] <= bound else "missed"


def print_cases(cases):
    print("| case | submission | patch | state | verdict | builds finished "
          "| verdict reached | minutes | bound | met | load before "
          "| load after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
          "| --- | --- |")
    for c in cases:
        bound = BOUND_MIN.get(c["case"])
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s%s "
              "| %s |" % (c["label"], c["id"], PATCH.get(c["case"], "?"),
                          c["state"], c["verdict"], hms(c["built"]),
                          hms(c["decided"]),
                          "%.1f" % c["minutes"] if c["minutes"] is not None
                          else "-",
                          "%s, %s" % (bound, "worse" if c["case"] == "worse"
                                      else "same") if bound else "-",
                          c["met"], c["load0"],
                          " (taken under load)" if under_load(c["load0"])
                          else "", c["load1"]))
    print()
    print("Builds (the base is cached after its first build; `built` is a "
          "build that ran, `hit` the artifact cache):")
    print()
    print("| case | build | state | cache | queued to finished s "
          "| build_seconds |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in cases:
        for which, state, t0, t1, cache, secs in c["builds"]:
            print("| %s | %s | %s | %s | %s | %s |"
                  % (c["label"], which, state, cache,
                     t1 - t0 if t0 and t1 else "-", secs))


def print_metrics(cases):
    cols = [(c, x) for c in cases for x in c["cmps"]]
    if not cols:
        print("No comparison ran.")
        return
    names = sorted({m for _, x in cols for m in headline(x)})
    head = ["%s (comparison %s, %s x %s)" % (c["label"], x.get("id", "?"),
                                             x.get("rig", "?"),
                                             x.get("suite", "?"))
            for c, x in cols]
    print("| headline metric | " + " | ".join(head) + " |")
    print("| --- |" + " --- |" * len(cols))
    for m in names:
        print("| %s | %s |" % (m, " | ".join(headline(x).get(m, "-")
                                             for _, x in cols)))
    print("| **cells base + candidate** | %s |"
          % " | ".join("%s + %s" % ((x.get("cells") or {}).get("base", "?"),
                                    (x.get("cells") or {}).get("candidate",
                                                               "?"))
                       for _, x in cols))
    print("| **verdict** | %s |" % " | ".join(x.get("summary") or
                                             x.get("verdict", "?")
                                             for _, x in cols))


def print_rigs(cases, rigs):
    print("| case | rig | base cells | candidate cells | mean cell s |")
    print("| --- | --- | --- | --- | --- |")
    for c in cases:
        for r in rigs:
            mine = [x for x in c["done"] if x["rig"] == r]
            secs = [x["finished"] - x["started"] for x in mine]
            print("| %s | %s | %d | %d | %s |"
                  % (c["label"], r, sum(1 for x in mine if x["side"] == 0),
                     sum(1 for x in mine if x["side"] == 1),
                     "%.0f" % statistics.mean(secs) if secs else "-"))
    print()
    for c in cases:
        order = ", ".join("%s %s%s" % (x["rig"], "B" if x["side"] == 0
                                       else "C", "" if x["state"] == "done"
                                       else " (%s)" % x["state"])
                          for x in c["cells"])
        print("- %s, cells in the order they started (B base, C "
              "candidate): %s" % (c["label"], order or "none"))


def print_rate(cases, rigs):
    print("| case | cells done | cell phase s | cells/hour |")
    print("| --- | --- | --- | --- |")
    n = wall = 0
    for c in cases:
        k = len(c["done"])
        n += k
        wall += c["wall"]
        print("| %s | %d | %d | %s |" % (c["label"], k, c["wall"],
                                         "%.1f" % (3600.0 * k / c["wall"])
                                         if c["wall"] else "-"))
    rate = 3600.0 * n / wall if wall else 0
    print("| **run** | %d | %d | %s |" % (n, wall, "%.1f" % rate
                                           if wall else "-"))
    print()
    ref = 3600.0 / REF_CELL_S
    secs = [x["finished"] - x["started"] for c in cases for x in c["done"]]
    if not wall or not secs:
        print("No cell was done: no cells per hour.")
        return
    mean = statistics.mean(secs)
    print("The lab's cells per hour: **%.1f**, **%.2fx** the issue's "
          "reference (one hdd rig at %.0f s a cell: %.1f an hour; done "
          "when at least %gx: %s)." % (rate, rate / ref, REF_CELL_S, ref,
                                       REF_TIMES, "met" if rate / ref
                                       >= REF_TIMES else "missed"))
    print()
    print("Against one rig of this run: the mean cell took %.0f s here "
          "(%d cells), so one rig running cells back to back does %.1f "
          "an hour; the lab did %.2fx that with %d rigs (the rest is "
          "rigs idle at looks and after a decision).  That rig shares "
          "the box with the others: its cell time carries their load, "
          "which bench/bench_rig_pool.sh measures against a rig alone."
          % (mean, len(secs), 3600.0 / mean, rate / (3600.0 / mean),
             len(rigs)))
    print()
    print("| rig | cells | mean cell s | cells/hour over the cell phases |")
    print("| --- | --- | --- | --- |")
    for r in rigs:
        s = [x["finished"] - x["started"] for c in cases for x in c["done"]
             if x["rig"] == r]
        print("| %s | %d | %s | %.1f |"
              % (r, len(s), "%.0f" % statistics.mean(s) if s else "-",
                 3600.0 * len(s) / wall))


def main():
    p = argparse.ArgumentParser()
    for k in ("db", "dir", "cases", "kernel", "suite", "scale", "max-cells",
              "rigs", "start", "commit", "load0", "load1"):
        p.add_argument("--" + k, required=True)
    a = p.parse_args()
    db = sqlite3.connect("file:%s?mode=ro" % a.db, uri=True)
    with open(a.cases) as f:
        cases = [one_case(db, a.dir, line) for line in f if line.strip()]
    for c in cases:
        twice = sum(1 for x in cases if x["case"] == c["case"]) > 1
        c["label"] = "%s %d" % (c["case"], c["id"]) if twice else c["case"]
    rigs = sorted({x["rig"] for c in cases for x in c["cells"]} |
                  {"hdd%d" % i for i in range(int(a.rigs))})
    print("## Verdict time on the default lab: %s hdd rigs (%s)"
          % (a.rigs, a.start))
    print()
    print("Commit %s.  A class `hdd` of %s identical scsi QEMU rigs (disk "
          "model hdd, 768 MiB, kernel %s), submissions `klab submit "
          "debian-6.1 PATCH --scale %s --max-cells %s` with `submit_suites "
          "= %s`, one after the other.  Load average before %s, after "
          "%s%s.  Submissions from %s to %s UTC (%.0f minutes); times "
          "below in UTC." % (a.commit, a.rigs, a.kernel, a.scale,
                             a.max_cells, a.suite, a.load0, a.load1,
                             " (taken under load)" if under_load(a.load0)
                             else "",
                             hms(min([c["s0"] for c in cases] or [0])),
                             hms(max([c["s1"] for c in cases] or [0])),
                             (max([c["s1"] for c in cases] or [0]) -
                              min([c["s0"] for c in cases] or [0])) / 60.0))
    print()
    print_cases(cases)
    print()
    print("### Headline metrics")
    print()
    print_metrics(cases)
    print()
    print("### Cells by rig (the rig is the comparison's blocking factor)")
    print()
    print_rigs(cases, rigs)
    print()
    print("### Cells per hour")
    print()
    print_rate(cases, rigs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
