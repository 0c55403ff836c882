#!/bin/sh
# SPDX-License-Identifier: MIT
# t4005: the build sandbox, through a real klabd (issue 8, finding 1).  A
# configured dir base (a copy of the fake tree tests/data/build-tree) is
# built with a hostile patch whose bzImage rule runs the probe
# tests/data/sandbox-probe.sh: it reports a sandbox uid, cannot read
# /etc/shadow, klabd's database, a token file or klabd's configuration,
# cannot write the host's /tmp, this test's directory, the base tree, the
# pristine copy it shares through hard links, another build in the cache or
# the cache itself, cannot reach klabd's port, holds no socket and no
# capability, and can write its own tree.  The build succeeds, and the
# files it tried are checked from outside too.  A request naming a path
# (dir:, git:) or an unconfigured base is refused with 400, and klabd
# refuses to start on a malformed [base NAME] or sandbox limit.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
[ "$(id -u)" -eq 0 ] && ! id klab-build >/dev/null 2>&1 &&
	skip "no user klab-build (scripts/install-deps.sh creates it)"
command -v bwrap >/dev/null || skip "no bwrap (apt-get install bubblewrap)"
cp -r "$D/build-tree" "$TMP/base" && cp -r "$D/build-tree" "$TMP/base.orig" ||
	fail "cannot copy the fake tree"
printf 'tok-secret-probe\n' >"$TMP/tokens"
chmod 600 "$TMP/tokens"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
[base fake]
dir = $TMP/base
CONF
chmod 600 "$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"

# A plain build first: the probe then tries to overwrite its artifacts.
klab build fake "$D/patches/good-elv.patch" --ident plain --wait >"$TMP/out" 2>&1 ||
	fail "plain build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
