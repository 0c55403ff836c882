#!/bin/sh
# SPDX-License-Identifier: MIT
# qemu-rig.sh: starts one QEMU rig of a klab profile and prepares its disks.
#
# Profiles: scsi (virtio-scsi, one disk), ide (PIIX IDE, one disk on the pc
# machine's own controller), manydisk (virtio-scsi, 64 disks at scsi-id 0-7
# x lun 0-7, 4 vCPUs).  Disk images live in the rig directory and are fully
# written (dd from /dev/zero, never sparse or fallocated) so that guest reads
# reach storage; they are kept across boots.  TCG by default.  The serial
# console of each boot is logged to its own file.  The guest network is QEMU
# user networking with restrict=on: the guest reaches klabd on the host's
# 127.0.0.1:PORT at 10.0.2.100:GUEST_PORT through a per-connection
# guestfwd (socat) and nothing else.
#
#   qemu-rig.sh start   OPTIONS   start in the background; prints key=value
#                                 lines: pid, console, monitor, dir
#   qemu-rig.sh exec    OPTIONS   prepare, then exec QEMU in the foreground
#                                 (fork + exec this: the child is QEMU)
#   qemu-rig.sh cmdline OPTIONS   prepare, then print QEMU's argv, one a line
#   qemu-rig.sh disks   OPTIONS   only create the disk images
#   qemu-rig.sh stop    --dir DIR stop the rig's QEMU (pidfile in DIR)
#
# Options: --profile scsi|ide|manydisk (scsi)  --dir DIR (required)
#   --name NAME (the profile)  --kernel VMLINUZ  --initrd CPIO  --append TEXT
#   --disk-size MIB (1024; manydisk 32)  --cpus N (1; manydisk 4)
#   --memory MIB (1024)  --port PORT (8080)  --guest-port PORT (= --port)
#   --token TOKEN  --console FILE (DIR/console-TIME.log)
#   --cache none|writeback|... (none when the directory takes O_DIRECT)
#   --disk-model host|hdd|ssd (host)  --accel tcg (tcg)  --no-reboot
#   --boot-cache MIB (512; 0: none) the rig's boot-file cache disk
#     (cache.img, ext4, kept across boots; see "Boot-file cache" below)
#   --pin VCPUS/OTHERS  host CPU lists (taskset's form: 1, 0-1, 2,3):
#     QEMU's vCPU threads run on VCPUS, its other threads (main loop,
#     I/O workers, the guestfwd's socat) on OTHERS (see "Pinning" below)
#
# Disk models (docs/RIGS.md, "Disk models"): host is the image file as it
# is; hdd and ssd put a fixed service time per request in front of it
# (a quorum of QEMU's null-co driver with latency-ns, whose zeros lose
# every vote to the image's data, so the data is kept), a bandwidth cap
# (a throttle group) and a device queue depth (virtio-scsi cmd_per_lun;
# IDE has one request in flight whatever the model).
set -eu

GUEST_ADDR=10.0.2.100

die() {
	echo "qemu-rig: $*" >&2
	exit 1
}

usage() {
	sed -n '/^#   qemu-rig.sh start/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

parse_options() {
	profile=scsi dir="" name="" kernel="" initrd="" append="" size=""
	cpus="" memory=1024 port=8080 gport="" token="" console="" cache=""
	accel=tcg noreboot=0 model=host bootcache=512 pin=""
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || case $1 in --no-reboot) ;; *) die "option '$1' needs a value" ;; esac
		case $1 in
		--profile) profile=$2 ;;
		--dir) dir=$2 ;;
		--name) name=$2 ;;
		--kernel) kernel=$2 ;;
		--initrd) initrd=$2 ;;
		--append) append=$2 ;;
		--disk-size) size=$2 ;;
		--cpus) cpus=$2 ;;
		--memory) memory=$2 ;;
		--port) port=$2 ;;
		--guest-port) gport=$2 ;;
		--token) token=$2 ;;
		--console) console=$2 ;;
		--cache) cache=$2 ;;
		--accel) accel=$2 ;;
		--disk-model) model=$2 ;;
		--boot-cache) bootcache=$2 ;;
		--pin) pin=$2 ;;
		--no-reboot) noreboot=1; shift; continue ;;
		*) die "unknown option '$1'" ;;
		esac
		shift 2
	done
	[ -n "$dir" ] || die "no rig directory (--dir)"
	case $profile in
	scsi|ide) ndisks=1 ;;
	manydisk) ndisks=64 ;;
	*) die "unknown rig profile '$profile' (scsi, ide, manydisk)" ;;
	esac
	[ -n "$name" ] || name=$profile
	model_params
	[ -n "$gport" ] || gport=$port
	if [ -z "$size" ]; then
		[ "$profile" = manydisk ] && size=32 || size=1024
	fi
	if [ -z "$cpus" ]; then
		[ "$profile" = manydisk ] && cpus=4 || cpus=1
	fi
	for n in "$size" "$cpus" "$memory" "$port" "$gport" "$bootcache"; do
		case $n in ''|*[!0-9]*) die "'$n' is not a number" ;; esac
	done
	case $pin in
	'') ;;
	*/*/*|/*|*/) die "--pin '$pin': expected VCPUS/OTHERS, e.g. 1/0" ;;
	*/*) case ${pin%/*}${pin#*/} in
		*[!0-9,-]*) die "--pin '$pin': a CPU list is digits, ',' and '-'" ;;
		esac ;;
	*) die "--pin '$pin': expected VCPUS/OTHERS, e.g. 1/0" ;;
	esac
}

