#!/bin/sh
# SPDX-License-Identifier: MIT
# debian-kernels.sh: the Debian side of klab's kernel catalog.
#
# Debian's archive carries two lines of prebuilt cloud kernels,
# linux-image-6.1.0-NN-cloud-amd64 and linux-image-6.12.NNN+deb12-cloud-amd64.
# This script lists what apt offers, picks the newest of a line, and fetches
# one exact package (apt-get download + dpkg-deb -x) into a cache directory
# outside the clone, running depmod there so the initramfs builder can
# resolve module closures.  klabd calls it and reads its output:
#
#   list-available      one line per kernel in the archive:
#                       package=P version=UNAME_R upstream=V package_version=PV
#   newest 6.1|6.12     the package name of the newest kernel of that line
#   fetch PKG [DIR]     fetch (idempotent) and print the catalog record
#   record PKG [DIR]    print the catalog record of an already fetched kernel
#
# KLAB_DEBIAN_ARCHIVE=DIR points the script at a local directory of .deb
# packages instead of apt's archive (tests, mirrors): the packages are the
# DIR/*.deb files, known by their Package and Version fields.
#
# A catalog record is key=value lines: ident, version (the uname -r string),
# upstream, line, source, package, package_version, vmlinuz, modules, root,
# sha256 (of the vmlinuz).  Errors go to stderr, lowercase, subject quoted;
# the exit status is non-zero.
set -eu

KLAB_CACHE=${KLAB_CACHE:-/var/cache/klab}
KERNEL_CACHE=${KLAB_KERNEL_CACHE:-$KLAB_CACHE/kernels}
PKG_RE='^linux-image-(6\.1\.0-[0-9]+|6\.12\.[0-9]+\+deb12)-cloud-amd64$'

die() {
	echo "debian-kernels: $*" >&2
	exit 1
}

usage() {
	cat >&2 <<EOF
usage: debian-kernels.sh list-available
       debian-kernels.sh newest 6.1|6.12
       debian-kernels.sh fetch PKG [DESTDIR]
       debian-kernels.sh record PKG [DESTDIR]
EOF
	exit 2
}

# check_name PKG: only exact cloud kernel package names, never a pattern
# (apt-get download with a wildcard would fetch every version).
check_name() {
	printf '%s\n' "$1" | grep -Eq "$PKG_RE" ||
		die "'$1' is not a debian cloud kernel package name (linux-image-6.1.0-NN-cloud-amd64 or linux-image-6.12.NNN+deb12-cloud-amd64)"
}

ARCHIVE_DIR=${KLAB_DEBIAN_ARCHIVE:-}

