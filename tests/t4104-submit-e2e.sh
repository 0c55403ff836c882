#!/bin/sh
# SPDX-License-Identifier: MIT
# Slow tier (KLAB_SLOW=1, `make check-slow`): a patch submission end to
# end, as a kernel developer makes it, on a real QEMU rig.  alice
# subscribes by email (SMTP sink on 127.0.0.1, python3-aiosmtpd), by a
# signed webhook (a local receiver checks the HMAC) and by feed; she
# submits the shipped canary (kernels/patches/canary-slow.patch, 500 us on
# every request start; its build is t4100's, from the cache) through the
# /submit form in headless Chromium at scale 0.02 on the ssd disk model
# (the canary's 500 us is most of a request's time there; docs/RIGS.md,
# "Disk models"); the status page reloads itself while the submission
# moves through its stages (check, build, cells, verdict, report, alert);
# the verdict is worse; the mail arrives with the report, the webhook is
# received and verified, and the Atom feed parses with the worse_found
# entry.  Its comparison run (what klab compare-run drives) is worse on a
# read and on a write phase within the cap, and `klab compare
# --fail-on-worse` on its cells exits 4.  Then an A/A submission (a
# comment-only patch, tests/data/patches/aa-comment.patch) through klab
# submit --wait (3 cells a side, its first look: CI's time): not worse,
# and no worse alert is sent for it.  Every kexec of it loaded its
# kernel's kexec image.  About 11 minutes alone (2026-12-02:
# the A/A kernel's build, up to 8 canary cells and 3 A/A cells).
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_SLOW:-}" ] || skip "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium is not installed (apt-get install chromium)"
command -v node >/dev/null || skip "node is not installed"
command -v jq >/dev/null || skip "no jq"

MAX_CELLS=8
sink_start hook-secret
LAB_CONF="alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT
alert_smtp_from = klab@lab.example
submit_rigs = scsi0
submit_suites = tiobench
submit_max_cells = $MAX_CELLS"
lab_scsi_start ssd
ALICE=$(make_token alice submitter) || fail "token add alice"
export KLAB_TOKEN="$ALICE"
klab subscribe --email alice@example.org --event worse_found,submission_finished \
	>"$TMP/out" || fail "subscribe email: $(cat "$TMP/out")"
klab subscribe --webhook "$HOOK/ok" --secret hook-secret --event worse_found \
	>"$TMP/out" || fail "subscribe webhook: $(cat "$TMP/out")"
klab subscribe --feed --event worse_found >"$TMP/out" || fail "subscribe feed"
FEED=$(grep -o '/alerts.atom?subscription=[0-9]*' "$TMP/out")
[ -n "$FEED" ] || fail "no feed URL: $(cat "$TMP/out")"

# the canary, through the form in Chromium
echo "$ALICE" >"$TMP/alice"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
	--no-first-run --disable-background-networking \
	--disable-component-update --disable-sync --remote-debugging-port=0 \
	--user-data-dir="$TMP/chrome" about:blank 2>>"$TMP/chrome.log" &
CPID=$!
KLAB_FORM_FIELDS="scale=0.02" timeout 60 node --experimental-websocket \
	"$TOP/tests/t2011-submit-form.js" "$TMP/chrome/DevToolsActivePort" "$URL" \
	"$ALICE" debian-6.1 "$TOP/kernels/patches/canary-slow.patch" \
	>"$TMP/result" 2>"$TMP/node.err"
rc=$?
kill "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null
[ $rc -eq 0 ] || fail "driving chromium: $(cat "$TMP/node.err"; tail -3 "$TMP/chrome.log")"
[ "$(jq -r .landed "$TMP/result")" = /submissions/1 ] ||
	fail "the form did not land on the status page: $(cat "$TMP/result")"

# follow it: the stages it passes, the page reloading itself meanwhile
seen= refreshed=0 i=0
while :; do
	http GET /api/submissions/1 >/dev/null
	st=$(jq -r .state "$TMP/body") stage=$(jq -r .stage "$TMP/body")
	case " $seen " in *" $stage "*) ;; *) seen="$seen $stage" ;; esac
	[ "$st" = running ] || break
	if [ $refreshed = 0 ]; then
		http GET /submissions/1 >/dev/null
		grep -q 'http-equiv="refresh"' "$TMP/body" && refreshed=1
	fi
	i=$((i + 1))
	[ $i -gt 1800 ] && { tail -40 "$TMP/klabd.log"; fail "submission 1 still $st/$stage after an hour"; }
	sleep 2
done
echo "stages seen:$seen"
http GET /api/submissions/1 >/dev/null
[ "$(jq -r .state "$TMP/body")" = finished ] || { tail -40 "$TMP/klabd.log"; fail "submission 1: $(jq -c '{state,stage,error}' "$TMP/body")"; }
[ "$(jq -r .verdict "$TMP/body")" = worse ] || fail "the canary's verdict: $(jq -c '{verdict}' "$TMP/body")"
[ "$(jq -r '.scale // empty' "$TMP/body")" = 0.02 ] || fail "the submission's scale: $(jq -c .scale "$TMP/body")"
for st in check build cells verdict report alert; do
	expect_grep "\"stage\":\"$st\",\"state\":\"done\""