# disk_names: the image file names of the profile, one a line, with their
# SCSI address for manydisk (NAME ID LUN).
disk_names() {
	if [ "$profile" = manydisk ]; then
		for id in 0 1 2 3 4 5 6 7; do
			for lun in 0 1 2 3 4 5 6 7; do
				echo "disk-$id-$lun.img $id $lun"
			done
		done
	else
		echo "disk-0-0.img 0 0"
	fi
}

# make_disk FILE: a fully written image of $size MiB, kept when it exists
# with the right size.
make_disk() {
	want=$((size * 1048576))
	if [ -f "$1" ] && [ "$(stat -c %s "$1")" = "$want" ]; then
		return
	fi
	dd if=/dev/zero of="$1.tmp" bs=1M count="$size" conv=fsync status=none ||
		die "cannot write disk image '$1'"
	mv "$1.tmp" "$1"
}

make_disks() {
	mkdir -p "$dir"
	disk_names | while read -r f id lun; do
		make_disk "$dir/$f"
	done
}

# pick_cache: none (O_DIRECT, reads reach the disk) where the file system
# takes it, writeback elsewhere (tmpfs).
pick_cache() {
	[ -z "$cache" ] || return 0
	if dd if=/dev/zero of="$dir/.direct-probe" bs=4096 count=1 oflag=direct \
		status=none 2>/dev/null; then
		cache=none
	else
		cache=writeback
	fi
	rm -f "$dir/.direct-probe"
}

# model_params: the numbers of the disk model.  lat_ns: fixed service
# time of every request (empty: none); bps: bandwidth cap in bytes/s
# (empty: none); bps_dirs: total (reads and writes share the cap) or
# split (each direction has its own); qdepth: requests the device takes
# at once (virtio-scsi).
model_params() {
	bps_dirs=total
	case $model in
	host) lat_ns="" bps="" qdepth=128 ;;
	# a 7200 rpm disk: ~8 ms a random request (125 IOPS), 40 MB/s
	# streaming, one request at a time
	hdd) lat_ns=8000000 bps=41943040 qdepth=1 ;;
	# a deep-queued flash device as TCG can drive it: 2 ms a request,
	# 100 MiB/s, 32 at once.  At a real SSD's 100 us the emulated CPU,
	# not the device, was the bottleneck (tiotest at 92% CPU) and the
	# cells' noise 8-34%; at 2 ms the device bounds every phase
	# (docs/RIGS.md, "Disk models").  Reads and writes each have their
	# own 100 MiB/s: sharing one, the reads under two streaming writers
	# got a share of it that changed from cell to cell (rand_read 47%
	# CV of cells; 0.8% split)
	ssd) lat_ns=2000000 bps=104857600 qdepth=32 bps_dirs=split ;;
	*) die "unknown disk model '$model' (host, hdd, ssd)" ;;
	esac
}

