#!/bin/sh
# SPDX-License-Identifier: MIT
# Comparison runs with adaptive repetition (docs/VERDICTS.md, "Adaptive
# repetition"), no QEMU: a remote rig whose agent is this script, driven
# by curl, uploading synthetic klab results for the jobs klabd queues.
#  (a) A/A, two catalog entries with the same numbers: decided "same",
#      exit 0 from klab compare-run --wait;
#  (b) a 25% drop of a headline metric: decided "worse" at the first look,
#      well before the cap, exit 4;
#  (c) noise as large as the sides are alike: "undecided after 5 cells"
#      at --max-cells 5, exit 5;
#  (d) klabd restarted between the looks of (c): the comparison resumes;
#  (e) no token: 401; bad requests: 400/404.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"

cat >"$TMP/klabd.conf" <<CONF
[rig r1]
kind = remote
token = tok-r1-secret
autostart = no
boot_timeout = 600
job_timeout = 600
CONF
RT='Authorization: Bearer tok-r1-secret'
start_klabd --config "$TMP/klabd.conf"

# --- kernels with boot files (the agent never boots them) ---
head -c 4096 /dev/urandom >"$TMP/img"
for k in kA kA2 kB kNa kNb; do
	http POST /api/kernels -H 'Content-Type: application/json' \
		-d "{\"ident\":\"$k\"}" >/dev/null
	expect_status 201
done
sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-t5001', image = '$TMP/img'"

# --- (e) auth and refusals ---
HTTP_NOAUTH=1 http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"kB","rig":"r1","suite":"tiobench"}' >/dev/null
expect_status 401
HTTP_NOAUTH=1 http GET /api/comparisons >/dev/null
[ "$STATUS" = 200 ] || [ "$STATUS" = 401 ] || fail "GET /api/comparisons: $STATUS"
http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"kA","rig":"r1","suite":"tiobench"}' >/dev/null
expect_status 400
expect_grep "an A/A comparison needs two entries"
http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"kB","rig":"nope","suite":"tiobench"}' >/dev/null
expect_status 404
http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"kB","rig":"r1","suite":"tiobench","max_cells":2}' >/dev/null
expect_status 400
expect_grep "max_cells"
http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"nosuch","rig":"r1","suite":"tiobench"}' >/dev/null
expect_status 404
expect_grep "unknown kernel 'nosuch'"
http GET /api/comparisons >/dev/null
expect_status 200
[ "$(jq '.comparisons | length' "$TMP/body")" = 0 ] || fail "a refused comparison was stored: $(cat "$TMP/body")"
ok "401 without a token; same entry, unknown rig or kernel, a cap below the first look refused"

# results KERNEL: a klab-results/1 document for the kernel's next cell
results() {
	k=$1
	c=$(cat "$TMP/count.$k" 2>/dev/null || echo 0)
	echo $((c + 1)) >"$TMP/count.$k"
	case $k in
	kNa|kNb)	# the same wide sequence on both sides
		set -- 100 200 60 150 80
		eval r=\${$((c % 5 + 1))}
		w=$r ;;
	kB)	r=$(awk "BEGIN { print 75 + ($c % 3) * 0.2 }")
		w=$(awk "BEGIN { print 50 + ($c % 3) * 0.1 }") ;;
	*)	r=$(awk "BEGIN { print 100 + ($c % 3) * 0.2 }")
		w=$(awk "BEGIN { print 50 + ($c % 3) * 0.1 }") ;;
	esac
	printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"},{"metric":"tiobench.seq_write.rate","unit":"MB/s","value":%s,"direction":"higher"}]}\n' "$r" "$w"
}

# serve N: the agent takes N jobs and uploads results for each
# (a 500 is klabd failing to make the boot files, say under load: the
# job goes back to the queue as an infra failure, so the agent polls again)
serve() {
	n=0
	e=0
	while [ $n -lt "$1" ]; do
		http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
		if [ "$STATUS" = 500 ] && [ $e -lt 2 ]; then
			e=$((e + 1))
			echo "note: agent next: HTTP 500: $(cat "$TMP/next")"
			continue
		fi
		[ "$STATUS" = 200 ] || { cat "$TMP/klabd.log"; fail "no job for the agent (HTTP $STATUS: $(cat "$TMP/next")) after $n of $1"; }
		id=$(jq -r .job.id "$TMP/next")
		results "$(jq -r .job.kernel "$TMP/next")" >"$TMP/res.json"
		http POST "/api/agent/jobs/$id/results" -H "$RT" \
			-H 'Content-Type: application/json' --data-binary @"$TMP/res.json" >/dev/null
		[ "$STATUS" = 201 ] || fail "results of job $id: HTTP $STATUS: $(cat "$TMP/body")"
		n=$((n + 1))
	done
}

