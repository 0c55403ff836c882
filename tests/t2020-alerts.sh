#!/bin/sh
# SPDX-License-Identifier: MIT
# Alerts end to end (docs/API.md "Alerts", docs/OPERATOR.md): a real klabd
# with its SMTP server pointed at a local sink (python3 aiosmtpd) and
# webhooks at a local receiver that checks the HMAC signature
# (t2020-alerts-sink.py).  Hostile subscriptions are refused and nothing
# is stored; subscriptions are made, listed and deleted with the CLI and
# on the /subscriptions page (forms with CSRF), a submitter manages only
# their own; an event reaches the mail sink with
# its report and the webhook verified, exactly once for one dedup key;
# filters pick the subscriptions; a failing webhook is retried until its
# attempts run out, visible on /api/alerts and /alerts; the Atom feed and
# its filtered and per-subscription URLs parse as Atom; `klab alert test`
# sends a test alert; a delivery pending when klabd stops is delivered
# by the next klabd; a rig that goes offline raises rig_offline; with
# alert_smtp_starttls = yes no mail goes out in clear.
. "$(dirname "$0")/lib.sh"

sink_start hook-secret

cat >"$TMP/klabd.conf" <<CONF
alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT
alert_smtp_from = klab@lab.example
alert_retry_base = 2
alert_retry_max = 2
alert_max_attempts = 5
alert_timeout = 5
[rig r7]
kind = remote
autostart = no
power_cycle = /bin/false
CONF
start_klabd --config "$TMP/klabd.conf"
OPER=$KLAB_TOKEN
ALICE=$(make_token alice submitter) || fail "token add alice"
BOB=$(make_token bob submitter) || fail "token add bob"

# jq-like: jget EXPR < json (EXPR over d, python)
jget() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
emit() { http POST /api/alerts -H 'Content-Type: application/json' --data-binary "$1"; }
# delivery FIELD ID: a field of delivery ID from /api/alerts
delivery() {
	http GET /api/alerts >"$TMP/alerts.json"
	jget "[x['$1'] for x in d['deliveries'] if x['id'] == $2][0]" <"$TMP/alerts.json"
}

# 1. hostile subscriptions: refused, named, nothing stored
refuse() {	# refuse MESSAGE klab-args...
	msg=$1; shift
	klab subscribe "$@" >"$TMP/out" 2>&1 && fail "accepted: $*"
	expect_grep "$msg" "$TMP/out"
}
refuse "only http:// and https://" --webhook file:///etc/passwd
refuse "only http:// and https://" --webhook gopher://127.0.0.1:70/
refuse "character 0x0a is not allowed" --webhook "$(printf 'http://a/\nX: y')"
refuse "at most 2048 bytes" --webhook "http://a/$("$PY" -c 'print("x" * 3000)')"
refuse "character 0x0d is not allowed" --email "$(printf 'a@b.org\r\nBcc: evil@b.org')"
refuse "character 0x3c is not allowed" --email "<a@b.org>"
refuse "expected user@domain" --email nobody
refuse "unknown event kind 'nope'" --email a@b.org --event worse_found,nope
refuse "a glob of metric names" --email a@b.org --metric 'a b'
refuse "field 'secret': only for a webhook" --email a@b.org --secret s
klab subscribe --email a@b.org --webhook http://a/ >/dev/null 2>&1
[ $? -eq 2 ] || fail "two channels at once is not a usage error"
http POST /api/subscriptions -H 'Content-Type: application/json' \
	--data-binary '{"channel":"feed","target":"http://a/"}' >/dev/null
expect_status 400
HTTP_NOAUTH=1 http POST /api/subscriptions -H 'Content-Type: application/json' \
	--data-binary '{"channel":"email","target":"a@b.org"}' >/dev/null
expect_status 401
for r in "GET /api/subscriptions" "DELETE /api/subscriptions/1" \
	 "POST /api/subscriptions/1/test" "POST /api/alerts"; do
	HTTP_NOAUTH=1 http $r >/dev/null
	expect_status 401
done
http POST /api/alerts -H 'Content-Type: application/json' \
	--data-binary '{"kind":"worse_found","title":"a\r\nBcc: x"}' >/dev/null
expect_status 400
expect_grep "field 'title': one line"
http POST /api/alerts -H 'Content-Type: application/json' \
	--data-binary '{"kind":"nope"}' >/dev/null
