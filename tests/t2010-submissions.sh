#!/bin/sh
# SPDX-License-Identifier: MIT
# Patch submissions without rigs that run (two remote rigs that never
# start): a series submitted through the API and through klab submit is
# checked, both kernels are built on the fake kernel tree (configured as
# the base "fake"), and one comparison a rig x suite is queued with its
# cells; bad input (no token, empty or non-patch upload, unknown base,
# rig or suite, oversize upload, a patch that does not apply: named by
# patch, file and hunk) is refused with a 4xx and nothing is queued;
# a job configuration (scale, scheduler, cmdline: from the API, klab
# submit and the /submit form) reaches every cell's job, a bad one is
# refused naming its field with nothing stored, and the page and report
# name it unless it is the default;
# only the submitter or an operator may cancel, a revoked token not at
# all; /submissions, /submissions/N, /queue and their CLI load; the
# queue hands a rig's jobs out round-robin by submitter; every list
# command prints a table and --format json; a submission run to its end
# by a scripted agent on a third rig (klab submit --wait: exit 4 and the
# report on a worse patch, both alerts); a patch that does not build
# fails the submission at its build stage; an A/A submission (a comment
# only, the same numbers) comes out same with no worse alert; a restart
# resumes.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3"
D=$TOP/tests/data
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
submit_conf "$TMP/klabd.conf" "max_upload = 262144" "submit_max_cells = 3"
cat >>"$TMP/klabd.conf" <<CONF
[rig r2]
kind = remote
token = tok-r2-secret
autostart = no
[rig r3]
kind = remote
token = tok-r3-secret
autostart = no
CONF
make_token alice submitter >"$TMP/alice" || fail "token alice"
make_token bob submitter >"$TMP/bob" || fail "token bob"
make_token carol submitter >"$TMP/carol" || fail "token carol"
start_klabd --config "$TMP/klabd.conf"
ALICE="Authorization: Bearer $(cat "$TMP/alice")"
BOB="Authorization: Bearer $(cat "$TMP/bob")"
CAROL="Authorization: Bearer $(cat "$TMP/carol")"
JSON='Content-Type: application/json'

