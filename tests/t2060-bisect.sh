#!/bin/sh
# SPDX-License-Identifier: MIT
# Bisection without rigs that run: klabd's bisection driver, the
# comparison engine and the judge are real, the builds are real builds
# of the fake kernel tree (tests/data/build-tree), and the measurements
# are SCRIPTED: this script is the agent of rig r3 and answers every job
# with a number it chooses from the job's kernel name.  The "regression"
# is therefore produced here, on purpose: kernels at or after the chosen
# step report 80 MB/s, the others 100 MB/s (a little jitter either way).
#  (1) a series of 8 patches made here with git format-patch (harmless
#      comment changes, by different authors), patch 6 breaks the build
#      and patch 7 repairs it; the scripted regression starts at patch 5.
#      klab bisect --series --wait: the ends are verified, step 4 is
#      good, step 6 is skipped (its build fails), step 5 is bad, the
#      answer is confirmed against patch 4 with a larger cap; the report
#      names patch 5's subject and author, exit 4, the alert
#      bisection_done is raised; 5 step rows in all (ideal 3 + verify +
#      confirm, one skip); every step runs both kernels' cells,
#      interleaved, borrowing none.
#  (2) a Debian line 6.1.170 .. 6.1.177 of fake packages in a local
#      archive (KLAB_DEBIAN_ARCHIVE, as t2030); the test slows 6.1.174
#      and later (the agent reads the version from the job's kernel);
#      the bisection names 6.1.174.  It is asked for with --scale,
#      --scheduler and --cmdline: every job of every step carries them
#      (GET /api/jobs), the series' jobs the defaults; the report says so.
#  (3) a range that does not regress (6.1.170 .. 6.1.173) is reported as
#      such, with no culprit.
#  (4) bad input is refused with a 4xx naming the problem (a job
#      configuration too: scale, scheduler, cmdline as for comparison
#      runs), nothing stored; pages /bisections and /bisections/N, klab
#      bisections.
#  (5) the ways in from the web: a submission of the series found worse
#      (the scripted agent slows *-patched) shows a "Bisect" button to its
#      signed-in submitter, which starts a series bisection of it with
#      the job configuration of the submission's cell; the form
#      /bisections/new (linked from change points on /history) starts a
#      Debian one, with a scale and a scheduler its page shows.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v jq >/dev/null || skip "no jq"
command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
command -v git >/dev/null || skip "no git"
D=$TOP/tests/data
chmod 755 "$TMP"

# the series: 8 commits on a copy of the fake tree
G=$TMP/series-git
cp -r "$D/build-tree" "$G"
(
	cd "$G" && git init -q && git add -A &&
	git -c user.name=base -c user.email=b@x commit -qm base || exit 1
	for i in 1 2 3 4 5 6 7 8; do
		case $i in
		6) sed -i 's|write_expire / 1000;|write_expire / 1000 +;|' block/elevator.c
		   subj="elevator: a change that does not build" ;;
		7) sed -i 's|write_expire / 1000 +;|write_expire / 1000;|' block/elevator.c
		   subj="elevator: repair the build" ;;
		*) echo "/* note $i */" >>block/plug.h
		   subj="plug: note $i" ;;
		esac
		git add -A && git -c user.name="Dev $i" -c user.email="dev$i@example.invalid" \
			commit -qm "$subj" || exit 1
	done
	git format-patch -q --stdout HEAD~8 >"$TMP/series.mbox"
) || fail "cannot make the series"
[ "$(grep -c '^Subject: ' "$TMP/series.mbox")" = 8 ] || fail "the series has not 8 patches"

# the archive: 6.1.170 .. 6.1.177
fake_archive 170 177

cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
[base fake]
dir = $D/build-tree
[rig r3]
kind = remote
token = tok-r3-secret
autostart = no
CONF
make_token alice submitter >"$TMP/alice" || fail "token alice"
start_klabd --config "$TMP/klabd.conf"
ALICE=$(cat "$TMP/alice")
RT='Authorization: Bearer tok-r3-secret'
JSON='Content-Type: application/json'
http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200

