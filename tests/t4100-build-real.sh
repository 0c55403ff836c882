#!/bin/sh
# SPDX-License-Identifier: MIT
# t4100 (slow tier, KLAB_SLOW=1): the real kernel path of
# kernels/build-kernel.sh.  Builds Debian's linux-source-6.1 with the lab
# config, then base + canary-slow, started warm from the base's built
# tree (with KLAB_LAB=1: each other shipped patch, and base 6.12 when
# linux-source-6.12 is installed; without it each other patch is only
# checked to apply), all through ccache into
# the shared cache (outside the clone, so a rerun finds them), checks an
# identical request is answered from the cache, then boots
# each bzImage under QEMU TCG with a virtio-scsi disk (and the base once
# more on PIIX IDE with 2 vCPUs) and a busybox initramfs whose /init prints
# uname -r and the disk's scheduler, reads 16 MiB with O_DIRECT and powers
# off.  The read timings are printed for the log, never asserted.
set -u
if [ "${KLAB_SLOW:-0}" != 1 ]; then
	echo "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
	exit 77
fi
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=$TOP/kernels/build-kernel.sh
CACHE=${KLAB_BUILD_CACHE:-/var/cache/klab/builds}
for need in /usr/src/linux-source-6.1.tar.xz /bin/busybox; do
	[ -e "$need" ] || { echo "missing $need (apt-get install linux-source-6.1 busybox-static)"; exit 77; }
done
for cmd in qemu-system-x86_64 cpio gzip ccache; do
	command -v "$cmd" >/dev/null || { echo "missing command '$cmd'"; exit 77; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

bad() {
	echo "not ok: $*"
	fails=$((fails + 1))
}

field() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

# build NAME [--patch FILE]: build (or find) a kernel, record in $TMP/NAME
build() {
	name=$1; shift
	t0=$(date +%s)
	"$BUILD" --base "${BASE:-debian-6.1}" --cache "$CACHE" --ccache "$@" \
		>"$TMP/$name" 2>"$TMP/$name.err"
	rc=$?
	echo "$name: exit $rc in $(($(date +%s) - t0)) s," \
		"$(field cache "$TMP/$name"), build_seconds=$(field build_seconds "$TMP/$name")"
	[ $rc -eq 0 ] || { tail -n 30 "$TMP/$name.err"; bad "$name build failed"; }
}

initramfs() {
	r=$TMP/root
	mkdir -p "$r/bin" "$r/dev" "$r/proc" "$r/sys"
	cp /bin/busybox "$r/bin/busybox"
	mknod "$r/dev/console" c 5 1 || return 1
	cat >"$r/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
echo "klab-init release=$(/bin/busybox uname -r)"
echo "klab-init scheduler=$(/bin/busybox cat /sys/block/sda/queue/scheduler)"
t0=$(/bin/busybox cut -d ' ' -f 1 /proc/uptime)
/bin/busybox dd if=/dev/sda of=/dev/null bs=4096 count=4096 iflag=direct 2>/dev/null
t1=$(/bin/busybox cut -d ' ' -f 1 /proc/uptime)
echo "klab-init dd-4k-direct-16MiB start=$t0 end=$t1"
/bin/busybox poweroff -f
INIT
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -9) >"$TMP/initrd.gz"
}

# boot NAME RIG: boot the kernel of record $TMP/NAME with the disk of RIG
# (scsi: virtio-scsi, ide: PIIX IDE, 2 vCPUs), console in $TMP/NAME-RIG.console
boot() {
	name=$1 rig=$2 rec=$TMP/$1 con=$TMP/$1-$2.console
	case $rig in
	scsi) disk="-device virtio-scsi-pci,id=scsi0
		-drive file=$TMP/disk.img,if=none,id=d0,format=raw
		-device scsi-hd,drive=d0,bus=scsi0.0" ;;
	ide) disk="-smp 2 -drive file=$TMP/disk.img,if=ide,format=raw" ;;
	esac
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout 300 qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot \
		-kernel "$(field vmlinuz "$rec")" -initrd "$TMP/initrd.gz" \
		-append 'console=ttyS0 panic=-1' $disk \
		</dev/null >"$con" 2>&1
	rc=$?
	name=$name-$rig
	echo "$name: qemu exit $rc after $(($(date +%s) - t0)) s"
	grep 'klab-init' "$con"
	[ $rc -eq 0 ] || bad "$name: qemu exit $rc"
	want=$(field kernelrelease "$rec")
	grep -q "klab-init release=$want" "$con" ||
		bad "$name: init did not report release '$want'"
	grep -q 'klab-init scheduler=.*\[mq-deadline\]' "$con" ||
		bad "$name: no virtio-scsi disk with mq-deadline"
	grep -q 'reboot: Power down' "$con" ||
		bad "$name: did not power off"
	[ $fails -eq 0 ] || tail -n 40 "$con"
}

build base
build canary --patch "$TOP/kernels/patches/canary-slow.patch"
build again
[ "$(field cache "$TMP/again")" = hit ] || bad "identical request was not a cache hit"
[ "$(field key "$TMP/again")" = "$(field key "$TMP/base")" ] || bad "identical request, other key"
[ "$(field kernelrelease "$TMP/base")" != "$(field kernelrelease "$TMP/canary")" ] ||
	bad "base and canary have the same release"
# built after its base was, the canary starts from the base's built tree
# (its boot below and t4104's verdict show the patch took effect)
if [ "$(field cache "$TMP/base")" = built ] && [ "$(field cache "$TMP/canary")" = built ]; then
	[ "$(field warm_start "$TMP/canary")" = yes ] ||
		bad "the canary did not start from the base's built tree"
	# and compiled what the patch and the release name change, not every
	# file (a count of compiler runs in the logs, not a time)
	nb=$(grep -c '^  CC  ' "$(field log "$TMP/base")")
	nc=$(grep -c '^  CC  ' "$(field log "$TMP/canary")")
	echo "compiler runs: base $nb, canary (warm) $nc"
	[ $((nc * 10)) -lt "$nb" ] ||
		bad "the warm canary compiled $nc files, the base $nb"
fi
# CI builds only what the slow tier uses (base and canary-slow: issue 9's
# budget) and checks that every other shipped patch still applies to the
# base (build-kernel.sh --check, seconds); the lab tier (KLAB_LAB=1)
# builds each of them.
others=""
for p in "$TOP"/kernels/patches/*.patch; do
	n=$(basename "$p" .patch)
	[ "$n" = canary-slow ] && continue
	if [ -z "${KLAB_LAB:-}" ]; then
		"$BUILD" --base debian-6.1 --cache "$CACHE" --check --patch "$p" \
			>"$TMP/$n.check" 2>&1 && grep -q '^status=ok' "$TMP/$n.check" ||
			bad "$n no longer applies to the base: $(tail -n 3 "$TMP/$n.check")"
		continue
	fi
	build "$n" --patch "$p"
	others="$others $n"
done
# The 6.12 line too, when its source is installed (no patch: they are
# written against 6.1).
if [ -n "${KLAB_LAB:-}" ] && [ -f /usr/src/linux-source-6.12.tar.xz ]; then
	BASE=debian-6.12 build base612
	others="$others base612"
fi
[ $fails -eq 0 ] || exit 1

initramfs || { echo "cannot build the initramfs"; exit 1; }
truncate -s 64M "$TMP/disk.img"
boot base scsi
boot canary scsi
boot base ide
for n in $others; do
	boot "$n" scsi
done

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "real builds and boots passed"
