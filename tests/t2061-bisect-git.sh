#!/bin/sh
# SPDX-License-Identifier: MIT
# Bisection of a git range (kind git): git bisect chooses the commits, in
# klabd's private clone.  Without rigs that run: the builds are real
# builds of the fake kernel tree (tests/data/build-tree) at each commit of
# a repository made here and configured as the git base "fakegit"; the
# measurements are SCRIPTED: this script is the agent of rig r3 and
# answers 80 MB/s for a kernel built from commit 4 or a descendant of it,
# 100 MB/s otherwise (the regression is produced here, on purpose; the
# agent finds a step's commit from its kernel bisN-IDX in the database).
#  (1) hostile and bad input is refused with a 4xx naming the field,
#      nothing stored: an unknown base, a path for a base, a directory
#      base, an option for a commit, a commit not in the base, good not an
#      ancestor of bad, good = bad; a scale, scheduler or kernel parameter
#      that a comparison run would refuse.
#  (2) klab bisect --git fakegit c0 c6 --wait: the ends verified, at most
#      ceil(log2(6)) = 3 steps chosen by git, commit 4 named (hash and
#      subject) and confirmed against its first parent, commit 3; exit 4,
#      the alert bisection_done; the page shows the commits; the private
#      clone is gone at the end.
#  (3) a restart of klabd in the middle of a git bisection: it goes on
#      from git's state replayed, names commit 4 again.
#  (4) a range whose commit 3 does not build (4 repairs it, 5 regresses):
#      the build failure is a skip fed to git, commit 5 is named; asked
#      for with --scale, --scheduler and --cmdline, every job of its steps
#      carries them (GET /api/jobs) and the agent is handed them.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v jq >/dev/null || skip "no jq"
command -v git >/dev/null || skip "no git"
D=$TOP/tests/data
chmod 755 "$TMP"

R=$TMP/repo
G="git -C $R -c user.name=Dev -c user.email=dev@example.invalid"
cp -r "$D/build-tree" "$R"
$G init -q && $G add -A && $G commit -qm "base" || fail "cannot make the repository"
for i in 1 2 3 4 5 6; do
	echo "/* note $i */" >>"$R/block/plug.h"
	$G add -A && git -C "$R" -c user.name="Dev $i" -c user.email="dev$i@example.invalid" \
		commit -qm "plug: note $i" || fail "commit $i"
done
C0=$($G rev-parse HEAD~6); C3=$($G rev-parse HEAD~3); C4=$($G rev-parse HEAD~2)
C6=$($G rev-parse HEAD)
$G tag bad-end
# the second: commit 3 does not build, commit 4 repairs it, 5 regresses
R2=$TMP/repo2
G2="git -C $R2 -c user.name=Dev -c user.email=dev@example.invalid"
cp -r "$D/build-tree" "$R2"
$G2 init -q && $G2 add -A && $G2 commit -qm "base" || fail "cannot make repo2"
for i in 1 2 3 4 5 6; do
	case $i in
	3) sed -i 's|write_expire / 1000;|write_expire / 1000 +;|' "$R2/block/elevator.c" ;;
	4) sed -i 's|write_expire / 1000 +;|write_expire / 1000;|' "$R2/block/elevator.c" ;;
	*) echo "/* note $i */" >>"$R2/block/plug.h" ;;
	esac
	$G2 add -A && $G2 commit -qm "change $i" || fail "repo2 commit $i"
done

cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
[base fake]
dir = $D/build-tree
[base fakegit]
git = $R
[base fakegit2]
git = $R2
[rig r3]
kind = remote
token = tok-r3-secret
autostart = no
CONF
make_token alice submitter >"$TMP/alice" || fail "token alice"
start_klabd --config "$TMP/klabd.conf"
ALICE=$(cat "$TMP/alice")
AU="Authorization: Bearer $ALICE"
RT='Authorization: Bearer tok-r3-secret'
JSON='Content-Type: application/json'
http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200

