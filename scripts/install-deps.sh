#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what a fresh Debian 12 machine lacks to build, test and run klab.
# Only Debian packages; runs apt-get only when something is missing.  Also
# creates the system user klab-build that kernel builds run as (inside
# bubblewrap, see docs/BUILDS.md "The sandbox") when it is missing.
set -eu
PKGS="build-essential pkg-config git curl ca-certificates python3 jq python3-aiosmtpd
libmicrohttpd-dev libjansson-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev
libcmocka-dev liburing-dev
qemu-system-x86 qemu-utils kexec-tools busybox-static fio dbench socat cpio
kmod xz-utils zstd lz4 bubblewrap
chromium
ccache flex bison bc libelf-dev libssl-dev linux-source-6.1
clang libclang-rt-14-dev"
[ "${KLAB_NO_CHROMIUM:-}" ] && PKGS=$(echo "$PKGS" | sed 's/chromium//')

missing=
for p in $PKGS; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if ! getent passwd klab-build >/dev/null; then
	echo "klab: creating system user klab-build" >&2
	$SUDO useradd --system --user-group --no-create-home \
		--home-dir /nonexistent --shell /usr/sbin/nologin klab-build
fi
[ -z "$missing" ] && exit 0
echo "klab: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
