#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-test: alone (its timing floors and caps, and it drops the host's caches)
# t3005: the disk models of kernels/qemu-rig.sh on real QEMU rigs (newest
# Debian 6.1).  hdd on the scsi and ide profiles: data written is read
# back intact after the page cache is dropped (the quorum returns the
# image's data, never the null child's zeros), the device takes one
# request at a time, a direct 4 KiB random read takes the model's 8 ms
# and a direct sequential read stays under its 40 MiB/s cap (plus the
# throttle's first burst).  host: the
# image as it is (its random read time is printed beside the models');
# ssd: a queue of 32, reads of at least its 2 ms and a sequential read
# under its 100 MiB/s cap.  Only floors and
# caps are asserted: a loaded host slows the guest, never the model.
# The scsi/hdd rig runs pinned (--pin VCPUS/OTHERS): while it runs, its
# vCPU thread has the VCPUS affinity and every other thread OTHERS.
. "$(dirname "$0")/rig-lib.sh"
rig_setup t3005

rec=$WORK/k61.txt
fetch_kernel 6.1 "$rec"
mkdir -p "$WORK/part/klab-test"
cat >"$WORK/part/klab-test/t3005.sh" <<'EOF2'
m() { awk -v k="$2" '/"metric"/{n=$2; gsub(/[",]/,"",n)} /"value"/{v=$2; gsub(/,/,"",v); if (n == k) print v}' "$1"; }
echo "T: qd=$(cat /sys/block/sda/device/queue_depth 2>/dev/null || echo none)"
dd if=/dev/urandom of=/tmp/data bs=1M count=8 2>/dev/null
dd if=/tmp/data of=/dev/sda bs=1M conv=fsync 2>/dev/null
sync; echo 3 >/proc/sys/vm/drop_caches
a=$(md5sum </tmp/data | cut -d' ' -f1)
b=$(dd if=/dev/sda bs=1M count=8 2>/dev/null | md5sum | cut -d' ' -f1)
[ "$a" = "$b" ] && echo "T: data intact" || echo "T: data differs $a $b"
/bin/tiotest --disk /dev/sda --threads 1 --size 64 --random 40 --direct \
	--phases rand_read >/tmp/r.json 2>/tmp/err || cat /tmp/err
echo "T: rand_lat=$(m /tmp/r.json tiobench.rand_read.avg_lat)"
/bin/tiotest --disk /dev/sda --threads 1 --size 48 --block 1m --direct \
	--phases seq_read >/tmp/s.json 2>/tmp/err || cat /tmp/err
echo "T: seq_rate=$(m /tmp/s.json tiobench.seq_read.rate)"
poweroff -f
EOF2
image=$(rig_image "$rec")
pack_dir "$WORK/part" "$WORK/part.cpio.gz"
cat "$image" "$WORK/part.cpio.gz" >"$WORK/initrd"
vmlinuz=$(record_get "$rec" vmlinuz)
append="panic=-1 klab.init=shell klab.test=/klab-test/t3005.sh"

# value CONSOLE KEY: the number a "T: KEY=N" line gave
value() {
	tr -d '\r' <"$1" | sed -n "s/^T: $2=//p" | tail -n 1
}

boot_model() {	# PROFILE MODEL [OPTIONS]
	p=$1 mdl=$2
	shift 2
	boot_rig "$WORK/$p-$mdl.log" --profile "$p" --disk-model "$mdl" \
		--dir "$WORK/$p-$mdl" --disk-size 64 --kernel "$vmlinuz" \
		--initrd "$WORK/initrd" --append "$append" "$@"
	set -- "$p" "$mdl"
	tr -d '\r' <"$WORK/$1-$2.log" | grep '^T: '
	expect "$WORK/$1-$2.log" '^T: data intact$' "$1/$2: data read back intact"
}