# (1) refused, nothing stored
post() {	# BASE GOOD BAD: the request, STATUS and body
	jq -n --arg b "$1" --arg g "$2" --arg x "$3" '{kind: "git", base: $b,
		good: $g, bad: $x, rig: "r3", suite: "tiobench",
		metrics: ["tiobench.seq_read.rate"], max_cells: 3}' >"$TMP/req"
	http POST /api/bisections -H "$AU" -H "$JSON" --data-binary @"$TMP/req" >/dev/null
}
post nosuch "$C0" "$C6"
expect_status 404; expect_grep "field 'base': unknown git base 'nosuch'"; expect_grep fakegit
post "$R" "$C0" "$C6"
expect_status 400; expect_grep "field 'base': paths and commits are not accepted"
post "git:$R" "$C0" "$C6"
expect_status 400; expect_grep "field 'base': paths"
post fake "$C0" "$C6"
expect_status 404; expect_grep "field 'base': unknown git base 'fake'"
post fakegit --upload-pack=x "$C6"
expect_status 400; expect_grep "field 'good': '--upload-pack=x' is not a commit name"
post fakegit "$C0" '$(touch /tmp/x)'
expect_status 400; expect_grep "field 'bad'"
post fakegit xyz "$C6"
expect_status 400; expect_grep "field 'good': no commit 'xyz' in base 'fakegit'"
post fakegit "$C0" "$C0..$C6"
expect_status 400; expect_grep "field 'bad'"
post fakegit "$C6" "$C0"
expect_status 400; expect_grep "field 'good': commit ${C6%"${C6#????????????}"} is not an ancestor"
post fakegit "$C4" "$C4"
expect_status 400; expect_grep "field 'bad': the same commit"
post fakegit "" "$C6"
expect_status 400; expect_grep "field 'good': missing"
for f in '"scale":-0.5' '"scale":1e6' '"scheduler":"$(reboot)"' '"cmdline":"rdinit=/x"'; do
	jq -n --arg g "$C0" --arg x "$C6" '{kind: "git", base: "fakegit", good: $g,
		bad: $x, rig: "r3", suite: "tiobench", metrics: "m"} + {'"$f"'}' >"$TMP/req"
	http POST /api/bisections -H "$AU" -H "$JSON" --data-binary @"$TMP/req" >/dev/null
	case $f in
	*cmdline*) expect_status 403; expect_grep "field 'cmdline': kernel parameter 'rdinit=/x'" ;;
	*) expect_status 400; expect_grep "field '$(echo "$f" | cut -d'"' -f2)'" ;;
	esac
done
KLAB_TOKEN=$ALICE klab bisect --git /etc "$C0" "$C6" --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate 2>"$TMP/err" && fail "a path taken by klab bisect --git"
expect_grep "field 'base': paths" "$TMP/err"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisections")" = 0 ] ||
	fail "refused bisections were stored"
ok "bad and hostile input refused naming the field, nothing stored"

# the agent: answer r3's jobs until the client ($1) has exited; a kernel
# bisN-IDX is candidate IDX of bisection N, its file the commit
agent() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		http GET "/api/agent/next?wait=1" -H "$RT" >"$TMP/next"
		[ "$STATUS" = 200 ] || continue
		id=$(jq -r .job.id "$TMP/next")
		k=$(jq -r .job.kernel "$TMP/next")
		jq -r '"\(.job.kernel) \(.job.scale) \(.job.scheduler) \(.job.cmdline)"' \
			"$TMP/next" >>"$TMP/handed"
		b=${k#bis}; i=${b#*-}; b=${b%-*}
		h=$(sqlite3 "$TMP/klab.db" "SELECT file FROM bisection_candidates \
			WHERE bisection_id = $b AND idx = $i")
		if git -C "$AR" merge-base --is-ancestor "$AC" "$h"; then r=80; else r=100; fi
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
			"$r" $((n % 3)) >"$TMP/res.json"
		http POST "/api/agent/jobs/$id/results" -H "$RT" -H "$JSON" \
			--data-binary @"$TMP/res.json" >/dev/null
		[ "$STATUS" = 201 ] || fail "results of job $id: HTTP $STATUS"
		n=$((n + 1))
	done
}

