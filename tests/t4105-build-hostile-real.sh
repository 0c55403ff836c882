#!/bin/sh
# SPDX-License-Identifier: MIT
# t4105 (slow tier, KLAB_SLOW=1): issue 29's build findings on the real
# base, linux-source-6.1, as root (t4007 holds them on the fake tree).
# No kernel is built: each case stops at the check, or fails its first
# step under a 5 s time limit, which is where root used to write.
#  a. a series whose first piece makes block/elevator.c.klab-unlink a link
#     to a host file and whose second edits block/elevator.c: refused by
#     name (exit 2) by build-kernel.sh --check and by klabd (422); the
#     host file is unchanged (ee67a64's root cp wrote through the link);
#  b. a patch making .klab-stamp a link: refused, the host file unchanged
#     (ee67a64 truncated it, then went on to build);
#  c. a diff after a "-- " trailer keys the build (--print-key: ee67a64
#     gave the trojaned patch the clean one's key);
#  d. a 30-patch series is checked piece by piece in the sandbox, all 30
#     applied, the pristine tree unchanged.
. "$(dirname "$0")/lib.sh"
if [ "${KLAB_SLOW:-0}" != 1 ]; then
	skip "slow tier: set KLAB_SLOW=1 (make check-slow) to use the real base"
fi
TAR=/usr/src/linux-source-6.1.tar.xz
CACHE=${KLAB_BUILD_CACHE:-/var/cache/klab/builds}
BUILD=$TOP/kernels/build-kernel.sh
[ -f "$TAR" ] || skip "missing $TAR (apt-get install linux-source-6.1)"
[ "$(id -u)" -eq 0 ] || skip "as root: the findings are root's"
id klab-build >/dev/null 2>&1 || skip "no user klab-build"
command -v bwrap >/dev/null || skip "no bwrap (apt-get install bubblewrap)"
chmod 755 "$TMP"
printf 'precious\n' >"$TMP/victim"
victim_ok() {
	[ "$(cat "$TMP/victim")" = precious ] ||
		fail "$1: the host file changed: '$(cat "$TMP/victim")'"
}
mkdir -p "$TMP/orig"
tar -C "$TMP/orig" --strip-components=1 -xJf "$TAR" \
	linux-source-6.1/block/elevator.c linux-source-6.1/README ||
	fail "cannot read $TAR"
run() {
	"$BUILD" --base debian-6.1 --cache "$CACHE" --no-ccache "$@" \
		>"$TMP/out" 2>"$TMP/err"
}

# a. the link series
mkdir -p "$TMP/e/a/block" "$TMP/e/b/block"
cp "$TMP/orig/block/elevator.c" "$TMP/e/a/block/"
sed 's/^ \*  Block device elevator\/IO-scheduler\.$/ *  Block device elevator\/IO-scheduler (klab t4105)./' \
	"$TMP/orig/block/elevator.c" >"$TMP/e/b/block/elevator.c"
(cd "$TMP/e" && diff -u a/block/elevator.c b/block/elevator.c) >"$TMP/edit.diff"
grep -q '^+.*klab t4105' "$TMP/edit.diff" || fail "cannot make the edit"
{
	printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n'
	printf 'Subject: [PATCH 1/2] a link\n\n'
	printf 'diff --git a/block/elevator.c.klab-unlink b/block/elevator.c.klab-unlink\n'
	printf 'new file mode 120000\n--- /dev/null\n+++ b/block/elevator.c.klab-unlink\n'
	printf '@@ -0,0 +1 @@\n+%s\n\\ No newline at end of file\n' "$TMP/victim"
	printf 'From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n'
	printf 'Subject: [PATCH 2/2] the file\n\n'
	cat "$TMP/edit.diff"
} >"$TMP/link-series.mbox"
run --check --patch "$TMP/link-series.mbox"
rc=$?
[ $rc -eq 2 ] || fail "link series: exit $rc: $(cat "$TMP/out" "$TMP/err")"
expect_grep "cannot apply patch 'link-series.mbox\[1/2\]': it makes or changes a symbolic link (block/elevator.c.klab-unlink)" "$TMP/out"
victim_ok "link series by hand"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $CACHE
CONF
start_klabd --config "$TMP/klabd.conf"
python3 - "$TMP/link-series.mbox" >"$TMP/j" <<'PY'
import json, sys
print(json.dumps({"base": "debian-6.1", "patches": [
    {"name": "link-series.mbox", "text": open(sys.argv[1]).read()}]}))
PY
http POST /api/builds -H 'Content-Type: application/json' --data-binary "@$TMP/j" >/dev/null
expect_status 422; expect_grep "symbolic link (block/elevator.c.klab-unlink)"
victim_ok "link series through klabd"
stop_klabd

# b. the stamp
printf 'diff --git a/.klab-stamp b/.klab-stamp\nnew file mode 120000\n--- /dev/null\n+++ b/.klab-stamp\n@@ -0,0 +1 @@\n+%s\n\\ No newline at end of file\n' \
	"$TMP/victim" >"$TMP/stamp.patch"
run --time-limit 5 --patch "$TMP/stamp.patch"
rc=$?
[ $rc -eq 2 ] || fail "stamp link: exit $rc: $(tail -3 "$TMP/err")"
victim_ok "stamp link"

# c. the trailer keys the build (one name: the name is in the release)
mkdir -p "$TMP/c1" "$TMP/c2"
{ printf 'Subject: [PATCH] a comment\n\n---\n'; cat "$TMP/edit.diff"
  printf -- '-- \n2.39.5\n\n'; } >"$TMP/c1/fix.patch"
{ cat "$TMP/c1/fix.patch"
  printf -- '--- /dev/null\n+++ b/block/trojan.c\n@@ -0,0 +1 @@\n+int trojan;\n'
} >"$TMP/c2/fix.patch"
run --print-key --patch "$TMP/c1/fix.patch" || fail "key: $(tail -3 "$TMP/err")"
k1=$(sed -n 's/^key=//p' "$TMP/out")
run --print-key --patch "$TMP/c2/fix.patch" || fail "key: $(tail -3 "$TMP/err")"
k2=$(sed -n 's/^key=//p' "$TMP/out")
[ -n "$k1" ] && [ "$k1" != "$k2" ] ||
	fail "a diff after '-- ' does not key the build ($k1 / $k2)"

# d. thirty patches, each a new file, checked in the sandbox
mkdir -p "$TMP/s30"
for i in $(seq 1 30); do
	printf -- '--- /dev/null\n+++ b/block/klab-add%02d.c\n@@ -0,0 +1 @@\n+int klab_add%02d;\n' \
		"$i" "$i" >"$(printf '%s/s30/%02d-add.patch' "$TMP" "$i")"
done
args=
for f in "$TMP"/s30/*.patch; do args="$args --patch $f"; done
# shellcheck disable=SC2086
run --check $args || fail "30 patches: $(tail -3 "$TMP/err")"
n=$(grep -c "^build-kernel: applied '" "$TMP/err")
[ "$n" = 30 ] || fail "30 patches: $n applied"
for t in "$CACHE"/trees/*/; do
	[ -f "$t/block/klab-add01.c" ] && fail "the pristine tree $t gained a file"
	[ ! -f "$t/README" ] || cmp -s "$t/README" "$TMP/orig/README" ||
		fail "the pristine README of $t changed"
done
victim_ok "end"
ok "hostile series on the real base: links refused, the stamp refused, trailers keyed, 30 patches applied in the sandbox"