# pinning: the vCPU on the last CPU, the rest on the first (one CPU: both)
last=$(($(nproc) - 1))
PIN_V=$last PIN_O=0
# pin_snap PID: each thread's name and allowed CPUs, while QEMU runs
pin_snap() {
	for t in /proc/"$1"/task/*; do
		c=$(cat "$t/comm" 2>/dev/null) || continue
		a=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status" 2>/dev/null)
		# a thread that exited between the two reads (QEMU shutting
		# down) has no status left: it is not in this snapshot
		[ -n "$a" ] || continue
		echo "$c|$a"
	done >"$WORK/pin.snap.new" 2>/dev/null
	# keep the last snapshot that still saw the vCPU thread
	! grep -q '^CPU ' "$WORK/pin.snap.new" || mv "$WORK/pin.snap.new" "$WORK/pin.snap"
}
BOOT_RIG_HOOK=pin_snap
boot_model scsi hdd --pin "$PIN_V/$PIN_O"
BOOT_RIG_HOOK=
[ -s "$WORK/pin.snap" ] || fail "pinning: never saw QEMU's vCPU thread"
cat "$WORK/pin.snap"
grep -q "^CPU 0/TCG|$PIN_V\$" "$WORK/pin.snap" ||
	fail "pinning: the vCPU thread is not on CPU $PIN_V"
others=$(grep -v '^CPU ' "$WORK/pin.snap" | grep -cv "|$PIN_O\$")
[ "$others" = 0 ] || fail "pinning: $others other threads are not on CPU $PIN_O"
grep -q "^pinned vCPU threads [0-9]* to CPUs $PIN_V\$" "$WORK/scsi-hdd/qemu.pin.log" ||
	fail "pinning: qemu.pin.log says $(cat "$WORK/scsi-hdd/qemu.pin.log")"
echo "ok: scsi/hdd pinned: vCPU on CPU $PIN_V, $(grep -cv '^CPU ' "$WORK/pin.snap") other threads on CPU $PIN_O"
expect "$WORK/scsi-hdd.log" '^T: qd=1$' "scsi/hdd: one request in flight"
lat=$(value "$WORK/scsi-hdd.log" rand_lat)
# floors and caps only: a loaded host makes the guest slower, never the
# model faster
awk "BEGIN { exit !($lat >= 7.9) }" ||
	fail "scsi/hdd: a 4 KiB random read took $lat ms, under the model's 8"
rate=$(value "$WORK/scsi-hdd.log" seq_rate)
# 48 MiB at 40 MiB/s after QEMU's default burst (a tenth of the cap):
# 43.6 MiB/s
awk "BEGIN { exit !($rate > 10 && $rate <= 46) }" ||
	fail "scsi/hdd: sequential reads at $rate MiB/s, cap 40 MiB/s"
echo "ok: scsi/hdd: random read $lat ms, sequential $rate MB/s"
grep -q '^driver=quorum,node-name=q0,vote-threshold=1,read-pattern=quorum,children.0=n0,children.1=r0$' \
	"$WORK/scsi-hdd/qemu.args" || fail "no quorum node in qemu.args"

boot_model ide hdd
lat=$(value "$WORK/ide-hdd.log" rand_lat)
awk "BEGIN { exit !($lat >= 7.9) }" ||
	fail "ide/hdd: a 4 KiB random read took $lat ms, under the model's 8"
echo "ok: ide/hdd: random read $lat ms"

boot_model scsi ssd
expect "$WORK/scsi-ssd.log" '^T: qd=32$' "scsi/ssd: a queue of 32"
slat=$(value "$WORK/scsi-ssd.log" rand_lat)
awk "BEGIN { exit !($slat >= 1.95) }" ||
	fail "scsi/ssd: a 4 KiB random read took $slat ms, under the model's 2"
srate=$(value "$WORK/scsi-ssd.log" seq_rate)
# 48 MiB at 100 MiB/s after the throttle's first burst (a tenth of the
# cap, as for hdd): 126 MiB/s
awk "BEGIN { exit !($srate > 10 && $srate <= 135) }" ||
	fail "scsi/ssd: sequential reads at $srate MiB/s, cap 100 MiB/s"
echo "ok: scsi/ssd: random read $slat ms, sequential $srate MB/s"

boot_model scsi host
hlat=$(value "$WORK/scsi-host.log" rand_lat)
echo "ok: scsi/host: random read $hlat ms (no model: the host's time)"
