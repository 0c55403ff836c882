#!/bin/sh
# SPDX-License-Identifier: MIT
# Three low findings of issue 29 (docs/SECURITY.md), each black-box on a
# real klabd with two remote rigs (r1, r2) and two submitters:
#  (1) boot files: a rig downloads the kernel and initramfs of a job
#      handed to it, and no other rig's (403 naming the file and the
#      rig; an unknown hash 404);
#  (2) the "Bisect" button (POST /submissions/ID/bisect): only the
#      submission's submitter or an operator may start a bisection of
#      it, anyone else is 403 naming the owner and nothing is stored;
#  (3) webhooks carry X-Klab-Timestamp and sign "TIMESTAMP.BODY"
#      (docs/API.md): the receiver (t2020-alerts-sink.py, the recipe of
#      docs/OPERATOR.md) verifies a delivery, the shell recipe gives the
#      same signature, a delivery replayed more than 300 s later is
#      refused, and so is one replayed with a fresh timestamp.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v openssl >/dev/null || skip "no openssl"

sink_start hook-secret
cat >"$TMP/klabd.conf" <<CONF
alert_retry_base = 1
alert_retry_max = 1
alert_timeout = 5
[rig r1]
kind = remote
token = tok-r1-secret
autostart = no
[rig r2]
kind = remote
token = tok-r2-secret
autostart = no
CONF
start_klabd --config "$TMP/klabd.conf"
ALICE=$(make_token alice submitter) || fail "token add alice"
BOB=$(make_token bob submitter) || fail "token add bob"
R1='Authorization: Bearer tok-r1-secret'
R2='Authorization: Bearer tok-r2-secret'
JSON='Content-Type: application/json'

# (1) boot files ---------------------------------------------------------
# kernel IDENT: in the catalog with an image of random bytes
kernel() {
	http POST /api/kernels -H "$JSON" -d "{\"ident\":\"$1\"}" >/dev/null
	expect_status 201
	head -c 200000 /dev/urandom >"$TMP/img-$1"
	sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-$1', \
		image = '$TMP/img-$1' WHERE ident = '$1'" || fail "sqlite3 $1"
}
# take RIG-HEADER KERNEL RIG FILE: queue a job of KERNEL on RIG, the rig
# polls it into FILE
take() {
	http POST /api/jobs -H "$JSON" \
		-d "{\"kernel\":\"$2\",\"rig\":\"$3\",\"suite\":\"tiobench\"}" >/dev/null
	expect_status 201
	http GET "/api/agent/next?wait=10" -H "$1" >"$4"
	expect_status 200
	[ "$(jq -r .job.kernel "$4")" = "$2" ] || fail "$3 was not given $2: $(cat "$4")"
}
# get RIG-HEADER URL: STATUS, the file in $TMP/got (an error's text in
# $TMP/body, a file's size only)
get() {
	STATUS=$(curl -s -o "$TMP/got" -w '%{http_code}' -H "$1" "$URL$2")
	if [ "$STATUS" = 200 ]; then
		echo "a file of $(wc -c <"$TMP/got") bytes" >"$TMP/body"
	else
		cp "$TMP/got" "$TMP/body"
	fi
}
for r in "$R1" "$R2"; do
	http POST /api/agent/register -H "$r" -H "$JSON" \
		-d '{"kernel_release":"x","job":0}' >/dev/null
	expect_status 200
done
kernel kx
kernel ky
take "$R1" kx r1 "$TMP/next1"
K1=$(jq -r .job.kernel_url "$TMP/next1")
I1=$(jq -r .job.initrd_url "$TMP/next1")
get "$R2" "$K1"; expect_status 403
expect_grep "file '$(basename "$K1")' boots no job handed to rig 'r2'"
get "$R2" "$I1"; expect_status 403
get "$R1" "$K1"; expect_status 200
cmp -s "$TMP/got" "$TMP/img-kx" || fail "r1's kernel differs"
get "$R1" "$I1"; expect_status 200
# r2's own job: its kernel, and the initramfs both jobs boot, not kx
take "$R2" ky r2 "$TMP/next2"
K2=$(jq -r .job.kernel_url "$TMP/next2")
I2=$(jq -r .job.initrd_url "$TMP/next2")
get "$R2" "$K2"; expect_status 200
cmp -s "$TMP/got" "$TMP/img-ky" || fail "r2's kernel differs"
get "$R2" "$I2"; expect_status 200
get "$R2" "$K1"; expect_status 403
get "$R1" "$K2"; expect_status 403
expect_grep "boots no job handed to rig 'r1'"
get "$R1" "/api/agent/files/$(printf '0%.0s' $(seq 64))"; expect_status 404
ok "a rig downloads the boot files of its own jobs only"

