#!/bin/sh
# SPDX-License-Identifier: MIT
# Failure classes on a real QEMU rig: a job whose downloads fail is an
# infrastructure failure (retried, then failed as "infra", never blamed on
# the kernel, no reboot of the rig); a kernel that panics at boot
# (rdinit= that does not exist, panic=1) is a kernel failure recorded with
# its console log, and the rig recovers by itself with a cold boot of its
# base kernel and takes the next job.  Then klabd is killed in the middle
# of a job and restarted: no acknowledged result is lost.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"

cat >"$TMP/klabd.conf" <<CONF
# every agent download is refused 15 times: 3 attempts x 5 tries
fault_downloads = 15
# job 2 provokes a kernel failure through the command line
job_cmdline_allow = elevator= quiet rdinit= panic=
[rig scsi0]
kind = qemu
profile = scsi
# the disk's speed is not this test's business (hdd's cells take minutes)
disk_model = host
base_kernel = 6.1.192
memory_mb = 768
disk_mb = 64
boot_timeout = 180
job_timeout = 300
CONF
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "fetch 6.1"
[ "$K" = 6.1.192 ] || skip "the newest 6.1 in the archive is $K, the config names 6.1.192"

wait_job() {	# wait_job ID: until it is done or failed
	i=0
	while :; do
		http GET "/api/jobs/$1" >/dev/null
		grep -q '"state":"\(done\|failed\)"' "$TMP/body" && return 0
		i=$((i + 3)); [ $i -gt 600 ] && { tail -30 "$TMP/klabd.log"; fail "job $1 did not end"; }
		sleep 3
	done
}
wait_idle() {
	i=0
	until http GET /api/rigs/scsi0 | grep -q '"state":"idle"'; do
		i=$((i + 3)); [ $i -gt 400 ] && { tail -30 "$TMP/klabd.log"; fail "rig not idle"; }
		sleep 3
	done
}
wait_idle

# 1: downloads fail -> infra, retried 3 times, rig not rebooted
klab job add "$K" --rig scsi0 --suite tiobench --scale 0.01 >/dev/null || fail "queue 1"
wait_job 1
expect_grep '"state":"failed"'; expect_grep '"failure":"infra"'; expect_grep '"attempts":3'
expect_grep 'api/agent/files/.*503'
n=$(ls "$TMP/data/rigs/scsi0/"console-*.log | wc -l)
[ "$n" -eq 1 ] || fail "an infrastructure failure rebooted the rig ($n boots)"
ok "download failure is infra, retried, rig untouched"

# 2: the kernel panics at boot -> kernel failure with console, rig recovers
klab job add "$K" --rig scsi0 --suite tiobench --scale 0.01 \
	--cmdline "rdinit=/nonexistent panic=1" >/dev/null || fail "queue 2"
wait_job 2
expect_grep '"state":"failed"'; expect_grep '"failure":"kernel"'
expect_grep 'Kernel panic'
ok "panic is a kernel failure with its console log"
wait_idle
n=$(ls "$TMP/data/rigs/scsi0/"console-*.log | wc -l)
[ "$n" -eq 2 ] || fail "expected one recovery cold boot, found $n boots"

# 3: the recovered rig takes the next job
klab job add "$K" --rig scsi0 --suite tiobench --scale 0.01 >/dev/null || fail "queue 3"
wait_job 3
expect_grep '"state":"done"'
ok "rig recovered by itself and ran the next job"

# 4: klabd dies (SIGKILL) in the middle of a job and comes back on the same
# port: every acknowledged result is still there, the job is run again
before=$(http GET /api/health | sed 's/.*"results":\([0-9]*\).*/\1/')
[ "$before" -gt 0 ] || fail "no results stored before the restart"
klab job add "$K" --rig scsi0 --suite tiobench --scale 0.01 >/dev/null || fail "queue 4"
i=0
until http GET /api/jobs/4 | grep -q '"state":"\(booting\|running\)"'; do
	i=$((i + 1)); [ $i -gt 300 ] && fail "job 4 never started"
	sleep 1
done
kill -KILL "$KLABD_PID"; wait "$KLABD_PID" 2>/dev/null; KLABD_PID=
echo "klabd killed during job 4"
grep -v '^fault_downloads' "$TMP/klabd.conf" >"$TMP/klabd2.conf"
KLABD_LISTEN=127.0.0.1:$PORT start_klabd --config "$TMP/klabd2.conf" --rig-bin "$KLAB_PLAIN_BIN"
after=$(http GET /api/health | sed 's/.*"results":\([0-9]*\).*/\1/')
[ "$after" -ge "$before" ] || fail "results lost in the restart: $before -> $after"
expect_grep 'unfinished jobs back in the queue' "$TMP/klabd.log"
wait_job 4
expect_grep '"state":"done"'
sqlite3 "$TMP/klab.db" 'PRAGMA integrity_check' | grep -qx ok || fail "database not consistent"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 4")
[ "$n" -eq 1 ] || fail "job 4 stored $n runs, expected 1"
klab jobs --rig scsi0
stop_klabd
ok "klabd restarted mid-job lost no acknowledged result"
