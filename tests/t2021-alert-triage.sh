#!/bin/sh
# SPDX-License-Identifier: MIT
# t2021: alerts that people triage (issue 32, part 3; docs/API.md
# "Triage").  A real klabd, its SMTP server a local sink and a webhook
# receiver that checks signatures (t2020-alerts-sink.py); alerts made as
# t2032 makes them: a line of imported kernels (6.1.100-6.1.140) where
# two metrics step at 6.1.120, in two suites, so four change-point
# alerts of one change; and as t2020 does, emitted by hand.
#  - the four are one group: one row on /alerts, one summary mail;
#  - /alerts and /api/alerts filter by state, line, metric and rig;
#  - klab alert ack|invalid|fixed|dup, assign, comment, show, list over
#    the JSON API; each change of state is logged, on the feed and a
#    signed webhook (alert_state);
#  - hostile input (bad state, unknown id, a duplicate of itself or of a
#    missing alert, no commit for fixed, a notice triaged, anonymous, a
#    form without its CSRF token) is refused naming the field, and
#    changes nothing;
#  - a fixed alert stays fixed while its line is still off, and closes
#    itself, saying so as "klab", once the line is back to its level.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"

sink_start hook-secret
cat >"$TMP/klabd.conf" <<CONF
alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT
alert_smtp_from = klab@lab.example
alert_group_wait = 3
alert_retry_base = 1
alert_retry_max = 2
CONF
start_klabd --config "$TMP/klabd.conf"
ALICE=$(make_token alice submitter) || fail "token alice"
make_token bob submitter >/dev/null || fail "token bob"

json() { http POST "$1" -H 'Content-Type: application/json' --data-binary "$2"; }
alerts() { http GET "/api/alerts?alerts=1$1"; }
ids() { alerts "$1" | jq -r '[.events[].id] | sort | map(tostring) | join(" ")'; }
state_of() { http GET "/api/alerts/$1" | jq -r .alert.state; }

klab subscribe --email alice@example.org >/dev/null || fail "subscribe email"
klab subscribe --webhook "$HOOK/ok" --secret hook-secret --event alert_state \
	>/dev/null || fail "subscribe webhook"

# 1. the history: 41 kernels, t2021.lat +30% and t2021.rate -25% at
# 6.1.120, in suites manual and t2021 (FROM..TO, LAT level after 6.1.140)
results() {
	awk -v from="$2" -v to="$3" -v back="$4" 'BEGIN {
		printf "{\"schema\":\"klab-results/1\",\"results\":["
		n = 0
		for (k = from; k <= to; k++) {
			w = (k * 37) % 10
			kern = "6.1." k
			lat = (k >= 120 ? (k > 140 && back ? 10 : 13) : 10) + w / 100
			row(kern, "t2021.lat", "ms", lat, "lower")
			row(kern, "t2021.rate", "MB/s", (k >= 120 ? 75 : 100) + w / 10, "higher")
		}
		printf "]}\n"
	}
	function row(kern, m, unit, v, dir) {
		printf "%s{\"kernel\":\"%s\",\"metric\":\"%s\",\"unit\":\"%s\",\"value\":%s,\"direction\":\"%s\"}", \
			(n++ ? "," : ""), kern, m, unit, v, dir
	}' >"$1"
}
json /api/suites '{"name":"t2021","description":"t2021: a second suite"}' >/dev/null
case $STATUS in 20[01]) ;; *) fail "suite t2021: $STATUS $(cat "$TMP/body")" ;; esac
results "$TMP/h.json" 100 140 0
klab import "$TMP/h.json" --rig default --suite manual >/dev/null || fail "import manual"
klab import "$TMP/h.json" --rig default --suite t2021 >/dev/null || fail "import t2021"
four() { [ "$(alerts '&kind=change_point' | jq '.events | length')" = 4 ]; }
wait_for "four change-point alerts" 300 four
alerts '&kind=change_point' >"$TMP/cp.json"
jq -e '[.events[] | .group] | unique | length == 1' "$TMP/cp.json" >/dev/null ||
	fail "the four alerts of one change are not one group: $(jq -c '[.events[] | {id, suite, metric, group, kernel_before, kernel_after}]' "$TMP/cp.json")"
jq -e 'all(.events[]; .state == "new" and .kernel_before == "6.1.119" and .kernel_after == "6.1.120")' \
	"$TMP/cp.json" >/dev/null || fail "alerts: $(cat "$TMP/cp.json")"
