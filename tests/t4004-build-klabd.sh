#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel builds through klabd and the CLI, on the fake kernel tree
# (tests/data/build-tree: answers tinyconfig / olddefconfig / bzImage in
# milliseconds), configured as the base "fake" (and as the git base
# "fakegit"): a build request joins the catalog as a kernel with base,
# patch and config hashes; an identical request is a cache hit that builds
# nothing; a git base is queued at the full commit; a patch that does not
# apply is refused at once naming the patch, the file and the hunk, and
# nothing is queued.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
G="git -C $TMP/repo -c user.name=t -c user.email=t@localhost"
cp -r "$D/build-tree" "$TMP/repo"
$G init -q && $G add -A && $G commit -qm one || fail "cannot make a git base"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
[base fake]
dir = $D/build-tree
[base fakegit]
git = $TMP/repo
CONF
start_klabd --config "$TMP/klabd.conf"

klab build fake "$D/patches/good-elv.patch" --ident fake+elv --wait >"$TMP/out" 2>&1 ||
	fail "build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
expect_grep 'build 1: fake+elv' "$TMP/out"
http GET /api/builds/1 >/dev/null; expect_grep 'cache=built'
expect_grep '"base":"fake"'
expect_grep 'base_version=dir sha256:[0-9a-f]\{64\}'
http GET /api/kernels/fake+elv >/dev/null; expect_status 200
expect_grep '"source":"build"'; expect_grep '"config_hash":"[0-9a-f]\{64\}"'
expect_grep '"patch_hash":"[0-9a-f]\{64\}"'; expect_grep 'good-elv'
http GET /api/builds/1/log >/dev/null; expect_status 200
http GET /kernels/fake+elv >/dev/null; expect_status 200
expect_grep 'href="/api/builds/1/log"'

# identical request: answered from the cache, no build
klab build fake "$D/patches/good-elv.patch" --ident fake+elv2 --wait >/dev/null 2>&1 ||
	fail "second build"
http GET /api/builds/2 >/dev/null; expect_grep 'cache=hit'

# a git base: queued at the full commit of HEAD, built from it
klab build fakegit@HEAD --ident fake-git --wait >"$TMP/out" 2>&1 ||
	fail "git build: $(cat "$TMP/out"; tail -5 "$TMP/klabd.log")"
http GET /api/builds/3 >/dev/null
expect_grep "\"base\":\"fakegit@$($G rev-parse HEAD)\""
expect_grep "base_version=git commit $($G rev-parse HEAD) tree "

# a patch that does not apply: 422 at once, naming patch, file and hunk
klab build fake "$D/patches/bad-hunk.patch" >"$TMP/out" 2>&1 && fail "bad patch accepted"
expect_grep "cannot apply patch 'bad-hunk.patch'" "$TMP/out"
expect_grep 'hunk' "$TMP/out"
http GET /api/builds >/dev/null
n=$(grep -o '"id":' "$TMP/body" | wc -l)
[ "$n" -eq 3 ] || fail "a refused patch was queued ($n builds)"
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"nope"}' >/dev/null
expect_status 400; expect_grep "field 'base': unknown base 'nope'"
expect_grep 'fake, fakegit@COMMIT'
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"fakegit@nosuch"}' >/dev/null
expect_status 400; expect_grep "field 'base': no such commit"
expect_nogrep "$TMP/repo"
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"fakegit"}' >/dev/null
expect_status 400; expect_grep "fakegit@COMMIT"
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"fake@HEAD"}' >/dev/null
expect_status 400; expect_grep "takes no @COMMIT"
http POST /api/builds -H 'Content-Type: application/json' -d '{"base":"fakegit@--output=/tmp/x"}' >/dev/null
expect_status 400
stop_klabd
ok "builds through klabd: catalog, cache hit, git base at its commit, refused patch and bases"
