#!/bin/sh
# SPDX-License-Identifier: MIT
# mkinitramfs.sh: builds the klab rig image, as compressed newc cpio parts.
#
# The base part holds busybox (one symlink per applet), kexec, fio, dbench
# (with its loadfile), mke2fs and klab's own programs, each with the shared libraries
# it needs (the ldd closure and the dynamic loader), plus /init (rig-init.sh).
# The modules part holds one kernel's own driver and I/O scheduler modules,
# decompressed, with their dependency closure, listed in load order in
# /lib/modules/KVER/klab.modules.  The kernel unpacks concatenated cpio
# archives in turn, so a rig image for a kernel is base + that kernel's part.
#
# Every part is cached by content: the staged tree is archived reproducibly
# (sorted names, zero mtimes, root owner), the sha256 of that archive names
# the file in the cache, and an archive already there is reused without
# compressing again.  Each mode prints the path of its result on stdout.
#
# Compression: gzip -6 (.cpio.gz); KLAB_INITRAMFS_COMPRESS=zstd for zstd -3
# (.cpio.zst; the kernel needs CONFIG_RD_ZSTD=y).  Measured under TCG
# (docs/RIGS.md, "Where a rig's boot time goes"): zstd -3 is 5% smaller
# and unpacks no faster than gzip there; xz is a third smaller and unpacks
# 2-3 times slower; an uncompressed part unpacks about 0.7 s faster but
# triples what the agent hashes and `kexec -l` copies.  So gzip stays: any
# kernel with an initramfs can unpack it.
#
#   mkinitramfs.sh base [-c CACHE] [FILE|DIR...]
#        FILE: a program copied to /bin with its libraries (klab-agent, tiotest,
#        rio, iops, klab-run); DIR: copied to /usr/share/klab/NAME (suites)
#   mkinitramfs.sh modules [-c CACHE] [-m "MOD..."] ROOT KVER
#        ROOT holds lib/modules/KVER (an unpacked package, modules_install)
#   mkinitramfs.sh rig [-c CACHE] [-m "MOD..."] ROOT KVER [FILE|DIR...]
#        base + modules concatenated
#   mkinitramfs.sh pack DIR OUT
#        any directory as one more part (test scripts, payloads)
#   mkinitramfs.sh prune [-c CACHE] [DAYS]
#        remove base and rig images unused for DAYS (2) days; a build of
#        the base image does this too.  Modules parts are kept (catalog
#        entries name them).
set -eu
umask 022

HERE=$(cd "$(dirname "$0")" && pwd)
KLAB_CACHE=${KLAB_CACHE:-/var/cache/klab}
CACHE=${KLAB_INITRAMFS_CACHE:-$KLAB_CACHE/initramfs}
KEEP_DAYS=${KLAB_INITRAMFS_KEEP_DAYS:-2}
MODULES_DEFAULT="mq-deadline bfq kyber-iosched virtio_pci virtio_scsi
virtio_blk virtio_net sd_mod ata_piix libata scsi_mod ext4"
MODULES=${KLAB_MODULES:-$MODULES_DEFAULT}
STAGE=""
COMPRESS=${KLAB_INITRAMFS_COMPRESS:-gzip}
case $COMPRESS in
zstd) EXT=cpio.zst ;;
gzip) EXT=cpio.gz ;;
*) echo "mkinitramfs: KLAB_INITRAMFS_COMPRESS='$COMPRESS' is not gzip or zstd" >&2
   exit 1 ;;
esac

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

