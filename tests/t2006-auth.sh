#!/bin/sh
# SPDX-License-Identifier: MIT
# Identity and roles (docs/API.md "Authentication", docs/SECURITY.md):
# every state-changing route refuses a request without a token (401), a
# submitter on operator routes (403), wrong, empty and revoked tokens, and
# cross-site simple forms (text/plain, urlencoded: 401 without a token,
# 415 on an API route, 403 on a form without its CSRF field); tokens and
# rig tokens are not stored in clear and are compared in constant time; an
# empty rig token in the configuration stops klabd at start; the /login
# session and the CSRF-protected "bring online" form work with a real
# cookie; job command lines and suite names are checked against their
# allow-lists; read_access = token closes reading; the audit log records
# who did what.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/klabd.conf" <<CONF
[rig r1]
kind = remote
token = tok-r1-secret-0123456789
autostart = no
[rig r2]
kind = remote
autostart = no
CONF
start_klabd --config "$TMP/klabd.conf"
OPER=$KLAB_TOKEN
SUB=$(make_token alice submitter) || fail "token add alice"
[ ${#SUB} -eq 64 ] || fail "a token is 256 bits in hex, got '$SUB'"
make_token alice submitter >/dev/null 2>"$TMP/err" && fail "a second 'alice' was added"
expect_grep "token 'alice' exists already" "$TMP/err"
make_token bob admin >/dev/null 2>"$TMP/err" && fail "role 'admin' accepted"
expect_grep "invalid role 'admin'" "$TMP/err"
"$KLAB_BIN/klabd" token list --db "$TMP/klab.db" >"$TMP/list" || fail "token list"
expect_grep '^alice  *submitter' "$TMP/list"
expect_grep '^test-operator  *operator' "$TMP/list"
expect_nogrep "$SUB" "$TMP/list"

# METHOD PATH TYPE BODY ROLE for every state-changing route
cat >"$TMP/routes" <<'R'
POST /api/import text/plain x submitter
POST /api/jobs application/json {"kernel":"k","rig":"r1","suite":"tiobench"} submitter
POST /api/builds application/json {"base":"nope"} submitter
POST /api/kernels application/json {"ident":"k-auth"} operator
POST /api/rigs application/json {"name":"box9"} operator
POST /api/rigs/r1/online application/json {} operator
POST /api/suites application/json {"name":"s9"} operator
POST /api/catalog/debian application/json {"spec":"nope"} operator
GET /api/audit - - operator
GET /api/status - - operator
POST /api/agent/register application/json {} agent
POST /api/agent/jobs/1/results application/json {} agent
POST /api/agent/jobs/1/kexec application/json {} agent
POST /api/agent/jobs/1/fail application/json {} agent
GET /api/agent/next - - agent
GET /api/agent/files/0123abcd - - agent
R
call() {	# call TOKEN METHOD PATH TYPE BODY
	tok=$1; m=$2; p=$3; ty=$4; b=$5
	set -- -H "Authorization: Bearer $tok"
	[ "$ty" != - ] && set -- "$@" -H "Content-Type: $ty" --data-binary "$b"
	http "$m" "$p" "$@" >/dev/null
}
n=0
while read -r m p ty b role; do
	HTTP_NOAUTH=1 call "" "$m" "$p" "$ty" "$b"
	HTTP_NOAUTH=1 http "$m" "$p" >/dev/null
	[ "$STATUS" = 401 ] || fail "$m $p without a token: $STATUS"
	expect_grep '"error"'
	for bad in wrong-token "$SUB$SUB" "" "$OPER "; do
		call "$bad" "$m" "$p" "$ty" "$b"
		[ "$STATUS" = 401 ] || fail "$m $p with token '$bad': $STATUS"
	done
	call "$SUB" "$m" "$p" "$ty" "$b"
	case $role in
	operator) [ "$STATUS" = 403 ] || fail "$m $p as submitter: $STATUS"
		expect_grep "token 'alice' has role 'submitter'" ;;
	agent) [ "$STATUS" = 401 ] || fail "$m $p with a user token: $STATUS"
		expect_grep "rig token" ;;
	*) case $STATUS in 401|403|415) fail "$m $p as submitter: $STATUS";; esac ;;
	esac
	n=$((n + 1))
done <"$TMP/routes"
ok "$n routes: 401 without a token or with a wrong one, 403 for a submitter on operator routes"

# the rig's own token opens the agent routes, and nothing else
http GET "/api/agent/next?wait=0" -H 'Authorization: Bearer tok-r1-secret-0123456789' >/dev/null
[ "$STATUS" = 204 ] || fail "agent next with the rig token: $STATUS"
call tok-r1-secret-0123456789 POST /api/kernels application/json '{"ident":"k2"}'
expect_status 401
http GET /api/agent/next -H 'Authorization: Bearer ' >/dev/null; expect_status 401

