#!/bin/sh
# SPDX-License-Identifier: MIT
# Agent faults (docs/FAULTS.md), no QEMU: the real klab-agent on the host
# (a remote rig; its klab-run a stand-in that waits for the test).
#  1. The agent is killed (SIGKILL, with its suite) in the middle of a run
#     and started again: the job goes back to the queue as an
#     infrastructure failure (never the kernel's), the rig takes it again
#     and its results are stored once.  (Before: the rig went idle with
#     the job still in hand, the job stayed "running" for ever and the rig
#     took no job again.)
#  2. Through tests/fault-proxy.py, the first upload is cut off halfway
#     and klabd's answer to the second is lost: nothing is stored from the
#     first, the third (a repeat) is answered 200 with the same run, and
#     the job has exactly one run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"

host_rig_start

# --- 1: the agent killed mid-run ---
klab job add "$K" --rig host0 --suite dbench --scale 0.05 >/dev/null || fail "queue job 1"
host_agent_start host0 tok-host0
wait_file "$TMP/fake/started.1"
job_get 1
grep -q '"state":"\(assigned\|running\)"' "$TMP/job" || fail "job 1 not under way: $(cat "$TMP/job")"
AG=$(pgrep -P "$APID" klab-agent) || fail "no klab-agent under $APID"
RUNS=$(pgrep -P "$AG")
kill -KILL "$AG" $RUNS
wait "$APID" 2>/dev/null
echo "agent $AG and its suite ($RUNS) killed mid-run"
: >"$TMP/fake/go"
host_agent_start host0 tok-host0
wait_file "$TMP/fake/started.2"
wait "$APID" || { cat "$TMP/agent.log"; fail "the restarted agent failed"; }
expect_grep "job 1: infrastructure failure: the agent checked in on .* without job 1" "$TMP/klabd.log"
job_get 1
grep -q '"state":"done"' "$TMP/job" || fail "job 1 not done: $(cat "$TMP/job")"
grep -q '"failure":"kernel"' "$TMP/job" && fail "the agent's death was blamed on the kernel"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 1")
[ "$n" -eq 1 ] || fail "job 1 stored $n runs, expected 1"
ok "agent killed mid-run: job requeued (infra), run again, stored once"

# --- 2: uploads cut off halfway and answers lost, through a proxy ---
python3 "$TOP/tests/fault-proxy.py" "$TMP/proxy.port" "$PORT" cut,drop \
	>"$TMP/proxy.log" 2>&1 &
PROXY=$!
wait_file "$TMP/proxy.port" 10
klab job add "$K" --rig host0 --suite dbench --scale 0.05 >/dev/null || fail "queue job 2"
: >"$TMP/fake/go"
AGENT_URL=http://127.0.0.1:$(cat "$TMP/proxy.port") host_agent_start host0 tok-host0
wait "$APID" || { cat "$TMP/agent.log"; fail "the agent behind the proxy failed"; }
kill "$PROXY"
cat "$TMP/proxy.log"
expect_grep 'upload 1: cut' "$TMP/proxy.log"
expect_grep 'upload 2: drop' "$TMP/proxy.log"
expect_grep 'upload 3: pass' "$TMP/proxy.log"
expect_grep 'job 2: results stored (HTTP 200)' "$TMP/agent.log"
job_get 2
grep -q '"state":"done"' "$TMP/job" || fail "job 2 not done: $(cat "$TMP/job")"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 2")
[ "$n" -eq 1 ] || fail "job 2 stored $n runs, expected 1"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs")
[ "$n" -eq 2 ] || fail "expected 2 runs in all, found $n"
f=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM jobs WHERE failure = 'kernel'")
[ "$f" -eq 0 ] || fail "$f jobs blamed on the kernel"
db_ok
stop_klabd
ok "an upload cut halfway stored nothing; a lost answer's retry stored nothing twice"