cleanup() {
	[ -z "$STAGE" ] || rm -rf "$STAGE" "$STAGE.stubs"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

usage() {
	sed -n '/^#   mkinitramfs.sh/,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

new_stage() {
	mkdir -p "$CACHE"
	STAGE=$(mktemp -d "$CACHE/stage.XXXXXX")
	# also in $(...) subshells, which do not inherit the trap
	trap cleanup EXIT
}

# add_file SRC DEST: copy SRC (symlinks followed) to DEST in the stage.
add_file() {
	[ -e "$STAGE$2" ] && return 0
	mkdir -p "$STAGE$(dirname "$2")"
	cp -L "$1" "$STAGE$2"
}

# lib_closure BIN: the shared libraries and loader BIN needs, one a line.
lib_closure() {
	out=$(ldd "$1" 2>&1) || {
		case $out in
		*"not a dynamic executable"*) return 0 ;;
		*) die "ldd failed for '$1': $out" ;;
		esac
	}
	printf '%s\n' "$out" | while read -r a b c rest; do
		case "$b $c" in
		"=> not") die "'$1' needs '$a', which is not installed" ;;
		"=> /"*) echo "$c" ;;
		*) case $a in /*) echo "$a" ;; esac ;;
		esac
	done
}

# add_program SRC DEST: a program and every library it needs.
add_program() {
	[ -f "$1" ] || die "program '$1' does not exist"
	add_file "$1" "$2"
	chmod 0755 "$STAGE$2"
	libs=$(lib_closure "$1")
	for lib in $libs; do
		add_file "$lib" "$lib"
	done
}

add_busybox() {
	bb=$(command -v busybox) || die "busybox is not installed (busybox-static)"
	add_program "$bb" /bin/busybox
	for applet in $(busybox --list-full); do
		[ -e "$STAGE/$applet" ] && continue
		mkdir -p "$STAGE/$(dirname "$applet")"
		ln -s /bin/busybox "$STAGE/$applet"
	done
}

# need CMD PACKAGE: path of a host program the image carries.
need() {
	command -v "$1" 2>/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "$1" ||
		die "'$1' is not installed (apt-get install $2)"
}

add_skeleton() {
	for d in proc sys dev tmp run root etc mnt usr/share/udhcpc; do
		mkdir -p "$STAGE/$d"
	done
	# the kernel opens /dev/console before /init can mount devtmpfs
	mknod -m 600 "$STAGE/dev/console" c 5 1
	echo "root:x:0:0:root:/root:/bin/sh" >"$STAGE/etc/passwd"
	echo "root:x:0:" >"$STAGE/etc/group"
	add_file "$HERE/rig-init.sh" /init
	add_file "$HERE/udhcpc.script" /usr/share/udhcpc/default.script
	chmod 0755 "$STAGE/init" "$STAGE/usr/share/udhcpc/default.script"
}

add_tools() {
	add_program "$(need kexec kexec-tools)" /sbin/kexec
	add_program "$(need dbench dbench)" /usr/bin/dbench
	[ -f /usr/share/dbench/client.txt ] ||
		die "dbench loadfile '/usr/share/dbench/client.txt' is missing"
	add_file /usr/share/dbench/client.txt /usr/share/dbench/client.txt
	# the agent formats the test disk for suites with "filesystem = ext4"
	add_program "$(need mke2fs e2fsprogs)" /sbin/mke2fs
	[ -f /etc/mke2fs.conf ] && add_file /etc/mke2fs.conf /etc/mke2fs.conf
}

# make_stub FIO SO REAL DIR: DIR/SO, a stub of the library REAL (soname
# SO): every function FIO takes from it, with the same symbol versions,
# says on stderr that the library is not in the rig image and exits 1.
make_stub() {
	fio=$1 so=$2 real=$3 dir=$4
	nm -D --defined-only "$real" | awk '{ sub(/@.*/, "", $3); print $3 }' |
		sort -u >"$dir/defs"
	# objdump -T: ... *UND* SIZE VERSION NAME ("Base": none)
	objdump -T "$fio" | awk '/\*UND\*/ { v = $(NF - 1); gsub(/[()]/, "", v); print $NF, v }' |
		sort -u >"$dir/und"
	awk 'NR == FNR { d[$1] = 1; next } ($1 in d)' "$dir/defs" "$dir/und" >"$dir/$so.syms"
	[ -s "$dir/$so.syms" ] || die "fio takes nothing from '$real': not stubbed"
	{
		cat <<EOF
#include <stdio.h>
#include <stdlib.h>
static void stub(const char *f)
{
	fprintf(stderr, "fio: %s: $so is a stub in the klab rig image "
		"(no suite uses this engine, kernels/mkinitramfs.sh)\\n", f);
	exit(1);
}
EOF
		while read -r n v; do
			printf 'void %s(void); void %s(void) { stub("%s"); }\n' "$n" "$n" "$n"
		done <"$dir/$so.syms"
	} >"$dir/$so.c"
	: >"$dir/$so.map"
	for v in $(awk '$2 != "Base" { print $2 }' "$dir/$so.syms" | sort -u); do
		echo "$v {"
		awk -v v="$v" '$2 == v { print "	" $1 ";" }' "$dir/$so.syms"
		echo "};"
	done >"$dir/$so.map"
	map=
	[ -s "$dir/$so.map" ] && map=-Wl,--version-script="$dir/$so.map"
	${CC:-cc} -shared -fPIC -O1 -o "$dir/$so" -Wl,-soname,"$so" $map "$dir/$so.c" ||
		die "cannot build the stub of '$so' (a C compiler is needed)"
}

