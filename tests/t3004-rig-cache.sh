#!/bin/sh
# SPDX-License-Identifier: MIT
# t3004: the rig's boot-file cache end to end.  klabd + one scsi QEMU rig
# with its klab-cache disk; two cells of the newest 6.1 (each kexec'd
# into): the first downloads the kernel and its rig image into the cache,
# the second downloads 0 bytes and boots the cached, re-verified files.
# Then, with klabd stopped, one byte of the cached initramfs is changed
# on the cache disk's image (debugfs); the third cell sees that the entry
# no longer matches its sha256, removes it, downloads it again and boots.
# The cache disk is never a test disk: the rig registers one disk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rig-lib.sh" 2>/dev/null || true
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
DEBUGFS=$(PATH=$PATH:/usr/sbin:/sbin command -v debugfs) || skip "debugfs (e2fsprogs) is not installed"

cat >"$TMP/klabd.conf" <<CONF
[rig scsi0]
kind = qemu
profile = scsi
# the disk's speed is not this test's business (hdd's cells take minutes)
disk_model = host
base_kernel = 6.1.192
memory_mb = 768
disk_mb = 128
boot_timeout = 180
job_timeout = 600
CONF
RIGDIR=$TMP/data/rigs/scsi0

# wait_jobs: until no job of scsi0 is queued or running; fails on a
# failed job.
wait_jobs() {
	i=0
	while :; do
		http GET "/api/jobs?rig=scsi0" >/dev/null
		grep -q '"state":"\(queued\|assigned\|booting\|running\)"' "$TMP/body" || break
		i=$((i + 5)); [ $i -gt 900 ] && { tail -50 "$TMP/klabd.log"; fail "jobs did not finish in 900 s"; }
		sleep 5
	done
	grep -q '"state":"failed"' "$TMP/body" && { cat "$TMP/body"; tail -40 "$TMP/klabd.log"; fail "a job failed"; }
	return 0
}

# downloaded JOB: the bytes the agent downloaded for job JOB's boot.
downloaded() {
	cat "$RIGDIR"/console-*.log | tr -d '\r' |
		sed -n "s/.*klab-agent: job $1: kernel and initramfs ready, sha256 checked, downloaded \([0-9]*\) bytes.*/\1/p" |
		tail -n 1
}

start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K1=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "fetch 6.1"
klab job add "$K1" "$K1" --rig scsi0 --suite tiobench --scale 0.02 >/dev/null || fail "queue"
wait_jobs
con=$(ls "$RIGDIR"/console-*.log)
tr -d '\r' <"$con" | grep 'klab-agent: .*\(cache\|downloaded\)' || true
expect_grep 'klab-init: boot-file cache /cache (/dev/vda)' "$con"
b1=$(downloaded 1) b2=$(downloaded 2)
echo "downloaded: job 1 $b1 bytes, job 2 $b2 bytes"
[ -n "$b1" ] && [ "$b1" -gt 1000000 ] || fail "job 1 downloaded '$b1' bytes, expected the kernel and its image"
[ "$b2" = 0 ] || fail "job 2 (the same kernel again) downloaded '$b2' bytes, expected 0"
expect_grep "initrd [0-9a-f]*: verified cache entry '/cache/[0-9a-f]*', nothing to download" "$con"
expect_grep "klab-agent: registered as scsi0 with .*, 1 disks, job 2" "$con"
stop_klabd

# corrupt the cached initramfs on the stopped rig's cache disk (after the
# journal of the guest's last mount is replayed)
[ -f "$RIGDIR/cache.img" ] || fail "no cache disk image in $RIGDIR"
E2FSCK=$(PATH=$PATH:/usr/sbin:/sbin command -v e2fsck) || skip "e2fsck is not installed"
"$E2FSCK" -fy "$RIGDIR/cache.img" >"$TMP/e2fsck.out" 2>&1
[ $? -le 1 ] || fail "the cache disk does not check clean: $(cat "$TMP/e2fsck.out")"
entries=$("$DEBUGFS" -R "ls -l /" "$RIGDIR/cache.img" 2>/dev/null |
	awk 'length($NF) == 64 && $NF ~ /^[0-9a-f]+$/ { print $(NF - 3), $NF }' | sort -n)
echo "cache entries (bytes key):"; echo "$entries"
[ "$(echo "$entries" | grep -c .)" -eq 2 ] || fail "expected 2 cache entries, kernel and initramfs"
big=$(echo "$entries" | tail -n 1 | cut -d' ' -f2)
"$DEBUGFS" -R "dump /$big $TMP/entry" "$RIGDIR/cache.img" 2>/dev/null
[ "$(sha256sum <"$TMP/entry" | cut -d' ' -f1)" = "$big" ] || fail "cache entry $big does not hash to its name before the test changes it"
printf 'X' | dd of="$TMP/entry" bs=1 seek=1000 conv=notrunc status=none
"$DEBUGFS" -w -R "rm /$big" "$RIGDIR/cache.img" >/dev/null 2>&1
"$DEBUGFS" -w -R "write $TMP/entry $big" "$RIGDIR/cache.img" >/dev/null 2>&1
"$DEBUGFS" -R "ls -l /" "$RIGDIR/cache.img" 2>/dev/null | grep -q "$big" || fail "cannot write the corrupt entry"

mv "$con" "$TMP/console-first.log"
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
klab job add "$K1" --rig scsi0 --suite tiobench --scale 0.02 >/dev/null || fail "queue the third cell"
wait_jobs
con=$(ls "$RIGDIR"/console-*.log)
tr -d '\r' <"$con" | grep 'klab-agent: .*\(cache\|downloaded\)' || true
# the larger entry is the initramfs or the kernel, whichever the rig
# image's size makes it (a slim image is smaller than the kernel)
expect_grep "\\(initrd\\|kernel\\) ${big%"${big#????????????}"}: cache entry '/cache/$big' does not match its sha256: removed, downloading it again" "$con"
b3=$(downloaded 3)
echo "downloaded: job 3 $b3 bytes"
[ -n "$b3" ] && [ "$b3" -gt 1000000 ] || fail "job 3 downloaded '$b3' bytes after the corruption, expected the corrupt entry again"
n=$(tr -d '\r' <"$con" | grep -c 'Linux version')
[ "$n" -eq 2 ] || fail "expected a cold boot and one kexec in the third cell, got $n banners"
stop_klabd
ok "a repeated cell downloads 0 bytes; a corrupt cache entry is downloaded again"