# (2) the range c0..c6 (the bad end by its tag)
AR=$R AC=$C4
KLAB_TOKEN=$ALICE klab bisect --git fakegit "$C0" bad-end --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 --wait >"$TMP/g.out" 2>"$TMP/g.err" &
W=$!
agent $W
wait $W; rc=$?
[ $rc = 4 ] || fail "klab bisect --git --wait exited $rc, not 4: $(cat "$TMP/g.out" "$TMP/g.err"; tail -5 "$TMP/klabd.log")"
S4=$(printf %.12s "$C4")
expect_grep "^klab bisection 1: first bad: $S4 plug: note 4 by Dev 4 <dev4@example.invalid>, confirmed" "$TMP/g.out"
expect_grep '^subject: *plug: note 4' "$TMP/g.out"
expect_grep '^how sure: *sure' "$TMP/g.out"
http GET /api/bisections/1 >/dev/null
jq -e --arg c4 "$C4" --arg c3 "$C3" --arg c0 "$C0" --arg c6 "$C6" \
	'.kind == "git" and .base == "fakegit" and .good == $c0 and .bad == $c6 and
	 .state == "finished" and .candidates[.answer].label == "'"$S4"' plug: note 4" and
	 .candidates[.answer - 1].label == "'"$(printf %.12s "$C3")"' plug: note 3"' \
	"$TMP/body" >/dev/null || fail "answer: $(cat "$TMP/body")"
steps=$(jq -r '[.steps[] | .purpose] | join(" ")' "$TMP/body")
nstep=$(jq '[.steps[] | select(.purpose == "step")] | length' "$TMP/body")
case $steps in "verify "*" confirm") ;; *) fail "steps: $steps" ;; esac
[ "$nstep" -ge 2 ] && [ "$nstep" -le 3 ] || fail "$nstep bisection steps, not 2 or 3: $steps"
jq -e '[.steps[] | select(.purpose == "confirm")][0].mark == "bad" and .steps[0].mark == "bad"' \
	"$TMP/body" >/dev/null || fail "not verified or not confirmed: $(jq -c .steps "$TMP/body")"
expect_grep 'klabd: alert bisection_done: bisection 1 by alice: first bad' "$TMP/klabd.log"
http GET /api/builds >/dev/null
expect_grep "\"base\":\"fakegit@$C4\""
[ ! -e "$TMP/data/bisect/1" ] || fail "the private clone is left: $(ls "$TMP/data/bisect")"
ok "git range: commit 4 named after $nstep steps chosen by git ($steps)"

