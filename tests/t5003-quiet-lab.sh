#!/bin/sh
# SPDX-License-Identifier: MIT
# A quiet lab rings no bell (issue 32: "ten A/A submissions and an
# unchanged tracked line over a day of cells raise 0 alerts"), and a real
# regression among them rings it once.  No rigs that run: one remote rig
# r1 whose agent is tests/quiet-agent.py, answering every cell from ONE
# noisy distribution (CV 3%, six metrics: four rates, a latency, a
# counter), whatever the kernel, seeded per cell (the same run every
# time); the builds are real builds of the fake kernel tree.  "A day" is
# counted in what a day brings, not in hours: the verdicts, the change
# point searches after every cell, the pushes.
#  (1) 10 A/A submissions (the fake tree against itself plus a comment
#      only) and a tracked git line of the same tree with 3 harmless
#      pushes (comments), side by side on r1: every submission ends same
#      or undecided, every head same or undecided, and there is no alert
#      of any kind: none on /api/alerts, none in the mail sink (ops@
#      subscribes to every kind: only the 10 submission_finished notices
#      arrive, to ops@ and to the submitter), none on the feed, the home
#      page says "Nothing needs you"; a notice has no triage.
#  (2) the positive control: one more push, its commit 15% slower on
#      seq_read.rate: the line bisects it by itself and exactly one
#      alert is raised, the regression naming that commit, on
#      /api/alerts, by mail, on the feed and the home page (no
#      change_point alert beside it).
# The seeds make the run the same every time; with others, the verdict
# rule's own A/A rate (docs/VERDICTS.md, "Adaptive repetition": a worse
# or better on 2.5-3% of pages) is what a quiet lab should expect.
# Time (docs/PERFORMANCE.md is for benchmarks): on 2 cores the rig
# image's preparation (20 s or more, once a klabd) overlaps the
# submissions' checks and builds; each push then costs a build and a
# comparison, one after the other (6-11 s).  T5003_SUBMISSIONS,
# T5003_PUSHES and T5003_CELLS (cells a side) change the counts.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v jq >/dev/null || skip "no jq"
command -v git >/dev/null || skip "no git"
sink_start hook-secret
D=$TOP/tests/data
chmod 755 "$TMP"
NSUB=${T5003_SUBMISSIONS:-10}
NPUSH=${T5003_PUSHES:-3}
CAP=${T5003_CELLS:-5}	# cells a side: the looks at 3 and 5

R=$TMP/repo
cp -r "$D/build-tree" "$R"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
G="git -C $R -c user.name=Dev -c user.email=dev@example.invalid"
$G init -q -b main && $G add -A && $G commit -qm "base" || fail "cannot make the repository"
commit() {	# N [TEXT]: one harmless commit (a comment), or TEXT's
	echo "/* ${2:-note $1} */" >>"$R/block/plug.h"
	$G commit -qam "plug: change $1" || fail "commit $1"
}

submit_conf "$TMP/klabd.conf" "submit_max_cells = $CAP" "track_interval = 2" \
	"alert_smtp_url = smtp://127.0.0.1:$SMTP_PORT" "alert_smtp_from = klab@lab.example" \
	"alert_group_wait = 0" "max_builds = 2"
printf '[base fakegit]\ngit = %s\n' "$R" >>"$TMP/klabd.conf"
make_token alice submitter >"$TMP/alice" || fail "token alice"
start_klabd --config "$TMP/klabd.conf"
JSON='Content-Type: application/json'
klab subscribe --email ops@lab.example >/dev/null || fail "subscribe ops"
KLAB_TOKEN=$(cat "$TMP/alice") klab subscribe --email alice@lab.example \
	--event submission_finished >/dev/null || fail "subscribe alice"

# the agent (and its log: one line a cell)
"$PY" "$TOP/tests/quiet-agent.py" "$URL" tok-r1-secret "$TMP/klab.db" "$R" \
	"$TMP/bad" "$TMP/agent.stop" "$TMP/cells" 2>"$TMP/agent.err" &
AGENT=$!
at_cleanup "touch '$TMP/agent.stop'; wait $AGENT 2>/dev/null"
T0=$(date +%s)

# (1) 10 A/A submissions and a line of harmless pushes, side by side:
# the line first, the submissions sent meanwhile, two at a time (each is
# checked, its patch applied, before the answer)
klab track git fakegit main --rig r1 --suite tiobench --max-cells "$CAP" >/dev/null ||
	fail "klab track git"
aa=$(jq -Rs '{base: "fake", patches: [{name: "aa.patch", text: .}], note: "A/A"}' \
	"$D/patches/fake-aa-comment.patch")
poster() {	# FIRST: submissions FIRST, FIRST + 2, ... (a 503: the two
	# checks klabd runs at once are busy, sent again)
	i=$1
	while [ "$i" -lt "$NSUB" ]; do
		st=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer \
$(cat "$TMP/alice")" -H "$JSON" --data-binary "$aa" "$URL/api/submissions")
		[ "$st" = 503 ] && { sleep 0.5; continue; }
		echo "$st" >"$TMP/posted.$i"
		i=$((i + 2))
	done
}
poster 0 &
poster 1 &
track_field() { http GET /api/tracks/1 >/dev/null; jq -r "$1" "$TMP/body"; }
# shellcheck disable=SC2016
tested() { [ "$(track_field '[.heads[] | select(.state == "tested")] | length')" = "$1" ]; }
p=1
while [ $p -le "$NPUSH" ]; do
	wait_for "head $p tested" 1800 tested "$p"
	commit "$p"
	p=$((p + 1))
done
wait_for "head $p tested" 1800 tested "$p"
[ "$(cat "$TMP"/posted.* | grep -c '^201$')" = "$NSUB" ] ||
	fail "submissions refused: $(cat "$TMP"/posted.*)"
