#!/bin/sh
# SPDX-License-Identifier: MIT
# The /submit form as a user works it, in headless Chromium driven over
# the DevTools protocol (tests/t2011-submit-form.js): /login?next=/submit
# signs in with a submitter token (session cookie) and comes back to the
# form; the user types the base and picks a git format-patch file; the
# browser reads it into the form, posts it with the CSRF token and lands
# on the status page of the new submission, which names the patch by its
# subject, and stores the file byte for byte (no CR the form encoding
# added).  A patch that does not apply brings the form back naming the
# patch, the file and the hunk, and nothing is queued.
. "$(dirname "$0")/lib.sh"
chromium_need
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"
D=$TOP/tests/data
chmod 755 "$TMP"
submit_conf "$TMP/klabd.conf"
make_token alice submitter >"$TMP/alice" || fail "token alice"
start_klabd --config "$TMP/klabd.conf"

# browse FILE...: a fresh browser signs in as alice and submits FILEs
browse() {
	chromium_start
	timeout 60 node --experimental-websocket "$TOP/tests/t2011-submit-form.js" \
		"$TMP/chrome/DevToolsActivePort" "$URL" "$(cat "$TMP/alice")" fake "$@" \
		>"$TMP/result" 2>"$TMP/node.err"
	rc=$?
	chromium_stop
	[ $rc -eq 0 ] || fail "driving chromium: $(cat "$TMP/node.err"; tail -3 "$TMP/chrome.log")"
}

browse "$D/patches/good-elv.patch"
[ "$(jq -r .form "$TMP/result")" = /submit ] ||
	fail "signing in did not lead back to the form: $(cat "$TMP/result")"
[ "$(jq -r .landed "$TMP/result")" = /submissions/1 ] ||
	fail "the form did not land on the status page: $(cat "$TMP/result")"
jq -r .text "$TMP/result" >"$TMP/text"
expect_grep 'Submission 1' "$TMP/text"
expect_grep 'By alice' "$TMP/text"
expect_grep 'elevator: smaller batches' "$TMP/text"
http GET /api/submissions/1 >/dev/null
expect_grep '"who":"alice"'; expect_grep '"name":"good-elv.patch"'
# The browser posts the file with CRLF line breaks; klabd stores the
# submitter's bytes (so the build keys as the same file sent by the API).
# (each request's patches under a directory of their own, req-*/NN/NAME)
stored=$(find "$TMP/data/patches" -name good-elv.patch | head -n 1)
[ -n "$stored" ] && cmp "$D/patches/good-elv.patch" "$stored" ||
	fail "the stored patch is not the uploaded file: $(ls -R "$TMP/data/patches")"

browse "$D/patches/bad-hunk.patch"
[ "$(jq -r .landed "$TMP/result")" = /submit ] ||
	fail "a refused patch left the form: $(cat "$TMP/result")"
jq -r .text "$TMP/result" >"$TMP/text"
expect_grep "cannot apply patch 'bad-hunk.patch': hunk 2 of block/elevator.c failed" "$TMP/text"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM submissions")" = 1 ] ||
	fail "a refused patch was stored"
stop_klabd
ok "the /submit form in Chromium: sign in, upload, status page; a refused patch named"
