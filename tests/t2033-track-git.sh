#!/bin/sh
# SPDX-License-Identifier: MIT
# A tracked git branch, from a push to the alert naming its culprit, with
# nobody acting (issue 32, items 1 and 2).  Without rigs that run: the
# builds are real builds of the fake kernel tree (tests/data/build-tree)
# at each commit of a repository made here, configured as the git base
# "fakegit"; the measurements are SCRIPTED by this script's agent for rig
# r3, which answers 80 MB/s for a kernel built from commit 8 (the
# positive control) or a descendant of it, 100 MB/s otherwise (it finds
# a head's commit from its kernel trkT-HASH12, a bisection step's from
# its candidate in the database).
#  (1) bad tracks refused naming the field: an unknown base, a directory
#      base, a branch the base lacks, an option for a branch.
#  (2) batch 1 (commits 1..3) is there when the line is tracked: head 3
#      is built, queued as the line's first, "tested".
#  (3) batch 2 (4..9; 5 and 6 do not build, 7 repairs, 8 regresses):
#      only the newest head, 9, is built and compared with 3 (5 skipped
#      commits); it is worse; one bisection of 3..9 starts by itself,
#      git skips the commit that does not build, names commit 8 and
#      confirms it; ONE regression alert names it (subject, author,
#      %change +- stddev, rig, the klab commands), by mail to the
#      subscriber and (alert_mail_author = yes) to the author, on the
#      feed and on /alerts; it is the only alert: no bisection_done, no
#      change_point of the two heads (a change point there is on
#      /api/changepoints, the robot's to settle), no build_failed of the
#      skipped commits.
#  (4) batch 3 (10, a merge of a side branch, 11): head 11 against 9 is
#      the same: no bisection, nothing raised; the merge is followed by
#      its first parent (backlog 2, not 4); klab tracks shows the last
#      tested head, idle, the backlog.
#  (5) commit 12 does not build: head 12 failed, the line waits; head
#      13 (repaired) is compared with head 11, its skipped commit 12.
#  (6) head 14 measured slow in its own comparison only: worse, its
#      bisection's confirmation, measured again, does not confirm
#      commit 14, nothing is raised:
#      no alert at all, though the line's history has a change point
#      into head 14 (which raised its own change_point alert before).
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v jq >/dev/null || skip "no jq"
command -v git >/dev/null || skip "no git"
sink_start hook-secret
D=$TOP/tests/data
chmod 755 "$TMP"

R=$TMP/repo
G="git -C $R -c user.name=Dev -c user.email=dev@example.invalid"
cp -r "$D/build-tree" "$R"
# commits are made on the branch "work"; a batch is pushed by moving the
# tracked branch "main" to it at once
push() { $G update-ref refs/heads/main refs/heads/work || fail "push"; }
$G init -q -b work && $G add -A && $G commit -qm "base" || fail "cannot make the repository"
commit() {	# N: commit N of main (its change as the plan says)
	case $1 in
	5|12) sed -i 's|write_expire / 1000;|write_expire / 1000 +;|' "$R/block/elevator.c" ;;
	7|13) sed -i 's|write_expire / 1000 +;|write_expire / 1000;|' "$R/block/elevator.c" ;;
	*) echo "/* note $1 */" >>"$R/block/plug.h" ;;
	esac
	$G add -A && git -C "$R" -c user.name="Dev $1" -c user.email="dev$1@example.invalid" \
		commit -qm "plug: change $1" || fail "commit $1"
}
for i in 1 2 3; do commit $i; done
C3=$($G rev-parse HEAD)
push

cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
track_interval = 2
alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT
alert_smtp_from = klab@lab.example
alert_group_wait = 0
alert_mail_author = yes
[base fake]
dir = $D/build-tree
[base fakegit]
git = $R
commit_url = https://git.example.org/fakegit/commit/%s
[rig r3]
kind = remote
token = tok-r3-secret
autostart = no
CONF
# a commit_url that is not an http(s) URL: klabd does not start
sed 's|^commit_url = .*|commit_url = file:///etc/%s|' "$TMP/klabd.conf" >"$TMP/bad.conf"
"$KLAB_BIN/klabd" --config "$TMP/bad.conf" --listen 127.0.0.1:0 --db "$TMP/bad.db" \
	--data-dir "$TMP/bad" >"$TMP/bad.out" 2>&1 && fail "klabd started with a file:// commit_url"