G=$(jq '.events[0].group' "$TMP/cp.json")
LAT=$(jq '[.events[] | select(.suite == "manual" and .metric == "t2021.lat")][0].id' "$TMP/cp.json")
RATE=$(jq '[.events[] | select(.suite == "manual" and .metric == "t2021.rate")][0].id' "$TMP/cp.json")
LAT2=$(jq '[.events[] | select(.suite == "t2021" and .metric == "t2021.lat")][0].id' "$TMP/cp.json")
http GET /alerts >/dev/null
expect_grep "<tr id=\"group-$G\">"
grep "<tr id=\"group-$G\">" "$TMP/body" >"$TMP/row"
[ "$(grep -o 'id="event-[0-9]*" href="/alerts/' "$TMP/row" | wc -l)" = 4 ] ||
	fail "the group's row does not hold its four alerts: $(cat "$TMP/row")"
expect_grep '>t2021.lat</a>' "$TMP/row"
expect_grep 'manual, t2021\|t2021, manual' "$TMP/row"
ok "four alerts of one change (two metrics, two suites): one group, one row on /alerts"

# 2. one summary mail for the group: each alert mailed once, and at least
# the two of one suite's refresh in one mail
mails_done() {	# every alert named in exactly one mail
	for a in $(jq '.events[].id' "$TMP/cp.json"); do
		[ "$(grep -l -e "^  alert $a: " -e "^klab alert $a (" "$SINK"/mail-*.eml 2>/dev/null | wc -l)" = 1 ] ||
			return 1
	done
}
wait_for "the alerts' mails" 200 mails_done
grep -l "^Subject: \[klab\] [0-9]* alerts of one change (group $G)" "$SINK"/mail-*.eml >"$TMP/summaries" ||
	fail "no summary mail: $(head -20 "$SINK"/mail-*.eml)"
expect_grep "http://127.0.0.1:$PORT/alerts?group=$G" "$(head -n 1 "$TMP/summaries")"
ok "one summary mail for the group, each alert mailed once"

# 3. filters: state, line, metric, rig (and the page's form)
json /api/alerts '{"kind":"worse_found","rig":"r2","suite":"tiobench","metric":"tiobench.seq_read.mbps","title":"submission 9: worse on r2","line":"debian/newest-6.1","dedup":"sub-9"}' >/dev/null
expect_status 201
W=$(jq .event "$TMP/body")
json /api/alerts '{"kind":"worse_found","rig":"r2","title":"submission 10: worse on r2","line":"git/net-next","dedup":"sub-10"}' >/dev/null
W2=$(jq .event "$TMP/body")
[ "$(ids '&line=debian/newest-6.1')" = "$W" ] || fail "line filter: $(ids '&line=debian/newest-6.1')"
[ "$(ids '&rig=r2')" = "$W $W2" ] || fail "rig filter: $(ids '&rig=r2')"
[ "$(ids '&metric=t2021.l*')" = "$(echo "$LAT $LAT2" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
	fail "metric filter: $(ids '&metric=t2021.l*')"
http GET '/alerts?line=git/net-next' >/dev/null
expect_grep "<tr id=\"group-$W2\">"
expect_nogrep "<tr id=\"group-$G\">"
expect_grep '<input name="line" size="16" value="git/net-next">'
http GET '/alerts?state=nope' >/dev/null
expect_status 400
expect_grep "parameter &#39;state&#39;: expected any, open"
ok "/alerts and /api/alerts filter by state, line, metric and rig"

# 4. hostile input: refused, named, nothing changed
refuse() {	# refuse STATUS MESSAGE PATH BODY
	json "$3" "$4" >/dev/null
	expect_status "$1"
	expect_grep "$2"
}
refuse 400 "field 'state': expected new, acknowledged, invalid, fixed or duplicate, got 'bogus'" \
	"/api/alerts/$W/state" '{"state":"bogus"}'
refuse 400 "field 'state': 'closed' is klab's own" "/api/alerts/$W/state" '{"state":"closed"}'
refuse 400 "field 'state'" "/api/alerts/$W/state" '{}'
refuse 404 "unknown alert 99999" /api/alerts/99999/state '{"state":"acknowledged"}'
refuse 400 "invalid alert id" /api/alerts/x/state '{"state":"acknowledged"}'
refuse 400 "field 'of': alert $W cannot be a duplicate of itself" "/api/alerts/$W/state" \
	"{\"state\":\"duplicate\",\"of\":$W}"
refuse 400 "field 'of': unknown alert 99999" "/api/alerts/$W/state" '{"state":"duplicate","of":99999}'
refuse 400 "field 'of'" "/api/alerts/$W/state" '{"state":"duplicate","of":"one"}'
refuse 400 "field 'of': the alert this one repeats is required" "/api/alerts/$W/state" '{"state":"duplicate"}'
refuse 400 "field 'commit' or 'kernel': say what fixed it" "/api/alerts/$W/state" '{"state":"fixed"}'
refuse 400 "field 'commit': expected a commit id" "/api/alerts/$W/state" '{"state":"fixed","commit":"HEAD; rm"}'
refuse 400 "field 'commit': only with state 'fixed'" "/api/alerts/$W/state" '{"state":"invalid","commit":"abcdef1"}'
refuse 400 "field 'assignee': no user token is named 'mallory'" "/api/alerts/$W/assign" '{"assignee":"mallory"}'
refuse 400 "field 'text'" "/api/alerts/$W/comments" '{"text":""}'
refuse 413 "field 'comment': longer than 4096 bytes" "/api/alerts/$W/state" \
	"{\"state\":\"invalid\",\"comment\":\"$(head -c 5000 /dev/zero | tr '\0' x)\"}"
HTTP_NOAUTH=1 json "/api/alerts/$W/state" '{"state":"invalid"}' >/dev/null
expect_status 401
klab alert dup "$W" --of "$W" >"$TMP/out" 2>&1 && fail "klab alert dup of itself"
expect_grep "field 'of': alert $W cannot be a duplicate of itself" "$TMP/out"
klab alert ack 99999 >"$TMP/out" 2>&1; [ $? = 1 ] || fail "klab alert ack of an unknown alert: $(cat "$TMP/out")"
expect_grep "unknown alert 99999" "$TMP/out"
klab alert fixed "$W" >"$TMP/out" 2>&1 && fail "klab alert fixed without --commit"
expect_grep "field 'commit' or 'kernel'" "$TMP/out"
klab alert ack >/dev/null 2>&1; [ $? = 2 ] || fail "klab alert ack without an id is not a usage error"
[ "$(state_of "$W")" = new ] || fail "a refused change changed alert $W"
[ "$(http GET "/api/alerts/$W" | jq '.log | length')" = 0 ] || fail "a refused change was logged"
ok "hostile triage refused naming the field; nothing changed"

# 5. triage with the CLI: ack the group, assign, comment, invalid, dup
KLAB_TOKEN=$ALICE klab alert ack "$RATE" --group --comment "looking at it" >"$TMP/out" ||
	fail "klab alert ack: $(cat "$TMP/out")"
expect_grep "alert $RATE: acknowledged" "$TMP/out"
[ "$(ids "&state=acknowledged")" = "$(jq -r '[.events[].id] | sort | map(tostring) | join(" ")' "$TMP/cp.json")" ] ||
	fail "ack --group did not acknowledge the four: $(ids '&state=acknowledged')"
klab alert assign "$LAT" bob >"$TMP/out" || fail "klab alert assign: $(cat "$TMP/out")"
expect_grep "alert $LAT: acknowledged, assigned to bob" "$TMP/out"
klab alert comment "$LAT" "bisecting 6.1.119..6.1.120" >/dev/null || fail "klab alert comment"
klab alert invalid "$W2" --comment "flaky rig" >/dev/null || fail "klab alert invalid"
klab alert dup "$W" --of "$W2" >/dev/null || fail "klab alert dup"
[ "$(http GET "/api/alerts/$W" | jq -r '.alert.state, .alert.duplicate_of' | tr '\n' ' ')" = "duplicate $W2 " ] ||
	fail "dup: $(cat "$TMP/body")"
klab alert show "$LAT" >"$TMP/show" || fail "klab alert show"
expect_grep "^state  *acknowledged" "$TMP/show"
expect_grep "^assignee  *bob" "$TMP/show"
expect_grep "alice state: acknowledged looking at it" "$TMP/show"
expect_grep "bisecting 6.1.119..6.1.120" "$TMP/show"
klab alert list >"$TMP/list" || fail "klab alert list"
expect_grep "^$LAT  *acknowledged  *$G  *change_point" "$TMP/list"
expect_nogrep "^$W2 " "$TMP/list"	# invalid: not open
klab alert list --state invalid --format json | jq -e ".events | length == 1 and .[0].id == $W2" >/dev/null ||
	fail "klab alert list --state invalid"
ok "klab alert ack --group, assign, comment, invalid, dup, show, list"

# 6. each change of state on the feed and a signed webhook
atom() { curl -s -o "$TMP/feed.xml" "$URL$1" && "$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml"; }
[ "$(atom '/alerts.atom?kind=alert_state')" = "3 alert_state,alert_state,alert_state" ] ||
	fail "feed of state changes: $(cat "$TMP/feed.xml")"
expect_grep "alert $RATE and 3 more of group $G acknowledged by alice" "$TMP/feed.xml"
expect_grep "alert $W marked a duplicate of alert $W2 by test-operator" "$TMP/feed.xml"
hooked() { [ "$(grep -l '"event": "alert_state"' "$SINK"/hook-*.json 2>/dev/null | wc -l)" -ge 3 ]; }
wait_for "the state changes' webhooks" 100 hooked
HOOKF=
for f in "$SINK"/hook-*.json; do
	jq -e ".body.alert == $W2" "$f" >/dev/null && HOOKF=$f
done
[ -n "$HOOKF" ] || fail "no webhook for alert $W2: $(cat "$SINK"/hook-*.json)"
[ "$(jq -r '.verified, .body.kind, .body.state, .body.alert' "$HOOKF" | tr '\n' ' ')" = "true alert_state invalid $W2 " ] ||
	fail "webhook of a state change: $(cat "$HOOKF")"
ok "each change of state: an alert_state entry on the feed and a signed webhook"

# 7. the page's forms: signed in, with the session's CSRF token
J=$TMP/cookies
curl -s -o /dev/null -c "$J" --data-urlencode "token=$ALICE" \
	--data-urlencode "next=/alerts/$LAT" "$URL/login" || fail "POST /login"
curl -s -b "$J" "$URL/alerts/$LAT" >"$TMP/page.html"
CSRF=$(sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/page.html" | head -n 1)
[ ${#CSRF} -eq 64 ] || fail "no csrf token on /alerts/$LAT"
expect_grep 'id="state-go"' "$TMP/page.html"
curl -s "$URL/alerts/$LAT" >"$TMP/anon.html"
expect_grep "Sign in</a> to triage it" "$TMP/anon.html"
expect_nogrep 'name="csrf"' "$TMP/anon.html"
post_form() {	# post_form PATH DATA: sets STATUS, the page in $TMP/body
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$2" "$URL$1")
}
post_form "/alerts/$LAT/state" "state=invalid"
expect_status 403
expect_grep "missing or wrong csrf token"
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --data-binary "csrf=$CSRF&state=invalid" \
	-H 'Content-Type: application/x-www-form-urlencoded' "$URL/alerts/$LAT/state")
[ "$STATUS" = 401 ] || [ "$STATUS" = 403 ] || fail "an anonymous form was not refused: $STATUS"
post_form "/alerts/$LAT/state" "csrf=$CSRF&state=duplicate&of=$LAT"
expect_status 400
expect_grep "class=\"error\" id=\"error\">field &#39;of&#39;: alert $LAT cannot be a duplicate of itself"
[ "$(state_of "$LAT")" = acknowledged ] || fail "a refused form changed alert $LAT"
post_form "/alerts/$LAT/comment" "csrf=$CSRF&text=from+the+page"
expect_status 303
http GET "/api/alerts/$LAT" | jq -e '.log[-1] | .who == "alice" and .text == "from the page"' >/dev/null ||
	fail "the page's comment: $(cat "$TMP/body")"
ok "the page's forms: CSRF required, refusals named on the page, a comment posted"

# 8. fixed stays fixed while the line is off; back to its level, klab
# closes it and says so
KLAB_TOKEN=$ALICE klab alert fixed "$LAT" --commit 0123abc --comment "fix merged" >"$TMP/out" ||
	fail "klab alert fixed: $(cat "$TMP/out")"
expect_grep "alert $LAT: fixed" "$TMP/out"
sleep 3	# the line's change points are refreshed at once: still off
[ "$(state_of "$LAT")" = fixed ] || fail "closed while its line is still off: $(cat "$TMP/body")"
results "$TMP/back.json" 141 160 1
klab import "$TMP/back.json" --rig default --suite manual >/dev/null || fail "import the fix"
closed() { [ "$(state_of "$LAT")" = closed ]; }
wait_for "the fixed alert to close itself" 300 closed
http GET "/api/alerts/$LAT" | jq -e '.alert.fixed_commit == "0123abc" and (.log[-1] | .who == "klab" and
	(.text | test("closed by klab: t2021.lat is back to its level")))' >/dev/null ||
	fail "the closing: $(cat "$TMP/body")"
[ "$(state_of "$RATE")" = acknowledged ] || fail "the rate alert changed: $(cat "$TMP/body")"
[ "$(state_of "$LAT2")" = acknowledged ] || fail "the other suite's alert changed"
atom '/alerts.atom?kind=alert_state' >/dev/null
expect_grep "alert $LAT closed (commit 0123abc) by klab" "$TMP/feed.xml"
ok "a fixed alert stays fixed while its line is off, and closes itself when it is back"
stop_klabd
