#!/bin/sh
# SPDX-License-Identifier: MIT
# t4003: the build cache of kernels/build-kernel.sh, on the fake kernel
# tree (builds are counted from the script's "building KEY" notes: the
# tree's own make runs in the sandbox and cannot write here).  A
# first request builds and publishes CACHE/<key>/ with a full record; an
# identical request, a ccache request and a fragment that merges to the same
# config are answered from the cache without building; two identical
# requests at once build once; failures (compile error, time limit,
# must-have option) exit 3/4/5, publish nothing and are retried; a build
# over its disk limit is stopped by the sandbox's watchdog; a patched
# build starts warm from the unpatched build's tree and compiles only
# what the patch changed.  The real kernel path is covered by t4100.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
D=$TOP/tests/data
BUILD=$TOP/kernels/build-kernel.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
C=$TMP/cache
fails=0

bad() {
	echo "not ok: $*"
	fails=$((fails + 1))
}

# Every request's stderr is also kept in $TMP/err.*, for builds().
req() {
	e=$(mktemp "$TMP/err.XXXXXX")
	"$BUILD" --base "dir:$D/build-tree" --cache "$C" --no-ccache \
		--config "$D/build-tree.config" --must-have CONFIG_KEXEC "$@" \
		2>"$e"
	rc=$?
	cat "$e" >&2
	return $rc
}

builds() {
	cat "$TMP"/err.* 2>/dev/null | grep -c '^build-kernel: building '
}

field() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

P=$D/patches/good-elv.patch
req --patch "$P" >"$TMP/r1" 2>"$TMP/e1" || bad "first build failed: $(cat "$TMP/e1")"
[ "$(builds)" = 1 ] || bad "first request ran $(builds) builds"
[ "$(field cache "$TMP/r1")" = built ] || bad "first request not built"
key=$(field key "$TMP/r1")
dir=$C/$key
for f in bzImage config build.log record; do
	[ -s "$dir/$f" ] || bad "artifact lacks $f"
done
for f in input_key base base_version patches config_hash compiler \
	build_seconds bzimage_bytes kernelrelease; do
	[ -n "$(field "$f" "$dir/record")" ] || bad "record lacks $f"
done
[ "$(field kernelrelease "$dir/record")" = "0.1.0-klab+good-elv" ] ||
	bad "kernelrelease '$(field kernelrelease "$dir/record")'"
[ "$(field bzimage_bytes "$dir/record")" = "$(stat -c %s "$dir/bzImage")" ] ||
	bad "bzimage_bytes does not match the file"
[ "$(field config_hash "$dir/record")" = "$(sha256sum <"$dir/config" | cut -d ' ' -f 1)" ] ||
	bad "config_hash is not the hash of the stored config"
grep -q 'CONFIG_NOT_IN_THIS_TREE=y (now: not set)' "$dir/record" ||
	bad "dropped option not in the record"
grep -q 'did not survive' "$TMP/e1" || bad "dropped option not reported on stderr"
grep -q 'fifo_batch = 4' "$dir/bzImage" || bad "the patch is not in the image"

# The same request again: answered from the cache.
req --patch "$P" >"$TMP/r2" 2>"$TMP/e2" || bad "second request failed"
[ "$(builds)" = 1 ] || bad "identical request built again"
[ "$(field cache "$TMP/r2")" = hit ] || bad "identical request not a hit"
[ "$(field key "$TMP/r2")" = "$key" ] || bad "identical request, other key"
# Through ccache, and with a fragment that merges to the same config.
req --ccache --patch "$P" >"$TMP/r3" 2>&1 || bad "ccache request failed"
[ "$(field cache "$TMP/r3")" = hit ] || bad "ccache request not a hit"
{ cat "$D/build-tree.config"; echo "# same config"; } >"$TMP/frag"
req --config "$TMP/frag" --patch "$P" >"$TMP/r4" 2>&1 || bad "fragment request failed"
[ "$(field cache "$TMP/r4")" = hit ] && [ "$(field key "$TMP/r4")" = "$key" ] ||
	bad "same merged config not a hit"
[ "$(builds)" = 1 ] || bad "hits ran builds ($(builds))"

# Two identical requests at once build once (the second waits, then hits).
S=$D/patches/slow-2.patch
req --patch "$S" >"$TMP/c1" 2>&1 &
pid=$!
req --patch "$S" >"$TMP/c2" 2>&1
wait $pid
[ "$(builds)" = 2 ] || bad "two concurrent identical requests ran $(($(builds) - 1)) builds"
[ "$(field key "$TMP/c1")" = "$(field key "$TMP/c2")" ] || bad "concurrent keys differ"
[ "$(cat "$TMP/c1" "$TMP/c2" | grep -c '^cache=built')" = 1 ] ||
	bad "not exactly one of the concurrent requests built"