# (2) the Bisect button of another's submission --------------------------
# a finished submission of alice's found worse, stored as the driver would
sqlite3 "$TMP/klab.db" "INSERT INTO submissions (base, rigs, suites, who, \
	state, verdict, created, finished) VALUES ('fake', 'r1', 'tiobench', \
	'alice', 'finished', 'worse', strftime('%s','now'), strftime('%s','now'))" ||
	fail "sqlite3 insert"
SID=$(sqlite3 "$TMP/klab.db" "SELECT MAX(id) FROM submissions")
# bisect_as TOKEN: sign in with TOKEN and press the button of $SID
bisect_as() {
	J=$TMP/jar
	rm -f "$J"
	curl -s -o /dev/null -c "$J" --data-urlencode "token=$1" "$URL/login" ||
		fail "login"
	curl -s -b "$J" "$URL/bisections/new" >"$TMP/new.html"
	CSRF=$(sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/new.html" | head -1)
	[ ${#CSRF} -eq 64 ] || fail "no csrf on /bisections/new"
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" \
		-H 'Content-Type: application/x-www-form-urlencoded' \
		--data-binary "csrf=$CSRF&metric=tiobench.seq_read.rate" \
		"$URL/submissions/$SID/bisect")
}
bisect_as "$BOB"
expect_status 403
expect_grep "submission $SID is &#39;alice&#39;&#39;s: only its submitter or an operator may bisect it"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 0 ] ||
	fail "bob's press stored a bisection"
# its owner and an operator pass the owner check (and meet the next one:
# this submission has no cells to bisect)
bisect_as "$ALICE"
expect_status 409; expect_grep "is not a finished submission found worse"
bisect_as "$KLAB_TOKEN"
expect_status 409; expect_grep "is not a finished submission found worse"
ok "only its submitter or an operator bisects a submission"

# (3) webhook timestamps -------------------------------------------------
klab subscribe --webhook "$HOOK/ok" --secret hook-secret >"$TMP/out" ||
	fail "subscribe: $(cat "$TMP/out")"
S=$(jq -r .id "$TMP/out")
klab alert test "$S" >/dev/null || fail "klab alert test"
i=0
until [ -s "$SINK/hook-1.json" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no webhook came: $(cat "$TMP/sink.log")"
	sleep 0.1
done
H=$SINK/hook-1.json
jq -e '.verified' "$H" >/dev/null || fail "the delivery was not verified: $(jq -c '{why, timestamp}' "$H")"
TS=$(jq -r .timestamp "$H")
SIG=$(jq -r .signature "$H")
DID=$(jq -r .delivery "$H")
jq -j .raw "$H" >"$TMP/raw"
NOW=$(date +%s)
[ $((NOW - TS)) -ge 0 ] && [ $((NOW - TS)) -le 60 ] ||
	fail "X-Klab-Timestamp $TS is not the time of sending ($NOW)"
# docs/OPERATOR.md's shell recipe: HMAC-SHA256 of TIMESTAMP.BODY
WANT=$({ printf '%s.' "$TS"; cat "$TMP/raw"; } |
	openssl dgst -sha256 -hmac hook-secret | sed 's/^.*= *//')
[ "$SIG" = "sha256=$WANT" ] || fail "signature $SIG is not HMAC(TIMESTAMP.BODY) $WANT"
# replay HOOKFILE-NUMBER TIMESTAMP: the captured delivery posted again
replay() {
	STATUS=$(curl -s -o /dev/null -w '%{http_code}' -H "$JSON" \
		-H "X-Klab-Timestamp: $2" -H "X-Klab-Signature: $SIG" \
		-H "X-Klab-Event: test" -H "X-Klab-Delivery: $DID" \
		--data-binary @"$TMP/raw" "$HOOK/ok")
	[ -s "$SINK/hook-$1.json" ] || fail "the receiver did not record replay $1"
}
echo 360 >"$SINK/skew"		# the receiver's clock, 6 minutes on
replay 2 "$TS"
expect_status 401
jq -e '(.verified | not) and (.why | test("timestamp"))' "$SINK/hook-2.json" >/dev/null ||
	fail "an old delivery: $(jq -c '{verified, why}' "$SINK/hook-2.json")"
replay 3 $((TS + 360))		# a fresh time on the old signature
expect_status 401
jq -e '(.verified | not) and .why == "bad signature"' "$SINK/hook-3.json" >/dev/null ||
	fail "a re-timed delivery: $(jq -c '{verified, why}' "$SINK/hook-3.json")"
rm -f "$SINK/skew"		# the same bytes within 300 s verify
replay 4 "$TS"
expect_status 200
ok "webhooks sign their timestamp; a replay 6 minutes on is refused"
