#!/bin/sh
# SPDX-License-Identifier: MIT
# t2022: an alert triaged through the page, as a user does it, in
# headless Chromium driven over the DevTools protocol
# (tests/t2022-alert-triage.js; issue 32's "a Chromium test triages that
# alert through the page"): a change-point alert raised as t2020 raises
# one; /login?next=/alerts/ID signs in with a submitter token and comes
# back to the alert; the state form acknowledges it, then marks it fixed
# by a commit, each time landing back on the alert's page showing the new
# state and the log naming alice; and the Atom feed shows both changes,
# alice's, each an alert_state entry.
. "$(dirname "$0")/lib.sh"
chromium_need
command -v jq >/dev/null || skip "no jq"
PY=$(command -v python3) || skip "no python3"
chmod 755 "$TMP"
start_klabd
make_token alice submitter >"$TMP/alice" || fail "token alice"

http POST /api/alerts -H 'Content-Type: application/json' --data-binary \
	'{"kind":"change_point","rig":"r1","suite":"tiobench","metric":"tiobench.rand_read.lat_avg","title":"change point in tiobench.rand_read.lat_avg on rig r1: 6.1.119 -> 6.1.120, +31.0%","kernel_before":"6.1.119","kernel_after":"6.1.120","group":"cp/r1/6.1.119/6.1.120","dedup":"t2022"}' >/dev/null
expect_status 201
ID=$(jq .event "$TMP/body")

chromium_start
timeout 60 node --experimental-websocket "$TOP/tests/t2022-alert-triage.js" \
	"$TMP/chrome/DevToolsActivePort" "$URL" "$(cat "$TMP/alice")" "$ID" 4f2a9c1d \
	>"$TMP/result" 2>"$TMP/node.err"
rc=$?
chromium_stop
[ $rc -eq 0 ] || fail "driving chromium: $(cat "$TMP/node.err"; tail -3 "$TMP/chrome.log")"

[ "$(jq -r .signed "$TMP/result")" = "/alerts/$ID" ] ||
	fail "signing in did not lead back to the alert: $(cat "$TMP/result")"
[ "$(jq -r '.ack.at, .ack.state, .ack.error' "$TMP/result" | tr '\n' ' ')" = "/alerts/$ID acknowledged  " ] ||
	fail "acknowledge: $(cat "$TMP/result")"
[ "$(jq -r '.fixed.at, .fixed.state, .fixed.error' "$TMP/result" | tr '\n' ' ')" = "/alerts/$ID fixed  " ] ||
	fail "fixed: $(cat "$TMP/result")"
jq -r .log "$TMP/result" >"$TMP/log"
expect_grep "alice.*state: acknowledged.*mine, looking" "$TMP/log"
expect_grep "alice.*state: fixed.*fixed upstream" "$TMP/log"
http GET "/api/alerts/$ID" | jq -e '.alert.state == "fixed" and .alert.fixed_commit == "4f2a9c1d"' >/dev/null ||
	fail "the alert after the page: $(cat "$TMP/body")"

curl -s -o "$TMP/feed.xml" "$URL/alerts.atom?kind=alert_state" || fail "GET /alerts.atom"
[ "$("$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml")" = "2 alert_state,alert_state" ] ||
	fail "the feed: $(cat "$TMP/feed.xml")"
expect_grep "<title>alert $ID fixed (commit 4f2a9c1d) by alice: change point" "$TMP/feed.xml"
expect_grep "<title>alert $ID acknowledged by alice: change point" "$TMP/feed.xml"
expect_grep "href=\"$URL/alerts/$ID\"" "$TMP/feed.xml"
stop_klabd
ok "an alert triaged in Chromium: sign in, acknowledge, fixed by a commit; both changes on the feed"
