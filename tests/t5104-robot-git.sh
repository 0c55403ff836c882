#!/bin/sh
# SPDX-License-Identifier: MIT
# Slow tier (KLAB_SLOW=1, `make check-slow`): the regression robot on a
# real kernel (issue 32, "Done when").  A local git repository of
# linux-source-6.1 with 12 commits; commit 6 (neither the first nor the
# last) carries the positive control (kernels/patches/canary-slow.patch,
# 500 us on every request start), the others a comment each.  The
# commits are pushed in 3 batches (1-4, 5-8, 9-12) to the tracked branch
# of the git base "linux"; the lab, with nobody acting, tests the newest
# head of each batch on the QEMU rig scsi0 (ssd model, where the canary's
# 500 us of CPU at every request bounds the 8 threads), finds head 8
# worse than head 4, bisects 4..8 (head 8's comparison is the
# verification) and alerts exactly commit 6: by mail to a local SMTP
# sink, on the feed and on /alerts; batch 3 (9-12, harmless) raises
# nothing.  The time from the culprit's push to its alert is printed
# (for docs/PERFORMANCE.md; not an assertion).  (Commits that do not
# build are skipped: t2061 and t2033, on the fake tree.)
#
# Its cost: head 4, the line's first, starts warm from the built tree of
# debian-6.1 that t4100 leaves (the same kernel version: build-kernel.sh
# warm_seed); every later head and bisection step starts from its
# nearest built ancestor: its pristine tree, merged config and built
# tree (about 27 s, 18 of them make).  --max-cells 3, one look: the
# canary is decided at it, a harmless head ends undecided at 3 cells a
# side.  Times: docs/PERFORMANCE.md, "The regression robot".  A failed
# head or a failed bisection fails the test at once, with the failed
# builds' errors and klabd's last lines; so does head 8 tested with no
# worse comparison when a minute later no bisection has started.  The
# whole test is bounded by its limit (tests/run.sh).
# klab-test: limit 1800
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_SLOW:-}" ] || skip "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
command -v jq >/dev/null || skip "no jq"
command -v git >/dev/null || skip "no git"
sink_start hook-secret

# the repository (add -f: the Debian source's .gitignore ignores its
# whole top level): linux-source-6.1 as commit 0, then 12 commits on
# "work"; a batch is pushed by moving "main" to it at once
R=$TMP/linux
G="git -C $R -c user.name=Lab -c user.email=lab@example.invalid"
mkdir -p "$R" && tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$R" --strip-components=1 ||
	fail "cannot unpack linux-source-6.1"
$G init -q -b work && $G add -A -f && $G commit -qm "linux-source-6.1" ||
	fail "cannot make the repository"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	if [ $i = 6 ]; then
		git -C "$R" apply "$TOP/kernels/patches/canary-slow.patch" ||
			fail "the canary does not apply"
	else
		echo "/* robot note $i */" >>"$R/block/blk-core.c"
	fi
	git -C "$R" -c user.name="Dev $i" -c user.email="dev$i@example.invalid" \
		commit -qam "block: change $i" || fail "commit $i"
done
C() { $G rev-parse "work~$((12 - $1))"; }
push() { $G update-ref refs/heads/main "$(C "$1")" || fail "push $1"; }
C6=$(C 6)
push 4

LAB_CONF="alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT
alert_smtp_from = klab@lab.example
alert_group_wait = 0
track_interval = 10
[base linux]
git = $R"
lab_scsi_start ssd
klab subscribe --email ops@lab.example --event regression,bisection_done,worse_found \
	>/dev/null || fail "subscribe"
klab track git linux main --rig scsi0 --suite tiobench --max-cells 3 \
	--scale 0.02 >/dev/null ||
	fail "klab track git"

