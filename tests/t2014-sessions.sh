#!/bin/sh
# SPDX-License-Identifier: MIT
# Web sessions (docs/SECURITY.md, "Identity, roles and forms"; issue 29),
# black-box with curl's cookie jars on a real klabd:
# - a session ends as soon as its token is revoked (`klabd token
#   revoke`): its form post is 401, its pages are anonymous again, and a
#   token added again under the same name does not revive it;
# - POST /logout (session + CSRF) ends the session and clears the cookie;
#   every page of a signed-in user has the sign-out button, an anonymous
#   page a sign-in link; without the CSRF field or from another site it
#   is refused and the session lives on;
# - after sign-in, next= goes only to a path on this site: hostile values
#   (//host, /\host, /%09/host, /%2F/host, absolute URLs, control bytes or
#   spaces anywhere) are answered with Location: /;
# - one token's sign-ins never sign anyone else out: 300 sign-ins of B
#   leave A's session working, B keeps at most 8 sessions (its newest),
#   and when the table is full of others' live sessions a sign-in is
#   refused with 503 rather than ending one of them.
. "$(dirname "$0")/lib.sh"

printf '[rig r1]\nkind = remote\ntoken = tok-r1\nautostart = no\n' >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"
OPER=$KLAB_TOKEN
ALICE=$(make_token alice operator) || fail "token add alice"
BOB=$(make_token bob submitter) || fail "token add bob"

# signin JAR TOKEN [NEXT]: POST /login; sets STATUS, headers in $TMP/h
signin() {
	set -- "$1" "$2" "${3:-/rigs}"
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/h" -c "$1" -w '%{http_code}' \
		--data-urlencode "token=$2" --data-urlencode "next=$3" "$URL/login")
}
# page JAR PATH: GET with the jar's cookie into $TMP/page; sets STATUS
page() {
	STATUS=$(curl -s -o "$TMP/page" -w '%{http_code}' -b "$1" "$URL$2")
}
# csrf_of JAR: the CSRF token of the jar's session, from the first form
# of /rigs that has one (the sign-out button, or an operator's form)
csrf_of() {
	page "$1" /rigs
	sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/page" | head -1
}
# post_form JAR PATH DATA [curl args]: sets STATUS, headers in $TMP/h
post_form() {
	_j=$1 _p=$2 _d=$3
	shift 3
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/h" -b "$_j" -c "$_j" -w '%{http_code}' \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$_d" "$@" "$URL$_p")
}
location() { sed -n 's/^[Ll]ocation: \(.*\)\r$/\1/p' "$TMP/h"; }