# Failures publish nothing and are tried again.
n=$(ls "$C" | wc -l)
req --patch "$D/patches/broken-build.patch" >"$TMP/f1" 2>&1
rc=$?
[ $rc -eq 3 ] || bad "compile error: exit $rc, want 3"
fk=$(field key "$TMP/f1")
[ -z "$fk" ] || bad "a failed build printed a key"
grep -q "error: expected expression" "$C"/failed/*/build.log ||
	bad "failed build log not kept"
req --patch "$D/patches/broken-build.patch" >/dev/null 2>&1
[ "$(builds)" = 4 ] || bad "a failed build was not retried"
req --time-limit 1 --patch "$S" --jobs 1 --config "$TMP/frag" >/dev/null 2>&1
[ $? -eq 0 ] || bad "a cached build hit the time limit"
cp "$D/build-tree.config" "$TMP/frag2"
echo "CONFIG_IOSCHED_BFQ=n" >>"$TMP/frag2"
req --time-limit 1 --config "$TMP/frag2" --patch "$D/patches/slow-5.patch" \
	>"$TMP/t" 2>&1
rc=$?
[ $rc -eq 4 ] || bad "time limit: exit $rc, want 4"
grep -q '^status=build_timeout' "$TMP/t" || bad "time limit: no status"
# The disk limit: a bzImage rule writing 40 MiB into a tree allowed 16 MiB
# is stopped by the watchdog (exit 3), before its 30 s sleep ends.
mkdir -p "$TMP/fill/a" "$TMP/fill/b"
cp "$D/build-tree/Makefile" "$TMP/fill/a/Makefile"
sed '/^bzImage:/a\
	@i=0; while [ $$i -lt 40 ]; do head -c 1048576 /dev/zero >fill.$$i; i=$$((i + 1)); done; sleep 30' \
	"$D/build-tree/Makefile" >"$TMP/fill/b/Makefile"
(cd "$TMP/fill" && diff -u a/Makefile b/Makefile >"$TMP/fill.patch")
t0=$(date +%s)
req --disk-limit 16M --patch "$TMP/fill.patch" >"$TMP/dl" 2>&1
rc=$?
[ $rc -eq 3 ] || bad "disk limit: exit $rc, want 3"
grep -q '^error=build of .* failed: over the disk limit of 16M' "$TMP/dl" ||
	bad "disk limit: message $(cat "$TMP/dl")"
[ $(($(date +%s) - t0)) -lt 25 ] || bad "disk limit: the build was not stopped"
req --must-have "CONFIG_KEXEC CONFIG_NOT_IN_THIS_TREE" >"$TMP/m" 2>&1
rc=$?
[ $rc -eq 5 ] || bad "must-have: exit $rc, want 5"
grep -qxF "error=must-have option 'CONFIG_NOT_IN_THIS_TREE' missing from the merged config" \
	"$TMP/m" || bad "must-have: message $(cat "$TMP/m")"
[ "$(ls "$C" | wc -l)" = "$n" ] || bad "a failure published something"
[ -z "$(ls "$C/tmp")" ] || bad "build directories left in cache/tmp"

# A patched build starts from the unpatched build's tree (warm start):
# the patched file is compiled again, the others are not.
req >"$TMP/w0" 2>&1 || bad "base build failed: $(cat "$TMP/w0")"
[ "$(ls "$C"/warm/*.tar 2>/dev/null | wc -l)" = 1 ] ||
	bad "the base build kept no built tree: $(ls "$C/warm")"
req --patch "$D/patches/fake-aa-comment.patch" >"$TMP/w1" 2>&1 ||
	bad "warm build failed: $(cat "$TMP/w1")"
[ "$(field warm_start "$TMP/w1")" = yes ] || bad "no warm start: $(cat "$TMP/w1")"
grep -q -- '-o block/elevator.o' "$(field log "$TMP/w1")" ||
	bad "the patched file was not compiled again"
grep -q "klab's tests" "$(field vmlinuz "$TMP/w1")" ||
	bad "the patch is not in the warm-built image"
mkdir -p "$TMP/nw/a/block" "$TMP/nw/b/block"
echo note >"$TMP/nw/b/block/note.txt"
(cd "$TMP/nw" && diff -uN a/block/note.txt b/block/note.txt >"$TMP/note.patch")
req --patch "$TMP/note.patch" >"$TMP/w2" 2>&1 || bad "warm build 2 failed: $(cat "$TMP/w2")"
[ "$(field warm_start "$TMP/w2")" = yes ] || bad "no warm start: $(cat "$TMP/w2")"
grep -q -- '-o block/elevator.o' "$(field log "$TMP/w2")" &&
	bad "an unchanged file was compiled again on a warm start"
grep -q "fake kernel tree of the build tests" "$(field vmlinuz "$TMP/w2")" ||
	bad "the warm-built image lacks the base's code"
# the base's merged config holds for a patch that changes nothing
# kconfig reads; a patch with a Kconfig file in it is merged anew
case $(field config_from "$TMP/w1") in "base dir sha256:"*) ;;
*) bad "the patched build did not take the base's merged config: $(cat "$TMP/w1")" ;;
esac
echo 'config KLAB_NOTE' >"$TMP/nw/b/block/Kconfig.note"
(cd "$TMP/nw" && diff -uN a/block/Kconfig.note b/block/Kconfig.note >"$TMP/kconfig.patch")
req --patch "$TMP/kconfig.patch" >"$TMP/w3" 2>&1 || bad "Kconfig patch build failed: $(cat "$TMP/w3")"
[ "$(field config_from "$TMP/w3")" = merged ] ||
	bad "a patch adding a Kconfig file took the base's merged config: $(cat "$TMP/w3")"
for t in "$C"/trees/*/; do
	diff -r "$D/build-tree" "$t" >/dev/null || bad "pristine tree $t modified"
done

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all cache checks passed"