# Debian's fio links the engines for other storage (Ceph RBD and RADOS,
# GlusterFS, NBD, RDMA, persistent memory) into its binary: their library
# closure (Ceph, GlusterFS, ICU data) was 66 MB of the 119 MB unpacked
# base part.  No suite uses them (psync, libaio, io_uring, mmap and the
# rest are fio's own), so the image carries, for each such library, a
# stub with its soname and symbol versions (make_stub) in its place: fio
# is linked -z now, so every symbol must resolve when it starts.  An
# engine of a stubbed library fails with a message naming it.
# KLAB_INITRAMFS_FIO_STUBS: the libraries stubbed ("" for none: the
# whole closure, as before).
FIO_STUBS=${KLAB_INITRAMFS_FIO_STUBS-libgfapi.so.0 libnbd.so.0 libibverbs.so.1
librdmacm.so.1 librados.so.2 librbd.so.1 libpmemblk.so.1 libpmem.so.1}

add_fio() {
	fio=$(need fio fio)
	add_file "$fio" /usr/bin/fio
	chmod 0755 "$STAGE/usr/bin/fio"
	stubs=$STAGE.stubs
	mkdir -p "$stubs"
	links=$(ldd "$fio") || die "ldd failed for '$fio'"
	for so in $(readelf -d "$fio" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		real=$(printf '%s\n' "$links" | awk -v l="$so" '$1 == l && $2 == "=>" { print $3 }')
		[ -n "$real" ] || die "fio needs '$so', which is not installed"
		case " $(echo $FIO_STUBS) " in
		*" $so "*)
			make_stub "$fio" "$so" "$real" "$stubs"
			add_file "$stubs/$so" "$real" ;;
		*)
			add_file "$real" "$real"
			for lib in $(lib_closure "$real"); do
				add_file "$lib" "$lib"
			done ;;
		esac
	done
	for lib in $(lib_closure "$fio"); do	# the dynamic loader
		case $lib in */ld-linux*) add_file "$lib" "$lib" ;; esac
	done
	rm -rf "$stubs"
}

# add_klab ARG...: klab's own programs and directories (suites).
add_klab() {
	for a in "$@"; do
		if [ -d "$a" ]; then
			mkdir -p "$STAGE/usr/share/klab"
			cp -RL "$a" "$STAGE/usr/share/klab/$(basename "$a")"
		elif [ -f "$a" ]; then
			add_program "$a" "/bin/$(basename "$a")"
		else
			die "'$a' is neither a program nor a directory"
		fi
	done
}

# compress: stdin to stdout with $COMPRESS.
compress() {
	case $COMPRESS in
	zstd) zstd -q -3 -c ;;
	*) gzip -6 -n -c ;;
	esac
}

# seal KIND: archive the stage reproducibly and cache it by content; prints
# the cached path.
seal() {
	kind=$1
	# not the stage itself: a concurrent prune would take an mtime of 0
	# for a stage abandoned days ago and remove it under our feet
	find "$STAGE" -mindepth 1 -exec touch -h -d @0 {} +
	raw=$STAGE.cpio
	(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --reproducible -R 0:0 --quiet) >"$raw"
	sum=$(sha256sum "$raw" | cut -c1-16)
	out=$CACHE/$kind-$sum.$EXT
	if [ -f "$out" ]; then
		touch "$out"
	else
		compress <"$raw" >"$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
		echo "mkinitramfs: built '$out' ($(du -k "$out" | cut -f1) KiB)" >&2
	fi
	rm -f "$raw"
	rm -rf "$STAGE"
	STAGE=""
	echo "$out"
}

build_base() {
	new_stage
	add_skeleton
	add_tools
	add_klab "$@"
	# after every other program: a stub never stands in for a library
	# another one needs
	add_fio
	# applets last: real programs (kexec, klab's) win over busybox names
	add_busybox
	seal base
	prune "$KEEP_DAYS" >&2
}

