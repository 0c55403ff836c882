#!/bin/sh
# SPDX-License-Identifier: MIT
# Rig pools (issue 31; docs/OPERATOR.md "Rig pools", docs/VERDICTS.md "Rig
# pools"), no QEMU: two remote rigs of one class, each driven by this
# script as its agent, uploading synthetic klab results in which the
# second rig runs 20% faster than the first.
#  (a) klabd refuses a class whose rigs differ, naming the rig and the
#      field, and a class named like a rig outside it;
#  (b) a comparison naming the class: its cells land on both rigs, each
#      rig runs both kernels, and an 8% drop (smaller than the rigs'
#      offset) is decided worse, tested by rig ("stratified");
#  (c) an A/A over the class is never worse or better;
#  (d) a rig's own name still pins a job to that rig; an unknown name is
#      404; /api/rigs and /rigs show the class;
#  (e) a submission names the class (submit_rigs, klab submit --rig): its
#      cells are queued for the class;
#  (f) /queue?rig=CLASS, /api/queue, klab queue and the home page list
#      the jobs queued for the class as the class's (not its first rig's).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"

# --- (a) refusals at start ---
cat >"$TMP/bad.conf" <<CONF
[rig p1]
kind = remote
class = pool
memory_mb = 1024
[rig p2]
kind = remote
class = pool
memory_mb = 2048
CONF
timeout 20 "$KLAB_BIN/klabd" --config "$TMP/bad.conf" --listen 127.0.0.1:0 \
	--db "$TMP/bad.db" --data-dir "$TMP/bad-data" >"$TMP/bad.log" 2>&1 &&
	fail "klabd started with a class whose rigs differ"
expect_grep "\[rig p2\] class 'pool': its configuration differs from rig 'p1' (memory_mb=2048 against memory_mb=1024)" "$TMP/bad.log"
printf '[rig p1]\nkind = remote\nclass = p2\n[rig p2]\nkind = remote\n' >"$TMP/bad2.conf"
timeout 20 "$KLAB_BIN/klabd" --config "$TMP/bad2.conf" --listen 127.0.0.1:0 \
	--db "$TMP/bad2.db" --data-dir "$TMP/bad2-data" >"$TMP/bad2.log" 2>&1 &&
	fail "klabd started with a class named like a rig outside it"
expect_grep "\[rig p1\] class: 'p2' is the name of a rig: name a class apart from its rigs" "$TMP/bad2.log"
ok "a class whose rigs differ, or named like another rig, stops klabd naming rig and field"

# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $TOP/tests/data/build-tree.config
build_must_have = CONFIG_KEXEC
submit_rigs = pool
submit_suites = tiobench
[base fake]
dir = $TOP/tests/data/build-tree
[rig r1]
kind = remote
class = pool
token = tok-r1-secret
autostart = no
boot_timeout = 600
job_timeout = 600
[rig r2]
kind = remote
class = pool
token = tok-r2-secret
autostart = no
boot_timeout = 600
job_timeout = 600
CONF
start_klabd --config "$TMP/klabd.conf"

head -c 4096 /dev/urandom >"$TMP/img"
for k in kA kA2 kB; do
	http POST /api/kernels -H 'Content-Type: application/json' \
		-d "{\"ident\":\"$k\"}" >/dev/null
	expect_status 201
done
sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-t5002', image = '$TMP/img'"
for g in r1 r2; do
	http POST /api/agent/register -H "Authorization: Bearer tok-$g-secret" \
		-H 'Content-Type: application/json' \
		-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
	expect_status 200
done

# results RIG KERNEL: r2 runs 20% faster; kB reads 8% slower; a little
# noise that repeats every 3 cells
results() {
	c=$(cat "$TMP/count.$1" 2>/dev/null || echo 0)
	echo $((c + 1)) >"$TMP/count.$1"
	awk -v g="$1" -v k="$2" -v c="$c" 'BEGIN {
		f = (g == "r2" ? 1.2 : 1) * (1 + (c % 3 - 1) * 0.002)
		r = 100 * f * (k == "kB" ? 0.92 : 1); w = 50 * f
		printf "{\"schema\":\"klab-results/1\",\"results\":[" \
		       "{\"metric\":\"tiobench.seq_read.rate\",\"unit\":\"MB/s\",\"value\":%.4f,\"direction\":\"higher\"}," \
		       "{\"metric\":\"tiobench.seq_write.rate\",\"unit\":\"MB/s\",\"value\":%.4f,\"direction\":\"higher\"}]}\n", r, w }'
}

