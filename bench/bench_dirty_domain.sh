#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_dirty_domain.sh: an exploration for issue 31's noise target, kept to
# be repeated.  Does a dirty domain of tiotest's own (a memory cgroup)
# steady the mean latency of its buffered writes beside streaming writers?
#
#   [REPS=5] [MEMMAX=96M] [MODEL=hdd] bench/bench_dirty_domain.sh
#
# One scsi QEMU rig (Debian's newest 6.1: it has cgroup writeback, the lab
# config's builds do not), pinned 1/0, disk model MODEL, 768 MiB.  The
# test disk is formatted ext4 (cgroup writeback needs a file system: a
# block device's page cache has none); two rio writers stream 1 MiB
# writes to 26 MiB files each in the root cgroup (tiobench-under-writes'
# writers at scale 0.05); then REPS times, in turn, tiotest (8 threads,
# 51 MiB, 200 random writes a thread: the suite's sizes at 0.05, write
# phases only) in the root cgroup and in cgroup `tio` with memory.max
# MEMMAX.  Prints one line a run: "MC: root|tio REP seq_write.rate
# seq_write.avg_lat rand_write.rate rand_write.avg_lat" (MB/s, ms).
# Results: docs/PERFORMANCE-LOG.md, "A dirty domain of tiotest's own".
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tests/rig-lib.sh"
rig_setup bench-dirty-domain
echo "bench_dirty_domain: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
fetch_kernel 6.1 "$WORK/k61.txt" >/dev/null
image=$(rig_image "$WORK/k61.txt")
REPS=${REPS:-5} MEMMAX=${MEMMAX:-96M} MODEL=${MODEL:-hdd}
mkdir -p "$WORK/p/klab-test"
cat >"$WORK/p/klab-test/mc.sh" <<EOS
mount -t cgroup2 none /sys/fs/cgroup || echo "MC: no cgroup2"
cat /sys/fs/cgroup/cgroup.controllers
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/tio && echo $MEMMAX > /sys/fs/cgroup/tio/memory.max
/sbin/mke2fs -F -q -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 /dev/sda && mount -o noatime /dev/sda /mnt || echo "MC: no ext4"
mkdir -p /mnt/w /mnt/t
cat /sys/block/sda/queue/scheduler
rio --disk /mnt/w --readers 0 --writers 2 --write-size 26 --write-block 1m --warmup 0 --time 0 >/dev/null 2>&1 &
sleep 5
r=0
while [ \$r -lt $REPS ]; do
	for mode in root tio; do
		if [ \$mode = root ]; then cg=/sys/fs/cgroup; else cg=/sys/fs/cgroup/tio; fi
		sh -c "echo \\\$\\\$ > \$cg/cgroup.procs; exec tiotest --threads 8 --block 4096 --size 51 --random 200 --phases seq_write,rand_write --disk /mnt/t --text" >/tmp/out 2>&1
		v=\$(awk '/^Sequential Writes/{s=1} /^Random Writes/{s=2} s && \$4 ~ /^8\$/ {print \$5, \$7; s=0}' /tmp/out | tr '\n' ' ')
		echo "MC: \$mode \$r \$v"
		rm -rf /mnt/t/*
	done
	r=\$((r+1))
done
poweroff -f
EOS
chmod +x "$WORK/p/klab-test/mc.sh"
pack_dir "$WORK/p" "$WORK/p.cpio.gz"
cat "$image" "$WORK/p.cpio.gz" >"$WORK/initrd"
con=$WORK/console.log
# shellcheck disable=SC2034 # boot_rig's (rig-lib.sh)
RIG_TIMEOUT=3000
boot_rig "$con" --profile scsi --dir "$WORK/rig" --disk-size 1536 --memory 768 \
	--disk-model "$MODEL" --pin 1/0 \
	--kernel "$(record_get "$WORK/k61.txt" vmlinuz)" --initrd "$WORK/initrd" \
	--append "panic=-1 klab.init=shell klab.test=/klab-test/mc.sh" >/dev/null
echo "bench_dirty_domain: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "MEMMAX=$MEMMAX MODEL=$MODEL REPS=$REPS"
tr -d '\r' <"$con" | grep -E '^MC: '