# prune DAYS: every rebuild of klab's programs makes a new base image, so
# drop the base and rig images nobody has used (mtime, touched on every
# cache hit) for DAYS days, and stages and partial files left DAYS days
# ago (ctime: a stage's files have an mtime of 0 while it is sealed).
prune() {
	case $1 in ''|*[!0-9]*) die "'$1' is not a number of days" ;; esac
	find "$CACHE" -maxdepth 1 \( \( \( -name 'base-*.cpio.*' -o -name 'rig-*.cpio.*' \) \
		-mmin +"$(($1 * 1440))" \) -o \( \( -name 'stage.*' -o -name '*.tmp.*' \) \
		-cmin +"$(($1 * 1440))" \) \) \
		-exec rm -rf {} + -exec echo "mkinitramfs: pruned" {} +
}

# module_paths ROOT KVER: the closure of $MODULES, relative to the
# modules directory, dependencies first, each once.
module_paths() {
	root=$1 kver=$2
	for m in $MODULES; do
		if ! deps=$(modprobe -d "$root" -S "$kver" --show-depends "$m" 2>&1); then
			echo "mkinitramfs: module '$m' of kernel '$kver' not found, skipped" >&2
			continue
		fi
		printf '%s\n' "$deps" | awk '$1 == "insmod" { print $2 }'
	done | sed "s|^$root/lib/modules/$kver/||" | awk '!seen[$0]++'
}

build_modules() {
	root=$1 kver=$2
	dir=$root/lib/modules/$kver
	[ -d "$root" ] || die "kernel root '$root' does not exist"
	new_stage
	mkdir -p "$STAGE/lib/modules/$kver"
	list=$STAGE/lib/modules/$kver/klab.modules
	: >"$list"
	if [ -d "$dir" ]; then
		[ -f "$dir/modules.dep" ] || depmod -b "$root" "$kver" ||
			die "depmod failed for kernel '$kver' in '$root'"
		for rel in $(module_paths "$root" "$kver"); do
			plain=${rel%.xz}
			plain=${plain%.zst}
			plain=${plain%.gz}
			mkdir -p "$STAGE/lib/modules/$kver/$(dirname "$rel")"
			case $rel in
			*.xz) xz -dc "$dir/$rel" ;;
			*.zst) zstd -qdc "$dir/$rel" ;;
			*.gz) gzip -dc "$dir/$rel" ;;
			*) cat "$dir/$rel" ;;
			esac >"$STAGE/lib/modules/$kver/$plain" ||
				die "cannot unpack module '$dir/$rel'"
			echo "$plain" >>"$list"
		done
	else
		echo "mkinitramfs: kernel '$kver' has no modules directory '$dir'" >&2
	fi
	seal "modules-$kver"
}

# build_rig ROOT KVER ARG...: base + modules, concatenated and cached.
build_rig() {
	root=$1 kver=$2
	shift 2
	mods=$(build_modules "$root" "$kver")
	base=$(build_base "$@")
	b=$(basename "$base" ".$EXT")
	m=$(basename "$mods" ".$EXT")
	out=$CACHE/rig-${b#base-}-${m##*-}.$EXT
	if [ -f "$out" ]; then
		touch "$out"
	else
		cat "$base" "$mods" >"$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
}

cmd_pack() {
	[ -d "$1" ] || die "'$1' is not a directory"
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --reproducible -R 0:0 --quiet) | gzip -n >"$2.tmp.$$"
	mv "$2.tmp.$$" "$2"
	echo "$2"
}

[ $# -ge 1 ] || usage
mode=$1
shift
while getopts c:m: opt; do
	case $opt in
	c) CACHE=$OPTARG ;;
	m) MODULES=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $mode in
base) build_base "$@" ;;
modules) [ $# -eq 2 ] || usage; build_modules "$1" "$2" ;;
rig) [ $# -ge 2 ] || usage; build_rig "$@" ;;
pack) [ $# -eq 2 ] || usage; cmd_pack "$1" "$2" ;;
prune) [ $# -le 1 ] || usage; mkdir -p "$CACHE"; prune "${1:-$KEEP_DAYS}" ;;
*) usage ;;
esac