# post AUTH JSON: POST /api/submissions
post() { http POST /api/submissions -H "$1" -H "$JSON" --data-binary "$2" >/dev/null; }
njobs() { sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM jobs"; }
nsubs() { sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM submissions"; }
nbuilds() { sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM builds"; }
# wait_stage N STAGE: until submission N reaches STAGE (30 s)
wait_stage() {
	i=0
	while [ "$(sqlite3 "$TMP/klab.db" "SELECT stage FROM submissions WHERE id = $1")" != "$2" ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "submission $1 never reached $2: $(http GET "/api/submissions/$1"; tail -5 "$TMP/klabd.log")"
		sleep 0.1
	done
}
good=$(jq -Rs '{base: "fake", patches: [{name: "good-elv.patch", text: .}], note: "elv tweak"}' "$D/patches/good-elv.patch")

# jobs_config N: "scale scheduler cmdline" of every job of submission
# N, one line each distinct configuration
jobs_config() {
	sqlite3 -separator ' ' "$TMP/klab.db" "SELECT DISTINCT j.scale, j.scheduler, \
		j.cmdline FROM jobs j JOIN comparison_jobs x ON x.job_id = j.id JOIN \
		submission_cells c ON c.comparison_id = x.comparison_id WHERE \
		c.submission_id = $1"
}

# (1) through the API: 201, checked, built, one comparison on r1 x
# tiobench, every cell with the job configuration asked for
post "$ALICE" "$(printf "%s" "$good" | jq -c '.scale = 0.02 | .scheduler = "none" | .cmdline = "quiet"')"
expect_status 201; expect_grep '"url":"/submissions/1"'
wait_stage 1 cells
http GET /api/submissions/1 >/dev/null; expect_status 200
expect_grep '"who":"alice"'; expect_grep '"subject":"elevator: '
expect_grep '"stage":"check","state":"done"'
expect_grep '"cells_planned":6'
jq -e '.scale == 0.02 and .scheduler == "none" and .cmdline == "quiet"' "$TMP/body" >/dev/null ||
	fail "submission 1's configuration: $(jq -c '{scale, scheduler, cmdline}' "$TMP/body")"
[ "$(njobs)" = 6 ] || fail "3 cells a side expected on r1, got $(njobs) jobs"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(DISTINCT rig_id) FROM jobs")" = 1 ] ||
	fail "cells outside r1"
[ "$(jobs_config 1)" = "0.02 none quiet" ] ||
	fail "submission 1's jobs do not have its configuration: $(jobs_config 1)"

# (2) klab submit: an mbox series on both rigs; subjects kept, in order
out=$(KLAB_TOKEN=$(cat "$TMP/bob") klab submit fake "$D/patches/series.mbox" --rig r1,r2,r1 --suite tiobench) ||
	fail "klab submit: $out"
[ "$out" = "submission 2" ] || fail "klab submit printed '$out'"
http GET /api/submissions/2 >/dev/null
expect_grep '"name":"series.mbox\[1/2\]","subject":"plug: hold 8 requests"'
expect_grep '"name":"series.mbox\[2/2\]","subject":"plug: hold 4 requests"'
wait_stage 2 cells
[ "$(njobs)" = 18 ] || fail "6 + 2 x 6 jobs expected, got $(njobs)"
# none asked for: the suite's scale, the rig's scheduler, no parameter
[ "$(jobs_config 2)" = "1.0  " ] ||
	fail "submission 2's jobs are not at the defaults: '$(jobs_config 2)'"

# (3) bad input: a 4xx naming the problem, nothing stored or queued
before="$(nsubs) $(nbuilds) $(njobs)"
HTTP_NOAUTH=1 http POST /api/submissions -H "$JSON" --data-binary "$good" >/dev/null
expect_status 401
post "$ALICE" '{"base":"fake","patches":[{"name":"e.patch","text":""}]}'
expect_status 400; expect_grep "patch 'e.patch' is empty"
post "$ALICE" '{"base":"fake","patches":[{"name":"notes.txt","text":"just some words\n"}]}'
expect_status 400; expect_grep "patch 'notes.txt' is not a patch: no diff found in it"
post "$ALICE" '{"base":"fake"}'
expect_status 400; expect_grep "no patch"
post "$ALICE" "$(printf "%s" "$good" | jq -c '.base = "nope"')"
expect_status 400; expect_grep "unknown base 'nope'"
post "$ALICE" "$(printf "%s" "$good" | jq -c '.rigs = ["r9"]')"
expect_status 404; expect_grep "unknown rig 'r9'"
post "$ALICE" "$(printf "%s" "$good" | jq -c '.suites = ["nosuite"]')"
expect_status 400; expect_grep "nosuite"
# the job configuration: the check of jobs and comparison runs
bad_config() {	# FIELD JSON-VALUE STATUS MESSAGE
	post "$ALICE" "$(printf "%s" "$good" | jq -c --argjson v "$2" ".$1 = \$v")"
	expect_status "$3"; expect_grep "$4"
}
bad_config scale 20000 400 "field 'scale': 20000 is not between 0.0001 and 10000"
bad_config scale -1 400 "field 'scale': -1 is not between"
bad_config scale '"0.05"' 400 "field 'scale': expected a number"
bad_config scheduler '"bfq;reboot"' 400 "field 'scheduler': scheduler name 'bfq;reboot'"
bad_config cmdline '"init=/bin/sh"' 403 "field 'cmdline': kernel parameter 'init=/bin/sh' is not allowed"
http POST "/api/submissions?base=fake&scale=fast" -H "$ALICE" \
	-H 'Content-Type: application/mbox' --data-binary @"$D/patches/series.mbox" >/dev/null
expect_status 400; expect_grep "field 'scale': 'fast' is not a number"
KLAB_TOKEN=$(cat "$TMP/alice") klab submit fake "$D/patches/good-elv.patch" --scale fast 2>"$TMP/out"
[ $? = 2 ] || fail "klab submit --scale fast: not a usage error"
expect_grep "option '--scale' needs a number" "$TMP/out"
KLAB_TOKEN=$(cat "$TMP/alice") klab submit fake "$D/patches/good-elv.patch" --scale 0 \
	--cmdline 'quiet init=/bin/sh' >"$TMP/out" 2>&1 && fail "klab submit took --cmdline init="
expect_grep "field 'cmdline': kernel parameter 'init=/bin/sh' is not allowed" "$TMP/out"
head -c 300000 /dev/zero | tr '\0' 'x' >"$TMP/big"
http POST /api/submissions -H "$ALICE" -H 'Content-Type: text/plain' \
	--data-binary @"$TMP/big" >/dev/null
expect_status 413
bad=$(jq -Rs '{base: "fake", patches: [{name: "bad-hunk.patch", text: .}]}' "$D/patches/bad-hunk.patch")
post "$ALICE" "$bad"
expect_status 422
expect_grep "cannot apply patch 'bad-hunk.patch': hunk 2 of block/elevator.c failed"
KLAB_TOKEN=$(cat "$TMP/alice") klab submit fake "$D/patches/bad-hunk.patch" >"$TMP/out" 2>&1 &&
	fail "klab submit took a patch that does not apply"
expect_grep "cannot apply patch 'bad-hunk.patch': hunk 2 of block/elevator.c" "$TMP/out"
KLAB_TOKEN=$(cat "$TMP/alice") klab submit nope "$D/patches/good-elv.patch" >"$TMP/out" 2>&1 &&
	fail "klab submit took an unknown base"
expect_grep "unknown base 'nope'" "$TMP/out"
[ "$(nsubs) $(nbuilds) $(njobs)" = "$before" ] ||
	fail "refused input left something behind: $before -> $(nsubs) $(nbuilds) $(njobs)"

# (4) a raw mbox body with its fields in the query
http POST "/api/submissions?base=fake&rig=r2&note=raw" -H "$CAROL" \
	-H 'Content-Type: application/mbox' --data-binary @"$D/patches/series.mbox" >/dev/null
expect_status 201; expect_grep '"id":3'
wait_stage 3 cells

# (5) fair share: r1 holds alice's 6 cells, then bob's 6; bob's first
# cell goes out second, not seventh
order=$(http GET /api/queue | jq -r '.rigs[] | select(.name == "r1") | .waiting[].who' | head -4 | tr '\n' ' ')
[ "$order" = "alice bob alice bob " ] || fail "r1's queue is not round-robin by submitter: $order"
http GET /queue >/dev/null; expect_status 200
expect_grep 'class="waiting"'; expect_grep 'fake\|sub1-'
expect_grep '<h2 class="rig">r1'; expect_grep '<table id="builds">'
klab queue >"$TMP/out" || fail "klab queue"
expect_grep '^rig *id *kernel' "$TMP/out"; expect_grep 'bob' "$TMP/out"

# (6) cancel: not another submitter's, the owner's yes, an operator's yes
http POST /api/submissions/1/cancel -H "$BOB" -H "$JSON" -d '{}' >/dev/null
expect_status 403; expect_grep "only its submitter or an operator"
http POST /api/submissions/1/cancel -H "$ALICE" -H "$JSON" -d '{}' >/dev/null
expect_status 200
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM jobs j JOIN comparison_jobs x ON x.job_id = j.id JOIN submission_cells s ON s.comparison_id = x.comparison_id WHERE s.submission_id = 1 AND j.state = 'queued'")" = 0 ] ||
	fail "a cancelled submission left cells queued"
http POST /api/submissions/1/cancel -H "$ALICE" -H "$JSON" -d '{}' >/dev/null
expect_status 409
KLAB_TOKEN=$(cat "$TMP/operator.token") klab submission cancel 3 >"$TMP/out" || fail "operator cancel"
expect_grep cancelled "$TMP/out"
"$KLAB_BIN/klabd" token revoke bob --db "$TMP/klab.db" >/dev/null 2>&1 ||
	fail "cannot revoke bob's token"
http POST /api/submissions/2/cancel -H "$BOB" -H "$JSON" -d '{}' >/dev/null
expect_status 401
[ "$(sqlite3 "$TMP/klab.db" "SELECT state FROM submissions WHERE id = 2")" = running ] ||
	fail "a revoked token cancelled"

# (7) pages and list commands
http GET /submissions >/dev/null; expect_status 200
expect_grep '<table id="submissions">'; expect_grep 'href="/submissions/2"'
http GET /submissions/2 >/dev/null; expect_status 200
expect_grep 'http-equiv="refresh"'; expect_grep 'plug: hold 4 requests'
expect_grep 'href="/api/builds/[0-9]*/log"'; expect_grep 'href="/api/jobs/[0-9]*"'
expect_grep 'queue position'; expect_nogrep 'id="config"'
http GET /submissions/1 >/dev/null; expect_grep 'cancelled by alice'
expect_grep '<p id="config">every cell: scale 0.02, scheduler none, cmdline &quot;quiet&quot;</p>'
http GET /submissions/99 >/dev/null; expect_status 404
klab submissions >"$TMP/out" || fail "klab submissions"
expect_grep '^id *who *base *state' "$TMP/out"; expect_grep 'cancelled' "$TMP/out"
klab submissions --format json | jq -e '.submissions | length == 3' >/dev/null ||
	fail "klab submissions --format json"
klab builds >"$TMP/out" || fail "klab builds"
expect_grep '^id *ident *base *state' "$TMP/out"; expect_grep 'sub2-patched' "$TMP/out"
klab builds --format json | jq -e '.builds | length >= 4' >/dev/null || fail "klab builds --format json"
klab jobs >"$TMP/out" || fail "klab jobs"
expect_grep '^id *kernel *rig' "$TMP/out"
klab audit >"$TMP/out" || fail "klab audit"
expect_grep '^when *who *role *action' "$TMP/out"
expect_grep 'alice *submitter *submission cancel' "$TMP/out"
klab audit --format json | jq -e '[.audit[] | select(.action == "submission add")] | length == 3' \
	>/dev/null || fail "klab audit --format json: not 3 submissions added"

# klab kernel list --available: Debian's list (key=value lines, here
# from a static server) as a table, or JSON
mkdir -p "$TMP/srv/api/catalog"
printf 'package=linux-image-6.1.0-9-amd64 version=6.1.27-1 upstream=6.1.27 package_version=6.1.27-1\n' \
	>"$TMP/srv/api/catalog/available"
python3 -m http.server --bind 127.0.0.1 --directory "$TMP/srv" 0 >"$TMP/srv.log" 2>&1 &
SRVPID=$!
i=0
until SRVPORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$TMP/srv.log") && [ -n "$SRVPORT" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && { kill $SRVPID; fail "no static server"; }; sleep 0.05
done
klab --url "http://127.0.0.1:$SRVPORT" kernel list --available >"$TMP/out" || fail "kernel list --available"
expect_grep '^package *version *upstream' "$TMP/out"
expect_grep 'linux-image-6.1.0-9-amd64 *6.1.27-1 *6.1.27' "$TMP/out"
klab --url "http://127.0.0.1:$SRVPORT" kernel list --available --format json |
	jq -e '.available[0].upstream == "6.1.27"' >/dev/null || fail "kernel list --available --format json"
kill $SRVPID; wait $SRVPID 2>/dev/null

# (8) to the end: a submission on r3, whose agent is this script,
# followed by klab submit --wait: the patched kernel is slower, the
# verdict worse (exit 4), the report names base, patch, rig and suite
# with the LKP-style change, and both alerts are raised
RT='Authorization: Bearer tok-r3-secret'
# upload_rate JOB VALUE: r3's results of JOB, a seq_read rate of VALUE
upload_rate() {
	printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"}]}\n' \
		"$2" >"$TMP/res.json"
	http POST "/api/agent/jobs/$1/results" -H "$RT" -H "$JSON" \
		--data-binary @"$TMP/res.json" >/dev/null
	[ "$STATUS" = 201 ] || fail "results of job $1: HTTP $STATUS: $(cat "$TMP/body")"
}
http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200
KLAB_TOKEN=$(cat "$TMP/alice") klab submit fake "$D/patches/good-elv.patch" \
	--rig r3 --note "to the end" --scale 0.02 --scheduler mq-deadline --wait \
	>"$TMP/wait.out" 2>"$TMP/wait.err" &
WAITPID=$!
n=0
while [ $n -lt 6 ]; do
	http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
	[ "$STATUS" = 200 ] || fail "no job for r3 (HTTP $STATUS: $(cat "$TMP/next"))"
	id=$(jq -r .job.id "$TMP/next")
	# every cell is handed out with the submission's configuration
	jq -e '.job.scale == 0.02 and .job.scheduler == "mq-deadline"' \
		"$TMP/next" >/dev/null ||
		fail "job $id not at scale 0.02 under mq-deadline: $(jq -c .job "$TMP/next")"
	case $(jq -r .job.kernel "$TMP/next") in *-patched) r=80 ;; *) r=100 ;; esac
	upload_rate "$id" "$r.$n"
	n=$((n + 1))