# agent PID-FILE-OF-CLIENT SLOW-TEST: answer r3's jobs until the client
# (klab bisect --wait) has exited; SLOW-TEST is a shell test of $k, the
# job's kernel, true when that kernel is "regressed"
agent() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		http GET "/api/agent/next?wait=1" -H "$RT" >"$TMP/next"
		[ "$STATUS" = 200 ] || continue
		id=$(jq -r .job.id "$TMP/next")
		k=$(jq -r .job.kernel "$TMP/next")
		if eval "$2"; then r=80; else r=100; fi
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
			"$r" $((n % 3)) >"$TMP/res.json"
		http POST "/api/agent/jobs/$id/results" -H "$RT" -H "$JSON" \
			--data-binary @"$TMP/res.json" >/dev/null
		[ "$STATUS" = 201 ] || fail "results of job $id: HTTP $STATUS"
		n=$((n + 1))
	done
}

# (4) bad input first: refused, nothing stored
KLAB_TOKEN=$ALICE klab bisect --series "$TMP/series.mbox" --base fake --rig r9 \
	--suite tiobench --metric tiobench.seq_read.rate 2>"$TMP/err" && fail "unknown rig taken"
expect_grep "unknown rig 'r9'" "$TMP/err"
KLAB_TOKEN=$ALICE klab bisect --series "$TMP/series.mbox" --base fake --rig r3 \
	--suite tiobench 2>"$TMP/err" && fail "no metric taken"
expect_grep "name the metric" "$TMP/err"
KLAB_TOKEN=$ALICE klab bisect --series "$D/patches/bad-hunk.patch" --base fake --rig r3 \
	--suite tiobench --metric m 2>"$TMP/err" && fail "a patch that does not apply taken"
expect_grep "cannot apply patch" "$TMP/err"
KLAB_TOKEN=$ALICE klab bisect --debian 6.1.170 6.1.199 --rig r3 \
	--suite tiobench --metric m 2>"$TMP/err" && fail "a version not in the archive taken"
expect_grep "kernel '6.1.199' not in the archive" "$TMP/err"
# a job configuration is checked as a comparison run's: the field named
AU="Authorization: Bearer $ALICE"
bad_config() {	# FIELD JSON-VALUE STATUS
	jq -n --argjson v "$2" '{kind: "debian", good: "6.1.170", bad: "6.1.177",
		rig: "r3", suite: "tiobench", metrics: "m"} + {"'"$1"'": $v}' >"$TMP/req"
	http POST /api/bisections -H "$AU" -H "$JSON" --data-binary @"$TMP/req" >/dev/null
	expect_status "$3"; expect_grep "field '$1'"
}
bad_config scale -1 400
bad_config scale 20000 400
bad_config scale '"0.05"' 400
bad_config scheduler '"bfq;reboot"' 400
bad_config scheduler '"mq deadline"' 400
bad_config cmdline '"init=/bin/sh"' 403
bad_config cmdline '"quiet $(id)"' 403
KLAB_TOKEN=$ALICE klab bisect --debian 6.1.170 6.1.177 --rig r3 --suite tiobench \
	--metric m --scheduler 'a b' 2>"$TMP/err" && fail "klab bisect --scheduler 'a b' taken"
expect_grep "field 'scheduler': scheduler name 'a.x20b' has a character not allowed" "$TMP/err"
KLAB_TOKEN=$ALICE klab bisect --debian 6.1.170 6.1.177 --rig r3 --suite tiobench \
	--metric m --scale fast 2>"$TMP/err"
[ $? = 2 ] || fail "klab bisect --scale fast: not a usage error"
expect_grep "option '--scale' needs a number" "$TMP/err"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 0 ] ||
	fail "refused bisections were stored"
ok "bad input refused, nothing stored"

# (1) the series
KLAB_TOKEN=$ALICE klab bisect --series "$TMP/series.mbox" --base fake --rig r3 \
	--suite tiobench --metric tiobench.seq_read.rate --max-cells 3 --wait \
	>"$TMP/s.out" 2>"$TMP/s.err" &
W=$!
agent $W 'case $k in bis1-[5-8]) true ;; *) false ;; esac'
wait $W; rc=$?
[ $rc = 4 ] || fail "klab bisect --wait exited $rc, not 4: $(cat "$TMP/s.out" "$TMP/s.err"; tail -5 "$TMP/klabd.log")"
expect_grep '^klab bisection 1: first bad: \[5\] plug: note 5 by Dev 5 <dev5@example.invalid>, confirmed' "$TMP/s.out"
expect_grep '^subject: *plug: note 5' "$TMP/s.out"
expect_grep '^author: *Dev 5' "$TMP/s.out"
expect_grep '^how sure: *sure' "$TMP/s.out"
http GET /api/bisections/1 >/dev/null
jq -e '.answer == 5 and .state == "finished"' "$TMP/body" >/dev/null || fail "answer: $(cat "$TMP/body")"
steps=$(jq -r '[.steps[] | "\(.purpose):\(.index):\(.mark)"] | join(" ")' "$TMP/body")
[ "$steps" = "verify:8:bad step:4:good step:6:skip step:5:bad confirm:5:bad" ] ||
	fail "steps: $steps"
