#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_verdicts.sh: the verdict rule proved by simulation, for
# docs/VERDICTS.md.
#   1. the table: bench_verdicts judges PAGES simulated pages per setting
#      in process, through compare_judge(), the code klabd runs (CV 3, 5
#      and 17%, 3, 5 and 10 cells a side, A/A and 5, 10, 25% drops), with
#      the default error budget (1% a page) and with the 5% one of before
#      (--alpha-scale 5); then interleaved pairs with and without a drift
#      of DRIFT% (default 20), tested unpaired and paired;
#   2. adaptive repetition (judge/adaptive.h): ADAPT_PAGES pages per
#      setting, cells interleaved A B B A as the engine queues them,
#      judged at the plan's looks, against the fixed n of the same
#      power, for the default plan and the stop-at-first-worse variant;
#   3. the real path: for a few settings HTTP_PAGES pages are written as
#      klab-results/1 documents, POSTed to a real klabd's /api/import (one
#      run, a cell, per document), judged by GET /api/compare?format=json,
#      and every verdict is checked against the in-process one; the A/A
#      alarm and power figures of those pages are printed too.
# Timings are reported, never asserted.  Output: stdout and
# build/bench/verdicts.md.
#   bench/bench_verdicts.sh
#   KLAB_BENCH_VERDICT_PAGES=10000 KLAB_BENCH_VERDICT_HTTP_PAGES=100 \
#       bench/bench_verdicts.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
PAGES=${KLAB_BENCH_VERDICT_PAGES:-10000}
HTTP_PAGES=${KLAB_BENCH_VERDICT_HTTP_PAGES:-100}
ADAPT_PAGES=${KLAB_BENCH_VERDICT_ADAPT_PAGES:-2000}
DRIFT=${KLAB_BENCH_VERDICT_DRIFT:-20}
cd "$TOP"
OBJ=build/bench/vobj
bench_build $OBJ
# shellcheck disable=SC2046
bench_cc $OBJ bench_verdicts $(pkg-config --cflags --libs jansson sqlite3 libcrypto) -lm
# shellcheck disable=SC2046
bench_cc $OBJ bench_http $(pkg-config --cflags --libs libcurl libcrypto)

bench_tmp klab-bench-verdicts
OUT=$B/verdicts.md
LOAD0=$(loadavg)
{
	echo "## In process: $PAGES pages per setting"
	echo
	echo "machine load before: $LOAD0; $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)"
	echo
	t0=$(date +%s)
	nice -n 10 "$B/bench_verdicts" --pages "$PAGES"
	echo
	echo "With the 5% page budget of before (--alpha-scale 5, not the default):"
	echo
	nice -n 10 "$B/bench_verdicts" --pages "$PAGES" --alpha-scale 5
	echo
	echo "in-process time: $(( $(date +%s) - t0 )) s"
	echo
	echo "## Drift: interleaved pairs, unpaired and paired: $PAGES pages per setting"
	echo
	nice -n 10 "$B/bench_verdicts" --drift "$DRIFT" --pages "$PAGES"
	echo
	echo "## Adaptive repetition: $ADAPT_PAGES pages per setting"
	echo
	t0=$(date +%s)
	nice -n 10 "$B/bench_verdicts" --adaptive --pairing auto --pages "$ADAPT_PAGES"
	echo
	nice -n 10 "$B/bench_verdicts" --adaptive-worse --pairing auto --pages "$ADAPT_PAGES"
	echo
	echo "adaptive time: $(( $(date +%s) - t0 )) s"
} | tee "$OUT"

bench_klabd $OBJ

# one setting through the real path: CV CELLS SHIFT PREFIX SEED [FLAGS]
# (FLAGS: --pairing auto --drift PCT: cells imported as interleaved pairs
# on a drifting level)
through_http() {
	d=$TMP/$4
	# shellcheck disable=SC2086
	"$B/bench_verdicts" --emit "$d" --cv "$1" --cells "$2" --shift "$3" \
		--pages "$HTTP_PAGES" --prefix "$4" --seed "$5" ${6:-} || die "emit $4"
	"$B/bench_http" post "$U/api/import?suite=manual" "$d"/*.json >/dev/null ||
		die "import $4"
	mkdir "$d/got"
	p=0
	while [ $p -lt "$HTTP_PAGES" ]; do
		curl -sf --noproxy '*' -o "$d/got/$4$p.json" \
			"$U/api/compare?k=$4$p-base&k=$4$p-cand&suite=manual&format=json" ||
			die "compare $4$p"
		p=$((p + 1))
	done
	python3 - "$d" "$1" "$2" "$3" <<'PY'
import json, os, sys
d, cv, n, shift = sys.argv[1:5]
exp = {}
for line in open(os.path.join(d, "expected.txt")):
    k, m, v = line.split()
    exp[(k, m)] = v
agree = total = alarm = worse0 = paired = 0
for f in sorted(os.listdir(os.path.join(d, "got"))):
    doc = json.load(open(os.path.join(d, "got", f)))
    k = doc["kernels"][0][:-5]
    any_alarm = False
    for m in doc["metrics"]:
        v = m["cells"][1]["verdict"]
        total += 1
        agree += exp[(k, m["name"])] == v
        paired += m["cells"][1].get("analysis") == "paired"
        any_alarm |= v in ("worse", "better")
        if m["name"] == "tiobench.seq_read.rate" and v == "worse":
            worse0 += 1
    alarm += any_alarm
pages = len(os.listdir(os.path.join(d, "got")))
print("| %s%% | %s | %s%% | %d | %.1f%% | %.1f%% | %d/%d | %d |" % (
    cv, n, shift, pages, 100.0 * alarm / pages, 100.0 * worse0 / pages,
    agree, total, paired))
PY
}
{
	echo
	echo "## Through POST /api/import and GET /api/compare: $HTTP_PAGES pages per setting"
	echo
	echo "| CV | cells a side | rate drop | pages | pages with any worse/better | rate decided worse | verdicts equal to in-process | tested as pairs |"
	echo "|---|---|---|---|---|---|---|---|"
	t0=$(date +%s)
	through_http 5 5 0 aa5x 11
	through_http 5 10 0 aa10x 12
	through_http 5 10 10 d10x 13
	through_http 17 3 25 d25x 14
	through_http 3 5 5 d5x 15
	through_http 3 10 10 p10x 16 "--pairing auto --drift 20"
	through_http 3 10 0 paax 17 "--pairing auto --drift 20"
	echo
	echo "real-path time: $(( $(date +%s) - t0 )) s; machine load after: $(loadavg)"
} | tee -a "$OUT"
