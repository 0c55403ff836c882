#!/bin/sh
# SPDX-License-Identifier: MIT
# t2025: the home page is the lab at a glance (issue 32, part 4).  A real
# klabd; its state made through the API and the CLI as a lab makes it:
#  - an empty lab: "Nothing needs you", each section says it is empty;
#  - a line of imported kernels (6.1.100-6.1.140) where two metrics step
#    at 6.1.120: two change-point alerts of one change (one row on /, as
#    on /alerts) and two change points of the last 7 days;
#  - a worse_found alert by hand about 6.1.170..6.1.177 on rig r3, newer:
#    the first row; a Debian bisection of that range (a local archive of
#    fake packages, as t2060) runs on r3, whose agent is this script:
#    while it runs the row says "bisecting", while a job is in r3's hands
#    r3's row says which, once it ends the row names the first bad kernel
#    (6.1.174: the agent slows 6.1.174 and later), and so does the
#    bisection_done alert's own row;
#  - the status line counts the open changes nobody has triaged, says
#    how many are acknowledged, and "Nothing needs you" once they are
#    triaged; an invalid alert leaves the list;
#  - a tracked Debian line with its last tested head; two submissions, one
#    cancelled (ended today), one running; the queue length as /api/queue
#    counts it; a hostile title and metric are escaped; the runs list is
#    still there.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
D=$TOP/tests/data
chmod 755 "$TMP"

fake_archive 170 177

submit_conf "$TMP/klabd.conf"
printf '[rig r3]\nkind = remote\ntoken = tok-r3-secret\nautostart = no\n' >>"$TMP/klabd.conf"
make_token alice submitter >"$TMP/alice" || fail "token alice"
start_klabd --config "$TMP/klabd.conf"
ALICE="Authorization: Bearer $(cat "$TMP/alice")"
RT='Authorization: Bearer tok-r3-secret'
JSON='Content-Type: application/json'

home() { http GET / >/dev/null; expect_status 200; cp "$TMP/body" "$TMP/home"; }
# section ID: the home page's <section id=ID> into $TMP/sec
section() {
	awk -v id="<section id=\"$1\">" 'index($0, id) { on = 1 } on { print }
		on && /<\/section>/ { exit }' "$TMP/home" >"$TMP/sec"
	[ -s "$TMP/sec" ] || fail "no section $1 on /: $(head -c 600 "$TMP/home")"
}
status() { sed -n 's/.*<p id="status"[^>]*>\(.*\)<\/p>.*/\1/p' "$TMP/home" | sed 's/<[^>]*>//g'; }
# rows: the ids of the regression rows, in order
rows() { grep -o '<tr class="regression" id="regression-[0-9]*"' "$TMP/home" | grep -o '[0-9]*' | tr '\n' ' '; }
row() { grep "<tr class=\"regression\" id=\"regression-$1\"" "$TMP/home"; }
# order A B...: the rows of alerts A B... are in that order (others may
# come between: the bisection's own results may raise a change point)
order() {
	want="$*"
	got=$(for r in $(rows); do
		for a in "$@"; do [ "$r" = "$a" ] && printf '%s ' "$r"; done
	done)
	[ "$got" = "$want " ] || fail "rows '$(rows)': not in the order '$want'"
}
# groups STATE: the open changes with an alert in STATE, as the API has them
groups() { http GET "/api/alerts?alerts=1&limit=1000&state=$1" | jq '[.events[].group] | unique | length'; }
# expect_status_line: the status line says what the API says
expect_status_line() {
	need=$(groups new)
	acked=$(($(groups open) - need))
	if [ "$need" = 1 ]; then want="1 open regression needs triage"
	elif [ "$need" != 0 ]; then want="$need open regressions need triage"
	else want="Nothing needs you"; fi
	[ "$acked" = 0 ] || want="$want &middot; $acked acknowledged"
	[ "$(status)" = "$want" ] || fail "status line '$(status)', expected '$want'"
}

# 1. an empty lab
home
[ "$(status)" = "Nothing needs you" ] || fail "status of an empty lab: '$(status)'"
expect_grep 'class="status calm"' "$TMP/home"
section regressions; expect_grep 'No open alert' "$TMP/sec"
section tracks; expect_grep 'No line is tracked' "$TMP/sec"
section changepoints; expect_grep 'No change point in the last 7 days' "$TMP/sec"
section submissions; expect_grep '0 running, 0 ended today' "$TMP/sec"
section rigs; expect_grep '0 jobs wait in the queue' "$TMP/sec"
expect_grep '<a href="/runs?rig=r3">r3</a></td><td class="state">' "$TMP/sec"
ok "an empty lab: nothing needs you, each section says it is empty"