grep -q "bad.conf:[0-9]*: commit_url: " "$TMP/bad.out" || fail "commit_url: $(cat "$TMP/bad.out")"
start_klabd --config "$TMP/klabd.conf"
RT='Authorization: Bearer tok-r3-secret'
JSON='Content-Type: application/json'
http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200
klab subscribe --email ops@lab.example \
	--event regression,bisection_done,worse_found,change_point >/dev/null ||
	fail "subscribe"

# (1) refused, nothing stored
refuse() {	# STATUS TEXT ARGS...: klab track refused with TEXT
	st=$1 txt=$2
	shift 2
	klab track git "$@" --rig r3 --suite tiobench 2>"$TMP/err" &&
		fail "klab track git $* was accepted"
	grep -q "$txt" "$TMP/err" || fail "klab track git $*: $(cat "$TMP/err")"
	grep -q "HTTP $st" "$TMP/err" || fail "klab track git $*: not $st: $(cat "$TMP/err")"
}
refuse 404 "field 'base': unknown git base 'nosuch'" nosuch main
refuse 404 "field 'base': unknown git base 'fake'" fake main
refuse 400 "field 'branch': no commit 'refs/heads/nope' in base 'fakegit'" fakegit nope
refuse 400 "field 'scale': 20000 is not between" fakegit main --scale 20000
klab track git fakegit main --rig r3 --suite tiobench --scale lots 2>"$TMP/err" &&
	fail "--scale lots was taken"
expect_grep "option '--scale' needs a number, not 'lots'" "$TMP/err"
http POST /api/tracks -H "$JSON" -d '{"kind":"git","base":"fakegit","branch":"--upload-pack=x",
	"rigs":"r3","suite":"tiobench"}' >/dev/null
expect_status 400; expect_grep "field 'branch': '--upload-pack=x' is not a branch name"
klab track git fakegit main --rig nosuch --suite tiobench 2>"$TMP/err" &&
	fail "an unknown rig was taken"
expect_grep "unknown rig 'nosuch'" "$TMP/err"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM tracks")" = 0 ] ||
	fail "refused tracks were stored"
ok "bad git tracks refused naming the field, nothing stored"

# the agent: answers r3's jobs until $TMP/agent.stop exists; a kernel
# trkT-HASH12 is a head, bisN-IDX candidate IDX of bisection N
agent() {
	n=0
	while [ ! -e "$TMP/agent.stop" ]; do
		curl -s -o "$TMP/a.next" -w '%{http_code}' -H "$RT" \
			"$URL/api/agent/next?wait=1" >"$TMP/a.st"
		[ "$(cat "$TMP/a.st")" = 200 ] || continue
		id=$(jq -r .job.id "$TMP/a.next")
		k=$(jq -r .job.kernel "$TMP/a.next")
		case $k in
		trk*) h=$(git -C "$R" rev-parse "${k#*-}") ;;
		bis*)	b=${k#bis}; i=${b#*-}; b=${b%-*}
			h=$(sqlite3 "$TMP/klab.db" "SELECT file FROM bisection_candidates \
				WHERE bisection_id = $b AND idx = $i") ;;
		*) h=none ;;
		esac
		echo "$k $h" >>"$TMP/handed"
		c8=$(cat "$TMP/c8" 2>/dev/null)
		if [ -n "$c8" ] && git -C "$R" merge-base --is-ancestor "$c8" "$h" 2>/dev/null; then
			r=80; else r=100; fi
		# a head measured slow in its own comparison only (a rig's bad
		# day), not when its commit is measured again
		if [ -s "$TMP/flaky" ] && [ -n "$(sqlite3 "$TMP/klab.db" "SELECT 1 \
			FROM track_heads h, comparison_jobs j WHERE h.hash = \
			'$(cat "$TMP/flaky")' AND j.job_id = $id AND j.side = 1 AND ',' || \
			h.comparisons || ',' LIKE '%,' || j.comparison_id || ',%'")" ]; then
			r=70
		fi
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
			"$r" $((n % 3)) >"$TMP/a.res"
		curl -s -o /dev/null -H "$RT" -H "$JSON" --data-binary @"$TMP/a.res" \
			"$URL/api/agent/jobs/$id/results"
		n=$((n + 1))
	done
}
track_field() { http GET /api/tracks/1 >/dev/null; jq -r "$1" "$TMP/body"; }