jq -e '.steps[2].reason | test("build [0-9]+ failed")' "$TMP/body" >/dev/null ||
	fail "the skip does not say its build failed: $(jq .steps[2] "$TMP/body")"
# a step ended on its named metrics says so, not what its run said while running
jq -e '[.steps[] | select(.reason | test("^(running|queued):"))] | length == 0' "$TMP/body" >/dev/null ||
	fail "a finished step's reason is its run's running summary: $(jq -c '[.steps[].reason]' "$TMP/body")"
jq -e '.steps[0].delta | test("tiobench.seq_read.rate -(19|20)\\.[0-9]%")' "$TMP/body" >/dev/null ||
	fail "no delta in the evidence: $(jq .steps[0] "$TMP/body")"
expect_grep 'klabd: alert bisection_done: bisection 1 by alice: first bad' "$TMP/klabd.log"
# every step measures both kernels afresh, interleaved: no step borrows
# the good end's cells of an earlier one (run at another time, they made
# a harmless step worse on a real rig, t5104)
lend=$(sqlite3 "$TMP/klab.db" "SELECT group_concat(x, ' ') FROM (SELECT
	s.purpose || ':' || s.idx || ':' || (SELECT COUNT(*) FROM
	comparison_borrowed y WHERE y.comparison_id = s.comparison_id) || ':' ||
	(SELECT COUNT(*) FROM comparison_jobs x WHERE x.comparison_id =
	s.comparison_id AND x.side = 0) AS x FROM bisection_steps s WHERE
	s.bisection_id = 1 AND s.comparison_id > 0 ORDER BY s.id)")
case $lend in
"verify:8:0:3 step:4:0:3 step:5:0:3 confirm:5:0:"[1-9]*) ;;
*) fail "borrowed:own base cells per step: $lend" ;;
esac
jq -e '.steps[1].cells == 6 and .steps[3].cells == 6' "$TMP/body" >/dev/null ||
	fail "a step's cells count its own: $(jq -c '[.steps[].cells]' "$TMP/body")"
http GET "/api/comparisons/$(sqlite3 "$TMP/klab.db" "SELECT comparison_id FROM
	bisection_steps WHERE bisection_id = 1 AND idx = 5 AND purpose = 'step'")" >/dev/null
jq -e '.borrowed == 0 and .cells.base == 3' "$TMP/body" >/dev/null ||
	fail "comparison JSON: $(jq -c '{borrowed, cells}' "$TMP/body")"
# a step ends on its named metrics, never on another headline worse (a
# real rig's run ended its verification so, with the named one open)
jq -e '.stop_on_worse == false' "$TMP/body" >/dev/null ||
	fail "a bisection step's comparison stops at any headline worse"
http GET /api/bisections/1 >/dev/null
ok "series: patch 5 named after $(jq '.steps | length' "$TMP/body") steps, the unbuildable step skipped"

# (2) the Debian line
KLAB_TOKEN=$ALICE klab bisect --debian 6.1.170 6.1.177 --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 --scale 0.05 --scheduler mq-deadline \
	--cmdline 'elevator=none quiet' --wait >"$TMP/d.out" 2>"$TMP/d.err" &
W=$!
agent $W 'case $k in 6.1.17[4-7]) true ;; *) false ;; esac'
wait $W; rc=$?
[ $rc = 4 ] || fail "klab bisect --debian exited $rc: $(cat "$TMP/d.out" "$TMP/d.err")"
expect_grep '^klab bisection 2: first bad: 6.1.174, confirmed' "$TMP/d.out"
expect_grep '^config: *scale 0.05, scheduler mq-deadline, cmdline "elevator=none quiet"' "$TMP/d.out"
http GET /api/bisections/2 >/dev/null
jq -e '.answer == 4 and (.candidates | length) == 8' "$TMP/body" >/dev/null ||
	fail "debian answer: $(cat "$TMP/body")"
