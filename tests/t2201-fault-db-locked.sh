#!/bin/sh
# SPDX-License-Identifier: MIT
# Resource fault (docs/FAULTS.md): another process (the sqlite3 shell)
# holds the database locked (BEGIN EXCLUSIVE) for 30 s while an agent
# uploads a job's results and users read and write.  Reads go on (WAL);
# a write is refused with a clear 503 that says the database is busy;
# the agent's upload is retried until it is stored, once; no rig-manager
# write is lost; the database is consistent; and the service resumes by
# itself once the lock is gone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 shell"

host_rig_start
klab job add "$K" --rig host0 --suite dbench --scale 0.05 >/dev/null || fail "queue job 1"
host_agent_start host0 tok-host0
wait_file "$TMP/fake/started.1"

# the lock: taken, held 30 s, released
LOCK_SECS=${LOCK_SECS:-30}
(echo 'BEGIN EXCLUSIVE;'; echo "SELECT 'locked';"; sleep "$LOCK_SECS"; echo 'COMMIT;') |
	sqlite3 "$TMP/klab.db" >"$TMP/lock.out" 2>&1 &
LPID=$!
wait_file "$TMP/lock.out"
sleep 0.5
grep -q locked "$TMP/lock.out" || fail "the sqlite3 shell did not take the lock: $(cat "$TMP/lock.out")"
t0=$(date +%s)
: >"$TMP/fake/go"

# reads go on while the database is locked
http GET /api/jobs/1 >/dev/null
expect_status 200
http GET "/compare?k=$K&rig=host0&suite=dbench" >/dev/null
[ "$STATUS" = 200 ] || fail "compare page while locked: HTTP $STATUS"
# a write is refused, clearly
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"dbench\"}" >/dev/null
[ $(($(date +%s) - t0)) -lt "$LOCK_SECS" ] || fail "the write was not answered while the lock was held"
expect_status 503
expect_grep 'database.*busy\|busy.*database'
echo "while locked: $(cat "$TMP/body")"
ok "reads served, a write refused with 503 while the database is locked"

wait "$LPID"
echo "lock released after $(($(date +%s) - t0)) s"
wait $APID
rc=$?
cat "$TMP/agent.log"
[ $rc -eq 0 ] || fail "the agent exited $rc"
expect_grep 'results stored (HTTP 201)' "$TMP/agent.log"
job_get 1
grep -q '"state":"done"' "$TMP/job" || fail "job 1 not done: $(cat "$TMP/job")"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 1")
[ "$n" -eq 1 ] || fail "job 1 stored $n runs, expected 1"
expect_nogrep 'WRITE LOST' "$TMP/klabd.log"
db_ok
# the service resumes by itself: the same write now succeeds
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"dbench\"}" >/dev/null
expect_status 201
stop_klabd
ok "after a 30 s lock: the upload stored once, nothing lost, service resumed"
