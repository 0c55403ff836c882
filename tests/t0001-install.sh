#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` honours PREFIX and DESTDIR: binaries, the kernels/ scripts
# and suites klabd needs at run time, the docs and the systemd unit land
# under DESTDIR/PREFIX, and the installed klabd starts, finds its scripts
# and serves.
. "$(dirname "$0")/lib.sh"
D=$TMP/inst
make -C "$TOP" install DESTDIR="$D" PREFIX=/opt/klab >"$TMP/install.log" 2>&1 ||
	fail "make install: $(tail -5 "$TMP/install.log")"
for f in bin/klabd bin/klab bin/klab-agent bin/tiotest bin/rio bin/iops bin/klab-run \
	share/klab/kernels/qemu-rig.sh share/klab/kernels/mkinitramfs.sh \
	share/klab/workloads/suites/tiobench.suite share/doc/klab/README.md \
	lib/systemd/system/klabd.service; do
	[ -e "$D/opt/klab/$f" ] || fail "make install did not install $f"
done
grep -q 'ExecStart=/opt/klab/bin/klabd' "$D/opt/klab/lib/systemd/system/klabd.service" ||
	fail "the unit does not name the installed klabd"
KLAB_BIN=$D/opt/klab/bin start_klabd
http GET /api/health >/dev/null; expect_status 200
stop_klabd
ok "install"
