#!/bin/sh
# SPDX-License-Identifier: MIT
# Controller fault (docs/FAULTS.md): klabd is killed (SIGKILL) while 32
# agents of 32 remote rigs upload their jobs' results at once, each body
# trickled over 0.3 to 3.4 s (tests/fault-agents.py), while a kernel
# build runs (the fake tree, tests/data/build-tree, made to take 20 s)
# and a submission waits in its build stage behind it.  After the restart
# on the same port and database: every upload that was answered 201 is
# stored, once; the rigs still hold their jobs (remote machines go on
# running them); the agents' retries of the rest are stored (201, or 200
# for one stored whose answer was lost), every job ends done with exactly
# one run; the build is requeued and ends done, the submission goes on by
# itself to its cells; and PRAGMA integrity_check passes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
N=32

chmod 755 "$TMP"	# the build sandbox's user reads the cache under it
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $TOP/tests/data/build-tree.config
build_must_have = CONFIG_KEXEC
submit_rigs = r0
submit_suites = dbench
[base fake]
dir = $TOP/tests/data/build-tree
CONF
# a patch that makes the fake tree's bzImage take 20 s
cat >"$TMP/slow-20.patch" <<'P'
Subject: [PATCH] fake tree: make bzImage take 20 s

---
diff --git a/block/sleep b/block/sleep
new file mode 100644
--- /dev/null
+++ b/block/sleep
@@ -0,0 +1 @@
+20
P
i=0
while [ $i -lt $N ]; do
	printf '[rig r%d]\nkind = remote\ntoken = t%d\nboot_timeout = 600\njob_timeout = 600\n' \
		$i $i >>"$TMP/klabd.conf"
	i=$((i + 1))
done
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "cannot add the newest 6.1 kernel"
ALICE=$(make_token alice submitter) || fail "token alice"
i=0
while [ $i -lt $N ]; do
	klab job add "$K" --rig r$i --suite dbench --scale 0.05 >/dev/null || fail "queue a job on r$i"
	i=$((i + 1))
done
python3 "$TOP/tests/fault-agents.py" take "$URL" $N "$TMP/jobs" ||
	{ tail -20 "$TMP/klabd.log"; fail "the agents did not all get a job"; }

klab build fake "$TMP/slow-20.patch" --ident slow20 >"$TMP/out" 2>&1 || fail "build: $(cat "$TMP/out")"
KLAB_TOKEN=$ALICE klab submit fake "$TOP/tests/data/patches/slow-2.patch" --rig r0 \
	--suite dbench >"$TMP/out" 2>&1 || fail "submit: $(cat "$TMP/out")"
i=0
until http GET /api/builds/1 >/dev/null && [ "$(jq -r .state "$TMP/body")" = building ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "build 1 never started: $(cat "$TMP/body")"
	sleep 0.1
done
http GET /api/submissions/1 >/dev/null
[ "$(jq -r '.stage + " " + .state' "$TMP/body")" = "build running" ] ||
	fail "submission 1 is not waiting for its build: $(jq -c '{stage,state}' "$TMP/body")"

python3 "$TOP/tests/fault-agents.py" upload "$URL" "$TMP/jobs" "$TMP/up1" "$K" &
UP=$!
# the kill lands after the first upload is answered, while the slower ones
# (up to 3.4 s each) are still sending: on the first answer, not at a
# fixed time, so a loaded machine does not move it past them all
i=0
until grep -q ' 20[01]$' "$TMP/up1.live" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 600 ] && fail "no upload answered in 60 s: $(cat "$TMP/up1.live" 2>/dev/null)"
	sleep 0.1
done
kill -KILL "$KLABD_PID"; wait "$KLABD_PID" 2>/dev/null; KLABD_PID=
echo "klabd killed during the uploads"
wait $UP
acked=$(grep -c ' 20[01]$' "$TMP/up1")
cut=$(grep -c ' 000$' "$TMP/up1")
echo "before the kill: $acked uploads acknowledged, $cut cut off"
[ "$acked" -gt 0 ] && [ "$cut" -gt 0 ] || fail "the kill did not land among the uploads ($acked acknowledged, $cut cut)"

KLABD_LISTEN=127.0.0.1:$PORT start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
db_ok
for job in $(sed -n 's/ 20[01]$//p' "$TMP/up1"); do
	n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = $job")
	[ "$n" -eq 1 ] || fail "job $job was acknowledged (201) but has $n runs after the restart"
done
ok "every acknowledged upload survived the SIGKILL, once"

grep ' 000$' "$TMP/up1" | while read -r job st; do
	grep " $job\$" "$TMP/jobs"
done >"$TMP/jobs2"
python3 "$TOP/tests/fault-agents.py" retry "$URL" "$TMP/jobs2" "$TMP/up2" "$K"
cat "$TMP/up2"
! grep -qv ' 20[01]$' "$TMP/up2" || fail "a retried upload was refused: $(grep -v ' 20[01]$' "$TMP/up2")"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs")
[ "$n" -eq $N ] || fail "expected $N runs, found $n"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(DISTINCT job_id) FROM runs")
[ "$n" -eq $N ] || fail "expected runs of $N jobs, found $n"
i=0
until [ "$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM jobs WHERE state = 'done'")" -eq $N ]; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "not every job is done: $(sqlite3 "$TMP/klab.db" 'SELECT id, state, failure FROM jobs')"
	sleep 0.1
done
db_ok
ok "after the restart: retries stored the rest, $N jobs done with one run each"

# the build killed with klabd is built again; the submission goes on
sub_cells() { # the cells (jobs) submission 1's comparisons queued
	sqlite3 "$TMP/klab.db" "SELECT count(*) FROM comparison_jobs cj JOIN
		submission_cells sc ON sc.comparison_id = cj.comparison_id
		WHERE sc.submission_id = 1"
}
i=0
until [ "$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM builds WHERE state IN ('done', 'failed')")" -ge 3 ] &&
	http GET /api/submissions/1 >/dev/null && [ "$(jq -r .stage "$TMP/body")" = cells ] &&
	[ "$(sub_cells)" -gt 0 ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "after the restart, the submission queued no cell: builds $(sqlite3 "$TMP/klab.db" 'SELECT id, state, error FROM builds'), submission $(jq -c '{stage,state,error}' "$TMP/body")"
	sleep 0.5
done
[ "$(jq -r .state "$TMP/body")" = running ] || fail "submission 1: $(jq -c '{stage,state,error}' "$TMP/body")"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM builds WHERE state != 'done'")
[ "$n" -eq 0 ] || fail "builds not done: $(sqlite3 "$TMP/klab.db" 'SELECT id, ident, state, error FROM builds')"
n=$(sub_cells)
db_ok
stop_klabd
ok "the build killed with klabd was built again, and the submission went on to its $n cells"