# 2. a line with a step at 6.1.120: two change-point alerts, one change
awk 'BEGIN {
	printf "{\"schema\":\"klab-results/1\",\"results\":["
	n = 0
	for (k = 100; k <= 140; k++) {
		w = (k * 37) % 10
		row("6.1." k, "t2025.lat", "ms", (k >= 120 ? 13 : 10) + w / 100, "lower")
		row("6.1." k, "t2025.rate", "MB/s", (k >= 120 ? 75 : 100) + w / 10, "higher")
	}
	printf "]}\n"
}
function row(kern, m, unit, v, dir) {
	printf "%s{\"kernel\":\"%s\",\"metric\":\"%s\",\"unit\":\"%s\",\"value\":%s,\"direction\":\"%s\"}", \
		(n++ ? "," : ""), kern, m, unit, v, dir
}' >"$TMP/h.json"
klab import "$TMP/h.json" --rig default --suite manual >/dev/null || fail "klab import"
two() { [ "$(http GET '/api/alerts?alerts=1&kind=change_point' | jq '.events | length')" = 2 ]; }
wait_for "two change-point alerts" 300 two
http GET '/api/alerts?alerts=1&kind=change_point' >"$TMP/cp.json"
G=$(jq '.events[0].group' "$TMP/cp.json")
home
[ "$(rows)" = "$G " ] || fail "one row for the change's two alerts: '$(rows)'"
row "$G" >"$TMP/row"
for a in $(jq '.events[].id' "$TMP/cp.json"); do
	expect_grep "href=\"/alerts/$a\"" "$TMP/row"
done
expect_grep '>t2025.lat</a>' "$TMP/row"
expect_grep '>t2025.rate</a>' "$TMP/row"
expect_grep '<td class="culprit">-</td>' "$TMP/row"
[ "$(status)" = "1 open regression needs triage" ] || fail "status: '$(status)'"
expect_grep 'class="status need"' "$TMP/home"
section changepoints
expect_grep '2 change points, newest first' "$TMP/sec"
expect_grep 'href="/history?metric=t2025.lat&amp;rig=default&amp;suite=manual">t2025.lat</a>' "$TMP/sec"
expect_grep '6.1.119 &rarr; 6.1.120' "$TMP/sec"
expect_grep '<td class="num">+[0-9.]*%</td>' "$TMP/sec"
expect_grep '<td class="num">-[0-9.]*%</td>' "$TMP/sec"
section runs
expect_grep 'href="/runs/[0-9]*"' "$TMP/sec"
ok "a change of two metrics: one row with both, the status says it needs triage, its change points listed"

# 3. a worse alert on 6.1.170..6.1.177, newer: first; its bisection
http POST /api/alerts -H "$JSON" --data-binary '{"kind":"worse_found","rig":"r3","suite":"tiobench","metric":"tiobench.seq_read.rate","title":"6.1.177 worse than 6.1.170 on r3","line":"debian/newest-6.1","kernel_before":"6.1.170","kernel_after":"6.1.177","dedup":"t2025-worse"}' >/dev/null
expect_status 201
W=$(jq .event "$TMP/body")
home
[ "$(rows)" = "$W $G " ] || fail "newest first: '$(rows)', expected '$W $G '"
[ "$(status)" = "2 open regressions need triage" ] || fail "status: '$(status)'"
expect_status_line
http POST /api/agent/register -H "$RT" -H "$JSON" -d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200
http POST /api/bisections -H "$ALICE" -H "$JSON" --data-binary '{"kind":"debian","good":"6.1.170","bad":"6.1.177","rig":"r3","suite":"tiobench","metrics":"tiobench.seq_read.rate","max_cells":3}' >/dev/null
expect_status 201
B=$(jq .id "$TMP/body")
home
row "$W" >"$TMP/row"
expect_grep "<td class=\"culprit\"><a href=\"/bisections/$B\">bisecting (bisection $B)</a></td>" "$TMP/row"
ok "a newer alert is the first row; while its range is bisected the row says so"

# the agent of r3: 6.1.174 and later are slow; r3's row names the job it holds
bis_state() { http GET "/api/bisections/$B" | jq -r .state; }
n=0 seen=
while [ "$(bis_state)" = running ]; do
	n=$((n + 1))
	[ $n -gt 400 ] && fail "bisection $B never ended: $(tail -5 "$TMP/klabd.log")"
	http GET "/api/agent/next?wait=1" -H "$RT" >"$TMP/next"
	[ "$STATUS" = 200 ] || continue
	id=$(jq -r .job.id "$TMP/next")
	k=$(jq -r .job.kernel "$TMP/next")
	if [ -z "$seen" ]; then
		home
		section rigs
		grep '<tr class="rig"><td><a href="/runs?rig=r3">' "$TMP/sec" >"$TMP/r3" ||
			fail "no row for r3: $(cat "$TMP/sec")"
		expect_grep "<a href=\"/api/jobs/$id\">job $id</a>: <a href=\"/kernels/$k\">$k</a>, tiobench" "$TMP/r3"
		seen=1
	fi
	case $k in 6.1.17[4-7]) r=80 ;; *) r=100 ;; esac
	printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
		"$r" $((n % 3)) >"$TMP/res.json"
	http POST "/api/agent/jobs/$id/results" -H "$RT" -H "$JSON" --data-binary @"$TMP/res.json" >/dev/null
	[ "$STATUS" = 201 ] || fail "results of job $id: HTTP $STATUS $(cat "$TMP/body")"