# serve_one RIG: RIG's agent takes a job, if one comes within 2 s, and
# uploads its results; 1 when none came
serve_one() {
	http GET "/api/agent/next?wait=2" -H "Authorization: Bearer tok-$1-secret" >"$TMP/next"
	[ "$STATUS" = 200 ] || return 1
	id=$(jq -r .job.id "$TMP/next")
	results "$1" "$(jq -r .job.kernel "$TMP/next")" >"$TMP/res.json"
	http POST "/api/agent/jobs/$id/results" -H "Authorization: Bearer tok-$1-secret" \
		-H 'Content-Type: application/json' --data-binary @"$TMP/res.json" >/dev/null
	[ "$STATUS" = 201 ] || fail "results of job $id from $1: HTTP $STATUS: $(cat "$TMP/body")"
}

# serve_until PID: the two rigs' agents take turns until PID (klab
# compare-run --wait) exits
serve_until() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -gt 60 ] && { cat "$TMP/klabd.log"; fail "the comparison did not end"; }
		serve_one r$((n % 2 + 1)) || true
	done
}

# --- (b) an 8% drop over the class, rigs 20% apart ---
klab compare-run kA kB --rig pool --suite tiobench --max-cells 6 --wait >"$TMP/ab.out" 2>"$TMP/ab.err" &
P=$!
serve_until $P
wait $P
rc=$?
[ $rc -eq 4 ] || { cat "$TMP/ab.out" "$TMP/ab.err" "$TMP/klabd.log"; fail "pool A/B: compare-run --wait exited $rc, expected 4"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/ab.out")
http GET "/api/comparisons/$ID" >/dev/null
[ "$(jq -r .rig "$TMP/body")" = pool ] || fail "the comparison's rig: $(jq -r .rig "$TMP/body")"
[ "$(jq -r '.metrics_decided["tiobench.seq_read.rate"]' "$TMP/body")" = worse ] ||
	fail "pool A/B decided: $(jq -c '{summary,metrics_decided}' "$TMP/body")"
[ "$(jq -r '.comparison.rigs | join(",")' "$TMP/body")" = "r1,r2" ] ||
	fail "the cells' rigs: $(jq -c .comparison.rigs "$TMP/body")"
[ "$(jq -r '.comparison.metrics[] | select(.name == "tiobench.seq_read.rate") | .cells[1].analysis' "$TMP/body")" = stratified ] ||
	fail "analysis: $(jq -c '.comparison.metrics[] | select(.name == "tiobench.seq_read.rate") | .cells[1]' "$TMP/body")"
[ "$(jq -r '.metrics_decided["tiobench.seq_write.rate"] // "open"' "$TMP/body")" != worse ] ||
	fail "the unchanged write rate was called worse"
http GET "/api/jobs" >/dev/null
for g in r1 r2; do
	ks=$(jq -r --arg g "$g" '[.jobs[] | select(.rig == $g) | .kernel] | unique | join(",")' "$TMP/body")
	[ "$ks" = "kA,kB" ] || fail "rig $g ran kernels '$ks', expected both: $(jq -c '[.jobs[] | {id,rig,kernel,state}]' "$TMP/body")"
done
# the compare page over the class, its suite derived
http GET "/api/compare?k=kA&k=kB&rig=pool" >/dev/null
expect_status 200
[ "$(jq -r '.suite + " " + (.rigs | join(","))' "$TMP/body")" = "tiobench r1,r2" ] ||
	fail "compare over the class: $(head -c 400 "$TMP/body")"
klab compare kA kB --rig pool >"$TMP/cmp.txt" || fail "klab compare --rig pool: $?"
expect_grep "rig: pool" "$TMP/cmp.txt"
http GET "/compare?k=kA&k=kB&rig=pool" >"$TMP/cmp.html"
expect_status 200
expect_grep '<option value="pool" selected>pool</option>' "$TMP/cmp.html"
expect_grep '<span class="an">by rig</span>' "$TMP/cmp.html"
ok "a comparison over the class: cells on both rigs, each both kernels, an 8% drop under a 20% rig offset decided worse by rig"

# --- (c) A/A over the class ---
klab compare-run kA kA2 --rig pool --suite tiobench --max-cells 6 --wait >"$TMP/aa.out" 2>"$TMP/aa.err" &
P=$!
serve_until $P
wait $P
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 5 ] || { cat "$TMP/aa.out" "$TMP/aa.err"; fail "pool A/A: compare-run --wait exited $rc, expected 0 (same) or 5 (undecided)"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/aa.out")
http GET "/api/comparisons/$ID" >/dev/null
jq -r '.metrics_decided | to_entries[] | .value' "$TMP/body" | grep -q 'worse\|better' &&
	fail "pool A/A: $(jq -c '{summary,metrics_decided}' "$TMP/body")"
echo "note: pool A/A: $(jq -r .summary "$TMP/body")"
ok "an A/A over the class, rigs 20% apart, is never worse or better"

# --- (d) a rig's own name pins the job; unknown names ---
http POST /api/jobs -H 'Content-Type: application/json' \
	-d '{"kernels":["kA"],"rig":"r2","suite":"tiobench"}' >/dev/null
expect_status 201
J=$(jq -r '.jobs[0]' "$TMP/body")
http GET "/api/agent/next?wait=1" -H "Authorization: Bearer tok-r1-secret" >"$TMP/next"
[ "$(jq -r '.job.id // 0' "$TMP/next")" != "$J" ] || fail "r1 took a job queued for r2"
http GET "/api/agent/next?wait=5" -H "Authorization: Bearer tok-r2-secret" >"$TMP/next"
[ "$(jq -r .job.id "$TMP/next")" = "$J" ] || fail "r2 did not get its job: $(cat "$TMP/next")"
http POST /api/comparisons -H 'Content-Type: application/json' \
	-d '{"base":"kA","candidate":"kB","rig":"nopool","suite":"tiobench"}' >/dev/null
expect_status 404
expect_grep "unknown rig 'nopool' (no rig or class of that name)"
http GET /api/rigs >/dev/null
[ "$(jq -r '[.rigs[] | .class] | join(",")' "$TMP/body")" = ",pool,pool" ] ||
	fail "rigs' classes: $(cat "$TMP/body")"
http GET /rigs >/dev/null
expect_grep '<td>r2</td><td>pool</td>'
ok "a rig's name pins a job to it; an unknown rig or class is 404; /rigs shows the class"

# --- (e) a submission names the class (submit_rigs = pool, and --rig) ---
out=$(klab submit fake "$TOP/tests/data/patches/good-elv.patch" --suite tiobench) ||
	fail "klab submit: $out"
S=${out#submission }
out=$(klab submit fake "$TOP/tests/data/patches/good-elv.patch" --rig pool --suite tiobench) ||
	fail "klab submit --rig pool: $out"
S2=${out#submission }
for s in $S $S2; do
	i=0
	until [ "$(sqlite3 "$TMP/klab.db" "SELECT stage FROM submissions WHERE id = $s")" = cells ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "submission $s never reached its cells: $(tail -5 "$TMP/klabd.log")"
		sleep 0.1
	done
	[ "$(sqlite3 "$TMP/klab.db" "SELECT group_concat(DISTINCT rig) FROM submission_cells WHERE submission_id = $s")" = pool ] ||
		fail "submission $s's cells are not on the class"
	[ "$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) || ' ' || group_concat(DISTINCT j.class) FROM jobs j JOIN comparison_jobs x ON x.job_id = j.id JOIN submission_cells c ON c.comparison_id = x.comparison_id WHERE c.submission_id = $s")" = "6 pool" ] ||
		fail "submission $s's jobs are not queued for the class"
done
ok "a submission names the class (submit_rigs and klab submit --rig): its cells are queued for the pool"

# --- (f) what waits for the class: /queue?rig=pool, /api/queue, the home
# page and klab queue list the jobs queued for the pool as the pool's,
# not as its first rig's ---
http POST /api/jobs -H 'Content-Type: application/json' \
	-d '{"kernels":["kA"],"rig":"r1","suite":"tiobench"}' >/dev/null
expect_status 201
NP=$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND class = 'pool'")
[ "$NP" = 12 ] || fail "$NP jobs queued for the pool, not 12"
for q in '?rig=pool' '' '?rig=r2'; do
	http GET "/api/queue$q" >/dev/null
	expect_status 200
	jq -e --argjson n "$NP" '(.classes | length) == 1 and .classes[0].name == "pool" and
		(.classes[0].rigs | join(",")) == "r1,r2" and (.classes[0].waiting | length) == $n and
		all(.classes[0].waiting[]; .rig == "pool") and
		([.rigs[] | select(.name == "r2") | .class] == ["pool"]) and
		([.rigs[] | select(.name == "r1") | .waiting[] | .kernel] | . == [] or . == ["kA"])' \
		"$TMP/body" >/dev/null || fail "/api/queue$q: $(jq -c '{classes, rigs: [.rigs[] | {name, class, waiting: (.waiting | length)}]}' "$TMP/body")"
done
http GET '/api/queue?rig=pool' >/dev/null
[ "$(jq -r '[.rigs[].name] | join(",")' "$TMP/body")" = "r1,r2" ] &&
	[ "$(jq '[.rigs[] | select(.name == "r1") | .waiting[]] | length' "$TMP/body")" = 1 ] ||
	fail "/api/queue?rig=pool: $(jq -c '[.rigs[] | {name, waiting: (.waiting | length)}]' "$TMP/body")"
http GET '/api/queue?rig=r2' >/dev/null
[ "$(jq -r '[.rigs[].name] | join(",")' "$TMP/body")" = r2 ] || fail "/api/queue?rig=r2: $(cat "$TMP/body")"
http GET '/queue?rig=pool' >/dev/null
expect_status 200
expect_grep '<h2 class="pool">pool <span class="note">class of r1, r2: '
[ "$(sed -n '/<h2 class="pool">/,/<\/table>/p' "$TMP/body" | grep -c '<tr><td>[0-9]*</td><td><a href="/api/jobs/')" = "$NP" ] ||
	fail "/queue?rig=pool does not list the pool's $NP jobs"
http GET '/queue?rig=r2' >/dev/null
expect_grep '<h2 class="pool">pool '; expect_grep '<h2 class="rig">r2 '
expect_nogrep '<h2 class="rig">r1 '
http GET "/api/queue?rig=nopool" >/dev/null
expect_status 404; expect_grep "unknown rig 'nopool' (no rig or class of that name)"
http GET "/queue?rig=nopool" >/dev/null
expect_status 404; expect_grep "unknown rig &#39;nopool&#39; (no rig or class of that name)"
http GET / >/dev/null
expect_grep '<tr class="pool"><td><a href="/queue?rig=pool">pool</a></td><td class="state">class of r1, r2</td><td class="now">-</td><td class="num">12</td></tr>'
grep -o '<tr class="rig"><td><a href="/runs?rig=r1">r1</a></td>.*' "$TMP/body" | head -1 |
	grep -q '<td class="num">1</td></tr>' || fail "the home page counts r1's waiting jobs wrong: $(grep -o '<tr class="rig">.*' "$TMP/body" | head -3)"
klab queue >"$TMP/queue.txt" || fail "klab queue"
[ "$(grep -c '^pool ' "$TMP/queue.txt")" = "$NP" ] || fail "klab queue: $(cat "$TMP/queue.txt")"
ok "the pool's waiting jobs: /queue?rig=pool, /api/queue (classes), the home page's pool row and klab queue; an unknown name is 404"

# a class cell's job stays on its submission's page once a rig took it
# (r2 first ends the job (d) pinned to it)
serve_one r2 || fail "r2 had no job to end"
http GET "/api/agent/next?wait=5" -H "Authorization: Bearer tok-r2-secret" >"$TMP/next"
J=$(jq -r .job.id "$TMP/next")
JS=$(sqlite3 "$TMP/klab.db" "SELECT c.submission_id FROM submission_cells c JOIN comparison_jobs x ON x.comparison_id = c.comparison_id WHERE x.job_id = $J")
[ -n "$JS" ] || fail "r2 took job $J, not a submission's: $(cat "$TMP/next")"
http GET "/submissions/$JS" >/dev/null
expect_grep "<a href=\"/api/jobs/$J\">job $J</a> [^<]* assigned"
ok "a pool cell's job taken by r2 is still on /submissions/$JS"
stop_klabd