# a boot file through the table's file route: the rig token, streamed
http POST /api/kernels -H 'Content-Type: application/json' -d '{"ident":"kx"}' >/dev/null
expect_status 201
head -c 300000 /dev/urandom >"$TMP/img"
sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-x', image = '$TMP/img' WHERE ident = 'kx'"
call "$SUB" POST /api/jobs application/json '{"kernel":"kx","rig":"r1","suite":"tiobench"}'
expect_status 201
RT='Authorization: Bearer tok-r1-secret-0123456789'
http POST /api/agent/register -H "$RT" -H 'Content-Type: application/json' \
	-d '{"kernel_release":"x","job":0}' >/dev/null
expect_status 200
http GET "/api/agent/next?wait=10" -H "$RT" >"$TMP/next"
expect_status 200
u=$(jq -r .job.kernel_url "$TMP/next")
case $u in /api/agent/files/*) ;; *) fail "no kernel_url in $(cat "$TMP/next")";; esac
HTTP_NOAUTH=1 http GET "$u" >/dev/null; expect_status 401
http GET "$u" >/dev/null; expect_status 401	# a user token is not a rig's
STATUS=$(curl -s -o "$TMP/got" -w '%{http_code}' -H "$RT" "$URL$u")
expect_status 200
cmp -s "$TMP/got" "$TMP/img" || fail "the downloaded file differs"
[ "$(jq -r .job.kernel_sha256 "$TMP/next")" = "$(sha256sum "$TMP/img" | cut -c1-64)" ] ||
	fail "kernel_sha256 is not the file's"
http POST /api/agent/jobs/1/fail -H "$RT" -H 'Content-Type: application/json' \
	-d '{"class":"infra","error":"test"}' >/dev/null
ok "boot files through the route table with the rig token"

# cross-site simple forms: no token -> 401; with a token the API reads
# only the types it documents (415), a form route only urlencoded
HTTP_NOAUTH=1 http POST /api/import -H 'Content-Type: text/plain' --data-binary 'x' >/dev/null
expect_status 401
HTTP_NOAUTH=1 http POST /api/jobs -H 'Content-Type: application/x-www-form-urlencoded' \
	--data-binary 'kernel=k&rig=r1&suite=tiobench' >/dev/null
expect_status 401
HTTP_NOAUTH=1 http POST /api/rigs/r1/online -H 'Content-Type: multipart/form-data; boundary=x' \
	--data-binary '--x--' >/dev/null
expect_status 401
for ty in text/plain application/x-www-form-urlencoded multipart/form-data; do
	http POST /api/jobs -H "Content-Type: $ty" --data-binary 'a=b' >/dev/null
	expect_status 415
	expect_grep "unsupported content type '$ty'"
done
HTTP_NOAUTH=1 http POST /rigs/r1/online -H 'Content-Type: application/x-www-form-urlencoded' \
	--data-binary 'csrf=x' >/dev/null
expect_status 401
ok "cross-site simple forms refused (401, 415)"

# revoked tokens stop working at once
BOB=$(make_token bob submitter) || fail "token add bob"
http POST /api/import -H "Authorization: Bearer $BOB" -H 'Content-Type: text/plain' \
	--data-binary @"$TOP/tests/data/demo/dbench-50.txt" >/dev/null
expect_status 201
"$KLAB_BIN/klabd" token revoke bob --db "$TMP/klab.db" || fail "token revoke"
"$KLAB_BIN/klabd" token revoke bob --db "$TMP/klab.db" 2>"$TMP/err" && fail "revoked twice"
expect_grep "no token named 'bob'" "$TMP/err"
http POST /api/import -H "Authorization: Bearer $BOB" -H 'Content-Type: text/plain' \
	--data-binary @"$TOP/tests/data/demo/dbench-50.txt" >/dev/null
expect_status 401
KLAB_TOKEN=$BOB klab import "$TOP/tests/data/demo/dbench-50.txt" 2>"$TMP/err" && fail "klab with a revoked token"
expect_grep "unknown token" "$TMP/err"
ok "revoked token refused"

# the CLI: --token, KLAB_TOKEN, the token file
KLAB_TOKEN= klab import "$TOP/tests/data/demo/dbench-50.txt" 2>"$TMP/err" && fail "klab without a token"
expect_grep "missing token" "$TMP/err"
KLAB_TOKEN= klab --token "$SUB" import "$TOP/tests/data/demo/dbench-50.txt" >/dev/null || fail "klab --token"
mkdir -p "$TMP/xdg/klab" && echo "$SUB" >"$TMP/xdg/klab/token"
KLAB_TOKEN= XDG_CONFIG_HOME=$TMP/xdg klab import "$TOP/tests/data/demo/dbench-50.txt" >/dev/null ||
	fail "klab with the token file"
ok "klab sends --token, KLAB_TOKEN or ~/.config/klab/token"

# allow-lists: the kernel command line and suite names
for bad in 'init=/bin/sh' 'klab.token=x' 'elevator=none quiet rdinit=/x' 'elevator=$(id)'; do
	call "$SUB" POST /api/jobs application/json \
		"{\"kernel\":\"k\",\"rig\":\"r1\",\"suite\":\"tiobench\",\"cmdline\":\"$bad\"}"
	expect_status 403
	expect_grep "is not allowed"
done
for bad in '../../../etc/passwd' 'tiobench/../fio' 'nosuch' '.hidden'; do
	call "$SUB" POST /api/jobs application/json \
		"{\"kernel\":\"k\",\"rig\":\"r1\",\"suite\":\"$bad\"}"
	# 400: not a suite name at all (lib/ident.c); 403: not a known suite
	case $STATUS in 400|403) ;; *) fail "suite '$bad': HTTP $STATUS" ;; esac
done
call "$SUB" POST /api/jobs application/json \
	'{"kernel":"k","rig":"r1","suite":"tiobench","cmdline":"elevator=bfq quiet"}'
[ "$STATUS" = 403 ] && fail "an allowed command line refused: $(cat "$TMP/body")"
ok "job cmdline and suite allow-lists"

# nothing secret in the database, and the file is the owner's only
sqlite3 "$TMP/klab.db" .dump >"$TMP/dump" || fail "sqlite3 .dump"
for s in "$OPER" "$SUB" "$BOB" tok-r1-secret-0123456789; do
	grep -q -- "$s" "$TMP/dump" && fail "a token is stored in clear: ${s%"${s#????????}"}..."
done
grep -q "$(printf %s "$SUB" | sha256sum | cut -c1-64)" "$TMP/dump" || fail "no hash of alice's token"
[ "$(stat -c %a "$TMP/klab.db")" = 600 ] || fail "database mode $(stat -c %a "$TMP/klab.db")"
ok "tokens stored as SHA-256 hashes, database mode 600"

# constant-time comparison (code review): every token check goes
# through secret_equal (lib/sha256.c), which is CRYPTO_memcmp
grep -q 'CRYPTO_memcmp(a, b, n)' "$TOP/lib/sha256.c" || fail "secret_equal lost CRYPTO_memcmp"
sed -n '/^struct rig \*rigmgr_by_token/,/^}/p' "$TOP/lab/rigmgr.c" >"$TMP/bytoken"
expect_grep 'secret_equal' "$TMP/bytoken"
expect_nogrep 'strcmp' "$TMP/bytoken"
ok "tokens compared with CRYPTO_memcmp"

# the web: /login sets an HttpOnly SameSite=Strict cookie; the rigs page
# gives an operator a CSRF-carrying form for the offline rig
J=$TMP/cookies
curl -s -o /dev/null -D "$TMP/h" -c "$J" "$URL/login" || fail "GET /login"
curl -s -o "$TMP/body" -D "$TMP/h" -c "$J" -w '%{http_code}' --data-urlencode "token=nope" \
	"$URL/login" >"$TMP/code"
[ "$(cat "$TMP/code")" = 401 ] || fail "login with a wrong token: $(cat "$TMP/code")"
expect_grep 'unknown token'
curl -s -o /dev/null -D "$TMP/h" -c "$J" --data-urlencode "token=$OPER" \
	--data-urlencode "next=/rigs" "$URL/login" || fail "POST /login"
expect_grep '^HTTP/1.1 303' "$TMP/h"
grep -qi '^x-frame-options: DENY' "$TMP/h" || fail "pages may be framed"
grep -i '^set-cookie: klab_session=[0-9a-f]\{64\}; Path=/; HttpOnly; SameSite=Strict' "$TMP/h" >/dev/null ||
	fail "session cookie: $(grep -i set-cookie "$TMP/h")"
curl -s -b "$J" "$URL/rigs" >"$TMP/rigs.html" || fail "GET /rigs"
expect_grep 'action="/rigs/r2/online"' "$TMP/rigs.html"
CSRF=$(sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/rigs.html" | head -1)
[ ${#CSRF} -eq 64 ] || fail "no csrf token in the rigs page"
curl -s "$URL/rigs" | grep -q 'name="csrf"' && fail "the anonymous rigs page has a form"
post_form() {	# post_form COOKIEJAR PATH DATA: sets STATUS
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$1" -H 'Content-Type: application/x-www-form-urlencoded' \
		--data-binary "$3" "$URL$2")
}
post_form "$J" /rigs/r2/online "online=r2"; expect_status 403
expect_grep 'csrf'
post_form "$J" /rigs/r2/online "csrf=$(printf %064d 0)"; expect_status 403
post_form /dev/null /rigs/r2/online "csrf=$CSRF"; expect_status 401
# the cookie never authorises the API, even with the CSRF field
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" -H 'Content-Type: application/json' \
	--data-binary '{}' "$URL/api/rigs/r2/online")
expect_status 401
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" -H 'Content-Type: text/plain' \
	--data-binary "csrf=$CSRF" "$URL/rigs/r2/online")
expect_status 415
# a bearer token does not stand in for the session's CSRF field
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" -H "Authorization: Bearer $OPER" \
	-H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'csrf=' "$URL/rigs/r2/online")
expect_status 401
post_form "$J" /rigs/r2/online "csrf="; expect_status 403
# a browser's cross-site form is refused before anything else
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" -H 'Sec-Fetch-Site: cross-site' \
	-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "csrf=$CSRF" "$URL/rigs/r2/online")
expect_status 403
expect_grep 'form posted from another site'
post_form "$J" /rigs/r2/online "csrf=$CSRF"; expect_status 303
http GET /api/rigs/r2 >/dev/null
expect_nogrep '"state":"offline"'
# a submitter's session gets no form, and its posts are refused
SJ=$TMP/cookies-sub
curl -s -o /dev/null -c "$SJ" --data-urlencode "token=$SUB" "$URL/login"
curl -s -b "$SJ" "$URL/rigs" | grep -q 'action="/rigs/r2/online"' && fail "a submitter got the operator's form"
post_form "$SJ" /rigs/r2/online "csrf=$CSRF"; expect_status 403
ok "login cookie and CSRF-protected rig form"

# the audit log: who did what
http GET /api/audit >/dev/null; expect_status 200
for a in '"action":"import","subject":"upload"' '"who":"alice"' '"action":"rig online","subject":"r2"' \
	'"who":"local:[^"]*","role":"operator","action":"token add","subject":"alice"' \
	'"action":"token revoke","subject":"bob"' \
	'"action":"login"' '"who":"test-operator","role":"operator","action":"rig online"'; do
	expect_grep "$a"
done
klab audit >"$TMP/audit" || fail "klab audit"
expect_grep 'alice  *submitter  *import' "$TMP/audit"
KLAB_TOKEN=$SUB klab audit 2>"$TMP/err" && fail "a submitter read the audit log"
ok "audit rows for imports, jobs, rigs, tokens, logins"

# read_access = token: reading needs a token (health and /login stay open)
stop_klabd
{ printf 'read_access = token\n'; cat "$TMP/klabd.conf"; } >"$TMP/read.conf"
start_klabd --config "$TMP/read.conf"
for p in /api/runs /api/kernels /rigs / /compare /api/rigs/r1; do
	HTTP_NOAUTH=1 http GET "$p" >/dev/null; expect_status 401
	http GET "$p" -H "Authorization: Bearer $SUB" >/dev/null; expect_status 200
done
for p in /api/health /login /style.css; do
	HTTP_NOAUTH=1 http GET "$p" >/dev/null; expect_status 200
done
curl -s -o /dev/null -c "$J" --data-urlencode "token=$SUB" "$URL/login"
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -b "$J" "$URL/rigs"); expect_status 200
ok "read_access = token"

# an empty rig token is an error at start, naming file and line
printf '[rig r2]\nkind = remote\ntoken =\n' >"$TMP/empty.conf"
"$KLAB_BIN/klabd" --config "$TMP/empty.conf" --listen 127.0.0.1:0 --db "$TMP/e.db" \
	--data-dir "$TMP/edata" >"$TMP/empty.log" 2>&1 && fail "klabd started with an empty rig token"
expect_grep "empty.conf:3: \[rig r2\] token is empty" "$TMP/empty.log"
printf 'read_access = maybe\n' >"$TMP/ra.conf"
"$KLAB_BIN/klabd" --config "$TMP/ra.conf" --listen 127.0.0.1:0 --db "$TMP/e.db" \
	--data-dir "$TMP/edata" >"$TMP/ra.log" 2>&1 && fail "klabd started with read_access = maybe"
expect_grep "read_access: expected 'open' or 'token'" "$TMP/ra.log"
ok "empty rig token and bad read_access refused at start"

# headless Chromium: the login page renders its form
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
	timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/chrome" --dump-dom "$URL/login?next=/rigs" \
		>"$TMP/login.html" 2>>"$TMP/chrome.log" || fail "chromium: $(tail -3 "$TMP/chrome.log")"
	expect_grep '<form method="post" action="/login">' "$TMP/login.html"
	expect_grep 'name="token"' "$TMP/login.html"
	ok "chromium renders /login"
fi
stop_klabd
