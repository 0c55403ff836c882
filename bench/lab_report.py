#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab_report: the arithmetic of bench/bench_lab.sh.

Reads one bench_lab run: klabd's log with a host time stamp per line
("EPOCH.mmm klabd: ..."), the rig's console logs (the agent's lines carry
the guest's own UTC time stamps), the job list, and the stored results
through klabd's /api/runs.  Prints the markdown section for
docs/PERFORMANCE-LOG.md: kexec switch against cold boot, per-cell overhead
against klab-run's time (both from the cells of the first suite,
tiobench by default), the coefficient of variation of every metric over
the cells, per suite, headline metrics against the 3% goal
(bench/noise_table.py), and the load average.  Host and guest clocks are
never mixed: intervals inside the guest come from guest stamps, the
others from host stamps.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import noise_table  # noqa: E402  (bench/noise_table.py)

HOST = re.compile(r"^(\d+\.\d+) klabd: rig \S+: (.*)$")
GUEST = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z klab-agent: "
                   r"job (\d+): (.*)$")
GUEST_STEPS = {
    "kexec into": "g_start",
    "kernel and initramfs downloaded": "g_fetched",
    "kernel and initramfs ready": "g_fetched",
    "kexec -l": "g_load",
    "kexec -e": "g_exec",
    "running suite": "g_run",
    "klab-run ended": "g_ran",
    "uploading results": "g_up",
    "results stored": "g_stored",
}


def host_events(path):
    """Boots and cells from klabd's stamped log: (cold, kexec, cells,
    boots); kexec are (seconds, job), boots (kind, start, check-in, job)
    with kind cold or kexec (job 0 for a cold boot)."""
    cold, kexec, cells, cur, boots = [], [], {}, None, []
    cold_start = starting = None
    with open(path, errors="replace") as f:
        for line in f:
            m = HOST.match(line)
            if not m:
                continue
            t, msg = float(m.group(1)), m.group(2)
            if re.match(r"(cold|recovering) -> booting", msg):
                cold_start = (t, msg.startswith("cold"))
            elif re.match(r"(cold|recovering) -> starting", msg):
                # klabd builds the image, then starts QEMU: -> booting
                starting = msg.startswith("cold")
            elif msg.startswith("starting -> booting") and \
                    starting is not None:
                cold_start = (t, starting)
                starting = None
            elif " -> assigned" in msg:
                cur = {"assigned": t}
            elif msg.startswith("assigned -> booting") and cur:
                cur["kexec"] = t
            elif msg.startswith("check-in on"):
                job = int(re.search(r"\(job (\d+)\)", msg).group(1))
                if job == 0 and cold_start:
                    cold.append((t - cold_start[0], cold_start[1]))
                    if not cold_start[1]:
                        boots.append(("cold", cold_start[0], t, 0))
                    cold_start = None
                elif job and cur and "kexec" in cur:
                    cur["checkin"] = t
                    cur["job"] = job
                    kexec.append((t - cur["kexec"], job))
                    boots.append(("kexec", cur["kexec"], t, job))
            elif msg.startswith("running -> idle") and cur and "job" in cur:
                cur["done"] = t
                cells[cur["job"]] = cur
                cur = None
    return cold, kexec, cells, boots


CONSOLE_MARKS = (("kexec_core: Starting new kernel", "handover"),
                 ("Linux version ", "banner"),
                 ("Run /init as init process", "init"))


def console_marks(path):
    """(host time, mark) of the boot milestones in the stamped consoles."""
    marks = []
    if not os.path.exists(path):
        return marks
    with open(path, errors="replace") as f:
        for line in f:
            for text, mark in CONSOLE_MARKS:
                if text in line:
                    marks.append((float(line.split(" ", 1)[0]), mark))
    return marks


def phases_section(boots, marks):
    """Where a boot's time goes, on the host's clock, median per phase."""
    names = {"kexec": ("kexec: POST /kexec -> `Starting new kernel` "
                       "(`kexec -e`, device shutdown)",
                       "kexec: `Starting new kernel` -> banner "
                       "(purgatory's checks, decompression)"),
             "cold": ("", "cold: QEMU start -> `Linux version` banner "
                          "(QEMU, firmware, kernel load, decompression)")}
    rows = {}
    for kind, start, end in boots:
        first = {}
        for t, mark in marks:
            if start <= t <= end and mark not in first:
                first[mark] = t
        if "banner" not in first or "init" not in first:
            continue
        if kind == "kexec" and "handover" not in first:
            continue
        pre = first.get("handover", start)
        v = rows.setdefault(kind, {"pre": [], "load": [], "kern": [],
                                   "user": []})
        v["pre"].append(pre - start)
        v["load"].append(first["banner"] - pre)
        v["kern"].append(first["init"] - first["banner"])
        v["user"].append(end - first["init"])
    if not rows:
        return []
    out = ["Where a boot's time goes (host time stamps of the console lines, "
           "medians):", "",
           "| phase | cold boot s | kexec switch s |",
           "| --- | ---: | ---: |"]

    def cell(kind, key):
        v = rows.get(kind, {}).get(key)
        return "%.1f (n=%d)" % (med(v), len(v)) if v else ""
    out.append("| %s | | %s |" % (names["kexec"][0], cell("kexec", "pre")))
    out.append("| %s; %s | %s | %s |" %
               (names["cold"][1], names["kexec"][1], cell("cold", "load"),
                cell("kexec", "load")))
    out.append("| banner -> `Run /init` (kernel init, initramfs unpack) "
               "| %s | %s |" % (cell("cold", "kern"), cell("kexec", "kern")))
    out.append("| `/init` -> check-in (modules, network, agent register) "
               "| %s | %s |" % (cell("cold", "user"), cell("kexec", "user")))
    return out


