#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_submissions.sh: the overhead of a submission beyond its
# build and its cells (issue 11), on klabd's plain build with the fake
# kernel tree as the base (builds answered from the artifact cache) and a
# remote rig whose agent is this script:
#   1. from POST /api/submissions to its reply (the apply check, which
#      runs build-kernel.sh --check) and to its first cell queued;
#   2. from the last cell's results to the submission finished (verdict,
#      report and alerts emitted).
# KLAB_BENCH_N runs each (default 8); median and max are reported, never
# asserted.  Run it on an idle machine: bench/bench_submissions.sh
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KLAB_BIN=${KLAB_BIN:-$TOP/build/bin}
. "$TOP/tests/lib.sh"
N=${KLAB_BENCH_N:-8}
D=$TOP/tests/data
for t in jq sqlite3; do
	command -v $t >/dev/null || fail "needs $t"
done
chmod 755 "$TMP"
submit_conf "$TMP/klabd.conf" "submit_max_cells = 3"
start_klabd --config "$TMP/klabd.conf"
RT='Authorization: Bearer tok-r1-secret'
JSON='Content-Type: application/json'
ms() { echo $(( ($2 - $1) / 1000000 )); }
now() { date +%s%N; }
jobs_n() { sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM jobs"; }
# stats FILE: "median M ms, max X ms" of one number a line
stats() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "median %d ms, max %d ms (n=%d)\n", v[int((NR + 1) / 2)], v[NR], NR }'; }

http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
good=$(jq -Rs '{base: "fake", patches: [{name: "good-elv.patch", text: .}]}' \
	"$D/patches/good-elv.patch")
: >"$TMP/reply"; : >"$TMP/first"; : >"$TMP/end"
i=0
while [ $i -le "$N" ]; do	# run 0 warms the build cache
	before=$(jobs_n)
	t0=$(now)
	http POST /api/submissions -H "$JSON" --data-binary "$good" >/dev/null
	t1=$(now)
	[ "$STATUS" = 201 ] || fail "submission: HTTP $STATUS $(cat "$TMP/body")"
	id=$(jq -r .id "$TMP/body")
	while [ "$(jobs_n)" = "$before" ]; do sleep 0.01; done
	t2=$(now)
	[ $i -gt 0 ] && { ms "$t0" "$t1" >>"$TMP/reply"; ms "$t0" "$t2" >>"$TMP/first"; }
	n=0
	while [ $n -lt 6 ]; do
		http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
		[ "$STATUS" = 200 ] || fail "no job: HTTP $STATUS $(cat "$TMP/next")"
		case $(jq -r .job.kernel "$TMP/next") in *-patched) r=80 ;; *) r=100 ;; esac
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
			"$r" "$n" >"$TMP/res.json"
		[ $n = 5 ] && t3=$(now)
		http POST "/api/agent/jobs/$(jq -r .job.id "$TMP/next")/results" \
			-H "$RT" -H "$JSON" --data-binary @"$TMP/res.json" >/dev/null
		n=$((n + 1))
	done
	while [ "$(sqlite3 "$TMP/klab.db" "SELECT state FROM submissions WHERE id = $id")" = running ]; do
		sleep 0.01
	done
	t4=$(now)
	[ $i -gt 0 ] && ms "$t3" "$t4" >>"$TMP/end"
	i=$((i + 1))
done
stop_klabd
echo "submission overhead, cached builds, $N runs (load $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "  request -> reply (apply check):        $(stats "$TMP/reply")"
echo "  request -> first cell queued:          $(stats "$TMP/first")"
echo "  last cell's results -> finished+alert: $(stats "$TMP/end")"