expect_status 400
HTTP_NOAUTH=1 http POST /api/alerts -H "Authorization: Bearer $ALICE" \
	-H 'Content-Type: application/json' --data-binary '{"kind":"worse_found"}' >/dev/null
expect_status 403
[ "$(klab subscriptions --format json | jget 'len(d["subscriptions"])')" = 0 ] ||
	fail "a refused subscription was stored"
ok "hostile subscriptions refused, nothing stored"

# 2. subscriptions through the CLI; owners
KLAB_TOKEN=$ALICE klab subscribe --email alice@example.org \
	--event worse_found,submission_finished >"$TMP/out" || fail "subscribe email: $(cat "$TMP/out")"
S_MAIL=$(jget 'd["id"]' <"$TMP/out")
klab subscribe --webhook "$HOOK/ok" --secret hook-secret --rig r1 \
	--metric 'tiobench.*' >"$TMP/out" || fail "subscribe webhook"
S_HOOK=$(jget 'd["id"]' <"$TMP/out")
klab subscribe --webhook "$HOOK/fail" --secret hook-secret --event rig_offline >"$TMP/out" ||
	fail "subscribe failing webhook"
S_FAIL=$(jget 'd["id"]' <"$TMP/out")
klab subscribe --feed --suite tiobench >"$TMP/out" || fail "subscribe feed"
S_FEED=$(jget 'd["id"]' <"$TMP/out")
expect_grep "/alerts.atom?subscription=$S_FEED" "$TMP/out"
klab subscriptions >"$TMP/list" || fail "klab subscriptions"
expect_grep '^ID  *CHANNEL  *TARGET' "$TMP/list"
expect_grep "^$S_MAIL  *email  *alice@example.org  *alice  *worse_found,submission_finished" "$TMP/list"
expect_grep "^$S_HOOK  *webhook .*rig=r1 metric=tiobench\.\*" "$TMP/list"
[ "$(grep -c '^[0-9]' "$TMP/list")" = 4 ] || fail "expected 4 subscriptions: $(cat "$TMP/list")"
expect_nogrep "hook-secret" "$TMP/list"
[ "$(KLAB_TOKEN=$ALICE klab subscriptions --format json | jget 'len(d["subscriptions"])')" = 1 ] ||
	fail "alice sees other people's subscriptions"
[ "$(KLAB_TOKEN=$BOB klab subscriptions --format json | jget 'len(d["subscriptions"])')" = 0 ] ||
	fail "bob sees other people's subscriptions"
KLAB_TOKEN=$BOB klab unsubscribe "$S_MAIL" >"$TMP/out" 2>&1 && fail "bob deleted alice's subscription"
expect_grep "subscription $S_MAIL belongs to 'alice'" "$TMP/out"
KLAB_TOKEN=$BOB klab alert test "$S_MAIL" >"$TMP/out" 2>&1 && fail "bob tested alice's subscription"
ok "subscriptions made and listed; a submitter manages only their own"

# 3. one event: mail with the report, webhook verified, once per dedup key
REPORT='tiobench.rand_read.lat_max  +31.2% +- 4.0%  worse\ntiobench.seq_read.mbps  -0.4% +- 0.9%  same'
EV='{"kind":"worse_found","rig":"r1","suite":"tiobench","metric":"tiobench.rand_read.lat_max","submitter":"alice","title":"submission 7: worse on r1","text":"'$REPORT'\n.\nend of report","link":"/comparisons/7","dedup":"cmp-7"}'
emit "$EV" >/dev/null
expect_status 201
[ "$(jget 'd["deliveries"]' <"$TMP/body")" = 3 ] || fail "expected 3 deliveries: $(cat "$TMP/body")"
E1=$(jget 'd["event"]' <"$TMP/body")
emit "$EV" >/dev/null
expect_status 200
expect_grep '"repeated": *true'
[ "$(jget 'd["event"]' <"$TMP/body")" = "$E1" ] || fail "a repeat names another event"
have_mail() { ls "$SINK"/mail-*.eml >/dev/null 2>&1; }
have_hook() { ls "$SINK"/hook-*.json >/dev/null 2>&1; }
wait_for "the mail" 100 have_mail
wait_for "the webhook" 100 have_hook
MAIL=$(ls "$SINK"/mail-*.eml)
expect_grep "^To: <alice@example.org>" "$MAIL"
expect_grep "^From: klab <klab@lab.example>" "$MAIL"
expect_grep "^Subject: \[klab\] submission 7: worse on r1" "$MAIL"
expect_grep "^tiobench.rand_read.lat_max  +31.2% +- 4.0%  worse" "$MAIL"
expect_grep "^end of report" "$MAIL"
expect_grep "http://127.0.0.1:$PORT/comparisons/7" "$MAIL"
expect_grep "to alice@example.org" "${MAIL%.eml}.env"
HOOKF=$(ls "$SINK"/hook-*.json)
[ "$(jget 'd["verified"]' <"$HOOKF")" = True ] || fail "webhook signature not verified: $(cat "$HOOKF")"
[ "$(jget 'd["body"]["kind"], d["body"]["rig"], d["event"]' <"$HOOKF")" = "worse_found r1 worse_found" ] ||
	fail "webhook body: $(cat "$HOOKF")"
