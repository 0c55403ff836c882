#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel builds through klabd and the CLI, on the fake kernel tree
# (tests/data/build-tree: answers tinyconfig / olddefconfig / bzImage in
# milliseconds and counts its builds): a build request joins the catalog as
# a kernel with base, patch and config hashes; an identical request is a
# cache hit that builds nothing; a patch that does not apply is refused at
# once naming the patch, the file and the hunk, and nothing is queued.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data
FAKE_BUILD_COUNT=$TMP/count
export FAKE_BUILD_COUNT
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
CONF
start_klabd --config "$TMP/klabd.conf"
builds() { [ -f "$FAKE_BUILD_COUNT" ] && wc -l <"$FAKE_BUILD_COUNT" | tr -d ' ' || echo 0; }

klab build "dir:$D/build-tree" "$D/patches/good-elv.patch" --ident fake+elv --wait >"$TMP/out" 2>&1 ||
	fail "build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
expect_grep 'build 1: fake+elv' "$TMP/out"
[ "$(builds)" = 1 ] || fail "first request ran $(builds) builds"
http GET /api/kernels/fake+elv >/dev/null; expect_status 200
expect_grep '"source":"build"'; expect_grep '"config_hash":"[0-9a-f]\{64\}"'
expect_grep '"patch_hash":"[0-9a-f]\{64\}"'; expect_grep 'good-elv'
http GET /api/builds/1/log >/dev/null; expect_status 200
http GET /kernels/fake+elv >/dev/null; expect_status 200
expect_grep 'href="/api/builds/1/log"'

# identical request: answered from the cache, no build
klab build "dir:$D/build-tree" "$D/patches/good-elv.patch" --ident fake+elv2 --wait >/dev/null 2>&1 ||
	fail "second build"
[ "$(builds)" = 1 ] || fail "identical request built again ($(builds) builds)"
http GET /api/builds/2 >/dev/null; expect_grep 'cache=hit'

# a patch that does not apply: 422 at once, naming patch, file and hunk
klab build "dir:$D/build-tree" "$D/patches/bad-hunk.patch" >"$TMP/out" 2>&1 && fail "bad patch accepted"
expect_grep "cannot apply patch 'bad-hunk.patch'" "$TMP/out"
expect_grep 'hunk' "$TMP/out"
http GET /api/builds >/dev/null
n=$(grep -o '"id":' "$TMP/body" | wc -l)
[ "$n" -eq 2 ] || fail "a refused patch was queued ($n builds)"
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"nope"}' >/dev/null
expect_status 400; expect_grep "field 'base'"
stop_klabd
ok "builds through klabd: catalog, cache hit, refused patch"