# (2) the first head
: >"$TMP/handed"
ID=$(klab track git fakegit main --rig r3 --suite tiobench --max-cells 3 --scale 0.5) ||
	fail "klab track git"
[ "$ID" = 1 ] || fail "track id '$ID'"
# shellcheck disable=SC2016
head_tested() { [ "$(track_field '.heads[-1].state + " " + .heads[-1].commit')" = "tested $1" ]; }
# the line's state and backlog, set at the end of a pass that read the
# branch (every track_interval)
line_is() { [ "$(track_field '.state + " " + (.backlog | tostring)')" = "$1" ]; }
wait_for "head 3 tested" 1200 head_tested "$C3"
jq -e --arg c "$C3" '.kind == "git" and .base == "fakegit" and .branch == "main" and
	.line == "fakegit/main" and .last_head == $c and
	(.heads | length == 1) and .heads[0].verdict == "first" and .heads[0].prev == 0 and
	.heads[0].subject == "plug: change 3" and
	(.heads[0].kernel | startswith("trk1-"))' "$TMP/body" >/dev/null ||
	fail "the first head: $(cat "$TMP/body")"
K3=$(jq -r .heads[0].kernel "$TMP/body")
http GET "/api/jobs?rig=r3" >/dev/null
jq -e --arg k "$K3" '[.jobs[] | select(.kernel == $k)] | length == 1' "$TMP/body" >/dev/null ||
	fail "the first head not queued: $(cat "$TMP/body")"
[ "$(track_field .scale)" = 0.5 ] || fail "the track's scale: $(track_field .scale)"
ok "batch 1: head 3 built as $K3 and queued as the line's first"

agent &
AGENT=$!
at_cleanup "touch '$TMP/agent.stop'; wait $AGENT 2>/dev/null"

# (3) batch 2: 4..9, the newest head only, the culprit found by itself
for i in 4 5 6 7 8 9; do commit $i; done
C8=$($G rev-parse HEAD~1); C9=$($G rev-parse HEAD)
echo "$C8" >"$TMP/c8"
C7=$($G rev-parse HEAD~2)
push
T0=$(date +%s)
regression() { [ -n "$(sqlite3 "$TMP/klab.db" "SELECT id FROM alert_events \
	WHERE kind = 'regression'")" ]; }
wait_for "a regression alert" 4000 regression
T1=$(date +%s)
http GET /api/tracks/1 >/dev/null
jq -e --arg c3 "$C3" --arg c9 "$C9" '(.heads | length == 2) and .heads[1].commit == $c9 and
	.heads[1].prev == .heads[0].id and .heads[1].skipped == 5 and
	.heads[1].verdict == "worse" and .heads[1].bisection == 1 and
	(.heads[1].worse | startswith("r3 tiobench tiobench.seq_read.rate"))' \
	"$TMP/body" >/dev/null || fail "head 9: $(jq -c .heads "$TMP/body")"
for c in 4 5 6 7; do
	grep -q "^trk1-.* $($G rev-parse HEAD~$((9 - c)))" "$TMP/handed" &&
		fail "commit $c was tested as a head"
done
http GET /api/bisections/1 >/dev/null
S8=$(printf %.12s "$C8")
jq -e --arg c3 "$C3" --arg c9 "$C9" '.kind == "git" and .base == "fakegit" and
	.good == $c3 and .bad == $c9 and .who == "klab" and .state == "finished" and
	.candidates[0].kernel == "'"$K3"'" and (.candidates[1].kernel | startswith("trk1-")) and
	.candidates[.answer].label == "'"$S8"' plug: change 8" and
	([.steps[] | select(.purpose == "confirm")][0].mark == "bad")' "$TMP/body" >/dev/null ||
	fail "bisection 1: $(jq -c '{state, outcome, steps}' "$TMP/body")"