ended() { [ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM submissions WHERE \
	state <> 'running'")" = "$NSUB" ]; }
wait_for "the submissions ended" 1800 ended
T1=$(date +%s)
sleep 3	# the last change point search, the outbox

http GET /api/submissions >/dev/null
jq -e --argjson n "$NSUB" '[.submissions[] | select(.state == "finished" and
	(.verdict == "same" or .verdict == "undecided"))] | length == $n' "$TMP/body" >/dev/null ||
	fail "an A/A submission: $(jq -c '[.submissions[] | {id, state, verdict, error}]' "$TMP/body")"
http GET /api/tracks/1 >/dev/null
jq -e --argjson n "$NPUSH" '(.heads | length) == $n + 1 and .heads[0].verdict == "first" and
	([.heads[1:][] | select(.verdict == "same" or .verdict == "undecided")] | length) == $n and
	([.heads[] | select(.bisection > 0)] | length) == 0' "$TMP/body" >/dev/null ||
	fail "the line's heads: $(jq -c '[.heads[] | {commit, verdict, worse, bisection}]' "$TMP/body")"
verdicts="$(jq -r '[.submissions[].verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")' \
	"$(http GET /api/submissions >/dev/null; echo "$TMP/body")")"
heads="$(jq -r '[.heads[1:][].verdict] | group_by(.) | map("\(length) \(.[0])") | join(", ")' \
	"$(http GET /api/tracks/1 >/dev/null; echo "$TMP/body")")"
cells=$(wc -l <"$TMP/cells")

no_alert() {	# WHAT: no alert of any kind, anywhere
	http GET '/api/alerts?alerts=1&limit=1000' >/dev/null
	[ "$(jq '.events | length' "$TMP/body")" = 0 ] ||
		fail "$1: alerts: $(jq -c '[.events[] | {id, kind, title}]' "$TMP/body")"
	for f in "$SINK"/mail-*.eml; do
		[ -e "$f" ] || continue
		grep -q "^X-Klab-Event: submission_finished" "$f" ||
			fail "$1: mailed: $(grep -h '^Subject:' "$f")"
	done
	curl -s -o "$TMP/feed.xml" "$URL/alerts.atom" || fail "feed"
	"$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml" >"$TMP/feed.terms" ||
		fail "feed: $(cat "$TMP/feed.xml")"
	tr ',' '\n' <"$TMP/feed.terms" | sed 's/^[0-9]* //' | grep -v '^submission_finished$' |
		grep . && fail "$1: the feed: $(cat "$TMP/feed.terms")"
	http GET / >/dev/null
	expect_grep 'id="status" class="status calm">Nothing needs you'
}
no_alert "a quiet lab"
# a finished submission is its submitter's notice, with no triage
N=$(http GET '/api/alerts?kind=submission_finished' | jq '.events[0].id')
http POST "/api/alerts/$N/state" -H "$JSON" -d '{"state":"acknowledged"}' >/dev/null
expect_status 400; expect_grep "event $N is a notice (submission_finished), not an alert"
mails() { ls "$SINK"/mail-*.eml 2>/dev/null | wc -l; }
notices() { [ "$(mails)" -ge $((2 * NSUB)) ]; }
wait_for "the submitters' notices" 300 notices
[ "$(mails)" = $((2 * NSUB)) ] || fail "$(mails) mails, not $((2 * NSUB)) notices"
cps=$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM changepoints")
ok "a quiet lab: $NSUB A/A submissions ($verdicts), $NPUSH harmless pushes ($heads), $cells cells, $cps change points in $((T1 - T0)) s (load $(cut -d' ' -f1 /proc/loadavg)): no alert on /api/alerts, by mail, on the feed or the home page"

# (2) the positive control: a commit 15% slower, alone in its push
commit 9 "slower"
git -C "$R" rev-parse HEAD >"$TMP/bad"
C9=$(cat "$TMP/bad")
one() { [ -n "$(sqlite3 "$TMP/klab.db" "SELECT id FROM alert_events WHERE kind = 'regression'")" ]; }
wait_for "the regression alert" 1800 one
sleep 3
http GET '/api/alerts?alerts=1&limit=1000' >/dev/null
jq -e --arg c "$(printf %.12s "$C9")" '(.events | length) == 1 and .events[0].kind == "regression" and
	(.events[0].title | test("regression of tiobench.seq_read.rate due to commit " + $c))' \
	"$TMP/body" >/dev/null || fail "not one alert: $(jq -c '[.events[] | {id, kind, title}]' "$TMP/body")"
regmail() { [ "$(grep -l '^X-Klab-Event: regression' "$SINK"/mail-*.eml 2>/dev/null | wc -l)" = 1 ]; }
wait_for "the regression mailed" 300 regmail
[ "$(mails)" = $((2 * NSUB + 1)) ] || fail "$(mails) mails, not $((2 * NSUB)) notices and one regression"
curl -s -o "$TMP/feed.xml" "$URL/alerts.atom" || fail "feed"
"$PY" "$TOP/tests/atom-check.py" "$TMP/feed.xml" >"$TMP/feed.terms" || fail "feed"
[ "$(tr ',' '\n' <"$TMP/feed.terms" | sed 's/^[0-9]* //' | grep -vc '^submission_finished$')" = 1 ] ||
	fail "the feed: $(cat "$TMP/feed.terms")"
http GET / >/dev/null
expect_grep '1 open regression needs triage'
touch "$TMP/agent.stop"
wait "$AGENT"
stop_klabd
ok "a real regression among them: exactly one alert, the regression naming commit $(printf %.12s "$C9"), on /api/alerts, by mail, on the feed and the home page"