done
case "$seen" in *cells*) ;; *) fail "never saw the cells stage:$seen" ;; esac
[ $refreshed = 1 ] || fail "the status page did not reload itself while running"
expect_grep 'check-in on .*-klab+canary-slow' "$TMP/klabd.log"
http GET /submissions/1 >/dev/null
expect_grep 'Verdict: rig scsi0, suite tiobench'; expect_nogrep 'http-equiv="refresh"'
ok "the canary submitted through the form: stages$seen, worse"

# its comparison run (the engine of klab compare-run): within the cap,
# worse on a headline metric of a read and of a write phase
http GET /api/submissions/1 >/dev/null
CMP=$(jq -r '.cells[0].comparison' "$TMP/body")
http GET "/api/comparisons/$CMP" >/dev/null
expect_status 200
[ "$(jq -r .verdict "$TMP/body")" = worse ] || fail "comparison $CMP: $(jq -c '{state,verdict,summary}' "$TMP/body")"
[ "$(jq -r .planned "$TMP/body")" -le $MAX_CELLS ] || fail "more cells than the cap"
for p in read write; do
	[ "$(jq -r --arg p "$p" '[.metrics_decided | to_entries[] |
		select((.key | test("(seq|rand)_" + $p + "\\.(rate|avg_lat)$")) and .value == "worse")] | length' \
		"$TMP/body")" -ge 1 ] || fail "no $p phase decided worse: $(jq -c .metrics_decided "$TMP/body")"
done
expect_grep "comparison $CMP: look at" "$TMP/klabd.log"
# the same cells through `klab compare --fail-on-worse` (what a script or
# CI job runs): exit 4, the canary flagged as a headline regression
A=$(jq -r .base "$TMP/body") B=$(jq -r .candidate "$TMP/body")
klab compare "$A" "$B" --rig scsi0 --suite tiobench --fail-on-worse >"$TMP/cmp.txt"
rc=$?
cat "$TMP/cmp.txt"
[ $rc -eq 4 ] || fail "klab compare --fail-on-worse did not flag the canary (exit $rc)"
expect_grep '(worse, headline)' "$TMP/cmp.txt"
ok "its comparison: worse on a read and a write phase within $MAX_CELLS cells; klab compare --fail-on-worse exits 4"

# the bell: one mail with the report, the webhook verified, the feed
wait_file() { # GLOB WHAT: within 60 s
	i=0
	until ls $1 >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "no $2 in $SINK: $(ls "$SINK"; tail -5 "$TMP/klabd.log")"
		sleep 0.1
	done
}
wait_file "$SINK/mail-*.eml" mail
worse_mails() { grep -l '^X-Klab-Event: worse_found' "$SINK"/mail-*.eml 2>/dev/null; }
i=0
until [ -n "$(worse_mails)" ]; do
	i=$((i + 1))
	[ $i -gt 600 ] && fail "no worse_found mail: $(ls "$SINK")"
	sleep 0.1
done
M=$(worse_mails | head -n 1)
expect_grep 'alice@example.org' "${M%.eml}.env"
expect_grep 'submission 1' "$M"; expect_grep 'canary' "$M"
expect_grep 'tiobench' "$M"
wait_file "$SINK/hook-*.json" webhook
H=$(ls "$SINK"/hook-*.json | head -n 1)
[ "$(jq -r .verified "$H")" = true ] || fail "the webhook's signature: $(cat "$H")"
[ "$(jq -r .event "$H")" = worse_found ] || fail "the webhook's event: $(cat "$H")"
curl -s -o "$TMP/feed.xml" "$URL$FEED" || fail "GET $FEED"
out=$("$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml") || fail "the feed is not valid Atom: $(cat "$TMP/feed.xml")"
[ "$out" = "1 worse_found" ] || fail "feed: $out"
ok "alerts: mail with the report, webhook verified, Atom feed valid"

# A/A: a comment-only patch is not worse, and no worse alert goes out
nmail=$(ls "$SINK"/mail-*.eml | wc -l)
[ "$(worse_mails | wc -l)" = 1 ] || fail "the canary was mailed as worse more than once"
timeout 3600 "$KLAB_BIN/klab" submit debian-6.1 "$TOP/tests/data/patches/aa-comment.patch" \
	--scale 0.02 --max-cells 3 --wait >"$TMP/aa.out" 2>"$TMP/aa.err"
rc=$?
cat "$TMP/aa.err" "$TMP/aa.out"
[ $rc -eq 0 ] || [ $rc -eq 5 ] || fail "klab submit of the A/A patch exited $rc (0 same, 5 undecided)"
http GET /api/submissions/2 >/dev/null
vd=$(jq -r .verdict "$TMP/body")
case $vd in same|undecided) ;; *) fail "the A/A verdict: $vd" ;; esac
expect_nogrep 'alert worse_found: submission 2' "$TMP/klabd.log"
expect_grep 'alert submission_finished: submission 2' "$TMP/klabd.log"
sleep 3	# the outbox delivers within a second or two
[ "$(worse_mails | wc -l)" = 1 ] || fail "a worse_found mail for the A/A submission"
[ "$(ls "$SINK"/hook-*.json | wc -l)" = 1 ] || fail "a webhook for the A/A submission"
# every kexec loaded its kernel's kexec image, built kernels' included
# (docs/RIGS.md, "The kexec image")
expect_nogrep 'no kexec image' "$TMP/klabd.log"
ls "$TMP/data/kexec/"*.elf >/dev/null || fail "no kexec image was made"
stop_klabd
ok "A/A submission: $vd, no worse alert ($(($(ls "$SINK"/mail-*.eml | wc -l) - nmail)) more mail: submission_finished)"