# the verification is head 9's own comparison, not measured again
H9CMP=$(sqlite3 "$TMP/klab.db" "SELECT comparisons FROM track_heads WHERE hash = '$C9'")
jq -e --argjson c "$H9CMP" '[.steps[] | select(.purpose == "verify")] | length == 1 and
	.[0].comparison == $c and .[0].mark == "bad"' "$TMP/body" >/dev/null ||
	fail "the verification is not head 9's comparison $H9CMP: $(jq -c .steps "$TMP/body")"
jq -e '[.steps[] | select(.mark == "skip")] | length >= 1 and
	all(.[]; .reason | test("build [0-9]+ failed"))' "$TMP/body" >/dev/null ||
	fail "no commit skipped for its build: $(jq -c .steps "$TMP/body")"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 1 ] ||
	fail "more than one bisection of the range"
[ "$(sqlite3 "$TMP/klab.db" "SELECT group_concat(DISTINCT scale) FROM jobs")" = 0.5 ] ||
	fail "cells not at the line's scale: $(sqlite3 "$TMP/klab.db" "SELECT DISTINCT scale FROM jobs")"
ok "batch 2: head 9 worse than 3, bisection 1 by itself, the unbuildable commit skipped, commit 8 confirmed"

# the one alert: content, mail (subscriber, author), feed, /alerts
# alerts (of any kind; not the notices of state changes)
alerts() { sqlite3 "$TMP/klab.db" "SELECT id, kind, state, title FROM alert_events \
	WHERE kind NOT IN ('alert_state', 'test') AND id > ${1:-0}"; }
K9=$(sqlite3 "$TMP/klab.db" "SELECT kernel FROM track_heads WHERE hash = '$C9'")
cp_into() {	# KERNEL: the line's history has a change point into it
	http GET '/api/changepoints?rig=r3&suite=tiobench' >/dev/null
	jq -e --arg k "$1" '[.changepoints[] | select(.kernel_after == $k)] | length >= 1' \
		"$TMP/body" >/dev/null
}
# (3 cells a side cannot make a change point at sig 0.01; the line's
# later cells of head 9 can, and it raises nothing either: below)
sleep 2
[ "$(alerts | wc -l)" = 1 ] && alerts | grep -q "|regression|new|" ||
	fail "not one alert: $(alerts)"
A=$(sqlite3 "$TMP/klab.db" "SELECT id FROM alert_events WHERE kind = 'regression'")
http GET "/api/alerts/$A" >/dev/null
jq -r .alert.text "$TMP/body" >"$TMP/text"
jq -e '.alert.line == "git/fakegit/main" and .alert.rig == "r3" and
	.alert.metric == "tiobench.seq_read.rate" and .alert.state == "new"' "$TMP/body" \
	>/dev/null || fail "the alert: $(cat "$TMP/body")"
jq -r .alert.title "$TMP/body" | grep -q "^-20.[0-9]% regression of tiobench.seq_read.rate due to commit $S8 (plug: change 8)" ||
	fail "title: $(jq -r .alert.title "$TMP/body")"