# queued_jobs: jobs waiting for the rig
queued_jobs() {
	http GET "/api/jobs?state=queued" >/dev/null
	jq '.jobs | length' "$TMP/body"
}

# the rig comes up when its agent checks in (autostart = no)
http POST /api/agent/register -H "$RT" -H 'Content-Type: application/json' \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200

# --- (a) A/A: two catalog entries, the same numbers ---
klab compare-run kA kA2 --rig r1 --suite tiobench --wait >"$TMP/aa.out" 2>"$TMP/aa.err" &
P=$!
serve 6
wait $P
rc=$?
cat "$TMP/aa.err"
[ $rc -eq 0 ] || { cat "$TMP/aa.out" "$TMP/klabd.log"; fail "A/A: compare-run --wait exited $rc, expected 0"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/aa.out")
[ -n "$ID" ] || fail "compare-run printed no id: $(cat "$TMP/aa.out")"
expect_grep "outcome: same after 3 cells" "$TMP/aa.out"
expect_grep "tiobench.seq_read.rate\|Sequential Reads" "$TMP/aa.out"
http GET "/api/comparisons/$ID" >/dev/null
expect_status 200
[ "$(jq -r .state "$TMP/body")" = decided ] || fail "A/A state: $(cat "$TMP/body")"
[ "$(jq -r .verdict "$TMP/body")" = same ] || fail "A/A verdict: $(jq .verdict "$TMP/body")"
[ "$(jq -r .cells.base "$TMP/body")" = 3 ] && [ "$(jq -r .cells.candidate "$TMP/body")" = 3 ] ||
	fail "A/A cells: $(jq -c .cells "$TMP/body")"
[ "$(jq -r '.metrics_decided["tiobench.seq_read.rate"]' "$TMP/body")" = same ] ||
	fail "A/A decided: $(jq -c .metrics_decided "$TMP/body")"
[ "$(jq -r '.comparison.kernels | join(",")' "$TMP/body")" = "kA,kA2" ] ||
	fail "the verdict table is not the comparison's: $(jq -c .comparison.kernels "$TMP/body")"
[ "$(queued_jobs)" = 0 ] || fail "jobs left queued after a decided comparison"
ok "A/A of two catalog entries: decided same after 3 cells a side, exit 0"

# the jobs interleave A and B
http GET "/api/jobs" >/dev/null
order=$(jq -r '[.jobs | sort_by(.id)[] | .kernel] | join(" ")' "$TMP/body")
[ "$order" = "kA kA2 kA2 kA kA kA2" ] || fail "cells not interleaved: $order"
ok "cells queued as interleaved pairs, A B B A A B"

# --- (b) a 25% drop on a headline metric ---
klab compare-run kA kB --rig r1 --suite tiobench --stop-on-worse --wait >"$TMP/ab.out" 2>"$TMP/ab.err" &
P=$!
serve 6
wait $P
rc=$?
[ $rc -eq 4 ] || { cat "$TMP/ab.out" "$TMP/ab.err" "$TMP/klabd.log"; fail "A/B: compare-run --wait exited $rc, expected 4"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/ab.out")
http GET "/api/comparisons/$ID" >/dev/null
[ "$(jq -r .stop_on_worse "$TMP/body")" = true ] || fail "stop_on_worse not kept"
[ "$(jq -r .verdict "$TMP/body")" = worse ] || fail "A/B verdict: $(jq -c '{state,verdict,summary}' "$TMP/body")"
[ "$(jq -r '.metrics_decided["tiobench.seq_read.rate"]' "$TMP/body")" = worse ] ||
	fail "A/B decided: $(jq -c .metrics_decided "$TMP/body")"
[ "$(jq -r .planned "$TMP/body")" -lt 20 ] || fail "A/B reached the cap"
expect_grep "worse after 3 cells" "$TMP/ab.out"
http GET "/comparisons/$ID" >/dev/null
expect_status 200
expect_grep "Comparison $ID"
expect_grep 'class="worse"'
expect_nogrep 'http-equiv="refresh"'
ok "a 25% drop is decided worse after 3 cells a side (cap 20), exit 4; the page shows it"

# --- (c) noise, and (d) a restart between the looks ---
klab compare-run kNa kNb --rig r1 --suite tiobench --max-cells 5 >"$TMP/n.out" ||
	fail "compare-run without --wait: $?"
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/n.out")
http GET "/comparisons/$ID" >/dev/null
expect_grep 'http-equiv="refresh"'
serve 6
i=0
until http GET "/api/comparisons/$ID" >/dev/null && [ "$(jq -r .planned "$TMP/body")" = 5 ] &&
	[ "$(queued_jobs)" = 4 ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { cat "$TMP/klabd.log"; fail "no second look queued: $(cat "$TMP/body")"; }
	sleep 0.1
done
http GET "/api/comparisons/$ID" >/dev/null
[ "$(jq -r .state "$TMP/body")" = running ] || fail "state after the first look: $(jq -r .state "$TMP/body")"
ok "noisy cells: undecided at 3, 2 more pairs queued up to 5"
stop_klabd
start_klabd --listen "127.0.0.1:$PORT" --config "$TMP/klabd.conf"
http POST /api/agent/register -H "$RT" -H 'Content-Type: application/json' \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200
# a second, identical run queued behind the first
klab compare-run kNa kNb --rig r1 --suite tiobench --max-cells 5 >"$TMP/n2.out" ||
	fail "second compare-run: $?"
N2=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/n2.out")
serve 4
i=0
until http GET "/api/comparisons/$ID" >/dev/null && [ "$(jq -r .state "$TMP/body")" != running ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { cat "$TMP/klabd.log"; fail "the comparison did not end after the restart"; }
	sleep 0.1
done
[ "$(jq -r .state "$TMP/body")" = undecided ] || fail "noisy: $(jq -c '{state,verdict,summary}' "$TMP/body")"
jq -r .summary "$TMP/body" | grep -q "^undecided after 5 cells: 2 of 2 headline metrics open" ||
	fail "noisy summary: $(jq -r .summary "$TMP/body")"
[ "$(jq -r '.metrics_open | length' "$TMP/body")" = 2 ] || fail "open: $(jq -c .metrics_open "$TMP/body")"
expect_grep "comparison $ID: look at 5 cells a side" "$TMP/klabd.log"
ok "klabd restarted between looks: the comparison resumed and ended undecided after 5 cells"

# --- compare-run --wait on the second noisy run: exit 5 ---
klab_wait_rc() {
	"$KLAB_BIN/klab" compare-run kNa kNb --rig r1 --suite tiobench --max-cells 3 --wait \
		>"$TMP/w.out" 2>"$TMP/w.err"
}
klab_wait_rc &
P=$!
# the queued second run (N2) takes the rig first: serve both
serve 16
wait $P
rc=$?
[ $rc -eq 5 ] || { cat "$TMP/w.out" "$TMP/w.err"; fail "undecided: compare-run --wait exited $rc, expected 5"; }
expect_grep "undecided after 3 cells" "$TMP/w.out"
i=0
until http GET "/api/comparisons/$N2" >/dev/null && [ "$(jq -r .state "$TMP/body")" != running ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "the second noisy run did not end"
	sleep 0.1
done
[ "$(jq -r .state "$TMP/body")" = undecided ] || fail "second noisy run: $(jq -c '{state,summary}' "$TMP/body")"
http GET /api/comparisons >/dev/null
expect_status 200
[ "$(jq '.comparisons | length' "$TMP/body")" = 5 ] || fail "list: $(cat "$TMP/body")"
http GET /api/audit >/dev/null
expect_grep '"action": *"comparison add"'
ok "compare-run --wait exits 5 when undecided; every start is audited"

# --- failed cells: replaced once, the second fails the comparison ---
klab compare-run kA kB --rig r1 --suite tiobench --wait >"$TMP/f.out" 2>"$TMP/f.err" &
P=$!
for n in 1 2; do
	http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
	expect_status 200
	id=$(jq -r .job.id "$TMP/next")
	http POST "/api/agent/jobs/$id/fail" -H "$RT" -H 'Content-Type: application/json' \
		-d '{"class":"benchmark","error":"tiotest exited 1","output":"x"}' >/dev/null
	expect_status 200
done
wait $P
rc=$?
[ $rc -eq 1 ] || { cat "$TMP/f.out" "$TMP/f.err"; fail "failed comparison: compare-run --wait exited $rc, expected 1"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/f.out")
http GET "/api/comparisons/$ID" >/dev/null
[ "$(jq -r .state "$TMP/body")" = failed ] || fail "state: $(jq -c '{state,summary}' "$TMP/body")"
jq -r .error "$TMP/body" | grep -q "^2 cells failed, the last: benchmark: tiotest exited 1" ||
	fail "error: $(jq -r .error "$TMP/body")"
[ "$(queued_jobs)" = 0 ] || fail "the failed comparison's cells are still queued"
ok "two failed cells fail the comparison (exit 1); its queued cells are cancelled"
