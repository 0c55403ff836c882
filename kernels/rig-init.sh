#!/bin/sh
# SPDX-License-Identifier: MIT
# rig-init.sh: /init of the klab rig image (busybox sh, PID 1).
#
# Mounts the kernel file systems, loads the modules this kernel's part of the
# initramfs lists in /lib/modules/$(uname -r)/klab.modules (in that order),
# waits for the disks, brings up the network and hands over to klab-agent.
# Everything comes from the kernel command line:
#
#   klab.url=URL      klabd as the guest sees it (http://10.0.2.100:PORT)
#   klab.rig=NAME     the rig's name            klab.token=TOKEN  its token
#   klab.net=static   10.0.2.15/24 via 10.0.2.2 (QEMU user net, the default)
#   klab.net=dhcp     udhcpc on the interface   klab.net=none   no network
#   klab.net=ADDR/PREFIX,GATEWAY                any static address
#   klab.if=eth0      the interface to configure
#   klab.disks=N      wait (up to 30 s) until N disks are seen (the cache
#                     disk not counted)
#   klab.cache=WHERE  the agent's boot-file cache (docs/AGENT.md): a device
#                     (/dev/sdb1, formatted once with mkfs.ext4) mounted at
#                     /cache, or a directory; default: the virtio disk whose
#                     serial is klab-cache (QEMU rigs); none: no cache
#   klab.init=shell   do not start the agent
#   klab.test=PATH    debug script to run instead of the agent; the rig powers
#                     off when it returns
#
# The agent is started as `klab-agent --url URL --rig NAME --token TOKEN`
# (each option only when given) with KLAB_URL, KLAB_RIG and KLAB_TOKEN in its
# environment as well; it may read /proc/cmdline for anything else.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

log() {
	echo "klab-init: $*"
}

mount_all() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mkdir -p /dev/pts /dev/shm /tmp /run
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /tmp
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /dev/shm
}

parse_cmdline() {
	url="" rig="" token="" net=static iface=eth0 disks="" mode="" test=""
	cache=""
	for w in $(cat /proc/cmdline); do
		case $w in
		klab.url=*) url=${w#*=} ;;
		klab.rig=*) rig=${w#*=} ;;
		klab.token=*) token=${w#*=} ;;
		klab.net=*) net=${w#*=} ;;
		klab.if=*) iface=${w#*=} ;;
		klab.disks=*) disks=${w#*=} ;;
		klab.init=*) mode=${w#*=} ;;
		klab.test=*) test=${w#*=} ;;
		klab.cache=*) cache=${w#*=} ;;
		esac
	done
}

load_modules() {
	dir=/lib/modules/$(uname -r)
	list=$dir/klab.modules
	if [ ! -f "$list" ]; then
		log "no module list for kernel '$(uname -r)'"
		return
	fi
	n=0
	while read -r m; do
		[ -n "$m" ] || continue
		if insmod "$dir/$m"; then
			n=$((n + 1))
		else
			log "cannot load module '$m'"
		fi
	done <"$list"
	log "loaded $n modules"
}

# is_cache_disk DIR: is /sys/block/DIR the boot-file cache disk?  (Shell
# builtins only: wait_disks asks for 64 disks five times a second.)
is_cache_disk() {
	[ -r "$1/serial" ] || return 1
	serial=""
	# virtio_blk's serial has no newline: read fails at EOF but sets it
	read -r serial <"$1/serial"
	[ "$serial" = klab-cache ]
}

test_disks() {
	for d in /sys/block/sd* /sys/block/vd* /sys/block/hd*; do
		[ -e "$d" ] && ! is_cache_disk "$d" && echo "${d#/sys/block/}"
	done
}

count_disks() {
	test_disks | wc -l
}

# wait_disks: with klab.disks=N until N disks show up, else until the count
# has been stable for a second (SCSI scanning is asynchronous).
wait_disks() {
	last=-1 stable=0 i=0
	while [ $i -lt 150 ]; do
		c=$(count_disks)
		if [ -n "$disks" ]; then
			[ "$c" -ge "$disks" ] && break
		else
			[ "$c" -eq "$last" ] && stable=$((stable + 1)) || stable=0
			[ $stable -ge 5 ] && break
		fi
		last=$c
		i=$((i + 1))
		sleep 0.2
	done
	log "$(count_disks) disks: $(test_disks | tr '\n' ' ')"
}

net_up() {
	ip link set lo up
	[ "$net" = none ] && return
	if [ ! -e "/sys/class/net/$iface" ]; then
		log "no network interface '$iface'"
		return
	fi
	ip link set "$iface" up
	case $net in
	dhcp) udhcpc -i "$iface" -n -q -t 10 -s /usr/share/udhcpc/default.script ;;
	static) ip addr add 10.0.2.15/24 dev "$iface"
		ip route add default via 10.0.2.2 ;;
	*) ip addr add "${net%,*}" dev "$iface"
		case $net in *,*) ip route add default via "${net#*,}" ;; esac ;;
	esac
	log "network $iface: $(ip -4 -o addr show dev "$iface" | awk '{print $4}') ($net)"
}

# cache_up: mount the boot-file cache; cache_dir is the agent's --cache-dir
# ("" when there is none).
cache_up() {
	cache_dir=""
	dev=""
	case $cache in
	none) return ;;
	/dev/*) dev=$cache ;;
	/*) mkdir -p "$cache" && cache_dir=$cache ;;
	"") for d in /sys/block/vd*; do
		is_cache_disk "$d" && dev=/dev/${d#/sys/block/}
	    done ;;
	*) log "klab.cache='$cache' is neither a device nor a directory" ;;
	esac
	if [ -n "$dev" ]; then
		mkdir -p /cache
		if mount -t ext4 -o noatime "$dev" /cache; then
			cache_dir=/cache
		else
			log "cannot mount cache '$dev': no boot-file cache"
		fi
	fi
	[ -z "$cache_dir" ] || log "boot-file cache $cache_dir ($dev): $(df -k "$cache_dir" | awk 'NR == 2 {print $3 " of " $2 " KiB used"}')"
}

shell_forever() {
	while true; do
		setsid cttyhack sh -l
	done
}

mount_all
parse_cmdline
log "kernel $(uname -r)"
load_modules
wait_disks
cache_up
net_up

if [ "$mode" != shell ] && [ -x /bin/klab-agent ]; then
	export KLAB_URL="$url" KLAB_RIG="$rig" KLAB_TOKEN="$token"
	set --
	[ -n "$url" ] && set -- "$@" --url "$url"
	[ -n "$rig" ] && set -- "$@" --rig "$rig"
	[ -n "$token" ] && set -- "$@" --token "$token"
	[ -n "$cache_dir" ] && set -- "$@" --cache-dir "$cache_dir"
	log "starting klab-agent"
	exec /bin/klab-agent "$@"
	log "cannot start '/bin/klab-agent'"
fi
if [ -n "$test" ]; then
	log "running test script '$test'"
	sh "$test"
	log "test script '$test' exited with status $?"
	sync
	poweroff -f
fi
log "no agent: starting a shell on the console"
shell_forever