expect_grep "^commit  $C8" "$TMP/text"
expect_grep "^subject plug: change 8" "$TMP/text"
expect_grep "^author  Dev 8 <dev8@example.invalid>" "$TMP/text"
expect_grep "^rig     r3" "$TMP/text"
expect_grep "^link    https://git.example.org/fakegit/commit/$C8$" "$TMP/text"
expect_grep " +- .*-20.[0-9]%  tiobench.seq_read.rate (MB/s, [0-9]*+[0-9]* cells)" "$TMP/text"
expect_grep "klab build fakegit@$C7 --ident $(printf %.12s "$C7")-good --wait" "$TMP/text"
expect_grep "klab compare-run $(printf %.12s "$C7")-good $S8-bad --rig r3 --suite tiobench --wait" "$TMP/text"
expect_grep "klab bisect --git fakegit $C3 $C9 --rig r3 --suite tiobench --metric tiobench.seq_read.rate" "$TMP/text"
mailed() { [ "$(grep -l "X-Klab-Event: regression" "$SINK"/mail-*.eml 2>/dev/null | wc -l)" -ge 2 ]; }
wait_for "the regression mailed twice" 600 mailed
grep -l "X-Klab-Event: regression" "$SINK"/mail-*.eml >"$TMP/mails"
[ "$(wc -l <"$TMP/mails")" = 2 ] || fail "$(wc -l <"$TMP/mails") regression mails, not 2"
to=$(for f in $(cat "$TMP/mails"); do cat "${f%.eml}.env"; done)
echo "$to" | grep -q "ops@lab.example" || fail "not mailed to the subscriber: $to"
echo "$to" | grep -q "dev8@example.invalid" || fail "not mailed to the author: $to"
grep -q "^commit  $C8" "$(head -n 1 "$TMP/mails")" || fail "the mail does not name the commit"
grep -l "X-Klab-Event: bisection_done" "$SINK"/mail-*.eml 2>/dev/null && fail "a bisection_done mail"
curl -s -o "$TMP/feed.xml" "$URL/alerts.atom" || fail "feed"
"$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml" >/dev/null || fail "feed: $(cat "$TMP/feed.xml")"
expect_grep "regression of tiobench.seq_read.rate due to commit $S8" "$TMP/feed.xml"
# /alerts: the alert on its line's page, in the row of its change (with
# the change points of the same two heads, when one was found)
http GET '/alerts?line=git/fakegit/main' >/dev/null
grep -o '<tr id="group-[0-9]*">.*</tr>' "$TMP/body" | grep "id=\"event-$A\"" | grep -q regression ||
	fail "/alerts has no row of alert $A: $(grep -o '<tr id="group.*' "$TMP/body" | head -3)"
http GET "/alerts/$A" >/dev/null
expect_grep "due to commit $S8"
ok "one regression alert naming commit 8, $((T1 - T0)) s after its push (load $(cut -d' ' -f1 /proc/loadavg)): text, mail to the subscriber and the author, feed, /alerts"

# (4) batch 3: a harmless range, a merge followed by its first parent
commit 10
$G checkout -q -b side HEAD~1
echo "/* side */" >>"$R/block/plug.h"
$G commit -qam "side 1" && echo "/* side 2 */" >>"$R/block/plug.h" && $G commit -qam "side 2"
$G checkout -q work
$G merge -q --no-ff -m "merge side" side -X ours >/dev/null || fail "merge"
commit 11
C11=$($G rev-parse HEAD)
push
wait_for "head 11 tested" 2000 head_tested "$C11"
wait_for "the line idle, backlog 2" 100 line_is "idle 2"
http GET /api/tracks/1 >/dev/null
jq -e --arg c "$C11" '(.heads | length == 3) and .heads[2].verdict == "same" and
	.heads[2].bisection == 0 and .heads[2].skipped == 2 and .last_head == $c and
	.backlog == 2 and .state == "idle"' "$TMP/body" >/dev/null ||
	fail "head 11: $(jq -c '{backlog, state, heads: [.heads[] | {commit, verdict, skipped, bisection}]}' "$TMP/body")"
sleep 3
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 1 ] ||
	fail "a harmless range was bisected"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM alert_events WHERE kind IN \
	('regression', 'bisection_done', 'worse_found')")" = 1 ] || fail "a harmless range raised an alert"
klab tracks >"$TMP/tracks" || fail "klab tracks"
grep -q "^1 *git *fakegit/main *r3 *tiobench *trk1-$(printf %.12s "$C11") *idle *2 " "$TMP/tracks" ||
	fail "klab tracks: $(cat "$TMP/tracks")"
ok "batch 3: head 11 same as 9, nothing raised; the merge followed by its first parent (backlog 2)"
# the change of heads 3..9 is the regression's group, raised by nothing
# but the regression, though the line's cells of head 9 now make a
# change point there
wait_for "the change point of heads 3..9" 100 cp_into "$K9"
sleep 2
[ "$(sqlite3 "$TMP/klab.db" "SELECT group_key FROM alert_events WHERE kind = 'regression'")" = \
	"cp/r3/$K3/$K9" ] || fail "the regression's group: $(alerts)"
[ "$(alerts | wc -l)" = 1 ] || fail "alerts after a harmless range: $(alerts)"