DOWNLOADED = re.compile(r"downloaded (\d+) bytes")


def guest_events(rigdir):
    """Per job, the guest time of each agent step (first occurrence), and
    the bytes the agent downloaded for its boot ("bytes")."""
    steps = {}
    for path in sorted(glob.glob(os.path.join(rigdir, "console-*.log"))):
        with open(path, errors="replace") as f:
            for line in f:
                m = GUEST.search(line)
                if not m:
                    continue
                t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
                t = t.replace(tzinfo=timezone.utc).timestamp()
                job = steps.setdefault(int(m.group(2)), {})
                d = DOWNLOADED.search(m.group(3))
                if d and "bytes" not in job:
                    job["bytes"] = int(d.group(1))
                for prefix, key in GUEST_STEPS.items():
                    if m.group(3).startswith(prefix) and key not in job:
                        job[key] = t
    return steps


def med(v):
    return statistics.median(v) if v else float("nan")


def boots_section(cold, kexec):
    rec = [s for s, first in cold if not first]
    first = [s for s, f in cold if f]
    out = ["**Kernel switch** (same kernel, same rig): kexec = the agent's "
           "`POST /kexec` (sent right before `kexec -e`) to its check-in; "
           "cold boot = QEMU started to check-in, timed by klabd's log.", ""]
    out.append("| boot | n | median s | min s | max s |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for name, v in (("recovery cold boot (QEMU start)", rec),
                    ("kexec switch", kexec)):
        if v:
            out.append("| %s | %d | %.1f | %.1f | %.1f |" %
                       (name, len(v), med(v), min(v), max(v)))
    if first:
        out.append("| first cold boot (disk image written) | 1 | %.1f | | |"
                   % first[0])
    if rec and kexec:
        out += ["", "kexec / cold boot (medians): **%.2f**." %
                (med(kexec) / med(rec))]
    return out


def overhead_section(cells, steps, nbytes):
    keys = ("download", "kexec_load", "boot", "setup", "suite", "upload",
            "total")
    rows = {k: [] for k in keys}
    for job, c in sorted(cells.items()):
        g = steps.get(job, {})
        need = ("g_start", "g_fetched", "g_load", "g_exec", "g_run", "g_ran",
                "g_up", "g_stored")
        if any(k not in g for k in need):
            continue
        v = {"download": g["g_fetched"] - g["g_start"],
             "kexec_load": g["g_exec"] - g["g_load"],
             "boot": c["checkin"] - c["kexec"],
             "suite": g["g_ran"] - g["g_run"],
             "upload": g["g_stored"] - g["g_up"],
             "total": c["done"] - c["assigned"]}
        v["setup"] = v["total"] - sum(v[k] for k in keys
                                      if k not in ("setup", "total"))
        for k in keys:
            rows[k].append(v[k])
    n = len(rows["total"])
    if not n:
        return ["No complete cell in the logs."]
    m = {k: med(rows[k]) for k in keys}
    over = [t - s for t, s in zip(rows["total"], rows["suite"])]
    names = {"download": "download kernel + initramfs (sha256 checked)",
             "kexec_load": "`kexec -l` + `POST /kexec`",
             "boot": "kexec -e to check-in (boot)",
             "setup": "scheduler and setup (rest: job hand-out, register, "
                      "scheduler, suite file, klabd bookkeeping)",
             "upload": "upload of results + raw outputs",
             "suite": "**klab-run (benchmark, warm-up included)**",
             "total": "cell: assigned -> results stored"}
    out = ["**Per-cell overhead**, median of %d cells (guest intervals from "
           "the agent's stamps, boot and total from klabd's):" % n, "",
           "| part | median s | share of cell |", "| --- | ---: | ---: |"]
    for k in ("download", "kexec_load", "boot", "setup", "upload", "suite",
              "total"):
        out.append("| %s | %.1f | %.0f%% |" %
                   (names[k], m[k], m[k] / m["total"] * 100))
    out += ["", "Overhead (cell minus klab-run) median %.1f s against "
            "klab-run %.1f s: overhead / benchmark = **%.2f**." %
            (med(over), m["suite"], med(over) / m["suite"])]
    got = [steps[j]["bytes"] for j in sorted(cells) if "bytes" in
           steps.get(j, {})]
    if got:
        out += ["", "Bytes the agent downloaded per cell (its log line "
                "`downloaded N bytes`): first cell %d, the other %d cells "
                "%d in all (their kernel and rig image came from the "
                "rig's boot-file cache, sha256 checked)." %
                (got[0], len(got) - 1, sum(got[1:]))]
    if nbytes:
        out += ["", "The kernel is %.1f MB, the rig initramfs %.1f MB." %
                (nbytes[0] / 1e6, nbytes[1] / 1e6)]
    done = [c["done"] for c in cells.values()]
    start = [c["assigned"] for c in cells.values()]
    if len(done) > 1:
        span = max(done) - min(start)
        out += ["", "Throughput: %d cells in %.0f s (first assigned to "
                "last stored, panics and recoveries included): **%.1f "
                "cells per hour**; %.1f per hour from the median cell." %
                (len(done), span, len(done) / span * 3600,
                 3600 / m["total"])]
    return out