jq -e '.scale == 0.05 and .scheduler == "mq-deadline" and .cmdline == "elevator=none quiet"' \
	"$TMP/body" >/dev/null || fail "debian configuration: $(jq -c '{scale, scheduler, cmdline}' "$TMP/body")"
jq '[.candidates[].kernel | select(. != "")]' "$TMP/body" >"$TMP/k2.json"
nsteps=$(jq '.steps | length' "$TMP/body")
http GET /api/jobs >/dev/null
jq -e --slurpfile ks "$TMP/k2.json" '[.jobs[] | select(.kernel as $k |
	any($ks[0][]; . == $k))] as $j | ($j | length) >= 6 and all($j[];
	.scale == 0.05 and .scheduler == "mq-deadline" and .cmdline == "elevator=none quiet")' \
	"$TMP/body" >/dev/null || fail "the Debian steps' jobs: $(jq -c '[.jobs[] |
	{kernel, scale, scheduler, cmdline}]' "$TMP/body" | head -c 900)"
jq -e '[.jobs[] | select(.kernel | startswith("bis1-"))] as $j | ($j | length) >= 6 and
	all($j[]; .scale == 1 and .scheduler == "" and .cmdline == "")' "$TMP/body" >/dev/null ||
	fail "the series' jobs lost the defaults"
ok "debian line: 6.1.174 named after $nsteps steps, every job at scale 0.05 under mq-deadline"

# (3) a range that does not regress
KLAB_TOKEN=$ALICE klab bisect --debian 6.1.170 6.1.173 --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 --wait >"$TMP/n.out" 2>"$TMP/n.err" &
W=$!
agent $W 'case $k in 6.1.17[4-7]) true ;; *) false ;; esac'
wait $W; rc=$?
[ $rc = 0 ] || fail "a range without regression exited $rc: $(cat "$TMP/n.out")"
expect_grep 'the range does not regress on tiobench.seq_read.rate' "$TMP/n.out"
expect_nogrep '^culprit:' "$TMP/n.out"
ok "a range without regression: no culprit"

# pages and the list command
http GET /bisections >/dev/null; expect_status 200
expect_grep '<table id="bisections">'; expect_grep 'href="/bisections/2"'
http GET /bisections/1 >/dev/null; expect_status 200
expect_grep '<table id="steps">'; expect_grep '<pre id="report">'
expect_grep 'build [0-9]* failed'
http GET /bisections/99 >/dev/null; expect_status 404
klab bisections >"$TMP/out" || fail "klab bisections"
expect_grep '^id *who *kind' "$TMP/out"
klab bisections --format json | jq -e '.bisections | length == 3' >/dev/null ||
	fail "klab bisections --format json"
ok "pages and klab bisections"

# (5) the "Bisect" button of a worse submission, and /bisections/new
KLAB_TOKEN=$ALICE klab submit fake "$TMP/series.mbox" --rig r3 --suite tiobench \
	--max-cells 3 --wait >"$TMP/sub.out" 2>&1 &
