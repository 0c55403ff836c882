#!/bin/sh
# SPDX-License-Identifier: MIT
# t4103 (slow tier, KLAB_SLOW=1): the build sandbox probe of t4005 on a
# real kernel.  klabd builds base debian-6.1 with a patch that adds
# tests/data/sandbox-probe.sh to the tree and runs it from the bzImage
# recipe of arch/x86/boot/Makefile.  The kernel must build (booting it is
# t4100's business), and the probe must report a sandbox uid, no read of
# /etc/shadow, klabd's database, a token file or klabd's configuration, no
# write to the base's pristine files (README, shared through hard links),
# the cache or the host, no connection to klabd, no socket and no
# capability.  Uses the shared cache and ccache, like t4100; a cold build
# takes 15+ minutes on two cores.
. "$(dirname "$0")/lib.sh"
if [ "${KLAB_SLOW:-0}" != 1 ]; then
	skip "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
fi
D=$TOP/tests/data
TAR=/usr/src/linux-source-6.1.tar.xz
CACHE=${KLAB_BUILD_CACHE:-/var/cache/klab/builds}
[ -f "$TAR" ] || skip "missing $TAR (apt-get install linux-source-6.1)"
[ "$(id -u)" -eq 0 ] && ! id klab-build >/dev/null 2>&1 &&
	skip "no user klab-build (scripts/install-deps.sh creates it)"
command -v bwrap >/dev/null || skip "no bwrap (apt-get install bubblewrap)"
chmod 755 "$TMP"
mkdir -p "$TMP/orig"
tar -C "$TMP/orig" --strip-components=1 -xJf "$TAR" \
	linux-source-6.1/arch/x86/boot/Makefile linux-source-6.1/README ||
	fail "cannot read $TAR"
printf 'tok-secret-probe\n' >"$TMP/tokens"
chmod 600 "$TMP/tokens"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $CACHE
build_time_limit = 7200
CONF
chmod 600 "$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"

# The probe patch: klab-probe.sh added to the tree, run after bzImage.
hosttmp=/tmp/klab-probe-$$-$(date +%s)
mkdir -p "$TMP/p/a/arch/x86/boot" "$TMP/p/b/arch/x86/boot"
cp "$TMP/orig/arch/x86/boot/Makefile" "$TMP/p/a/arch/x86/boot/Makefile"
sed '/^	@$(kecho) .Kernel: $@ is ready/a\
	-@sh $(srctree)/klab-probe.sh 2>&1' "$TMP/orig/arch/x86/boot/Makefile" \
	>"$TMP/p/b/arch/x86/boot/Makefile"
sed -e "s|@DB@|$TMP/klab.db|" -e "s|@TOKENS@|$TMP/tokens|" \
	-e "s|@CONFIG@|$TMP/klabd.conf|" -e "s|@HOSTTMP@|$hosttmp|" \
	-e "s|@TESTDIR@|$TMP|" -e "s|@BASE@|$CACHE/trees|" \
	-e "s|@OTHERBUILD@|$CACHE|" -e "s|@CACHE@|$CACHE|" \
	-e "s|@LINKED@|README|" -e "s|@PORT@|$PORT|g" \
	"$D/sandbox-probe.sh" >"$TMP/p/b/klab-probe.sh"
(cd "$TMP/p" && diff -ruN a b >"$TMP/probe.patch")
grep -q '^+.*klab-probe.sh 2>&1' "$TMP/probe.patch" || fail "cannot make the probe patch"

t0=$(date +%s)
klab build debian-6.1 "$TMP/probe.patch" --ident probe-6.1 --wait >"$TMP/out" 2>&1 ||
	fail "probe build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
echo "probe build: $(($(date +%s) - t0)) s"
http GET /api/builds/1/log >"$TMP/log"; expect_status 200
grep '^probe: ' "$TMP/log"
probe() { sed -n "s/^probe: $1: //p" "$TMP/log" | head -n 1; }
[ "$(probe done)" = yes ] || fail "the probe did not run to its end"
uid=$(probe uid)
[ -n "$uid" ] && [ "$uid" != 0 ] || fail "the probe ran as uid '$uid'"
[ "$(id -u)" -ne 0 ] || [ "$uid" = "$(id -u klab-build)" ] ||
	fail "the probe ran as uid $uid, not klab-build"
for what in shadow db tokens config test-dir base-tree base-new \
	other-build cache-dir pristine-link pristine-chmod sandbox-root usr tcp; do
	[ "$(probe "$what")" = denied ] || [ "$(probe "$what")" = refused ] ||
		fail "probe $what: '$(probe "$what")'"
done
[ -z "$(probe curl)" ] || [ "$(probe curl)" = refused ] || fail "probe curl: $(probe curl)"
[ "$(probe own-tree)" = WRITTEN ] || fail "the probe could not write its own tree"
[ "$(probe sockets)" = 0 ] || fail "the probe holds $(probe sockets) sockets"
[ "$(probe capeff)" = 0000000000000000 ] || fail "the probe has capabilities $(probe capeff)"

[ ! -e "$hosttmp" ] || { rm -f "$hosttmp"; fail "the probe wrote $hosttmp"; }
[ ! -e "$TMP/probe-written" ] || fail "the probe wrote the test directory"
[ ! -e "$CACHE/probe-new" ] && [ ! -e "$CACHE/trees/probe-new" ] ||
	fail "the probe wrote the cache"
for t in "$CACHE"/trees/*/; do
	[ -f "$t/README" ] && [ -f "$t/arch/x86/boot/Makefile" ] || continue
	cmp -s "$t/arch/x86/boot/Makefile" "$TMP/orig/arch/x86/boot/Makefile" || continue
	cmp "$t/README" "$TMP/orig/README" || fail "the pristine README in $t changed"
done
stop_klabd
ok "build sandbox on 6.1: the probe built, saw uid $uid, read and wrote nothing outside its tree, no network"
