#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/verdict_time_report.py, the summary of bench/bench_verdict_time.sh
# (issue 31's "Done when"), on a made-up run: a klabd database (its real
# schema) holding three submissions' builds and cells on rigs hdd0 and
# hdd1, with their API documents beside it.  The worse case decided 10.8
# minutes after its builds finished is met (bound 20); an A/A that ends
# same on every headline metric in 17 minutes is met (bound 30); an A/A
# with one metric still open is missed.  The cells per rig and side, the
# order they ran in and the lab's cells per hour against the issue's
# reference (364 s a cell) are checked as printed.  No klabd runs, no rig.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
"$KLAB_BIN/klabd" token add t --role operator --db "$TMP/klab.db" >/dev/null ||
	fail "cannot make the database"
cd "$TMP" || fail "no $TMP"
python3 - <<'EOF' || fail "cannot make the run"
import json, sqlite3
db = sqlite3.connect("klab.db")
T = 1796570000
db.execute("INSERT INTO rigs (id, name, class, created) VALUES"
           " (2, 'hdd0', 'hdd', ?), (3, 'hdd1', 'hdd', ?)", (T, T))
db.execute("INSERT INTO kernels (id, ident, created) VALUES"
           " (1, 'b', ?), (2, 'p', ?)", (T, T))
suite = db.execute("SELECT id FROM suites WHERE name ="
                   " 'tiobench-under-writes'").fetchone()[0]
M = ["tiobench.rand_read.rate", "tiobench.rand_read.lat_avg",
     "tiobench.seq_write.rate"]

def sub(n, case, t0, built, secs, cells, verdict, decided, open_):
    """Submission n: builds done at built, then cells (a list of
    (rig, side, state)) of secs each, two at a time."""
    db.execute("INSERT INTO builds (id, base, state, record, created,"
               " finished) VALUES (?, 'debian-6.1', 'done', ?, ?, ?),"
               " (?, 'debian-6.1', 'done', 'cache=built', ?, ?)",
               (2 * n, "cache=hit\n", t0, t0 + 2, 2 * n + 1, t0, built))
    db.execute("INSERT INTO comparisons (id, base, candidate, rig, suite,"
               " max_cells, max_seconds, state, planned, created)"
               " VALUES (?, 'b', 'p', 'hdd', 'x', 8, 14400, 'decided', 3,"
               " ?)", (n, built))
    at = {2: built + 5, 3: built + 5}
    for k, (rig, side, state) in enumerate(cells):
        done = state == "done"
        db.execute("INSERT INTO jobs (id, kernel_id, rig_id, suite_id,"
                   " state, created, started, finished) VALUES"
                   " (?, ?, ?, ?, ?, ?, ?, ?)",
                   (100 * n + k, 1 + side, rig, suite, state, built,
                    at[rig] if done else None,
                    at[rig] + secs if done else None))
        db.execute("INSERT INTO comparison_jobs VALUES (?, ?, ?)",
                   (n, 100 * n + k, side))
        if done:
            at[rig] += secs
    end = built + decided
    st = [{"stage": "build", "started": t0, "finished": built},
          {"stage": "cells", "started": built + 1, "finished": end},
          {"stage": "verdict", "started": end, "finished": end}]
    json.dump({"id": n, "state": "finished", "verdict": verdict,
               "builds": {"base": 2 * n, "patched": 2 * n + 1},
               "stages": st, "finished": end + 1,
               "cells": [{"comparison": n}]}, open("sub-%d.json" % n, "w"))
    dec = {m: ("worse" if case == "worse" and m.startswith("tiobench.rand")
               else "same") for m in M[open_:]}
    json.dump({"id": n, "rig": "hdd", "suite": "tiobench-under-writes",
               "cells": {"base": sum(1 for c in cells if c[1:] ==
                                     (0, "done")),
                         "candidate": sum(1 for c in cells if c[1:] ==
                                          (1, "done"))},
               "verdict": verdict, "summary": "%s after 3 cells" % verdict,
               "metrics_decided": dec, "metrics_open": M[:open_]},
              open("cmp-%d.json" % n, "w"))
    with open("cases", "a") as f:
        f.write("%s %d %d %d %s 0.40 0.50 1.80 1.60 1.10\n"
                % (case, n, t0, end + 60, "0.90" if n == 3 else "0.30"))

six = [(2, 0, "done"), (3, 1, "done"), (2, 1, "done"), (3, 0, "done"),
       (2, 0, "done"), (3, 1, "done")]
sub(1, "worse", T, T + 1200, 200, six, "worse", 648, 0)
sub(2, "aa", T + 3000, T + 3300, 200, six + [(2, 1, "cancelled")],
    "same", 1020, 0)
sub(3, "aa", T + 6000, T + 6300, 200, six, "undecided", 1020, 1)
db.commit()
EOF
python3 "$TOP/bench/verdict_time_report.py" --db klab.db --dir . \
	--cases cases --kernel 6.1.192 --suite tiobench-under-writes \
	--scale 0.05 --max-cells 8 --rigs 2 --start "2026-12-06 16:00 UTC" \
	--commit abc1234 --load0 "0.9 0.5 0.4" --load1 "1.0 0.9 0.8" \
	>report.md 2>report.err || fail "the report failed: $(cat report.err)"
cat report.md
expect_grep "Load average before 0.9 0.5 0.4, after 1.0 0.9 0.8 (taken under load)" report.md
expect_grep "| worse | 1 | elv-writes-first.patch | finished | worse | 15:33:20 | 15:44:08 | 10.8 | 20, worse | met | 0.30 0.40 0.50 | 1.80" report.md
expect_grep "| aa 2 | 2 | aa-comment.patch | finished | same | 16:08:20 | 16:25:20 | 17.0 | 30, same | met |" report.md
expect_grep "| aa 3 | 3 | aa-comment.patch | finished | undecided | .* | 17.0 | 30, same | missed | 0.90 0.40 0.50 (taken under load) |" report.md
ok "worse within 20 minutes and A/A same within 30 are met; an open metric is missed"
expect_grep "| worse | patched | done | built | 1200 |" report.md
expect_grep "| tiobench.rand_read.rate | worse | same | undecided |" report.md
expect_grep "| tiobench.seq_write.rate | same | same | same |" report.md
expect_grep "| \*\*cells base + candidate\*\* | 3 + 3 | 3 + 3 | 3 + 3 |" report.md
ok "the verdict of each headline metric and the cells per side"
expect_grep "| worse | hdd0 | 2 | 1 | 200 |" report.md
expect_grep "| aa 3 | hdd1 | 1 | 2 | 200 |" report.md
expect_grep "aa 2, cells in the order they started (B base, C candidate): hdd0 B, hdd1 C, hdd0 C, hdd1 B, hdd0 B, hdd1 C, hdd0 C (cancelled)" report.md
ok "the cells by rig and side, and the order they ran in"
# 6 cells in 604 s a submission (its cells stage's start to its last
# cell's end): 18 in 1812 s, 35.8 an hour, 3.62 x 3600 / 364
expect_grep "| \*\*run\*\* | 18 | 1812 | 35.8 |" report.md
expect_grep "The lab's cells per hour: \*\*35.8\*\*, \*\*3.62x\*\* the issue's reference" report.md
expect_grep "done when at least 4x: missed" report.md
expect_grep "the mean cell took 200 s here (18 cells), so one rig running cells back to back does 18.0 an hour; the lab did 1.99x that with 2 rigs" report.md
ok "cells per hour against 364 s a cell and against one rig of the run"
