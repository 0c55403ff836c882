#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel faults on a real QEMU rig (docs/FAULTS.md), one after another on
# the same rig: a kernel that hangs at boot without a word on the console,
# one that boots but never checks in, one that crashes (sysrq c) in the
# middle of a benchmark, one that resets silently (sysrq b) in the middle
# of a benchmark.  Each is a kernel failure recorded with its console log
# and its reason; the rig recovers unattended with one cold boot of its
# base kernel; and the next job runs to the end.  (A panic at boot:
# t3201.)  Runs only from make check-faults.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
fault_slow
FAULT_BOOT_TIMEOUT=100
fault_qemu_start ""
wait_rig scsi0 idle

n=0
# kernel_case WHAT WHY-PATTERN klab-job-add-args...: one fault
kernel_case() {
	what=$1 why=$2
	shift 2
	n=$((n + 1))
	boots=$(cold_boots)
	klab job add "$K" --rig scsi0 --scale 0.01 "$@" >/dev/null || fail "queue $what"
	wait_job $n
	grep -q '"state":"failed"' "$TMP/job" || fail "$what: not failed: $(cat "$TMP/job")"
	grep -q '"failure":"kernel"' "$TMP/job" || fail "$what: not a kernel failure: $(cat "$TMP/job")"
	grep -q "\"error\":\"[^\"]*$why" "$TMP/job" || fail "$what: reason not '$why': $(cat "$TMP/job")"
	grep -q '"console":"[^"]*Linux version' "$TMP/job" || fail "$what: no console log with the job"
	wait_rig scsi0 idle
	[ "$(cold_boots)" -eq $((boots + 1)) ] || fail "$what: expected one recovery cold boot"
	sed -n "s/.*job $n: kernel failure: /job $n ($what): /p" "$TMP/klabd.log"
	ok "$what: kernel failure with its console log, rig recovered"
}

# the job's kernel prints nothing (loglevel=0) and its init waits forever
kernel_case "hang at boot, silent console" "no check-in within" \
	--suite tiobench --cmdline "quiet loglevel=0 rdinit=/bin/cat"
# the kernel boots to a shell, no agent ever checks in
kernel_case "boots, never checks in" "no check-in within" \
	--suite tiobench --cmdline "rdinit=/bin/sh"
# the test hook suites (tests/data/suites/) crash or reset it mid-run
kernel_case "oops mid-benchmark" "Kernel panic\|Oops\|BUG:" --suite fault-oops
grep -q 'sysrq' "$TMP/job" || fail "the oops case's console does not show the sysrq crash"
kernel_case "silent reboot mid-benchmark" "machine stopped\|second 'Linux version'" \
	--suite fault-reboot

# the recovered rig runs the next job to its end
klab job add "$K" --rig scsi0 --suite tiobench --scale 0.01 >/dev/null || fail "queue the last job"
n=$((n + 1))
wait_job $n
grep -q '"state":"done"' "$TMP/job" || fail "the job after the faults: $(cat "$TMP/job")"
r=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs")
[ "$r" -eq 1 ] || fail "expected exactly the last job's run, found $r runs"
f=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM jobs WHERE failure = 'infra'")
[ "$f" -eq 0 ] || fail "$f jobs blamed on the infrastructure"
db_ok
stop_klabd
ok "four kernel faults recovered unattended; the next job ran"