jget 'd["body"]["text"]' <"$HOOKF" | grep "tiobench.seq_read.mbps" >/dev/null || fail "webhook text: $(cat "$HOOKF")"
sleep 1.5	# a duplicate would have come by now
[ "$(ls "$SINK"/mail-*.eml | wc -l)" = 1 ] || fail "the same change was mailed twice"
[ "$(ls "$SINK"/hook-*.json | wc -l)" = 1 ] || fail "the same change was posted twice"
ok "mail with the report and verified webhook, once for one dedup key"

# 4. filters pick the subscriptions
emit '{"kind":"build_failed","rig":"r2","title":"build 3 failed"}' >/dev/null
[ "$(jget 'd["deliveries"]' <"$TMP/body")" = 0 ] || fail "build_failed matched: $(cat "$TMP/body")"
emit '{"kind":"change_point","rig":"r1","metric":"dbench.mbps","title":"cp"}' >/dev/null
[ "$(jget 'd["deliveries"]' <"$TMP/body")" = 0 ] || fail "metric glob ignored: $(cat "$TMP/body")"
emit '{"kind":"rig_offline","rig":"r5","title":"rig r5 is offline","text":"down","dedup":"r5@1"}' >/dev/null
[ "$(jget 'd["deliveries"]' <"$TMP/body")" = 1 ] || fail "rig_offline: $(cat "$TMP/body")"
ok "filters: event kinds, rig, metric glob, suite"

# 5. a failing webhook is retried until its attempts run out
D_FAIL=$(http GET /api/alerts | jget "[x['id'] for x in d['deliveries'] if x['subscription'] == $S_FAIL][0]")
failed() { [ "$(delivery state "$D_FAIL")" = failed ]; }
wait_for "the failing webhook to give up" 200 failed
[ "$(delivery attempts "$D_FAIL")" = 5 ] || fail "expected 5 attempts: $(cat "$TMP/alerts.json")"
[ "$(delivery last_error "$D_FAIL")" = "webhook answered HTTP 500" ] ||
	fail "last error: $(cat "$TMP/alerts.json")"
http GET /alerts >/dev/null
expect_status 200
expect_grep '<td class="num attempts">5</td>'
expect_grep 'webhook answered HTTP 500'
expect_grep 'submission 7: worse on r1'
expect_nogrep 'hook-secret'
expect_nogrep "$HOOK"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then	# the page as a browser builds it
	timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TMP/chrome" --dump-dom "$URL/alerts" \
		>"$TMP/dom.html" 2>>"$TMP/chrome.log" ||
		fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
	expect_grep '<table class="deliveries">' "$TMP/dom.html"
	expect_grep '<td>failed</td><td class="num attempts">5</td>' "$TMP/dom.html"
	expect_grep '<td>webhook answered HTTP 500</td>' "$TMP/dom.html"
	expect_grep '<a href="/alerts" class="on">Alerts</a>' "$TMP/dom.html"
fi
ok "failing webhook: 5 attempts and the error on /api/alerts and /alerts"

# 6. the Atom feeds parse and hold what their filters say
atom() { curl -s -o "$TMP/feed.xml" -w '%{content_type}' "$URL$1" >"$TMP/ctype" &&
	"$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml"; }
[ "$(atom /alerts.atom)" = "4 rig_offline,change_point,build_failed,worse_found" ] ||
	fail "feed: $(atom /alerts.atom) $(cat "$TMP/feed.xml")"