def load_section(path, load0, load1):
    v = []
    with open(path) as f:
        for line in f:
            try:
                v.append(float(line))
            except ValueError:
                pass
    if not v:
        return []
    # the run itself keeps about one CPU busy (QEMU's TCG thread)
    busy = med(v) > 1.5 or float(load0.split()[0]) > 1.0
    return ["Load average of the machine (1 min, sampled every 10 s over "
            "the run): median %.1f, min %.1f, max %.1f on %d CPUs; "
            "(1, 5, 15 min) %s at the start, %s at the end.  %s" %
            (med(v), min(v), max(v), os.cpu_count(), load0, load1,
             "**Taken under load**: other work shared the machine, so "
             "the times are longer and noisier than a lone run's."
             if busy else "The machine was otherwise idle.")]


def main():
    ap = argparse.ArgumentParser()
    for a in ("dir", "url", "kernel", "scale", "start", "load0", "load1"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--kernel-bytes", type=int, default=0)
    ap.add_argument("--initrd-bytes", type=int, default=0)
    ap.add_argument("--disk-mb", default="256")
    ap.add_argument("--suites", default="tiobench",
                    help="comma-separated; the first one's cells give the "
                    "boot and overhead figures")
    ap.add_argument("--disk-model", default="",
                    help="the rig's disk_model as configured (klabd's "
                    "default: hdd); the runs' recorded one wins")
    ap.add_argument("--pin", default="",
                    help="VCPUS/OTHERS as configured (empty: unpinned)")
    a = ap.parse_args()
    suites = [x for x in a.suites.split(",") if x]
    cold, kexec, cells, boots = host_events(os.path.join(a.dir,
                                                         "klabd.log"))
    # the boot and overhead figures from the first suite's cells only
    # (the job list bench_lab.sh saved; without it, every cell)
    try:
        with open(os.path.join(a.dir, "jobs.json")) as f:
            suite_of = {j["id"]: j["suite"] for j in json.load(f)["jobs"]}
    except (OSError, ValueError, KeyError):
        suite_of = {}
    if suite_of:
        first = {j for j, s in suite_of.items() if s == suites[0]}
        kexec = [(t, j) for t, j in kexec if j in first]
        boots = [b for b in boots if b[0] == "cold" or b[3] in first]
        base = {j: c for j, c in cells.items() if j in first}
    else:
        base = cells
    kexec = [t for t, _ in kexec]
    boots = [b[:3] for b in boots]
    marks = console_marks(os.path.join(a.dir, "consoles.log"))
    steps = guest_events(os.path.join(a.dir, "data", "rigs", "scsi0"))
    data = [noise_table.suite_results(a.url, s, set(cells)) for s in suites]
    models = noise_table.disk_models(data)
    # the runs' recorded rig configuration (disk_model=), else the option
    model = "disk model `%s`" % ("/".join(models) or a.disk_model or "?")
    if not models:
        model += " (as configured; not in the runs' rig configuration)"
    elif a.disk_model and models != [a.disk_model]:
        model += " (bench_lab.sh configured `%s`)" % a.disk_model
    pins = sorted({p for d in data for t in d["rigconfs"]
                   for p in [noise_table.rigconf_value(t, "pin")] if p})
    if pins:
        model += ", pinned: vCPU/other CPUs `%s`" % "` and `".join(pins)
    elif a.pin:
        model += ", pinned `%s` (not in the runs' rig configuration)" % a.pin
    else:
        model += ", not pinned"
    out = ["Run of %s: kernel %s on a `scsi` rig (1 vCPU, 768 MiB, one "
           "%s MiB virtio-scsi disk, %s, TCG), suite%s %s at "
           "scale %s (warm-up + 3 repetitions per cell)%s." %
           (a.start, a.kernel, a.disk_mb, model,
            "s" if len(suites) > 1 else "",
            ", ".join("`%s`" % x for x in suites), a.scale,
            ", one cell of each in turn; boots and overhead from the %s "
            "cells" % suites[0] if len(suites) > 1 else "")]
    out += load_section(os.path.join(a.dir, "load"), a.load0, a.load1)
    for part in (boots_section(cold, kexec), phases_section(boots, marks),
                 overhead_section(base, steps, [a.kernel_bytes, a.initrd_bytes]
                                  if a.kernel_bytes else None),
                 noise_table.noise_section(
                     data, "/".join(models) or a.disk_model or None)):
        out += [""] + part
    print("\n".join(out))


if __name__ == "__main__":
    main()
