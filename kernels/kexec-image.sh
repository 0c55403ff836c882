#!/bin/sh
# SPDX-License-Identifier: MIT
# kexec-image.sh: the kernel inside an x86 bzImage, decompressed, for a
# kexec that skips the decompressor (docs/RIGS.md, "The kexec image").
#
#   kexec-image.sh IMAGE OUT
#
# Reads the bzImage's setup header (boot protocol 2.08 or later: the
# payload's offset and length), picks the decompressor by the payload's
# magic (gzip, lz4, zstd, xz, lzma, bzip2, lzo) and writes what it makes,
# at most 512 MiB, to OUT.  klabd (lab/kexec_image.c) then checks that it
# is an x86-64 ELF and writes the compact copy a rig loads.
#
# A built kernel's bzImage is a product of a patch's build: the
# decompressor never runs as root on it.  Run as root, it runs as
# nobody:nogroup with no new privileges, under prlimit (CPU seconds,
# address space, no core) and timeout, reading the payload from a pipe
# and writing to one; root only copies bytes.  Exit 0 with OUT written;
# 1 with the reason on stderr (OUT not left behind).
set -u

MAX_BYTES=$((512 << 20))

die() {
	echo "kexec-image: $*" >&2
	rm -f "${OUT:-}.part"
	exit 1
}

[ $# -eq 2 ] || die "usage: kexec-image.sh IMAGE OUT"
IMG=$1 OUT=$2
[ -f "$IMG" ] && [ -r "$IMG" ] || die "cannot read '$IMG'"

# u8 OFFSET, u16 OFFSET, u32 OFFSET: little-endian numbers of the image
u8() { od -An -tu1 -j "$1" -N 1 "$IMG" | tr -d ' '; }
u16() { od -An -tu2 --endian=little -j "$1" -N 2 "$IMG" | tr -d ' '; }
u32() { od -An -tu4 --endian=little -j "$1" -N 4 "$IMG" | tr -d ' '; }
hex() { od -An -tx1 -j "$1" -N "$2" "$IMG" | tr -d ' \n'; }

size=$(stat -c %s "$IMG") || die "cannot stat '$IMG'"
[ "$size" -gt 1024 ] || die "'$IMG' is too small to be a bzImage"
[ "$(hex 514 4)" = 48647253 ] || die "'$IMG' is not a bzImage (no HdrS)"
ver=$(u16 518)
[ "$ver" -ge 520 ] ||
	die "'$IMG' has boot protocol $ver: no payload fields (2.08 and later)"
sects=$(u8 497)
[ "$sects" -ne 0 ] || sects=4
poff=$(u32 584)
plen=$(u32 588)
start=$(((sects + 1) * 512 + poff))
[ "$plen" -gt 0 ] && [ $((start + plen)) -le "$size" ] ||
	die "'$IMG': payload $start+$plen is outside the file ($size bytes)"

magic=$(od -An -tx1 -j "$start" -N 6 "$IMG" | tr -d ' \n')
case $magic in
1f8b*) tool="gzip -dc" ;;
02214c18*) tool="lz4 -dc" ;;
28b52ffd*) tool="zstd -dcq" ;;
fd377a585a00) tool="xz -dc" ;;
5d0000*) tool="xz --format=lzma -dc" ;;
425a68*) tool="bzip2 -dc" ;;
894c5a4f*) tool="lzop -dc" ;;
*) die "'$IMG': payload magic $magic is no compression this script knows" ;;
esac
set -- $tool
command -v "$1" >/dev/null 2>&1 || die "'$IMG' needs '$1' to decompress"

if [ "$(id -u)" -eq 0 ]; then
	set -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--no-new-privs "$@"
fi
# the decompressors stop with an error at the payload's last 4 bytes (the
# size the kernel's own decompressor reads): its status is not the test,
# the ELF check is
tail -c +$((start + 1)) "$IMG" | head -c "$plen" |
	(cd / && timeout -k 5 120 prlimit --as=2147483648 --cpu=120 --core=0 \
		"$@" 2>/dev/null) | head -c $((MAX_BYTES + 1)) >"$OUT.part" ||
	die "cannot write '$OUT.part'"
got=$(stat -c %s "$OUT.part")
[ "$got" -gt 0 ] || die "'$IMG': '$tool' made nothing of the payload"
[ "$got" -le "$MAX_BYTES" ] || die "'$IMG': the payload is over $MAX_BYTES bytes decompressed"
mv -f "$OUT.part" "$OUT" || die "cannot write '$OUT'"
