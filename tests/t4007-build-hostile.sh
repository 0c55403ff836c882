#!/bin/sh
# SPDX-License-Identifier: MIT
# t4007: a hostile submitter against the builder, on the fake kernel tree
# (issue 29; docs/SECURITY.md, "Builds").  Each part failed on ee67a64:
#  a. a series whose first piece makes FILE.klab-unlink a link to a host
#     file, whose second edits FILE (root's cp wrote through it), and a
#     patch that makes .klab-stamp a link (root truncated its target): both
#     refused by klabd with 422 naming the link, audited, nothing stored;
#     build-kernel.sh by hand refuses them too; a Makefile that plants
#     links at every name root once touched changes no host file;
#  b. an ident is never taken over: an operator's kernel and the lab's
#     names are refused to a submitter (to a build request and to an
#     import), another build's kernel stays its own, an unnamed build is
#     named by its key, not its kernelrelease;
#  c. a "-- " trailer with a diff after it keys its build, so a clean
#     patch with the same head is never served the trojaned kernel;
#  d. a patched build cannot write the shared ccache;
#  e. 10,000 patches: 413 at once, nothing written; a 30-patch series
#     builds all 30; a refused five-patch request leaves no file;
#  f. the sandbox does not see klabd's environment (/proc/1/environ).
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data
BUILD=$TOP/kernels/build-kernel.sh
chmod 755 "$TMP"
[ "$(id -u)" -eq 0 ] && ! id klab-build >/dev/null 2>&1 &&
	skip "no user klab-build (scripts/install-deps.sh creates it)"
command -v bwrap >/dev/null || skip "no bwrap (apt-get install bubblewrap)"
command -v ccache >/dev/null || skip "no ccache"
printf 'precious\n' >"$TMP/victim"
chmod 644 "$TMP/victim"
victim_ok() {
	[ "$(cat "$TMP/victim")" = precious ] ||
		fail "$1: the host file changed: '$(cat "$TMP/victim")'"
}
mkdir -p "$TMP/ccache"
cat >"$TMP/klabd.conf" <<CONF
build_cache = $TMP/cache
build_fragment = $D/build-tree.config
build_must_have = CONFIG_KEXEC
[base fake]
dir = $D/build-tree
CONF
KLAB_CANARY_ENV=env-canary-4007 CCACHE_DIR=$TMP/ccache \
	start_klabd --config "$TMP/klabd.conf"
OP=$KLAB_TOKEN
ALICE=$(make_token alice submitter) && BOB=$(make_token bob submitter) ||
	fail "cannot make tokens"

# post_build TOKEN JSONFILE: POST /api/builds as TOKEN
post_build() {
	http POST /api/builds -H "Authorization: Bearer $1" \
		-H 'Content-Type: application/json' --data-binary "@$2" >/dev/null
}
# build_json OUT IDENT FILE...: {"base":"fake","ident":..,"patches":[..]}
build_json() {
	python3 - "$@" <<'PY'
import json, os, sys
out, ident, files = sys.argv[1], sys.argv[2], sys.argv[3:]
doc = {"base": "fake", "patches": [
    {"name": os.path.basename(f), "text": open(f).read()} for f in files]}
if ident:
    doc["ident"] = ident
open(out, "w").write(json.dumps(doc))
PY
}
# wait_build ID: until done or failed; its state into $TMP/body
wait_build() {
	i=0
	while :; do
		http GET "/api/builds/$1" >/dev/null
		grep -q '"state":"\(done\|failed\)"' "$TMP/body" && return 0
		i=$((i + 1)); [ $i -gt 600 ] && fail "build $1 never ended"
		sleep 0.2
	done
}
patch_files() { find "$TMP/data/patches" -type f 2>/dev/null | wc -l; }
# mf_patch OUT SED-SCRIPT: a patch of the fake tree's Makefile, as sed
# edits it
mf_patch() {
	rm -rf "$TMP/p" && mkdir -p "$TMP/p/a" "$TMP/p/b" &&
		cp "$D/build-tree/Makefile" "$TMP/p/a/Makefile" &&
		sed "$2" "$D/build-tree/Makefile" >"$TMP/p/b/Makefile" ||
		fail "cannot make $1"
	(cd "$TMP/p" && diff -u a/Makefile b/Makefile | sed '1,2s|\t.*||') >"$1"
	grep -q '^+' "$1" || fail "empty $1"
}
# part X: whether to run part X (T4007_PARTS, default all: to show each
# part failing on its own against older code)
part() { case " ${T4007_PARTS:-a b c d e f} " in *" $1 "*) return 0 ;; esac; return 1; }

# --- a. links in a series --------------------------------------------
if part a; then
cat >"$TMP/link-series.mbox" <<EOF
From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
Subject: [PATCH 1/2] a link