http GET /api/builds/1 >/dev/null
other=$(sed -n 's/.*[\\"n]dir=\([^\\]*\)\\n.*/\1/p' "$TMP/body")
[ -d "$other" ] || fail "no artifact directory for build 1: $(cat "$TMP/body")"
(cd "$other" && sha256sum ./*) >"$TMP/other.sum"

# The probe patch: klab-probe.sh added to the tree, run by bzImage.
hosttmp=/tmp/klab-probe-$$-$(date +%s)
mkdir -p "$TMP/p/a" "$TMP/p/b"
cp "$TMP/base/Makefile" "$TMP/p/a/Makefile"
sed '/^bzImage:/a\
	-@sh klab-probe.sh 2>&1' "$TMP/base/Makefile" >"$TMP/p/b/Makefile"
sed -e "s|@DB@|$TMP/klab.db|" -e "s|@TOKENS@|$TMP/tokens|" \
	-e "s|@CONFIG@|$TMP/klabd.conf|" -e "s|@HOSTTMP@|$hosttmp|" \
	-e "s|@TESTDIR@|$TMP|" -e "s|@BASE@|$TMP/base|" \
	-e "s|@OTHERBUILD@|$other|" -e "s|@CACHE@|$TMP/cache|" \
	-e "s|@LINKED@|block/plug.h|" -e "s|@PORT@|$PORT|g" \
	"$D/sandbox-probe.sh" >"$TMP/p/b/klab-probe.sh"
(cd "$TMP/p" && diff -ruN a b >"$TMP/probe.patch")
grep -q '^+.*klab-probe.sh 2>&1' "$TMP/probe.patch" || fail "cannot make the probe patch"

klab build fake "$TMP/probe.patch" --ident probe --wait >"$TMP/out" 2>&1 ||
	fail "probe build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
expect_grep 'build 2: probe' "$TMP/out"
http GET /api/builds/2/log >"$TMP/log"; expect_status 200
cat "$TMP/log"
probe() { sed -n "s/^probe: $1: //p" "$TMP/log" | head -n 1; }
[ "$(probe done)" = yes ] || fail "the probe did not run to its end"
uid=$(probe uid)
[ -n "$uid" ] && [ "$uid" != 0 ] || fail "the probe ran as uid '$uid'"
if [ "$(id -u)" -eq 0 ]; then
	[ "$uid" = "$(id -u klab-build)" ] || fail "the probe ran as uid $uid, not klab-build"
	expect_grep '^probe: id: uid=[0-9]*(klab-build)' "$TMP/log"
fi
for what in shadow db tokens config base-tree base-new other-build \
	pristine-link pristine-chmod sandbox-root usr tcp; do
	[ "$(probe "$what")" = denied ] || [ "$(probe "$what")" = refused ] ||
		fail "probe $what: '$(probe "$what")'"
done
# /tmp in the sandbox is its own tmpfs (holding the mount point of its
# tree), so these writes land there; the host is checked below
for what in host-tmp test-dir cache-dir; do
	[ -n "$(probe "$what")" ] || fail "probe $what did not run"
done
[ -z "$(probe curl)" ] || [ "$(probe curl)" = refused ] || fail "probe curl: $(probe curl)"
[ "$(probe own-tree)" = WRITTEN ] || fail "the probe could not write its own tree"
[ "$(probe sockets)" = 0 ] || fail "the probe holds $(probe sockets) sockets"
[ "$(probe capeff)" = 0000000000000000 ] || fail "the probe has capabilities $(probe capeff)"

# From outside: nothing written, pristine copies unchanged.
[ ! -e "$hosttmp" ] || { rm -f "$hosttmp"; fail "the probe wrote $hosttmp"; }
[ ! -e "$TMP/probe-written" ] || fail "the probe wrote the test directory"
diff -r "$TMP/base.orig" "$TMP/base" || fail "the base tree changed"
n=0
for t in "$TMP"/cache/trees/*/; do
	n=$((n + 1))
	diff -r "$TMP/base.orig" "$t" || fail "the pristine tree $t changed"
done
[ $n -eq 1 ] || fail "$n pristine trees"
(cd "$other" && sha256sum -c --quiet "$TMP/other.sum") || fail "build 1's artifacts changed"
[ ! -e "$TMP/cache/probe-new" ] || fail "the probe wrote the cache"
[ "$(cat "$TMP/tokens")" = tok-secret-probe ] || fail "the token file changed"

# Bases come from the configuration only.
for b in "dir:$TMP/base" "git:$TMP/base@HEAD" "dir:/etc" nosuch "fake/../x" ""; do
	http POST /api/builds -H 'Content-Type: application/json' \
		-d "{\"base\":\"$b\"}" >/dev/null
	expect_status 400
	expect_grep "field 'base'"
done
http POST /api/builds -H 'Content-Type: application/json' -d "{\"base\":\"dir:$TMP/base\"}" >/dev/null
expect_grep 'paths are not accepted'
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"nosuch"}' >/dev/null
expect_grep "unknown base 'nosuch'"
http GET /api/builds >/dev/null
[ "$(grep -o '"id":' "$TMP/body" | wc -l)" -eq 2 ] || fail "a refused base was queued"
stop_klabd

# klabd refuses a base section without exactly one absolute dir or git,
# and sandbox limits it cannot read.
bad_conf() {
	printf '%s\n' "$@" >"$TMP/bad.conf"
	timeout 20 "$KLAB_BIN/klabd" --listen 127.0.0.1:0 --db "$TMP/bad.db" \
		--data-dir "$TMP/bad" --config "$TMP/bad.conf" >"$TMP/bad.log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "klabd started with: $* (exit $rc)"
	grep -q "$BAD_WANT" "$TMP/bad.log" || fail "klabd on '$*': $(cat "$TMP/bad.log")"
}
BAD_WANT="expected 'dir' or 'git'" bad_conf '[base x]' 'dir = /a' 'git = /b'
BAD_WANT="expected an absolute path" bad_conf '[base x]' 'dir = relative'
BAD_WANT="invalid build_mem_limit" bad_conf 'build_mem_limit = lots'
BAD_WANT="invalid build_max_procs" bad_conf 'build_max_procs = 0'
BAD_WANT="invalid build_keep_trees" bad_conf 'build_keep_trees = none'
BAD_WANT="invalid build_keep_warm" bad_conf 'build_keep_warm = 0'
ok "build sandbox: the probe built, saw uid $uid, read and wrote nothing outside its tree, no network"