# local_debs: "PACKAGE VERSION FILE" of each .deb in KLAB_DEBIAN_ARCHIVE.
local_debs() {
	for deb in "$ARCHIVE_DIR"/*.deb; do
		[ -f "$deb" ] || continue
		printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" \
			"$(dpkg-deb -f "$deb" Version)" "$deb"
	done
}

# local_deb PKG: the newest local .deb of PKG as "VERSION FILE", or nothing.
local_deb() {
	local_debs | awk -v p="$1" '$1 == p { print $2, $3 }' | sort -V |
		tail -n 1
}

# pkg_version PKG: the archive's candidate version, empty when it has none.
pkg_version() {
	if [ -n "$ARCHIVE_DIR" ]; then
		local_deb "$1" | cut -d' ' -f1
		return
	fi
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# upstream_of PV: 6.1.192-3 -> 6.1.192, 6.12.117-1~deb12u1 -> 6.12.117
upstream_of() {
	printf '%s\n' "${1%%-*}"
}

release_of() {
	printf '%s\n' "${1#linux-image-}"
}

line_of() {
	case $1 in
	linux-image-6.1.0-*) echo 6.1 ;;
	linux-image-6.12.*) echo 6.12 ;;
	*) die "unknown kernel line for '$1'" ;;
	esac
}

archive_packages() {
	if [ -n "$ARCHIVE_DIR" ]; then
		[ -d "$ARCHIVE_DIR" ] || die "local archive '$ARCHIVE_DIR' is not a directory"
		local_debs | cut -d' ' -f1 | grep -E "$PKG_RE" | sort -uV || true
		return
	fi
	apt-cache pkgnames linux-image-6. 2>/dev/null | grep -E "$PKG_RE" |
		sort -V || true
}

cmd_list_available() {
	pkgs=$(archive_packages)
	[ -n "$pkgs" ] || die "no debian cloud kernels in the apt archive (run apt-get update)"
	for p in $pkgs; do
		pv=$(pkg_version "$p")
		[ -n "$pv" ] || continue
		printf 'package=%s version=%s upstream=%s package_version=%s\n' \
			"$p" "$(release_of "$p")" "$(upstream_of "$pv")" "$pv"
	done
}

cmd_newest() {
	case ${1:-} in
	6.1) re='^linux-image-6\.1\.0-' ;;
	6.12) re='^linux-image-6\.12\.' ;;
	*) die "unknown kernel line '${1:-}' (6.1 or 6.12)" ;;
	esac
	best=$(archive_packages | grep -E "$re" | tail -n 1)
	[ -n "$best" ] || die "no kernel of line '$1' in the apt archive"
	echo "$best"
}

# print_record PKG DIR: the catalog record of an unpacked kernel.
print_record() {
	pkg=$1 dir=$2
	[ -f "$dir/klab-kernel.txt" ] || die "kernel package '$pkg' is not fetched into '$dir'"
	cat "$dir/klab-kernel.txt"
}

# write_record PKG PV DIR: check the unpacked tree and describe it.
write_record() {
	pkg=$1 pv=$2 dir=$3
	rel=$(release_of "$pkg")
	vmlinuz=$dir/boot/vmlinuz-$rel
	mods=$dir/lib/modules/$rel
	[ -f "$vmlinuz" ] || die "package '$pkg' has no 'boot/vmlinuz-$rel'"
	[ -d "$mods" ] || die "package '$pkg' has no 'lib/modules/$rel'"
	up=$(upstream_of "$pv")
	{
		# the package version, not the upstream one: 6.1.0-55..57 are all 6.1.192
	echo "ident=debian-$(printf %s "$pv" | tr "~" -)"
		echo "version=$rel"
		echo "upstream=$up"
		echo "line=$(line_of "$pkg")"
		echo "source=debian"
		echo "package=$pkg"
		echo "package_version=$pv"
		echo "vmlinuz=$vmlinuz"
		echo "modules=$mods"
		echo "root=$dir"
		echo "sha256=$(sha256sum "$vmlinuz" | cut -d' ' -f1)"
	} >"$dir/klab-kernel.txt.tmp"
	mv "$dir/klab-kernel.txt.tmp" "$dir/klab-kernel.txt"
}

# unpack PKG PV DIR: download the exact package=version and unpack it into
# a staging directory renamed into place only when complete.
unpack() {
	pkg=$1 pv=$2 dir=$3
	stage=$dir.partial.$$
	rm -rf "$stage"
	mkdir -p "$stage/deb"
	# apt drops privileges to _apt for downloads; let it write the stage.
	chmod 0777 "$stage/deb"
	if [ -n "$ARCHIVE_DIR" ]; then
		cp "$(local_deb "$pkg" | cut -d' ' -f2-)" "$stage/deb/" ||
			{ rm -rf "$stage"; die "cannot copy kernel package '$pkg' from '$ARCHIVE_DIR'"; }
	elif ! (cd "$stage/deb" && apt-get download -q "$pkg=$pv") >"$stage/apt.log" 2>&1; then
		cat "$stage/apt.log" >&2
		rm -rf "$stage"
		die "cannot download kernel package '$pkg' version '$pv'"
	fi
	deb=$(ls "$stage"/deb/*.deb)
	mkdir -p "$stage/root"
	dpkg-deb -x "$deb" "$stage/root" ||
		{ rm -rf "$stage"; die "cannot unpack '$deb'"; }
	depmod -b "$stage/root" "$(release_of "$pkg")" ||
		{ rm -rf "$stage"; die "depmod failed for kernel package '$pkg'"; }
	rm -rf "$dir"
	mv "$stage/root" "$dir"
	rm -rf "$stage"
	write_record "$pkg" "$pv" "$dir"
}

cmd_fetch() {
	pkg=$1 dir=${2:-$KERNEL_CACHE/$1}
	check_name "$pkg"
	mkdir -p "$(dirname "$dir")"
	# one fetch per package at a time, even from several klabd/test runs
	exec 9>"$dir.lock"
	flock 9
	if [ -f "$dir/klab-kernel.txt" ]; then
		print_record "$pkg" "$dir"
		return
	fi
	pv=$(pkg_version "$pkg")
	[ -n "$pv" ] || die "kernel package '$pkg' is not in the archive"
	unpack "$pkg" "$pv" "$dir"
	print_record "$pkg" "$dir"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
list-available) [ $# -eq 0 ] || usage; cmd_list_available ;;
newest) [ $# -eq 1 ] || usage; cmd_newest "$1" ;;
fetch) [ $# -ge 1 ] && [ $# -le 2 ] || usage; cmd_fetch "$@" ;;
record)
	[ $# -ge 1 ] && [ $# -le 2 ] || usage
	check_name "$1"
	print_record "$1" "${2:-$KERNEL_CACHE/$1}"
	;;
*) usage ;;
esac