# disk_blockdevs I IMAGE: the block graph of test disk I (node "t$I" is what
# the device attaches to), appended to the positional parameters by the
# caller through $blk.
disk_blockdevs() {
	i=$1 img=$2
	direct=off
	[ "$cache" != none ] || direct=on
	blk="-blockdev driver=file,node-name=f$i,filename=$img,cache.direct=$direct,aio=threads"
	blk="$blk -blockdev driver=raw,node-name=r$i,file=f$i"
	top=r$i
	if [ -n "$lat_ns" ]; then
		bytes=$((size * 1048576))
		blk="$blk -blockdev driver=null-co,node-name=n$i,size=$bytes,latency-ns=$lat_ns,read-zeroes=on"
		blk="$blk -blockdev driver=quorum,node-name=q$i,vote-threshold=1,read-pattern=quorum,children.0=n$i,children.1=r$i"
		top=q$i
	fi
	if [ -n "$bps" ]; then
		lim=x-bps-total=$bps
		[ "$bps_dirs" = total ] || lim=x-bps-read=$bps,x-bps-write=$bps
		blk="$blk -object throttle-group,id=g$i,$lim"
		blk="$blk -blockdev driver=throttle,node-name=t$i,throttle-group=g$i,file=$top"
		top=t$i
	fi
}

# qemu_args: sets the positional parameters to QEMU's argv.
qemu_args() {
	[ -n "$console" ] || console=$dir/console-$(date +%Y%m%d-%H%M%S)-$$.log
	: >"$console"
	url=http://$GUEST_ADDR:$gport
	cmd="console=ttyS0,115200 klab.url=$url klab.rig=$name klab.disks=$ndisks"
	[ -z "$token" ] || cmd="$cmd klab.token=$token"
	[ -z "$append" ] || cmd="$cmd $append"
	set -- qemu-system-x86_64 -name "klab-$name,debug-threads=on" -machine pc -accel "$accel" \
		-smp "$cpus" -m "$memory" -nodefaults -no-user-config \
		-display none -pidfile "$dir/qemu.pid" \
		-qmp "unix:$dir/qmp.sock,server=on,wait=off" \
		-chardev "file,id=con0,path=$console" -serial chardev:con0 \
		-netdev "user,id=n0,restrict=on,guestfwd=tcp:$GUEST_ADDR:$gport-cmd:socat - TCP:127.0.0.1:$port" \
		-device virtio-net-pci,netdev=n0
	[ "$noreboot" = 0 ] || set -- "$@" -no-reboot
	[ -z "$kernel" ] || set -- "$@" -kernel "$kernel" -append "$cmd"
	[ -z "$initrd" ] || set -- "$@" -initrd "$initrd"
	[ "$profile" = ide ] ||
		set -- "$@" -device "virtio-scsi-pci,id=scsi0,cmd_per_lun=$qdepth"
	i=0
	for d in $(disk_names | tr ' ' ':'); do
		f=${d%%:*} id=${d#*:} lun=${id#*:} id=${id%%:*}
		disk_blockdevs "$i" "$dir/$f"
		# shellcheck disable=SC2086 # $blk: options without spaces
		set -- "$@" $blk
		if [ "$profile" = ide ]; then
			set -- "$@" -device "ide-hd,drive=$top,bus=ide.$((i / 2)),unit=$((i % 2))"
		else
			set -- "$@" -device "scsi-hd,drive=$top,bus=scsi0.0,channel=0,scsi-id=$id,lun=$lun"
		fi
		i=$((i + 1))
	done
	ARGS_FILE=$dir/qemu.args
	printf '%s\n' "$@" >"$ARGS_FILE"
	boot_cache_args >>"$ARGS_FILE"
	if [ -n "$pin" ]; then
		echo "$pin" >"$dir/qemu.pin"
	else
		rm -f "$dir/qemu.pin"
	fi
}

# ---- Pinning ----
# With --pin VCPUS/OTHERS QEMU starts under `taskset -c OTHERS`, so every
# thread it makes inherits OTHERS, and a watcher (detached, not QEMU's
# child) moves each vCPU thread (named "CPU N/TCG" or "CPU N/KVM" by
# debug-threads=on) to VCPUS as soon as it exists: the emulated CPU never
# waits behind QEMU's own I/O and event work, nor that behind it.  The
# watcher gives up after 30 s and leaves a line in DIR/qemu.pin.log
# either way (the rig runs unpinned vCPUs rather than not at all).
# pin_watch PID VCPUS NVCPUS LOG
pin_watch() {
	pid=$1 cpuset=$2 want=$3 log=$4 i=0 done=""
	while [ $i -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
		for t in /proc/"$pid"/task/*; do
			tid=${t##*/}
			case " $done " in *" $tid "*) continue ;; esac
			case $(cat "$t/comm" 2>/dev/null) in
			"CPU "*)
				taskset -p -c "$cpuset" "$tid" >/dev/null 2>&1 &&
					done="$done $tid" ;;
			esac
		done
		# shellcheck disable=SC2086 # count the words
		set -- $done
		if [ $# -ge "$want" ]; then
			echo "pinned vCPU threads$done to CPUs $cpuset" >"$log"
			return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	echo "pinned only vCPU threads:${done:- none} to CPUs $cpuset of $want" >"$log"
}

