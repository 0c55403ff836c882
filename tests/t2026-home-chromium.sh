#!/bin/sh
# SPDX-License-Identifier: MIT
# t2026: the home page in headless Chromium, driven over the DevTools
# protocol (tests/t2026-home.js; issue 32, part 4: "a person should know
# in five seconds whether something needs them").  An empty lab's page
# says "Nothing needs you" on top, before any section, in view; after a
# change-point alert (raised by hand, as t2022 raises one) it says "1
# open regression needs triage", the regression's row shows the alert's
# title, and clicking it lands on the alert's page, which shows it new;
# acknowledged, the page says nothing needs the person again.
. "$(dirname "$0")/lib.sh"
chromium_need
command -v jq >/dev/null || skip "no jq"
chmod 755 "$TMP"
start_klabd

chromium_start 120
# look NAME: the home page as the browser shows it, into $TMP/NAME
look() {
	timeout 60 node --experimental-websocket "$TOP/tests/t2026-home.js" \
		"$TMP/chrome/DevToolsActivePort" "$URL" >"$TMP/$1" 2>"$TMP/node.err" ||
		fail "driving chromium: $(cat "$TMP/node.err"; tail -3 "$TMP/chrome.log")"
}

look empty
jq -e '.home.status == "Nothing needs you" and .home.cls == "status calm" and
	.home.first and .home.visible and (.home.rows | length) == 0 and .clicked == null' \
	"$TMP/empty" >/dev/null || fail "an empty lab's home page: $(cat "$TMP/empty")"
ok "an empty lab: 'Nothing needs you' on top, in view"

http POST /api/alerts -H 'Content-Type: application/json' --data-binary \
	'{"kind":"change_point","rig":"r1","suite":"tiobench","metric":"tiobench.rand_read.lat_avg","title":"change point in tiobench.rand_read.lat_avg on rig r1: 6.1.119 -> 6.1.120, +31.0%","kernel_before":"6.1.119","kernel_after":"6.1.120","group":"cp/r1/6.1.119/6.1.120","dedup":"t2026"}' >/dev/null
expect_status 201
ID=$(jq .event "$TMP/body")
look open
jq -e '.home.status == "1 open regression needs triage" and .home.cls == "status need" and
	.home.first and .home.visible' "$TMP/open" >/dev/null ||
	fail "the status line with an open regression: $(cat "$TMP/open")"
jq -e --arg a "/alerts/$ID" '.home.rows == [{alert: $a, title: "change point in tiobench.rand_read.lat_avg on rig r1: 6.1.119 -> 6.1.120, +31.0%", culprit: "-"}]' \
	"$TMP/open" >/dev/null || fail "the regression's row: $(jq -c .home.rows "$TMP/open")"
[ "$(jq -r '.clicked.at, .clicked.state' "$TMP/open" | tr '\n' ' ')" = "/alerts/$ID new " ] ||
	fail "the row's link: $(jq -c .clicked "$TMP/open")"
ok "an open regression: the status says it needs triage, its row links to its alert page"

klab alert ack "$ID" >/dev/null || fail "klab alert ack"
look acked
jq -e '(.home.status | startswith("Nothing needs you")) and (.home.status | endswith("1 acknowledged")) and
	.home.cls == "status calm" and (.home.rows | length) == 1' "$TMP/acked" >/dev/null ||
	fail "after acknowledging: $(cat "$TMP/acked")"
ok "acknowledged: nothing needs the person, the regression still listed"
chromium_stop
stop_klabd
