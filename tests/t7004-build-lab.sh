#!/bin/sh
# SPDX-License-Identifier: MIT
# Lab tier (KLAB_LAB=1, `make check-lab`; in CI t4104 runs the same
# check, `klab compare --fail-on-worse` on the canary's cells, after its
# submission): the whole pipeline with built kernels and a plain job
# queue.  klabd builds base 6.1 with the lab config and base + the
# canary-slow patch (a deliberate 500 us delay on every request start),
# both join the catalog, the scsi rig kexecs into each (interleaved,
# repeated cells), and the comparison must flag the canary as a regression
# (klab compare --fail-on-worse exits 4: a decided "worse" on a headline
# metric, each phase's rate or average latency, after Holm correction;
# three cells a side decide a 500 us delay per request easily on the ssd
# disk model, 100 us a request; on the hdd model's 8 ms it is 6%, within
# that model's noise at this scale).  The self-test that klab catches a
# regression.
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_LAB:-}" ] || skip "lab tier: set KLAB_LAB=1 (make check-lab)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"

lab_scsi_start ssd

lab_build_pair "$TOP/kernels/patches/canary-slow.patch" canary-slow
http GET /api/kernels/lab-6.1+canary-slow >/dev/null; expect_status 200
expect_grep '"source":"build"'; expect_grep 'canary-slow'

klab job add lab-6.1 lab-6.1+canary-slow --rig scsi0 --suite tiobench \
	--scale 0.02 --repeat 3 >/dev/null || fail "queue"
i=0
while :; do
	http GET "/api/jobs?rig=scsi0" >/dev/null
	grep -q '"state":"\(queued\|assigned\|booting\|running\)"' "$TMP/body" || break
	i=$((i + 10)); [ $i -gt 2400 ] && { tail -40 "$TMP/klabd.log"; fail "jobs did not finish"; }
	sleep 10
done
grep -q '"state":"failed"' "$TMP/body" && { cat "$TMP/body"; fail "a job failed"; }
expect_grep 'check-in on .*-klab+canary-slow' "$TMP/klabd.log"
klab compare lab-6.1 lab-6.1+canary-slow --rig scsi0 --suite tiobench \
	--fail-on-worse >"$TMP/cmp.txt"
rc=$?
cat "$TMP/cmp.txt"
[ $rc -eq 4 ] || fail "the canary was not flagged as a regression (exit $rc)"
expect_grep 'cells (runs): lab-6.1 x3, lab-6.1+canary-slow x3' "$TMP/cmp.txt"
expect_grep '(worse, headline)' "$TMP/cmp.txt"
stop_klabd
ok "built kernels booted by kexec; the canary regression is caught"