diff --git a/block/elevator.c.klab-unlink b/block/elevator.c.klab-unlink
new file mode 120000
--- /dev/null
+++ b/block/elevator.c.klab-unlink
@@ -0,0 +1 @@
+$TMP/victim
\ No newline at end of file
From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001
Subject: [PATCH 2/2] the file

$(sed -n '/^diff\|^---/,$p' "$D/patches/good-elv.patch")
EOF
cat >"$TMP/stamp.patch" <<EOF
diff --git a/.klab-stamp b/.klab-stamp
new file mode 120000
--- /dev/null
+++ b/.klab-stamp
@@ -0,0 +1 @@
+$TMP/victim
\ No newline at end of file
EOF
n0=$(patch_files)
build_json "$TMP/j" "" "$TMP/link-series.mbox"; post_build "$ALICE" "$TMP/j"
expect_status 422
expect_grep "cannot apply patch 'link-series.mbox': it makes or changes a symbolic link (block/elevator.c.klab-unlink) (line 5)"
build_json "$TMP/j" "" "$TMP/stamp.patch"; post_build "$ALICE" "$TMP/j"
expect_status 422; expect_grep "symbolic link (.klab-stamp)"
victim_ok "link series through klabd"
[ "$(patch_files)" = "$n0" ] || fail "a refused request left patch files"
http GET /api/audit >/dev/null
expect_grep '"action":"patch refused"'
grep -q "patches of 'alice' refused" "$TMP/klabd.log" || fail "refusal not logged"
# by hand: the sandboxed scan refuses them by name, as root too
for p in link-series.mbox stamp.patch; do
	"$BUILD" --base "dir:$D/build-tree" --cache "$TMP/hand" --no-ccache \
		--config "$D/build-tree.config" --patch "$TMP/$p" >"$TMP/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "$p by hand: exit $rc: $(cat "$TMP/out")"
	expect_grep "symbolic link" "$TMP/out"
done
victim_ok "link series by hand"
# links the build itself plants (the Makefile is the submitter's code):
# at the stamp, the config, the image and the tree's own top
mf_patch "$TMP/planter.patch" "/^bzImage:/a\\
	-@for f in .klab-stamp .config .config.old arch/x86/boot/bzImage; do rm -f \$\$f; ln -s $TMP/victim \$\$f; done; mkdir -p arch/x86/boot; ln -sf $TMP/victim arch/x86/boot/bzImage"
build_json "$TMP/j" "" "$TMP/planter.patch"; post_build "$ALICE" "$TMP/j"
expect_status 202
id=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$id"
victim_ok "links planted by the build"
grep -q precious "$TMP/body" && fail "the host file's text reached the build record"
fi

# --- b. names ----------------------------------------------------------
if part b; then
klab kernel add opkernel >/dev/null 2>&1 ||
	http POST /api/kernels -H 'Content-Type: application/json' \
		-d '{"ident":"opkernel","version":"6.1.0"}' >/dev/null
http GET /api/kernels/opkernel >/dev/null; expect_status 200
build_json "$TMP/j" opkernel "$D/patches/good-elv.patch"; post_build "$ALICE" "$TMP/j"
expect_status 409; expect_grep "kernel 'opkernel' exists"
for lab in sub7-patched bis3-2 build-0123456789ab; do
	build_json "$TMP/j" "$lab" "$D/patches/good-elv.patch"
	post_build "$OP" "$TMP/j"
	expect_status 400; expect_grep "a name of the lab's own"
done
build_json "$TMP/j" alice-k "$D/patches/good-elv.patch"; post_build "$ALICE" "$TMP/j"
expect_status 202; a=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$a"; expect_grep '"state":"done"'
http GET /api/kernels/alice-k >/dev/null; expect_grep "build $a:"
build_json "$TMP/j" alice-k "$D/patches/series.mbox"; post_build "$BOB" "$TMP/j"
expect_status 202; b=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$b"
expect_grep '"state":"failed"'; expect_grep "kernel 'alice-k' exists"
http GET /api/kernels/alice-k >/dev/null; expect_grep "build $a:"
expect_nogrep "build $b:"
# the same build key may: bob asks for alice's very build
build_json "$TMP/j" alice-k "$D/patches/good-elv.patch"; post_build "$BOB" "$TMP/j"
c=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$c"; expect_grep '"state":"done"'
# an import cannot make one of the lab's names either
printf '{"schema":"klab-results/1","results":[{"kernel":"sub99-patched","metric":"m.rate","unit":"MB/s","value":1,"direction":"higher"}]}\n' \
	>"$TMP/imp.json"
KLAB_TOKEN=$ALICE klab import "$TMP/imp.json" --rig default --suite manual \
	>"$TMP/out" 2>&1 && fail "an import made kernel sub99-patched"
