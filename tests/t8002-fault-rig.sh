#!/bin/sh
# SPDX-License-Identifier: MIT
# Rig faults on a real QEMU rig (docs/FAULTS.md), in the middle of a run
# of the fault-long test hook suite (tests/data/suites/):
#  1. QEMU itself is killed (SIGKILL from outside): an infrastructure
#     failure, never the kernel's; the job goes back to the queue, the rig
#     boots cold by itself and runs it again; one run stored.
#  2. The rig's network is gone for 30 s (QEMU stopped with SIGSTOP, then
#     continued): the job ends done, nothing failed, no cold boot.
# Runs only from make check-faults.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
fault_slow
FAULT_BOOT_TIMEOUT=100
fault_qemu_start ""
wait_rig scsi0 idle

# qemu_pid: the rig's QEMU (qemu-rig.sh writes its pid file)
qemu_pid() {
	p=$(cat "$TMP/data/rigs/scsi0/qemu.pid" 2>/dev/null)
	[ -n "$p" ] && grep -q qemu-system "/proc/$p/cmdline" 2>/dev/null ||
		fail "no QEMU pid for scsi0"
	echo "$p"
}

# mid_run JOB: wait until JOB's kernel checked in, then 10 s into its run
mid_run() {
	i=0
	until grep -q "check-in on .* (job $1)" "$TMP/klabd.log"; do
		i=$((i + 1))
		[ $i -gt 400 ] && { tail -20 "$TMP/klabd.log"; fail "job $1 never checked in"; }
		sleep 1
	done
	sleep 10
}

# --- 1: QEMU killed ---
boots=$(cold_boots)
klab job add "$K" --rig scsi0 --suite fault-long >/dev/null || fail "queue job 1"
mid_run 1
kill -KILL "$(qemu_pid)"
echo "QEMU killed in the middle of job 1"
i=0
until grep -q "job 1: infrastructure failure: the machine was killed" "$TMP/klabd.log"; do
	i=$((i + 1))
	[ $i -gt 30 ] && { tail -20 "$TMP/klabd.log"; fail "QEMU's death was not seen as an infrastructure failure"; }
	sleep 1
done
wait_job 1
grep -q '"state":"done"' "$TMP/job" || fail "job 1 not done after QEMU was killed: $(cat "$TMP/job")"
grep -q '"failure":"kernel"' "$TMP/job" && fail "QEMU's death was blamed on the kernel"
[ "$(cold_boots)" -eq $((boots + 1)) ] || fail "expected one cold boot after QEMU was killed"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 1")
[ "$n" -eq 1 ] || fail "job 1 stored $n runs, expected 1"
expect_nogrep 'kernel failure' "$TMP/klabd.log"
ok "QEMU killed: infrastructure, job run again, one run"

# --- 2: the network gone for 30 s (QEMU stopped and continued) ---
boots=$(cold_boots)
klab job add "$K" --rig scsi0 --suite fault-long >/dev/null || fail "queue job 2"
mid_run 2
Q=$(qemu_pid)
kill -STOP "$Q"
echo "QEMU stopped for 30 s"
sleep 30
kill -CONT "$Q"
wait_job 2
grep -q '"state":"done"' "$TMP/job" || fail "job 2 not done after 30 s without network: $(cat "$TMP/job")"
[ "$(cold_boots)" -eq "$boots" ] || fail "the rig was cold-booted after a 30 s stop"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 2")
[ "$n" -eq 1 ] || fail "job 2 stored $n runs, expected 1"
f=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM jobs WHERE id = 2 AND failure != ''")
[ "$f" -eq 0 ] || fail "job 2 recorded a failure"
expect_nogrep 'kernel failure' "$TMP/klabd.log"
db_ok
stop_klabd
ok "30 s without network: the job ended done, nothing failed"
