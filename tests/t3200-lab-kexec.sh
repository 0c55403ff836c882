#!/bin/sh
# SPDX-License-Identifier: MIT
# The lab end to end: klabd + one scsi QEMU rig + two real Debian kernels
# (newest 6.1, newest 6.12) + the tiobench suite scaled to seconds.  The
# rig cold-boots 6.1 once; the agent kexecs into each job's kernel.  Checks
# that each job's check-in reported its kernel release, that the console
# shows kexec between the kernels and no second cold boot, that each job's
# steps (hand-out, boot, the suite's, upload) are stored, and that the
# results are on the compare page.  Each kexec loads the kernel's kexec
# image, its decompressed ELF (docs/RIGS.md, "The kexec image").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rig-lib.sh" 2>/dev/null || true
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
command -v jq >/dev/null || skip "no jq"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"

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
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K1=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "fetch 6.1"
K2=$(klab kernel add debian newest-6.12 | tr -d '"') || fail "fetch 6.12"
echo "kernels: $K1 $K2"
[ "$K1" = 6.1.192 ] || echo "note: newest 6.1 is $K1, not the configured base 6.1.192"

klab job add "$K1" "$K2" --rig scsi0 --suite tiobench --scale 0.02 >/dev/null || fail "queue"
i=0
while :; do
	http GET "/api/jobs?rig=scsi0" >/dev/null
	grep -q '"state":"\(queued\|assigned\|booting\|running\)"' "$TMP/body" || break
	i=$((i + 5)); [ $i -gt 900 ] && { tail -50 "$TMP/klabd.log"; fail "jobs did not finish in 900 s"; }
	sleep 5
done
cat "$TMP/body"; echo
grep -q '"state":"failed"' "$TMP/body" && { tail -40 "$TMP/klabd.log"; fail "a job failed"; }
expect_grep "check-in on .*6.1.0-.* (job 1)" "$TMP/klabd.log"
expect_grep "check-in on .*6.12.* (job 2)" "$TMP/klabd.log"
cons=$(ls "$TMP/data/rigs/scsi0/"console-*.log | wc -l)
[ "$cons" -eq 1 ] || fail "expected one cold boot, found $cons console logs"
c=$(ls "$TMP/data/rigs/scsi0/"console-*.log)
n=$(grep -c 'Linux version' "$c")
[ "$n" -eq 3 ] || fail "expected 3 'Linux version' banners (cold boot + 2 kexecs), got $n"
grep -q 'kexec' "$c" || fail "no kexec in the console log"
# each kexec loaded its kernel's kexec image (the decompressed ELF), not
# the bzImage (docs/RIGS.md, "The kexec image")
! grep 'no kexec image' "$TMP/klabd.log" || fail "a kexec loaded a bzImage"
n=$(ls "$TMP/data/kexec/"*.elf | wc -l)
[ "$n" -eq 2 ] || fail "expected 2 kexec images, found $n"
for f in "$TMP/data/kexec/"*.elf; do
	head -c 4 "$f" | od -An -c | grep -q 'E   L   F' || fail "'$f' is no ELF file"
done
grep -q -- '--args-linux' "$c" || fail "the agent did not load an ELF kexec image"
# the cache disk went read-only before each switch: no kernel after a
# kexec replays its journal
! grep 'recovery complete' "$c" || fail "a kexec left the cache disk's journal to replay"
# each job's steps: klabd's hand-out and kexec (each job boots by one),
# the agent's boot (kernel start to agent start to check-in), its own and
# tiotest's, klabd's upload (docs/RESULTS.md, "steps")
for j in 1 2; do
	http GET "/api/jobs/$j" >/dev/null
	got=$(jq -r '[.steps[].step] | join(" ")' "$TMP/body")
	case $got in "handout kexec boot.kernel boot.agent prepare suite_setup warmup "*" rand_read "*" upload") ;;
		*) fail "job $j: steps $got" ;; esac
	jq -e '[.steps[] | select(.step == "boot.kernel")][0].secs > 1' "$TMP/body" >/dev/null ||
		fail "job $j: a boot of no time: $(jq -c .steps "$TMP/body")"
	# the upload counts from the check-in: the boot before it is not taken off
	jq -e '[.steps[] | select(.step == "upload")][0].secs > 0' "$TMP/body" >/dev/null ||
		fail "job $j: an upload of no time: $(jq -c .steps "$TMP/body")"
done
klab steps --rig scsi0 --suite tiobench || fail "klab steps"
http GET "/compare?k=$K1&k=$K2&rig=scsi0&suite=tiobench" >/dev/null
expect_status 200; expect_grep 'Sequential Reads'; expect_grep "$K2"
klab compare "$K1" "$K2" --rig scsi0 --suite tiobench
stop_klabd
ok "two kernels compared via kexec on a scsi rig"