done
wait $WAITPID
rc=$?
[ $rc = 4 ] || fail "klab submit --wait exited $rc, not 4 (worse): $(cat "$TMP/wait.out" "$TMP/wait.err")"
expect_grep '^klab submission 4: worse' "$TMP/wait.out"
expect_grep '^base: *fake' "$TMP/wait.out"
expect_grep '\[1/1\] elevator: smaller batches' "$TMP/wait.out"
expect_grep '^rigs: *r3' "$TMP/wait.out"; expect_grep '^suites: *tiobench' "$TMP/wait.out"
expect_grep '^config: *scale 0.02, scheduler mq-deadline$' "$TMP/wait.out"
expect_grep '%change' "$TMP/wait.out"
expect_grep 'tiobench.seq_read.rate (worse' "$TMP/wait.out"
expect_grep 'stage cells' "$TMP/wait.err"
expect_grep 'klabd: alert submission_finished: submission 4 by alice: worse' "$TMP/klabd.log"
expect_grep 'klabd: alert worse_found: submission 4' "$TMP/klabd.log"
http GET /api/submissions/4 >/dev/null
for st in check build cells verdict report alert; do
	expect_grep "\"stage\":\"$st\",\"state\":\"done\""
done
http GET /submissions/4 >/dev/null
expect_grep '<pre id="report">'; expect_nogrep 'http-equiv="refresh"'
expect_grep 'Verdict: rig r3, suite tiobench'