done
[ -n "$seen" ] || fail "r3 never held a job"
http GET "/api/bisections/$B" | jq -e '.state == "finished" and .answer == 4' >/dev/null ||
	fail "bisection $B: $(cat "$TMP/body")"
ok "r3's row named the job it held"

done_alert() { http GET '/api/alerts?alerts=1&kind=bisection_done' | jq -e '.events | length == 1' >/dev/null; }
wait_for "the bisection_done alert" 100 done_alert
BD=$(http GET '/api/alerts?alerts=1&kind=bisection_done' | jq '.events[0].id')
home
order "$BD" "$W" "$G"
for a in "$W" "$BD"; do
	row "$a" >"$TMP/row"
	expect_grep "<td class=\"culprit\"><a href=\"/bisections/$B\">6.1.174</a></td>" "$TMP/row"
done
row "$G" >"$TMP/row"
expect_grep '<td class="culprit">-</td>' "$TMP/row"
expect_status_line
ok "once bisected, the culprit 6.1.174 is named on the alert's row and on the bisection's own"

# 4. triage: acknowledged changes are counted apart, invalid ones leave
klab alert ack "$(jq '.events[0].id' "$TMP/cp.json")" --group >/dev/null ||
	fail "klab alert ack --group"
home
expect_status_line
expect_grep '&middot; <a href="/alerts?state=acknowledged">[1-9][0-9]* acknowledged</a>' "$TMP/home"
row "$G" | grep -q '<td class="state">acknowledged</td>' || fail "acknowledged row: $(row "$G")"
klab alert invalid "$BD" >/dev/null || fail "klab alert invalid"
for a in $(http GET '/api/alerts?alerts=1&state=new' | jq '.events[].id'); do
	klab alert ack "$a" >/dev/null || fail "klab alert ack $a"
done
home
order "$W" "$G"
row "$BD" && fail "an invalid alert is still listed"
expect_status_line
expect_grep 'Nothing needs you' "$TMP/home"
expect_grep 'class="status calm"' "$TMP/home"
ok "the status line: acknowledged counted apart, nothing needs you once all is triaged"

# 5. a tracked line, two submissions, the queue; escaping
klab track debian newest-6.1 --rig default --suite tiobench >/dev/null || fail "klab track"
tracked() { http GET /api/tracks/1 | jq -e '.last_kernel == "6.1.177"' >/dev/null; }
wait_for "the track's first check" 200 tracked
good=$(jq -Rs '{base: "fake", patches: [{name: "good-elv.patch", text: .}], note: "elv <tweak>"}' "$D/patches/good-elv.patch")
for s in 1 2; do
	http POST /api/submissions -H "$ALICE" -H "$JSON" --data-binary "$good" >/dev/null
	expect_status 201
done
http POST /api/submissions/2/cancel -H "$ALICE" -H "$JSON" -d '{}' >/dev/null
expect_status 200
http POST /api/alerts -H "$JSON" --data-binary '{"kind":"worse_found","rig":"r3","metric":"m<b>x</b>","title":"<script>alert(1)</script> & co","dedup":"t2025-hostile"}' >/dev/null
expect_status 201
X=$(jq .event "$TMP/body")
home
section tracks
expect_grep '<a href="/api/tracks/1">debian/newest-6.1</a></td><td class="head"><a href="/kernels/6.1.177">6.1.177</a>' "$TMP/sec"
section submissions
expect_grep '1 running, 1 ended today' "$TMP/sec"
expect_grep '<tr class="running"><td class="num"><a href="/submissions/1">1</a>' "$TMP/sec"
expect_grep '<tr class="ended"><td class="num"><a href="/submissions/2">2</a>' "$TMP/sec"
expect_grep '<td>cancelled</td>' "$TMP/sec"
expect_grep 'elv &lt;tweak&gt;' "$TMP/sec"
queued() { http GET /api/queue | jq '[.rigs[].waiting | length] | add'; }
incells() { http GET /api/submissions/1 | jq -e '.stage == "cells"' >/dev/null; }
wait_for "submission 1's cells" 600 incells
i=0
while :; do	# the queue as /api/queue counts it, unchanged around the page
	waiting=$(queued)
	home
	[ "$(queued)" = "$waiting" ] && break
	i=$((i + 1))
	[ $i -gt 50 ] && fail "the queue never held still"
done
section rigs
expect_grep "<p id=\"queue-length\">$waiting jobs\? waits\? in the queue" "$TMP/sec"
[ "$waiting" -ge 2 ] || fail "the track queued too few jobs: $waiting"
row "$X" >"$TMP/row"
expect_grep '&lt;script&gt;alert(1)&lt;/script&gt; &amp; co' "$TMP/row"
expect_grep 'm&lt;b&gt;x&lt;/b&gt;' "$TMP/row"
expect_nogrep '<script>alert' "$TMP/home"
expect_nogrep 'm<b>x' "$TMP/home"
ok "a tracked line's head, submissions running and ended today, the queue's length; hostile text escaped"

stop_klabd