expect_grep "application/atom+xml" "$TMP/ctype"
[ "$(atom '/alerts.atom?kind=rig_offline')" = "1 rig_offline" ] || fail "kind feed"
[ "$(atom '/alerts.atom?rig=r1&suite=tiobench')" = "1 worse_found" ] || fail "rig+suite feed"
[ "$(atom '/alerts.atom?metric=tiobench.*')" = "1 worse_found" ] || fail "metric feed"
[ "$(atom "/alerts.atom?subscription=$S_FEED")" = "1 worse_found" ] || fail "subscription feed"
[ "$(atom '/alerts.atom?rig=nope')" = "0 " ] || fail "empty feed: $(cat "$TMP/feed.xml")"
http GET '/alerts.atom?subscription=x' >/dev/null
expect_status 400
ok "Atom feeds parse, with their filters and per subscription"

# 7. a test alert to one subscription
klab alert test "$S_HOOK" >"$TMP/out" || fail "klab alert test: $(cat "$TMP/out")"
expect_grep "test alert queued for subscription $S_HOOK" "$TMP/out"
test_hook() { grep -l '"event": "test"' "$SINK"/hook-*.json >/dev/null 2>&1; }
wait_for "the test alert" 100 test_hook
[ "$(jget 'd["verified"]' <"$(grep -l '"event": "test"' "$SINK"/hook-*.json)")" = True ] ||
	fail "test alert not verified"
ok "klab alert test"

# 8. a delivery pending when klabd stops is delivered by the next one
klab subscribe --webhook "$HOOK/flaky" --secret hook-secret --event change_point >"$TMP/out" ||
	fail "subscribe flaky"
S_FLAKY=$(jget 'd["id"]' <"$TMP/out")
touch "$SINK/down"
emit '{"kind":"change_point","rig":"r9","title":"change point on r9","dedup":"cp-1"}' >/dev/null
[ "$(jget 'd["deliveries"]' <"$TMP/body")" = 1 ] || fail "change point: $(cat "$TMP/body")"
D_FLAKY=$(http GET /api/alerts | jget "[x['id'] for x in d['deliveries'] if x['subscription'] == $S_FLAKY][0]")
tried() { [ "$(delivery attempts "$D_FLAKY")" -ge 1 ]; }
wait_for "a first attempt" 100 tried
[ "$(delivery state "$D_FLAKY")" = pending ] || fail "not pending: $(cat "$TMP/alerts.json")"
stop_klabd
rm "$SINK/down"
start_klabd --config "$TMP/klabd.conf"
flaky_hook() { grep -l '"path": "/flaky"' "$SINK"/hook-*.json >/dev/null 2>&1; }
wait_for "the resumed delivery" 100 flaky_hook
delivered() { [ "$(delivery state "$D_FLAKY")" = delivered ]; }
wait_for "the delivery recorded" 50 delivered
[ "$(delivery attempts "$D_FLAKY")" -ge 2 ] || fail "attempts: $(cat "$TMP/alerts.json")"
ok "a pending delivery survives a klabd restart"

# 9. a producer: a rig that fails its health check twice goes offline
klab subscribe --webhook "$HOOK/ok" --secret hook-secret --rig r7 --event rig_offline >/dev/null ||
	fail "subscribe rig_offline"
klab rig online r7 >/dev/null || fail "klab rig online r7"
offline_hook() { grep -l '"event": "rig_offline"' "$SINK"/hook-*.json >/dev/null 2>&1; }
wait_for "the rig_offline alert" 300 offline_hook
HOOKF=$(grep -l '"event": "rig_offline"' "$SINK"/hook-*.json)
[ "$(jget 'd["verified"], d["body"]["rig"], d["body"]["title"]' <"$HOOKF")" = "True r7 rig r7 is offline" ] ||
	fail "rig_offline webhook: $(cat "$HOOKF")"
ok "a rig gone offline raises rig_offline"

# 10. the /subscriptions page: sign in, subscribe, test and delete by form
curl -s "$URL/subscriptions" >"$TMP/anon.html"
expect_grep 'Sign in</a> to see and manage' "$TMP/anon.html"
expect_nogrep 'name="csrf"' "$TMP/anon.html"
J=$TMP/cookies
curl -s -o /dev/null -c "$J" --data-urlencode "token=$ALICE" \
	--data-urlencode "next=/subscriptions" "$URL/login" || fail "POST /login"