# ---- Boot-file cache ----
# The agent keeps the kernels and initramfs it has verified on a disk of
# the rig's own (docs/AGENT.md): a virtio-blk disk with serial klab-cache,
# on no test controller, so the agent's disk discovery and the device
# counters never see it.  Formatted once here (ext4, label klab-cache, no
# lazy init so the guest never writes behind a benchmark), kept across
# boots like the test disks.  Sparse: nothing on it is measured.
make_boot_cache() {
	img=$dir/cache.img
	[ "$bootcache" != 0 ] || return 0
	[ -f "$img" ] && return 0
	mkfs=$(PATH=$PATH:/usr/sbin:/sbin command -v mke2fs) || {
		echo "qemu-rig: mke2fs is not installed (e2fsprogs): no boot-file cache" >&2
		return 0
	}
	truncate -s "${bootcache}M" "$img.tmp" &&
		"$mkfs" -q -F -t ext4 -L klab-cache -m 0 \
			-E lazy_itable_init=0,lazy_journal_init=0 "$img.tmp" ||
		die "cannot make the boot-file cache '$img'"
	mv "$img.tmp" "$img"
}

# boot_cache_args: QEMU's arguments for the cache disk, one a line (none
# without a cache).
boot_cache_args() {
	make_boot_cache
	[ "$bootcache" != 0 ] && [ -f "$dir/cache.img" ] || return 0
	echo -drive
	echo "file=$dir/cache.img,format=raw,if=none,id=bootcache,cache=writeback"
	echo -device
	echo "virtio-blk-pci,drive=bootcache,serial=klab-cache"
}

prepare() {
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
	command -v socat >/dev/null || die "socat is not installed (apt-get install socat)"
	[ -z "$kernel" ] || [ -f "$kernel" ] || die "kernel '$kernel' does not exist"
	[ -z "$initrd" ] || [ -f "$initrd" ] || die "initrd '$initrd' does not exist"
	make_disks
	pick_cache
	qemu_args
}

# run_args: exec the argv saved by qemu_args (one argument a line; no
# argument contains a newline).
run_args() {
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done <"$ARGS_FILE"
	pinf=${ARGS_FILE%/*}/qemu.pin
	if [ -f "$pinf" ]; then
		command -v taskset >/dev/null || die "--pin: taskset is not installed (util-linux)"
		p=$(cat "$pinf")
		n=$(sed -n '/^-smp$/{n;p;}' "$ARGS_FILE")
		# the exec below keeps this PID: the watcher watches QEMU
		me=$$
		(pin_watch "$me" "${p%/*}" "${n:-1}" "$pinf.log" </dev/null >/dev/null 2>&1 &)
		exec taskset -c "${p#*/}" "$@"
	fi
	exec "$@"
}

cmd_start() {
	rm -f "$dir/qemu.pid"
	setsid sh -c 'exec "$@" </dev/null >"$0" 2>&1' "$dir/qemu.out" "$0" exec-saved "$ARGS_FILE" &
	child=$!
	i=0
	while [ ! -s "$dir/qemu.pid" ]; do
		if ! kill -0 "$child" 2>/dev/null; then
			cat "$dir/qemu.out" >&2
			die "qemu of rig '$name' exited at once"
		fi
		i=$((i + 1))
		[ $i -lt 100 ] || die "qemu of rig '$name' wrote no pidfile in 10 s"
		sleep 0.1
	done
	echo "pid=$(cat "$dir/qemu.pid")"
	echo "console=$console"
	echo "monitor=$dir/qmp.sock"
	echo "dir=$dir"
}

cmd_stop() {
	[ -f "$dir/qemu.pid" ] || return 0
	pid=$(cat "$dir/qemu.pid")
	case $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") in
	*qemu-system-x86_64*"$dir/qemu.pid"*) ;;
	*) rm -f "$dir/qemu.pid"; return 0 ;;
	esac
	kill "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/qemu.pid"
}

[ $# -ge 1 ] || usage
mode=$1
shift
case $mode in
exec-saved) ARGS_FILE=$1; run_args ;;
start) parse_options "$@"; prepare; cmd_start ;;
exec) parse_options "$@"; prepare; run_args ;;
cmdline) parse_options "$@"; prepare; cat "$ARGS_FILE" ;;
disks) parse_options "$@"; make_disks ;;
stop) parse_options "$@"; cmd_stop ;;
*) usage ;;
esac