# (9) a patch that applies but does not build: the submission fails at
# its build stage, naming the build, and says so by alert
brk=$(jq -Rs '{base: "fake", patches: [{name: "broken-build.patch", text: .}]}' "$D/patches/broken-build.patch")
post "$ALICE" "$brk"
expect_status 201; expect_grep '"id":5'
i=0
while [ "$(sqlite3 "$TMP/klab.db" "SELECT state FROM submissions WHERE id = 5")" = running ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "submission 5 never ended"
	sleep 0.1
done
http GET /api/submissions/5 >/dev/null
expect_grep '"state":"failed"'; expect_grep '"stage":"build","state":"failed"'
expect_grep 'build [0-9]* (patched) failed'
expect_grep 'klabd: alert build_failed: submission 5 by alice: failed' "$TMP/klabd.log"
# one failure, one alert: the submission's, not the build's beside it
grep 'klabd: alert build_failed: build [0-9]* of' "$TMP/klabd.log" &&
	fail "a submission's failed build raised a second build_failed"

# (9b) A/A: a patch that changes a comment only, the same numbers on
# both sides (as an unchanged kernel gives them): the verdict is not
# worse, klab submit --wait exits 0, and no worse alert is raised
KLAB_TOKEN=$(cat "$TMP/alice") klab submit fake "$D/patches/fake-aa-comment.patch" \
	--rig r3 --note "A/A" --wait >"$TMP/aa.out" 2>"$TMP/aa.err" &
WAITPID=$!
n=0
while [ $n -lt 6 ]; do
	http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
	[ "$STATUS" = 200 ] || fail "no A/A job for r3 (HTTP $STATUS: $(cat "$TMP/next"))"
	id=$(jq -r .job.id "$TMP/next")
	jq -e '.job.scale == 1 and .job.scheduler == ""' "$TMP/next" >/dev/null ||
		fail "A/A job $id not at the defaults: $(jq -c .job "$TMP/next")"
	# cell k of each kernel gets the k-th of the same three values
	r=$(echo "100.0 100.4 99.7" | cut -d' ' -f$((n / 2 + 1)))
	upload_rate "$id" "$r"
	n=$((n + 1))
done
wait $WAITPID
rc=$?
[ $rc = 0 ] || fail "klab submit --wait of the A/A patch exited $rc, not 0: $(cat "$TMP/aa.out" "$TMP/aa.err")"
expect_grep '^klab submission 6: same' "$TMP/aa.out"
expect_grep 'same after 3 cells: 0 worse, 0 better, 1 same' "$TMP/aa.out"
expect_nogrep '^config:' "$TMP/aa.out"
expect_grep 'sub6-patched vs sub6-base: rate 0.0% (same' "$TMP/aa.out"
expect_grep 'klabd: alert submission_finished: submission 6 by alice: same' "$TMP/klabd.log"
expect_nogrep 'alert worse_found: submission 6' "$TMP/klabd.log"

# (10) a restart resumes: submission 2 is still running, its cells queued
stop_klabd
start_klabd --config "$TMP/klabd.conf"
sleep 1.5
http GET /api/submissions/2 >/dev/null
expect_grep '"state":"running"'; expect_grep '"stage":"cells"'

# (11) the /submit form: the job configuration's fields, a bad scale
# refused naming it (the form again, what was typed kept), a good one
# given to every cell
J=$TMP/cookies
curl -s -o /dev/null -c "$J" --data-urlencode "token=$(cat "$TMP/alice")" "$URL/login" ||
	fail "login"
curl -s -b "$J" "$URL/submit" >"$TMP/form.html"
expect_grep 'name="scale"' "$TMP/form.html"; expect_grep 'name="scheduler"' "$TMP/form.html"
expect_grep 'name="cmdline"' "$TMP/form.html"
CSRF=$(sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/form.html" | head -1)
[ ${#CSRF} -eq 64 ] || fail "no csrf in the /submit form"
post_form() {	# CURL-ARGS: STATUS, headers in $TMP/h
	STATUS=$(curl -s -o "$TMP/body" -D "$TMP/h" -w '%{http_code}' -b "$J" \
		--data-urlencode "csrf=$CSRF" --data-urlencode base=fake \
		--data-urlencode "text@$D/patches/good-elv.patch" "$@" "$URL/submit")
}
before="$(nsubs) $(nbuilds)"
post_form --data-urlencode scale=fast
expect_status 400; expect_grep 'field &#39;scale&#39;: &#39;fast&#39; is not a number'
expect_grep 'name="scale" id="scale" size="8" placeholder="1" value="fast"'
post_form --data-urlencode scale=20000
expect_status 400; expect_grep 'field &#39;scale&#39;: 20000 is not between'
post_form --data-urlencode 'cmdline=init=/bin/sh'
expect_status 403; expect_grep 'field &#39;cmdline&#39;'
[ "$(nsubs) $(nbuilds)" = "$before" ] || fail "a refused form stored something"
post_form --data-urlencode scale=0.05 --data-urlencode scheduler=mq-deadline \
	--data-urlencode cmdline=
expect_status 303
grep -qi '^location: /submissions/7' "$TMP/h" || fail "the form did not lead to submission 7: $(cat "$TMP/h")"
wait_stage 7 cells
[ "$(jobs_config 7)" = "0.05 mq-deadline " ] ||
	fail "the form's submission's jobs: '$(jobs_config 7)'"
http GET /submissions/7 >/dev/null
expect_grep '<p id="config">every cell: scale 0.05, scheduler mq-deadline</p>'
stop_klabd
ok "submissions: API, CLI, form, job configuration, apply check, bad input, cancel, queue, fair share, pages"
