#!/bin/sh
# SPDX-License-Identifier: MIT
# t4001: patch checking of kernels/build-kernel.sh, on the fake kernel tree
# tests/data/build-tree: a good patch applies, a bad one is refused with
# "cannot apply patch 'NAME': hunk N of FILE failed" and exit 2, a missing
# file is named, an mbox series is split in order (cover letter dropped) and
# applied patch by patch, a reversed series fails on its first patch, and
# the shared pristine tree is never modified.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
D=$TOP/tests/data
BUILD=$TOP/kernels/build-kernel.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
fails=0

bad() {
	echo "not ok: $*"
	fails=$((fails + 1))
}

# check PATCH... : run --check, leave stdout in $TMP/out, stderr in $TMP/err
check() {
	args=""
	for p; do args="$args --patch $D/patches/$p"; done
	# shellcheck disable=SC2086
	"$BUILD" --base "dir:$D/build-tree" --cache "$TMP/cache" --no-ccache \
		--config "$D/build-tree.config" --check $args \
		>"$TMP/out" 2>"$TMP/err"
}

expect() {
	want_rc=$1 want_err=$2; shift 2
	check "$@"
	rc=$?
	[ "$rc" -eq "$want_rc" ] || bad "$*: exit $rc, want $want_rc"
	if [ -n "$want_err" ]; then
		got=$(sed -n 's/^error=//p' "$TMP/out")
		[ "$got" = "$want_err" ] || bad "$*: error '$got', want '$want_err'"
		grep -qxF "build-kernel: $want_err" "$TMP/err" ||
			bad "$*: stderr lacks the message"
	else
		grep -qx 'status=ok' "$TMP/out" || bad "$*: no status=ok"
	fi
}

expect 0 "" good-elv.patch
expect 2 "cannot apply patch 'bad-hunk.patch': hunk 2 of block/elevator.c failed" \
	bad-hunk.patch
expect 2 "cannot apply patch 'missing-file.patch': file block/deadline.c not found in the tree" \
	missing-file.patch
expect 0 "" series.mbox
grep -n "applied" "$TMP/err" >"$TMP/applied"
[ "$(cut -d "'" -f 2 "$TMP/applied" | tr '\n' ' ')" = \
	"series.mbox[1/2] series.mbox[2/2] " ] ||
	bad "series not applied in mbox order: $(cat "$TMP/applied")"
expect 2 "cannot apply patch 'series-reversed.mbox[1/2]': hunk 1 of block/plug.h failed" \
	series-reversed.mbox
grep -q "failing patch: 'plug: hold 4 requests'" "$TMP/err" ||
	bad "the failing patch of a series is not named by its subject"
# The second of two patches is checked against the tree the first made.
expect 0 "" good-elv.patch series.mbox
expect 2 "cannot apply patch 'good-elv.patch': already applied to block/elevator.c (reversed patch)" \
	good-elv.patch good-elv.patch
cp /dev/null "$TMP/empty.patch"
"$BUILD" --base "dir:$D/build-tree" --cache "$TMP/cache" --no-ccache \
	--config "$D/build-tree.config" --check --patch "$TMP/empty.patch" \
	>"$TMP/out" 2>/dev/null
rc=$?
[ $rc -eq 2 ] && grep -qxF "error=cannot apply patch 'empty.patch': no diff found in it" \
	"$TMP/out" || bad "empty patch: exit $rc, $(cat "$TMP/out")"

# Splitting on its own: pieces, order and subjects.
. "$TOP/kernels/build-lib.sh"
n=$(patch_split "$D/patches/series.mbox" "$TMP/split")
[ "$n" = 2 ] || bad "series.mbox split into '$n' patches, want 2"
[ "$(patch_subject "$TMP/split/0001")" = "plug: hold 8 requests" ] &&
	[ "$(patch_subject "$TMP/split/0002")" = "plug: hold 4 requests" ] ||
	bad "split pieces out of order"
n=$(patch_split "$D/patches/good-elv.patch" "$TMP/split1")
[ "$n" = 1 ] || bad "a single patch split into '$n'"

# Neither the source tree nor the shared pristine copy changed.
for t in "$TMP"/cache/trees/*/; do
	diff -r "$D/build-tree" "$t" >/dev/null || bad "pristine tree $t modified"
done
[ -z "$(ls "$TMP/cache/tmp")" ] || bad "build directories left in cache/tmp"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all patch checks passed"