# the pages and the form
http GET /bisections/1 >/dev/null; expect_status 200
expect_grep "fakegit: $(printf %.12s "$C0") base (good)"
expect_grep "$S4 plug: note 4"
J=$TMP/cookies
curl -s -o /dev/null -c "$J" --data-urlencode "token=$ALICE" "$URL/login" || fail "login"
curl -s -b "$J" "$URL/bisections/new" >"$TMP/new.html"
expect_grep 'id="bisect-git"' "$TMP/new.html"
CSRF=$(sed -n 's/.*id="bisect-git".*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$TMP/new.html")
[ ${#CSRF} -eq 64 ] || fail "no csrf in the git form"
STATUS=$(curl -s -o "$TMP/body" -D "$TMP/h" -w '%{http_code}' -b "$J" \
	-H 'Content-Type: application/x-www-form-urlencoded' \
	--data-binary "csrf=$CSRF&kind=git&base=fakegit&good=nosuch&bad=$C6&rig=r3&suite=tiobench&metric=m" \
	"$URL/bisections")
expect_status 400; expect_grep 'field &#39;good&#39;: no commit'
expect_grep 'name="base" value="fakegit"'

# (3) a restart in the middle: git's state is replayed from the database,
# the same commits are asked for (no commit twice), the answer the same
KLAB_TOKEN=$ALICE klab bisect --git fakegit "$C0" "$C6" --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 >/dev/null 2>&1 || fail "bisection 2"
marked() {
	sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM bisection_steps WHERE \
		bisection_id = 2 AND mark != ''"
}
sleep 600 & S=$!
( while [ "$(marked)" -lt 2 ]; do sleep 0.3; done; kill $S ) &
agent $S
stop_klabd
[ -d "$TMP/data/bisect/2" ] || fail "no private clone of bisection 2"
start_klabd --config "$TMP/klabd.conf"
http POST /api/agent/register -H "$RT" -H "$JSON" \
	-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
running() {
	[ "$(sqlite3 "$TMP/klab.db" "SELECT state FROM bisections WHERE id = 2")" = running ]
}
sleep 600 & S=$!
( while running; do sleep 0.5; done; kill $S ) &
agent $S
http GET /api/bisections/2 >/dev/null
jq -e '.state == "finished" and .candidates[.answer].label == "'"$S4"' plug: note 4" and
	([.steps[] | select(.purpose == "confirm")][0].mark == "bad")' "$TMP/body" >/dev/null ||
	fail "bisection 2 after a restart: $(jq -c '{state, outcome, steps}' "$TMP/body")"
[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(DISTINCT file) = COUNT(*) FROM bisection_candidates \
	WHERE bisection_id = 2 AND idx < (SELECT MAX(idx) - 1 FROM bisection_candidates \
	WHERE bisection_id = 2)")" = 1 ] || fail "a commit asked twice after the restart"
ok "a restart in the middle: replayed, $(jq '.steps | length' "$TMP/body") steps, the same answer"

# (4) a commit that does not build is skipped (git bisect skip), git
# goes on to its neighbour and still names the first bad commit
AR=$R2 AC=$($G2 rev-parse HEAD~1)
: >"$TMP/handed"
KLAB_TOKEN=$ALICE klab bisect --git fakegit2 HEAD~6 HEAD --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 --scale 0.02 --scheduler none \
	--cmdline quiet --wait >"$TMP/k.out" 2>"$TMP/k.err" &
W=$!
agent $W
wait $W; rc=$?
[ $rc = 4 ] || fail "bisection 3 exited $rc: $(cat "$TMP/k.out" "$TMP/k.err")"
expect_grep "first bad: $(printf %.12s "$AC") change 5 by Dev <dev@example.invalid>, confirmed" "$TMP/k.out"
expect_grep '^config: *scale 0.02, scheduler none, cmdline "quiet"' "$TMP/k.out"
http GET /api/bisections/3 >/dev/null
jq -e '[.steps[] | select(.mark == "skip")] | length >= 1 and
	(.[0].reason | test("build [0-9]+ failed"))' "$TMP/body" >/dev/null ||
	fail "no skipped step for the commit that does not build: $(jq -c .steps "$TMP/body")"
marks=$(jq -r '[.steps[] | .mark] | join(" ")' "$TMP/body")
jq -e '.scale == 0.02 and .scheduler == "none" and .cmdline == "quiet"' "$TMP/body" >/dev/null ||
	fail "bisection 3's configuration: $(jq -c '{scale, scheduler, cmdline}' "$TMP/body")"
http GET /api/jobs >/dev/null
jq -e '[.jobs[] | select(.kernel | startswith("bis3-"))] as $j | ($j | length) >= 6 and
	all($j[]; .scale == 0.02 and .scheduler == "none" and .cmdline == "quiet")' \
	"$TMP/body" >/dev/null || fail "bisection 3's jobs: $(jq -c '[.jobs[] |
	select(.kernel | startswith("bis3-")) | {kernel, scale, scheduler, cmdline}]' "$TMP/body")"
grep -q '^bis3-[0-9]* 0.02 none .* quiet$' "$TMP/handed" &&
	! grep '^bis3-' "$TMP/handed" | grep -vq ' 0.02 none .* quiet$' ||
	fail "the agent was not handed the configuration: $(grep '^bis3-' "$TMP/handed" | head -3)"
ok "a commit that does not build skipped by git: $marks; every job at scale 0.02 under none"

# (5) the skip leaves nothing to test: commit 3 does not build and 4 is
# bad, so the first bad is 3 or 4; git says so and exits 2, which is an
# answer ("cannot tell"), not a failure of git
AR=$R2 AC=$($G2 rev-parse HEAD~2)
KLAB_TOKEN=$ALICE klab bisect --git fakegit2 HEAD~4 HEAD~2 --rig r3 --suite tiobench \
	--metric tiobench.seq_read.rate --max-cells 3 --wait >"$TMP/k.out" 2>"$TMP/k.err" &
W=$!
agent $W
wait $W
http GET /api/bisections/4 >/dev/null
jq -e '.state == "finished" and (.outcome | test("cannot tell: git bisect has only skipped commits left"))' "$TMP/body" \
	>/dev/null || fail "bisection 4: $(jq -c '{state, outcome, error}' "$TMP/body")"
ok "only skipped commits left: cannot tell, $(jq -r .outcome "$TMP/body")"
stop_klabd
ok "bisection of a git range: refusals, git's steps, the answer confirmed, pages, restart, skip"
