#!/bin/sh
# SPDX-License-Identifier: MIT
# t4002: stability of the build key of kernels/build-kernel.sh.  The same
# inputs give the same key, run after run; changing any input (base tree, a
# git base's commit, a patch's diff, patch order, the fragment, the
# compiler) changes it; what does not reach the kernel (a patch's commit
# message, a comment in the fragment, ccache) changes neither the key nor,
# except for the fragment comment, the input key.  Runs on the fake tree in
# a few seconds.
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

# keys [--base B] [--config F] [--cc C] [other options] -- PATCH...:
# print "input_key key"
keys() {
	base="dir:$D/build-tree" frag=$D/build-tree.config extra=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		--base) base=$2; shift ;;
		--config) frag=$2; shift ;;
		*) extra="$extra $1" ;;
		esac
		shift
	done
	[ $# -gt 0 ] && shift
	args=""
	for p; do args="$args --patch $p"; done
	# shellcheck disable=SC2086
	"$BUILD" --base "$base" --cache "$TMP/cache" --no-ccache \
		--config "$frag" --must-have CONFIG_KEXEC --print-key $extra $args \
		>"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; echo "error error"; return; }
	echo "$(sed -n 's/^input_key=//p' "$TMP/out") $(sed -n 's/^key=//p' "$TMP/out")"
}

same() {
	[ "$2" = "$3" ] || bad "$1: keys differ ($2 / $3)"
}
differ() {
	[ "${2#* }" != "${3#* }" ] || bad "$1: key did not change"
	[ "${2% *}" != "${3% *}" ] || bad "$1: input key did not change"
}

P=$D/patches
ref=$(keys -- "$P/good-elv.patch")
echo "reference: $ref"
echo "$ref" | grep -Eq '^[0-9a-f]{64} [0-9a-f]{64}$' || bad "keys are not sha256: '$ref'"
same "second run" "$ref" "$(keys -- "$P/good-elv.patch")"

# Two independent patches for the order test, made here with diff -u.
cp -r "$D/build-tree" "$TMP/a"
cp -r "$D/build-tree" "$TMP/b"
sed -i 's/PLUG_FLUSH_SIZE (128/PLUG_FLUSH_SIZE (64/' "$TMP/b/block/plug.h"
(cd "$TMP" && diff -u a/block/plug.h b/block/plug.h >flush.patch)
differ "patch order" "$(keys -- "$P/good-elv.patch" "$TMP/flush.patch")" \
	"$(keys -- "$TMP/flush.patch" "$P/good-elv.patch")"
differ "no patch" "$ref" "$(keys --)"

# A different diff under the same name.
mkdir -p "$TMP/other"
sed 's/fifo_batch = 4;/fifo_batch = 8;/' "$P/good-elv.patch" >"$TMP/other/good-elv.patch"
differ "patch content" "$ref" "$(keys -- "$TMP/other/good-elv.patch")"

# The same diff with another commit message and date: the same kernel.
mkdir -p "$TMP/msg"
sed -e 's/^Subject: .*/Subject: [PATCH v2] elevator: reworded/' \
	-e 's/^Date: .*/Date: Tue, 2 Jan 2024 10:00:00 +0000/' \
	"$P/good-elv.patch" >"$TMP/msg/good-elv.patch"
same "commit message only" "$ref" "$(keys -- "$TMP/msg/good-elv.patch")"

# The fragment: a real change, and a comment that merges to the same config.
grep -v BFQ "$D/build-tree.config" >"$TMP/nobfq.config"
differ "fragment" "$ref" "$(keys --config "$TMP/nobfq.config" -- "$P/good-elv.patch")"
{ cat "$D/build-tree.config"; echo "# a comment"; } >"$TMP/comment.config"
k=$(keys --config "$TMP/comment.config" -- "$P/good-elv.patch")
[ "${k#* }" = "${ref#* }" ] || bad "comment in fragment changed the key"
[ "${k% *}" != "${ref% *}" ] || bad "fragment bytes do not key the input key"

# The base: one byte in the Makefile.
sed -i 's/^VERSION = 0.1.0/VERSION = 0.1.1/' "$TMP/b/Makefile"
cp "$D/build-tree/block/plug.h" "$TMP/b/block/plug.h"
differ "base tree" "$ref" "$(keys --base "dir:$TMP/b" -- "$P/good-elv.patch")"

# A git base: keyed by commit and tree; an unknown commit is refused.
G="git -C $TMP/repo -c user.name=t -c user.email=t@localhost"
cp -r "$D/build-tree" "$TMP/repo"
$G init -q && $G add -A && $G commit -qm one &&
	$G commit -q --allow-empty -m two || bad "cannot make a git base"
g1=$(keys --base "git:$TMP/repo@HEAD~1" -- "$P/good-elv.patch")
same "git base, same commit" "$g1" \
	"$(keys --base "git:$TMP/repo@$($G rev-parse HEAD~1)" -- "$P/good-elv.patch")"
differ "git base, other commit" "$g1" "$(keys --base "git:$TMP/repo@HEAD" -- "$P/good-elv.patch")"
"$BUILD" --base "git:$TMP/repo@nosuch" --cache "$TMP/cache" --print-key \
	>"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q "^error=unknown base 'git:$TMP/repo@nosuch': no commit 'nosuch'" \
	"$TMP/out" || bad "unknown commit: $(cat "$TMP/out")"

# The compiler: the same gcc announcing another version.
cat >"$TMP/fakecc" <<'CC'
#!/bin/sh
[ "$1" = --version ] && { echo "fakecc (klab test) 99.1"; exit 0; }
exec gcc "$@"
CC
chmod +x "$TMP/fakecc"
differ "compiler" "$ref" "$(keys --cc "$TMP/fakecc" -- "$P/good-elv.patch")"

# ccache and a compiler wrapper do not change what is built.
same "ccache" "$ref" "$(keys --ccache -- "$P/good-elv.patch")"
same "wrapper" "$ref" "$(keys --cc-wrapper env -- "$P/good-elv.patch")"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all key checks passed"