W=$!
agent $W 'case $k in *-patched) true ;; *) false ;; esac'
wait $W; rc=$?
[ $rc = 4 ] || fail "the submission was not worse ($rc): $(cat "$TMP/sub.out")"
J=$TMP/cookies
curl -s -o /dev/null -c "$J" --data-urlencode "token=$ALICE" "$URL/login" || fail "login"
curl -s -b "$J" "$URL/submissions/1" >"$TMP/sub.html"
expect_grep 'action="/submissions/1/bisect"' "$TMP/sub.html"
curl -s "$URL/submissions/1" >"$TMP/anon.html"
expect_nogrep 'action="/submissions/1/bisect"' "$TMP/anon.html"
expect_grep 'name="metric" value="tiobench.seq_read.rate"' "$TMP/sub.html"
CSRF=$(sed -n 's/.*id="bisect".*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/sub.html")
[ ${#CSRF} -eq 64 ] || fail "no csrf in the Bisect form"
post_form() {	# PATH DATA: STATUS, headers in $TMP/h
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/h" -w '%{http_code}' -b "$J" \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$2" "$URL$1")
}
# the bisection takes the job configuration of the cell found worse; a
# submission queues its cells with the defaults, so give its comparison
# one by hand to see it carried over
sqlite3 "$TMP/klab.db" "UPDATE comparisons SET scale = 0.25, scheduler = 'none', \
	cmdline = 'quiet' WHERE id = (SELECT comparison_id FROM submission_cells \
	WHERE submission_id = 1)" || fail "sqlite3 update"
post_form /submissions/1/bisect "csrf=$CSRF&metric=tiobench.seq_read.rate"
expect_status 303
grep -qi '^location: /bisections/4' "$TMP/h" || fail "the button did not lead to bisection 4: $(cat "$TMP/h" "$TMP/body")"
http GET /api/bisections/4 >/dev/null
jq -e '.kind == "series" and .rig == "r3" and (.candidates | length) == 9 and
	.candidates[5].author == "Dev 5 <dev5@example.invalid>" and .scale == 0.25 and
	.scheduler == "none" and .cmdline == "quiet"' "$TMP/body" >/dev/null ||
	fail "the button's bisection: $(head -c 600 "$TMP/body")"
curl -s -b "$J" "$URL/bisections/new?kind=debian&rig=r3&suite=tiobench&metric=tiobench.seq_read.rate&good=6.1.170&bad=6.1.177" \
	>"$TMP/new.html"
expect_grep 'name="good" value="6.1.170"' "$TMP/new.html"
expect_grep 'name="csrf" value="[0-9a-f]\{64\}"' "$TMP/new.html"
expect_grep 'name="scale" value=""' "$TMP/new.html"; expect_grep 'name="scheduler"' "$TMP/new.html"
expect_grep 'name="cmdline"' "$TMP/new.html"
curl -s "$URL/bisections/new" >"$TMP/new.html"
expect_grep 'href="/login' "$TMP/new.html"; expect_nogrep 'name="csrf"' "$TMP/new.html"
post_form /bisections "csrf=$CSRF&kind=debian&rig=r3&suite=tiobench&metric=tiobench.seq_read.rate&good=6.1.170&bad=6.1.177&scale=0.05&scheduler=mq-deadline&cmdline="
expect_status 303
grep -qi '^location: /bisections/5' "$TMP/h" || fail "the form did not start bisection 5"
http GET /api/bisections/5 >/dev/null
jq -e '.scale == 0.05 and .scheduler == "mq-deadline" and .cmdline == ""' "$TMP/body" >/dev/null ||
	fail "the form's configuration: $(jq -c '{scale, scheduler, cmdline}' "$TMP/body")"
http GET /bisections/5 >/dev/null
expect_grep '<p id="config">every cell: scale 0.05, scheduler mq-deadline</p>'
post_form /bisections "csrf=$CSRF&kind=debian&rig=r3&suite=tiobench&metric=m&good=6.1.170&bad=6.1.177&scale=fast"
expect_status 400; expect_grep 'field &#39;scale&#39;: &#39;fast&#39; is not a number'
expect_grep 'name="scale" value="fast"'
post_form /bisections "csrf=$CSRF&kind=debian&rig=r3&suite=tiobench&metric=m&good=6.1.170&bad=6.1.177&scheduler=a+b"
expect_status 400; expect_grep 'field &#39;scheduler&#39;'
post_form /bisections "csrf=$CSRF&kind=debian&rig=r3&suite=tiobench&good=6.1.170&bad=6.1.177"
expect_status 400; expect_grep 'field &#39;metric&#39;: name the metric'
expect_grep 'id="error"'; expect_grep 'name="good" value="6.1.170"'
post_form /bisections "csrf=$CSRF&kind=debian&rig=r3&suite=tiobench&metric=m&good=6.1.170&bad=6.1.177&max_cells=2"
expect_status 400; expect_grep 'field &#39;max_cells&#39;'
post_form /bisections "kind=debian&rig=r3&suite=tiobench&metric=m&good=6.1.170&bad=6.1.177"
expect_status 403
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 5 ] || fail "refused forms stored a bisection"
ok "the Bisect button of a worse submission and the /bisections/new form"

# a restart resumes a running bisection
stop_klabd
start_klabd --config "$TMP/klabd.conf"
sleep 2
http GET /api/bisections/5 >/dev/null
jq -e '.state == "running" and (.steps | length) >= 1' "$TMP/body" >/dev/null ||
	fail "bisection 5 after a restart: $(jq -c '{state, phase, steps}' "$TMP/body")"
stop_klabd
ok "bisection: series with a skip, Debian line, no regression, pages, buttons, restart"