curl -s -b "$J" "$URL/subscriptions" >"$TMP/subs.html"
expect_grep "Your subscriptions, as alice" "$TMP/subs.html"
expect_grep "<tr id=\"sub-$S_MAIL\">" "$TMP/subs.html"
expect_nogrep "<tr id=\"sub-$S_HOOK\">" "$TMP/subs.html"
CSRF=$(sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/subs.html" | head -n 1)
[ ${#CSRF} -eq 64 ] || fail "no csrf token on /subscriptions"
post_form() {	# post_form PATH DATA: sets STATUS, the page in $TMP/body
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$2" "$URL$1")
}
post_form /subscriptions "channel=webhook&target=$HOOK/ok&secret=hook-secret"
expect_status 403
post_form /subscriptions "csrf=$CSRF&channel=webhook&target=file:///etc/passwd"
expect_status 400
expect_grep 'class="error">invalid webhook URL: only http:// and https://'
post_form /subscriptions "csrf=$CSRF&channel=webhook&target=$HOOK/ok&secret=hook-secret&rig=r1&event=worse_found&event=change_point"
expect_status 200
S_FORM=$(sed -n 's/.*Subscription \([0-9]*\) added\..*/\1/p' "$TMP/body")
[ -n "$S_FORM" ] || fail "form subscription: $(grep -o '<p class=[^<]*' "$TMP/body")"
expect_grep "<tr id=\"sub-$S_FORM\"><td class=\"num\">$S_FORM</td><td>webhook</td>"
expect_grep '<td>rig=r1</td><td>worse_found,change_point</td><td>alice</td>'
post_form /subscriptions "csrf=$CSRF&channel=webhook&target=$HOOK/ok"
expect_status 200
expect_grep "webhook secret, shown this once: [0-9a-f]\{64\}"
S_DRAWN=$(sed -n 's/.*Subscription \([0-9]*\) added\..*/\1/p' "$TMP/body")
post_form "/subscriptions/$S_HOOK/test" "csrf=$CSRF"
expect_status 403
expect_grep "subscription $S_HOOK belongs to"
post_form "/subscriptions/$S_FORM/test" "csrf=$CSRF"
expect_status 200
expect_grep "Test alert queued for subscription $S_FORM."
form_hook() { grep -l "\"subscription\": $S_FORM," "$SINK"/hook-*.json >/dev/null 2>&1; }
wait_for "the form's test alert" 100 form_hook
[ "$(jget 'd["verified"], d["body"]["kind"]' <"$(grep -l "\"subscription\": $S_FORM," "$SINK"/hook-*.json)")" = "True test" ] ||
	fail "the form's test alert"
for s in "$S_FORM" "$S_DRAWN"; do
	post_form "/subscriptions/$s/delete" "csrf=$CSRF"
	expect_status 200
	expect_grep "Subscription $s deleted."
	expect_nogrep "<tr id=\"sub-$s\">"
done
ok "/subscriptions: sign in, subscribe, test and delete by form"

# 11. unsubscribe
klab unsubscribe "$S_FEED" >"$TMP/out" || fail "unsubscribe"
expect_grep "subscription $S_FEED deleted" "$TMP/out"
KLAB_TOKEN=$ALICE klab unsubscribe "$S_MAIL" >/dev/null || fail "alice unsubscribes"
klab subscriptions --format json | jget '[s["id"] for s in d["subscriptions"]]' >"$TMP/out"
expect_nogrep "$S_FEED," "$TMP/out"
klab unsubscribe "$S_FEED" >"$TMP/out" 2>&1 && fail "deleted twice"
expect_grep "unknown subscription $S_FEED" "$TMP/out"
ok "unsubscribe"

# 12. alert_smtp_starttls = yes: no mail in clear to a server without TLS
stop_klabd
{ echo "alert_smtp_starttls = yes"
  sed 's/^alert_max_attempts = .*/alert_max_attempts = 1/' "$TMP/klabd.conf"; } >"$TMP/tls.conf"
start_klabd --config "$TMP/tls.conf"
klab subscribe --email tls@example.org >"$TMP/out" || fail "subscribe tls"
S_TLS=$(jget 'd["id"]' <"$TMP/out")
klab alert test "$S_TLS" >/dev/null || fail "alert test tls"
D_TLS=$(http GET /api/alerts | jget "[x['id'] for x in d['deliveries'] if x['subscription'] == $S_TLS][0]")
tls_failed() { [ "$(delivery state "$D_TLS")" = failed ]; }
wait_for "the STARTTLS refusal" 100 tls_failed
delivery last_error "$D_TLS" | grep "Requested SSL level failed" >/dev/null ||
	fail "STARTTLS: $(cat "$TMP/alerts.json")"
grep -l "tls@example.org" "$SINK"/mail-*.env >/dev/null 2>&1 && fail "a mail went out without TLS"
stop_klabd
ok "STARTTLS required: nothing sent in clear; klabd stops cleanly"