expect_grep "a name of the lab's own builds" "$TMP/out"
http GET /api/kernels/sub99-patched >/dev/null; expect_status 404
# unnamed: build-KEY12, not the tree's kernelrelease
build_json "$TMP/j" "" "$D/patches/series.mbox"; post_build "$BOB" "$TMP/j"
u=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$u"; expect_grep '"ident":"build-[0-9a-f]\{12\}"'
fi

# --- c. a trailer keys the build ----------------------------------------
if part c; then
# one name for both: the name is in the release string, which keys too
mkdir -p "$TMP/c1" "$TMP/c2"
cp "$D/patches/good-elv.patch" "$TMP/c1/fix.patch"
{ cat "$TMP/c1/fix.patch"; printf -- '-- \n2.39.5\n\n'
  printf -- '--- /dev/null\n+++ b/block/trojan.c\n@@ -0,0 +1 @@\n+int trojan;\n'
} >"$TMP/c2/fix.patch"
key() {
	"$BUILD" --base "dir:$D/build-tree" --cache "$TMP/keys" --no-ccache \
		--config "$D/build-tree.config" --must-have CONFIG_KEXEC --print-key --patch "$1" |
		sed -n 's/^key=//p'
}
k1=$(key "$TMP/c2/fix.patch"); k2=$(key "$TMP/c1/fix.patch")
[ -n "$k1" ] && [ "$k1" != "$k2" ] ||
	fail "a diff after '-- ' does not key the build ($k1 / $k2)"
fi

# --- d. ccache: a patched build reads it, never writes it -----------------
if part d; then
mf_patch "$TMP/poison.patch" "/^bzImage:/a\\
	-@echo poison >\$(CCACHE_DIR)/poison 2>/dev/null && echo ccache-written || echo ccache-denied"
CCACHE_DIR=$TMP/ccache "$BUILD" --base "dir:$D/build-tree" --cache "$TMP/cc" \
	--ccache --config "$D/build-tree.config" --must-have CONFIG_KEXEC --patch "$TMP/poison.patch" \
	>"$TMP/out" 2>&1 || fail "ccache build: $(tail -5 "$TMP/out")"
log=$(sed -n 's/^log=//p' "$TMP/out")
grep -q ccache-denied "$log" || fail "the patched build wrote the ccache: $(grep ccache- "$log")"
[ ! -e "$TMP/ccache/poison" ] || fail "poison in the shared ccache"
fi

# --- e. caps and leftovers ------------------------------------------------
if part e; then
python3 - "$TMP/j" <<'PY'
import json, sys
p = [{"name": "p%05d.patch" % i, "text": "--- a/x\n+++ b/x\n"} for i in range(10000)]
open(sys.argv[1], "w").write(json.dumps({"base": "fake", "patches": p}))
PY
n0=$(patch_files)
post_build "$ALICE" "$TMP/j"
expect_status 413; expect_grep "10000 patch files, at most 64"
[ "$(patch_files)" = "$n0" ] || fail "413 left patch files"
mkdir -p "$TMP/s30"
for i in $(seq 1 30); do
	f=$(printf '%s/s30/%02d-add.patch' "$TMP" "$i")
	printf -- '--- /dev/null\n+++ b/block/add%02d.c\n@@ -0,0 +1 @@\n+int add%02d;\n' \
		"$i" "$i" >"$f"
done
# shellcheck disable=SC2046
build_json "$TMP/j" "" $(ls "$TMP"/s30/*.patch); post_build "$ALICE" "$TMP/j"
expect_status 202; s=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$s"; expect_grep '"state":"done"'
n=$(sed -n 's/.*patches=\([^\\]*\)\\n.*/\1/p' "$TMP/body" | tr ',' '\n' | grep -c add)
[ "$n" = 30 ] || fail "a 30-patch series built $n patches"
n0=$(patch_files)
build_json "$TMP/j" "" "$TMP"/s30/0[1-4]-add.patch "$D/patches/bad-hunk.patch"
post_build "$ALICE" "$TMP/j"
expect_status 422; expect_grep "cannot apply patch 'bad-hunk.patch'"
[ "$(patch_files)" = "$n0" ] || fail "a refused request left its patch files"
fi

# --- f. klabd's environment is not the sandbox's -------------------------
if part f; then
mf_patch "$TMP/env.patch" "/^bzImage:/a\\
	-@echo \"environ: \$\$(tr -c '[:print:]' ' ' </proc/1/environ)\""
build_json "$TMP/j" "" "$TMP/env.patch"; post_build "$ALICE" "$TMP/j"
e=$(sed -n 's/.*"build":\([0-9]*\).*/\1/p' "$TMP/body")
wait_build "$e"; expect_grep '"state":"done"'
http GET "/api/builds/$e/log" >/dev/null
grep -q 'environ' "$TMP/body" || fail "the environ probe did not run"
expect_nogrep env-canary-4007
fi

victim_ok "end"
stop_klabd
ok "hostile builds: links refused and harmless, names kept, trailers keyed, ccache read-only, caps, no leftovers, no environment"