# what went wrong with the line or its bisection, for a failure's message
failed_why() {
	sqlite3 "$TMP/klab.db" "SELECT 'build ' || id || ': ' || state || ' ' ||
		COALESCE(error, '') FROM builds WHERE state = 'failed'" 2>&1
	tail -n 20 "$TMP/klabd.log" 2>/dev/null
}
tested() {	# N: head N is the line's last tested head (fails on a failure)
	http GET /api/tracks/1 >/dev/null
	_st=$(jq -r '.heads[-1].state + " " + .heads[-1].commit' "$TMP/body")
	case $_st in
	"failed "*) fail "head ${_st#failed } failed: $(failed_why)" ;;
	esac
	[ "$_st" = "tested $(C "$1")" ]
}
wait_for "head 4 tested" 9000 tested 4
# how head 4's build started (warm_start=seed from debian-6.1, or no)
# and took, for docs/PERFORMANCE.md
rec() { sqlite3 "$TMP/klab.db" "SELECT record FROM builds WHERE id = (SELECT build_id \
	FROM track_heads WHERE hash = '$(C "$1")')" | sed -n "s/^$2=//p"; }
ok "batch 1: head 4 built (warm_start=$(rec 4 warm_start), $(rec 4 build_seconds) s of make) and tested as the line's first"

push 8
T0=$(date +%s)
regression() {
	[ -z "$(sqlite3 "$TMP/klab.db" "SELECT id FROM bisections WHERE state = 'failed'")" ] ||
		fail "the bisection failed: $(failed_why)"
	# head 8 tested with no worse comparison, and a minute later still no
	# bisection (an undecided head starts one only on a known change
	# point), will raise nothing
	_v=$(sqlite3 "$TMP/klab.db" "SELECT state || ' ' || verdict || ' ' || \
		(worse != '') || ' comparisons ' || comparisons FROM track_heads \
		WHERE hash = '$(C 8)'")
	case $_v in
	"failed "*) fail "head 8 failed: $(failed_why)" ;;
	"tested "*" 0 comparisons "*)
		if [ -z "$(sqlite3 "$TMP/klab.db" "SELECT id FROM bisections")" ]; then
			NOWORSE=${NOWORSE:-$(date +%s)}
			[ $(($(date +%s) - NOWORSE)) -lt 60 ] ||
				fail "head 8, the canary's, was tested with no worse comparison: $_v"
		fi ;;
	esac
	[ -n "$(sqlite3 "$TMP/klab.db" "SELECT id FROM alert_events \
		WHERE kind = 'regression'")" ]
}
wait_for "a regression alert" 9000 regression
T1=$(date +%s)
A=$(sqlite3 "$TMP/klab.db" "SELECT id FROM alert_events WHERE kind = 'regression'")
http GET "/api/alerts/$A" >/dev/null
jq -r .alert.text "$TMP/body" | grep -q "^commit  $C6" ||
	fail "the alert does not name commit 6: $(jq -r .alert.text "$TMP/body")"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM alert_events WHERE kind IN \
	('regression', 'bisection_done', 'worse_found')")" = 1 ] || fail "not one alert"
mailed() { grep -l "X-Klab-Event: regression" "$SINK"/mail-*.eml >/dev/null 2>&1; }
wait_for "the mail" 1200 mailed
curl -s "$URL/alerts.atom" | grep -q "due to commit $(printf %.12s "$C6")" || fail "not on the feed"
http GET '/alerts?line=git/linux/main' >/dev/null
expect_grep "due to commit $(printf %.12s "$C6")"
ok "commit 6 alerted $((T1 - T0)) s after its push (mail, feed, /alerts; load $(cut -d' ' -f1-3 /proc/loadavg))"

push 12
wait_for "head 12 tested" 6000 tested 12
sleep 30
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 1 ] ||
	fail "the harmless batch was bisected"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM alert_events WHERE kind IN \
	('regression', 'bisection_done', 'worse_found')")" = 1 ] || fail "the harmless batch raised an alert"
ok "batch 3 (harmless): nothing raised"
stop_klabd
