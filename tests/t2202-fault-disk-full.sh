#!/bin/sh
# SPDX-License-Identifier: MIT
# Resource fault (docs/FAULTS.md): the disk that holds klabd's database
# and data directory fills up (a 256 MiB tmpfs, room for the rig images, filled by a file) while an
# agent uploads a job's results and users queue work.  Each write is
# refused with a clear error that says the disk is full; nothing half
# stored; once space is freed the service resumes by itself: the agent's
# retried upload is stored once, and the database passes integrity_check.
# Needs root (mount); skipped otherwise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
mkdir -p "$TMP/small"
mount -t tmpfs -o size=256m tmpfs "$TMP/small" 2>/dev/null || skip "cannot mount a tmpfs here"
# klabd holds files on it: stopped first
at_cleanup 'kill_klabd; umount "$TMP/small" 2>/dev/null || umount -l "$TMP/small"'

# the database and the data directory on the small disk
mkdir "$TMP/small/data"
ln -s small/klab.db "$TMP/klab.db"
ln -s small/data "$TMP/data"
host_rig_start
[ -f "$TMP/small/klab.db" ] || fail "the database is not on the small disk"
klab job add "$K" --rig host0 --suite dbench --scale 0.05 >/dev/null || fail "queue job 1"
host_agent_start host0 tok-host0
wait_file "$TMP/fake/started.1"

# the disk fills up
dd if=/dev/zero of="$TMP/small/filler" bs=64k 2>/dev/null
df -k "$TMP/small" | tail -1
: >"$TMP/fake/go"
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"dbench\"}" >/dev/null
echo "job add on a full disk: $STATUS $(cat "$TMP/body")"
[ "$STATUS" = 201 ] && fail "a job was queued on a full disk"
expect_status 507
expect_grep 'disk.*full\|full.*disk'
i=0
until grep -q 'results: klabd answered 507' "$TMP/agent.log"; do
	i=$((i + 1))
	[ $i -gt 300 ] && { cat "$TMP/agent.log"; tail "$TMP/klabd.log"; fail "no upload refused for a full disk in 30 s"; }
	sleep 0.1
done
job_get 1
grep -q '"state":"done"' "$TMP/job" && fail "job 1 done while its results could not be stored"
ok "writes refused with 507 'disk full' while the disk is full"

# space comes back: the agent's next try is stored, once
rm -f "$TMP/small/filler"
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
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"dbench\"}" >/dev/null
expect_status 201
stop_klabd
ok "after the disk was full: the upload stored once, nothing lost, service resumed"