# --- a revoked token's session ends at once ---
J=$TMP/alice
signin "$J" "$ALICE"
expect_status 303
C=$(csrf_of "$J")
[ ${#C} -eq 64 ] || fail "no csrf token on /rigs for a signed-in operator"
expect_grep 'action="/rigs/r1/online"' "$TMP/page"
"$KLAB_BIN/klabd" token revoke alice --db "$TMP/klab.db" || fail "token revoke alice"
post_form "$J" /rigs/r1/online "csrf=$C"
expect_status 401
expect_grep 'not signed in'
page "$J" /rigs
expect_nogrep 'action="/rigs/r1/online"' "$TMP/page"
expect_nogrep 'sign out' "$TMP/page"
expect_grep 'href="/login"' "$TMP/page"
# the same name again is another token: the old session stays dead
ALICE2=$(make_token alice operator) || fail "token add alice again"
post_form "$J" /rigs/r1/online "csrf=$C"
expect_status 401
ok "a revoked token's session ends at once (401, anonymous pages), not revived by a new token of that name"

# --- sign-out ---
J=$TMP/alice2
signin "$J" "$ALICE2"
C=$(csrf_of "$J")
[ ${#C} -eq 64 ] || fail "no csrf for alice's new session"
for p in / /kernels /runs /rigs /compare /history /alerts /submissions /queue /bisections /subscriptions /submit; do
	page "$J" "$p"
	expect_status 200
	grep -q 'action="/logout"' "$TMP/page" || fail "no sign-out button on $p"
done
expect_grep '<button type="submit" id="signout">sign out</button>' "$TMP/page"
expect_grep '>alice<input type="hidden" name="csrf" value="'"$C"'">' "$TMP/page"
page /dev/null /rigs
expect_nogrep 'action="/logout"' "$TMP/page"
expect_grep '<a href="/login">sign in</a>' "$TMP/page"
post_form "$J" /logout ""
expect_status 403
post_form "$J" /logout "csrf=$C" -H 'Sec-Fetch-Site: cross-site'
expect_status 403
post_form /dev/null /logout "csrf=$C"
expect_status 401
page "$J" /rigs
expect_grep 'action="/rigs/r1/online"' "$TMP/page"
cp "$J" "$TMP/alice2.before"
post_form "$J" /logout "csrf=$C"
expect_status 303
[ "$(location)" = /login ] || fail "sign-out goes to '$(location)', not /login"
grep -qi '^set-cookie: klab_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0' "$TMP/h" ||
	fail "sign-out does not clear the cookie: $(grep -i set-cookie "$TMP/h")"
# the old cookie, kept by someone, no longer works either
post_form "$TMP/alice2.before" /rigs/r1/online "csrf=$C"
expect_status 401
page "$TMP/alice2.before" /rigs
expect_nogrep 'action="/logout"' "$TMP/page"
http GET "/api/audit?limit=5" >/dev/null
expect_grep '"action":"logout","subject":"alice"'
ok "POST /logout ends the session (303 to /login, cookie cleared), needs its CSRF; a button on every page"

# --- next= after sign-in stays on this site ---
J=$TMP/bob
for bad in '//evil.example' '/\evil.example' '/%09/evil.example' "$(printf '/\t/evil.example')" \
	'/%2F/evil.example' '/%2f%2fevil.example' '/%5Cevil.example' 'https://evil.example/' \
	'http:evil.example' 'evil.example' ' /x' '/x y' "$(printf '/x\r\nSet-Cookie: a=b')" \
	"$(printf '/\001x')" '/%0d%0aX-Evil:%201' '%2F%2Fevil.example' "$(printf '/\177x')"; do
	signin "$J" "$BOB" "$bad"
	expect_status 303
	[ "$(location)" = / ] || fail "next='$bad' redirected to '$(location)', not /"
done
for good in /submissions /rigs '/compare?k=6.1.1&k=6.1.2' /kernels/6.1.192 '/history?metric=a%2Fb'; do
	signin "$J" "$BOB" "$good"
	[ "$(location)" = "$good" ] || fail "next='$good' redirected to '$(location)'"
done
curl -s -o /dev/null -D "$TMP/h" --data-urlencode "token=$BOB" "$URL/login"
[ "$(location)" = /rigs ] || fail "without next: '$(location)', not /rigs"
ok "hostile next= values go to /, paths on this site are kept"

# --- one token cannot sign everyone out ---
J=$TMP/oper
signin "$J" "$OPER"
CO=$(csrf_of "$J")
i=0
while [ $i -lt 300 ]; do
	curl -s -o /dev/null -c "$TMP/bob.$((i % 10))" --data-urlencode "token=$BOB" "$URL/login"
	i=$((i + 1))
done
page "$J" /rigs
expect_grep 'action="/rigs/r1/online"' "$TMP/page"
post_form "$J" /rigs/r1/online "csrf=$CO"
expect_status 303
# bob's 8 newest sessions work, older ones are gone
live=0
for k in 0 1 2 3 4 5 6 7 8 9; do
	page "$TMP/bob.$k" /
	grep -q 'action="/logout"' "$TMP/page" && live=$((live + 1))
done
[ "$live" -eq 8 ] || fail "bob has $live of his last 10 sessions, expected his 8 newest"
ok "300 sign-ins of one token leave another user's session working; the token keeps its 8 newest"

# fill the table with others' live sessions (32 tokens x 8 = 256 slots):
# the next sign-in is 503, nobody is signed out
i=0
while [ $i -lt 31 ]; do
	T=$(make_token "u$i" submitter) || fail "token add u$i"
	k=0
	while [ $k -lt 8 ]; do
		curl -s -o /dev/null -c "$TMP/u$i.$k" --data-urlencode "token=$T" "$URL/login"
		k=$((k + 1))
	done
	i=$((i + 1))
done
# 31 x 8 + bob's 8 + the operator's 1 = 257: the last u30 sign-in failed
T=$(make_token late submitter) || fail "token add late"
signin "$TMP/late" "$T"
expect_status 503
expect_grep 'all 256 sessions are held by other signed-in users'
[ -z "$(location)" ] || fail "a refused sign-in redirected to '$(location)'"
post_form "$J" /rigs/r1/online "csrf=$CO"
expect_status 303
page "$TMP/u0.0" /
grep -q 'action="/logout"' "$TMP/page" || fail "u0's first session was signed out"
# one signs out: the slot is free again
post_form "$TMP/u0.0" /logout "csrf=$(csrf_of "$TMP/u0.0")"
expect_status 303
signin "$TMP/late" "$T"
expect_status 303
ok "a full table refuses a sign-in with 503 and signs nobody out; a sign-out frees a slot"
stop_klabd
