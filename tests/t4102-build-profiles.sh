#!/bin/sh
# SPDX-License-Identifier: MIT
# Slow tier (KLAB_SLOW=1): every built kernel on every rig profile.  klabd
# builds base 6.1 with the lab config and base + the shipped patch the
# slow tier builds (canary-slow: cache hits after t4100), and one
# klabd drives three QEMU rigs at once: scsi and ide run the tiobench suite,
# manydisk (64 disks, 4 vCPUs) runs iops-alldisks, each kernel reached by
# kexec from the rig's Debian base.  Every cell must end "done" with the
# kernel's own release checked in.
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_SLOW:-}" ] || skip "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"

BASE=$("$TOP/kernels/debian-kernels.sh" fetch "$("$TOP/kernels/debian-kernels.sh" newest 6.1)" |
	sed -n 's/^upstream=//p')
cat >"$TMP/klabd.conf" <<CONF
[rig scsi0]
profile = scsi
base_kernel = $BASE
memory_mb = 512
disk_mb = 64
boot_timeout = 300
job_timeout = 900
[rig ide0]
profile = ide
base_kernel = $BASE
memory_mb = 512
disk_mb = 64
boot_timeout = 300
job_timeout = 900
[rig many0]
profile = manydisk
base_kernel = $BASE
memory_mb = 768
disk_mb = 8
boot_timeout = 400
job_timeout = 900
CONF
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
klab kernel add debian newest-6.1 >/dev/null || fail "fetch the rigs' base kernel"
K="lab-6.1"
klab build debian-6.1 --ident lab-6.1 --wait >/dev/null 2>&1 || fail "base build"
for p in canary-slow; do
	klab build debian-6.1 "$TOP/kernels/patches/$p.patch" --ident "lab-6.1+$p" \
		--wait >"$TMP/b" 2>&1 || fail "build $p: $(cat "$TMP/b")"
	K="$K lab-6.1+$p"
done
# shellcheck disable=SC2086
klab job add $K --rig scsi0 --suite tiobench --scale 0.01 >/dev/null || fail "queue scsi"
# shellcheck disable=SC2086
klab job add $K --rig ide0 --suite tiobench --scale 0.01 >/dev/null || fail "queue ide"
# shellcheck disable=SC2086
klab job add $K --rig many0 --suite iops-alldisks --scale 0.02 >/dev/null || fail "queue manydisk"
i=0
while :; do
	http GET "/api/jobs" >/dev/null
	grep -q '"state":"\(queued\|assigned\|booting\|running\)"' "$TMP/body" || break
	i=$((i + 10)); [ $i -gt 3000 ] && { tail -40 "$TMP/klabd.log"; fail "jobs did not finish"; }
	sleep 10
done
klab jobs
grep -q '"state":"failed"' "$TMP/body" && fail "a cell failed"
for p in canary-slow; do
	n=$(grep -c "check-in on 6.1.192-klab+$p " "$TMP/klabd.log")
	[ "$n" -eq 3 ] || fail "$p checked in $n times, expected once per rig"
done
http GET "/api/runs?suite=iops-alldisks&limit=10" >/dev/null; expect_grep '"rig":"many0"'
http GET "/compare?k=lab-6.1&k=lab-6.1%2Bcanary-slow&rig=many0&suite=iops-alldisks&format=text" >/dev/null
expect_status 200; expect_grep 'iops.total'
stop_klabd
ok "base + each patch booted and ran a suite on scsi, ide and manydisk rigs"
