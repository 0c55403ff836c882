#!/bin/sh
# SPDX-License-Identifier: MIT
# t3003: the kexec switch the lab rests on.  A scsi rig cold-boots the newest
# Debian 6.1 cloud kernel; its test script loads the newest 6.12 kernel with
# that kernel's own rig image (base + 6.12 modules part) by `kexec -l` and
# switches with `kexec -e`.  The console must show the 6.1 banner, then the
# switch, then a second `Linux version 6.12` banner and the 6.12 kernel's own
# test script output (its release, its disk with mq-deadline loaded from the
# 6.12 modules part), all in one QEMU process.
. "$(dirname "$0")/rig-lib.sh"
rig_setup t3003

fetch_kernel 6.1 "$WORK/k61.txt"
fetch_kernel 6.12 "$WORK/k612.txt"
rel1=$(record_get "$WORK/k61.txt" version)
rel2=$(record_get "$WORK/k612.txt" version)

# the second kernel's image: its rig image + the stage 2 script
mkdir -p "$WORK/p2/klab-test"
cat >"$WORK/p2/klab-test/stage2.sh" <<'EOF'
echo "T2: uname=$(uname -r)"
read -r up idle </proc/uptime
echo "T2: uptime=$up (6.12 userland)"
for d in /sys/block/sd*; do
	[ -e "$d" ] && echo "T2: disk ${d##*/} $(cat $d/queue/scheduler)"
done
poweroff -f
EOF
image2=$(rig_image "$WORK/k612.txt")
pack_dir "$WORK/p2" "$WORK/p2.cpio.gz"

# the first kernel's image carries the second kernel and its image
mkdir -p "$WORK/p1/klab-test" "$WORK/p1/kexec"
cp "$(record_get "$WORK/k612.txt" vmlinuz)" "$WORK/p1/kexec/vmlinuz"
cat "$image2" "$WORK/p2.cpio.gz" >"$WORK/p1/kexec/initrd"
cat >"$WORK/p1/klab-test/stage1.sh" <<'EOF'
echo "T1: uname=$(uname -r)"
read -r up idle </proc/uptime
echo "T1: uptime=$up (before kexec -l)"
kexec -l /kexec/vmlinuz --initrd=/kexec/initrd --command-line="console=ttyS0,115200 panic=-1 klab.init=shell klab.test=/klab-test/stage2.sh klab.disks=1" &&
	echo "T1: loaded"
read -r up idle </proc/uptime
echo "T1: uptime=$up (before kexec -e)"
echo "T1: kexec -e"
kexec -e
echo "T1: kexec -e failed"
EOF
image1=$(rig_image "$WORK/k61.txt")
pack_dir "$WORK/p1" "$WORK/p1.cpio.gz"
cat "$image1" "$WORK/p1.cpio.gz" >"$WORK/initrd"

con=$WORK/console.log
RIG_TIMEOUT=${RIG_TIMEOUT_KEXEC:-150}
boot_rig "$con" --profile scsi --dir "$WORK/rig" --disk-size 64 --memory 1024 \
	--kernel "$(record_get "$WORK/k61.txt" vmlinuz)" --initrd "$WORK/initrd" \
	--append "panic=-1 klab.init=shell klab.test=/klab-test/stage1.sh"
tr -d '\r' <"$con" | grep -E '^T[12]: |Linux version'
expect "$con" "^T1: uname=$rel1" "first kernel is $rel1"
expect "$con" '^T1: loaded$' "kexec -l loaded $rel2"
[ "$(tr -d '\r' <"$con" | grep -c 'Linux version')" -eq 2 ] ||
	fail "expected exactly two 'Linux version' banners"
# the order on the console: banner 1, switch, banner 2, stage 2 output
order=$(tr -d '\r' <"$con" | grep -nE 'Linux version|^T1: kexec -e$|^T2: uname=' |
	sed -E 's/^[0-9]+://; s/^\[ *[0-9.]+\] Linux version ([^ ]+) .*/banner \1/; s/^T2: uname=/uname /' |
	tr '\n' ' ')
want="banner $rel1 T1: kexec -e banner $rel2 uname $rel2 "
[ "$order" = "$want" ] || fail "console order is '$order', expected '$want'"
echo "ok: $rel1 -> kexec -e -> $rel2 banner -> $rel2 userland"
expect "$con" '^T2: disk sda .*\[mq-deadline\]' "6.12 sees sda with mq-deadline from its modules part"
expect "$con" 'reboot: Power down' "second kernel powered off"
echo "t3003 passed"