# (5) a head that does not build: failed, the line waits; the next head
# is compared with the last tested one
commit 12
C12=$($G rev-parse HEAD)
push
head_failed() {	# and the line idle again (set at the end of that pass)
	[ "$(track_field '.heads[-1].state + " " + .heads[-1].commit + " " + .state')" = \
		"failed $C12 idle" ]
}
wait_for "head 12 failed" 1200 head_failed
# a head that does not build is the line's trouble: one build_failed
wait_for "head 12's build_failed" 100 eval '[ "$(alerts | grep -c "|build_failed|")" = 1 ]'
jq -e '.heads[-1].verdict == "failed" and (.heads[-1].error | test("build [0-9]+ failed"))' \
	"$TMP/body" >/dev/null || fail "head 12: $(jq -c '.heads[-1]' "$TMP/body")"
commit 13
C13=$($G rev-parse HEAD)
push
wait_for "head 13 tested" 2000 head_tested "$C13"
wait_for "the line idle, backlog 3" 100 line_is "idle 3"
jq -e '.heads[-1].verdict == "same" and .heads[-1].prev == .heads[2].id and
	.heads[-1].skipped == 1 and .backlog == 3' "$TMP/body" >/dev/null ||
	fail "head 13: $(jq -c '{backlog, heads: [.heads[] | {commit, state, verdict, prev, skipped}]}' "$TMP/body")"
ok "a head that does not build: failed, the next compared with the last tested head"

# (6) a range that does not reproduce: head 14 measured slow in its own
# comparison only; its bisection takes that comparison as its
# verification, git names commit 14 at once, and its confirmation (a
# fresh sample against its parent, commit 13) does not confirm it:
# nothing is raised
commit 14
C14=$($G rev-parse HEAD)
echo "$C14" >"$TMP/flaky"
A0=$(sqlite3 "$TMP/klab.db" "SELECT MAX(id) FROM alert_events")
push
bisected() { [ "$(sqlite3 "$TMP/klab.db" "SELECT state FROM bisections WHERE id = 2")" = finished ]; }
wait_for "bisection 2 finished" 2000 bisected
http GET /api/bisections/2 >/dev/null
jq -e --arg c13 "$C13" --arg c14 "$C14" '.good == $c13 and .bad == $c14 and
	(.outcome | test("NOT confirmed")) and
	([.steps[] | select(.purpose == "confirm")][0].mark != "bad")' "$TMP/body" >/dev/null ||
	fail "bisection 2: $(jq -c '{good, bad, answer, outcome}' "$TMP/body")"
K14=$(sqlite3 "$TMP/klab.db" "SELECT kernel FROM track_heads WHERE hash = '$C14'")
wait_for "a change point into head 14" 100 cp_into "$K14"
sleep 3
[ -z "$(alerts "$A0")" ] || fail "a range that does not reproduce raised: $(alerts "$A0")"
[ "$(grep -l "X-Klab-Event: regression" "$SINK"/mail-*.eml | wc -l)" = 2 ] ||
	fail "a range that does not reproduce was mailed"
grep -l "X-Klab-Event: change_point" "$SINK"/mail-*.eml 2>/dev/null && fail "a change point was mailed"
http GET '/api/alerts?state=open' >/dev/null
jq -e --arg k "$K14" '[.events[] | select(.kernel_after == $k or .kind == "change_point")] |
	length == 0' "$TMP/body" >/dev/null || fail "/api/alerts: $(jq -c '[.events[] | {id, kind, title}]' "$TMP/body")"
curl -s -o "$TMP/feed.xml" "$URL/alerts.atom" || fail "feed"
expect_nogrep "change point in" "$TMP/feed.xml"
http GET /api/tracks/1 >/dev/null
jq -e '.heads[-1].verdict == "worse" and .heads[-1].bisection == 2' "$TMP/body" >/dev/null ||
	fail "head 14: $(jq -c '.heads[-1]' "$TMP/body")"
ok "a range that does not reproduce: bisected, no alert (its change point neither), on the line's heads and the bisection's page"
touch "$TMP/agent.stop"
wait "$AGENT"
stop_klabd
ok "a tracked git branch: newest heads compared, the regression bisected and alerted, nobody acting"
