#!/bin/sh
# SPDX-License-Identifier: MIT
# Controller fault (docs/FAULTS.md): klabd is killed (SIGKILL) while 32
# agents of 32 remote rigs upload their jobs' results at once, each body
# trickled over 0.3 to 3.4 s (tests/fault-agents.py).  After the restart
# on the same port and database: every upload that was answered 201 is
# stored, once; the rigs still hold their jobs (remote machines go on
# running them); the agents' retries of the rest are stored (201, or 200
# for one stored whose answer was lost), every job ends done with exactly
# one run, and PRAGMA integrity_check passes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
N=32

: >"$TMP/klabd.conf"
i=0
while [ $i -lt $N ]; do
	printf '[rig r%d]\nkind = remote\ntoken = t%d\nboot_timeout = 600\njob_timeout = 600\n' \
		$i $i >>"$TMP/klabd.conf"
	i=$((i + 1))
done
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "cannot add the newest 6.1 kernel"
i=0
while [ $i -lt $N ]; do
	klab job add "$K" --rig r$i --suite dbench --scale 0.05 >/dev/null || fail "queue a job on r$i"
	i=$((i + 1))
done
python3 "$TOP/tests/fault-agents.py" take "$URL" $N "$TMP/jobs" ||
	{ tail -20 "$TMP/klabd.log"; fail "the agents did not all get a job"; }

python3 "$TOP/tests/fault-agents.py" upload "$URL" "$TMP/jobs" "$TMP/up1" "$K" &
UP=$!
sleep 1.6
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
stop_klabd
ok "after the restart: retries stored the rest, $N jobs done with one run each"
