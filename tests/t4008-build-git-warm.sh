#!/bin/sh
# SPDX-License-Identifier: MIT
# t4008: an unpatched build of a git commit starts warm from its nearest
# built ancestor (kernels/build-kernel.sh warm_ancestor), on a git
# repository of the fake kernel tree with two compiled files.  Each commit
# is made after the previous build (as a tracked line's pushes are), so a
# commit's files are newer than the ancestor's objects unless the pristine
# tree is older than any build:
#  - commit 1 builds cold and compiles both files;
#  - commit 2 (elevator.c changed) starts from commit 1 and compiles
#    elevator.c only; its image holds the change;
#  - commit 3 (blk-core.c changed) starts from commit 2, the nearest, and
#    compiles blk-core.c only: elevator.o came to it through commit 2's
#    archive, which keeps what it took from commit 1's;
#  - a commit whose build fails keeps no archive, and the next commit
#    starts from the last one that built; as its C files are commit 3's,
#    it compiles nothing (elevator.o, compiled for commit 2, reached it
#    through commit 3's archive).
#  - a commit of another repository, with no built ancestor, starts from
#    the newest built tree of the same kernel version (its Makefile's):
#    the files the two trees differ in are made anew (warm_seed); one of
#    another version builds cold.
#  - the cache keeps the pristine trees and warm archives used last
#    (--keep-trees, --keep-warm) of git commits, never one in use, and
#    a directory base's (one per version, the seed of its builds) always.
# The real kernel path is t5104's (the robot's heads and bisection).
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data
BUILD=$TOP/kernels/build-kernel.sh
command -v git >/dev/null || skip "no git"
# the build sandbox's user reaches its tree under the cache through here
chmod 755 "$TMP"
C=$TMP/cache
R=$TMP/repo

field() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

req() {
	"$BUILD" --base "git:$R@$1" --cache "$C" --no-ccache \
		--config "$D/build-tree.config" --must-have CONFIG_KEXEC
}

# the files make compiled (the fake tree's make echoes its commands)
compiled() {
	grep -o -- '-o block/[a-z-]*\.o' "$(field log "$1")" | sed 's/^-o //' |
		sort | tr '\n' ' '
}

mkdir -p "$R" && cp -R "$D/build-tree/." "$R/" || fail "cannot copy the fake tree"
cat >"$R/block/blk-core.c" <<'EOF'
/* A stand-in for the block core, for t4008. */
int blk_core_version(void);

int blk_core_version(void)
{
	return 1;
}
EOF
sed -i -e 's|^bzImage: block/elevator.o$|bzImage: block/elevator.o block/blk-core.o|' \
	-e 's|@cat .config block/elevator.c >arch|@cat .config block/elevator.c block/blk-core.c >arch|' \
	"$R/Makefile"
printf 'block/blk-core.o: block/blk-core.c\n\t$(CC) -c -o block/blk-core.o block/blk-core.c\n' \
	>>"$R/Makefile"
G="git -C $R -c user.name=Lab -c user.email=lab@example.invalid"
commit() {
	$G add -A && $G commit -qm "$1" && $G rev-parse HEAD
}
$G init -q -b main && C1=$(commit "one") || fail "cannot make the repository"

req "$C1" >"$TMP/b1" 2>"$TMP/e1" || fail "commit 1: $(cat "$TMP/e1")"
[ "$(field warm_start "$TMP/b1")" = no ] || fail "commit 1 started warm: $(cat "$TMP/b1")"
[ "$(compiled "$TMP/b1")" = "block/blk-core.o block/elevator.o " ] ||
	fail "commit 1 compiled '$(compiled "$TMP/b1")'"

sleep 1	# a commit made after the build: its time is newer than the objects
echo '/* commit two */' >>"$R/block/elevator.c"
mkdir -p "$R/docs/dir" && echo gone >"$R/docs/gone" && echo inner >"$R/docs/dir/inner" &&
	echo file >"$R/docs/file" && echo mode >"$R/docs/mode" || fail "commit two's files"
C2=$(commit "two") || fail "commit two"
req "$C2" >"$TMP/b2" 2>"$TMP/e2" || fail "commit 2: $(cat "$TMP/e2")"
[ "$(field warm_start "$TMP/b2")" = ancestor ] && [ "$(field warm_from "$TMP/b2")" = "$C1" ] ||
	fail "commit 2 did not start from commit 1: $(cat "$TMP/b2")"
[ "$(compiled "$TMP/b2")" = "block/elevator.o " ] ||
	fail "commit 2 compiled '$(compiled "$TMP/b2")', want block/elevator.o alone"
grep -q 'commit two' "$(field vmlinuz "$TMP/b2")" || fail "commit 2's change is not in its image"
grep -q 'warm start: the built tree of ancestor' "$TMP/e2" || fail "no warm start note: $(cat "$TMP/e2")"
# nothing kconfig reads changed: commit 1's merged config holds
[ "$(field config_from "$TMP/b2")" = "ancestor $C1" ] ||
	fail "commit 2 did not take commit 1's merged config: $(cat "$TMP/b2")"
[ "$(field config_from "$TMP/b1")" = merged ] || fail "commit 1's config was not merged: $(cat "$TMP/b1")"

sleep 1
echo '/* commit three */' >>"$R/block/blk-core.c"
# and what a pristine tree made from commit 2's must get right: a file
# gone, a directory made a file and a file a directory, a new
# directory, a mode, a symbolic link, a name with a space and a newline
rm "$R/docs/gone" "$R/docs/dir/inner" && rmdir "$R/docs/dir" && echo 'was a dir' >"$R/docs/dir" &&
	rm "$R/docs/file" && mkdir "$R/docs/file" && echo 'now a dir' >"$R/docs/file/x" &&
	mkdir -p "$R/new/deep" && echo 'new' >"$R/new/deep/f" &&
	chmod +x "$R/docs/mode" && ln -s ../README "$R/docs/link" &&
	echo 'odd' >"$R/docs/a name
with a newline" || fail "commit three's changes"
C3=$(commit "three") || fail "commit three"
req "$C3" >"$TMP/b3" 2>"$TMP/e3" || fail "commit 3: $(cat "$TMP/e3")"
grep -q "pristine tree of $C3: ancestor $C2's" "$TMP/e3" ||
	fail "commit 3's pristine tree was not made from commit 2's: $(cat "$TMP/e3")"
# it is what git archive makes: the same names, types, modes, links
# and contents
listing() { (cd "$1" && find . -mindepth 1 -printf '%y %m %p -> %l\n' | LC_ALL=C sort); }
mkdir "$TMP/fresh3" && git -C "$R" archive "$C3" | (umask 022 && tar -C "$TMP/fresh3" --no-same-permissions -xf -) ||
	fail "git archive of commit 3"
t3=$C/trees/$(cd "$C/trees" && grep -l "^git commit $C3 " *.base) t3=${t3%.base}
listing "$t3" >"$TMP/l3" && listing "$TMP/fresh3" >"$TMP/lf3" &&
	cmp -s "$TMP/l3" "$TMP/lf3" ||
	fail "commit 3's pristine tree is not its commit's: $(diff "$TMP/l3" "$TMP/lf3")"
diff -r --no-dereference "$t3" "$TMP/fresh3" >/dev/null ||
	fail "commit 3's pristine tree's contents differ from its commit's"
[ "$(field warm_from "$TMP/b3")" = "$C2" ] ||
	fail "commit 3 did not start from commit 2: $(cat "$TMP/b3")"
[ "$(compiled "$TMP/b3")" = "block/blk-core.o " ] ||
	fail "commit 3 compiled '$(compiled "$TMP/b3")', want block/blk-core.o alone"
for s in 'commit two' 'commit three'; do
	grep -q "$s" "$(field vmlinuz "$TMP/b3")" || fail "'$s' is not in commit 3's image"
done

# a broken commit keeps nothing; the one after it starts from commit 3
sleep 1
echo 'this does not compile' >>"$R/block/elevator.c"
C4=$(commit "four") || fail "commit four"
req "$C4" >"$TMP/b4" 2>"$TMP/e4"
[ $? -eq 3 ] || fail "commit 4 (broken) did not fail to build: $(cat "$TMP/b4")"
sed -i '$d' "$R/block/elevator.c"
echo 'commit five' >"$R/README"
C5=$(commit "five") || fail "commit five"
req "$C5" >"$TMP/b5" 2>"$TMP/e5" || fail "commit 5: $(cat "$TMP/e5")"
[ "$(field warm_from "$TMP/b5")" = "$C3" ] ||
	fail "commit 5 did not start from commit 3: $(cat "$TMP/b5")"
# a top-level file changed (the Makefile's version could have): merged anew
[ "$(field config_from "$TMP/b5")" = merged ] ||
	fail "commit 5 (README changed) took a kept config: $(cat "$TMP/b5")"
[ -z "$(compiled "$TMP/b5")" ] ||
	fail "commit 5 (its C files are commit 3's) compiled '$(compiled "$TMP/b5")'"
for s in 'commit two' 'commit three'; do
	grep -q "$s" "$(field vmlinuz "$TMP/b5")" || fail "'$s' is not in commit 5's image"
done
[ "$(ls "$C"/warm/*.tar | wc -l)" = 4 ] || fail "want 4 warm archives: $(ls "$C/warm")"

# a commit of another repository (no built ancestor) with the fake
# tree's kernel version starts from the built tree of that version used
# last, commit 5's: it compiles what the two trees differ in.  The seed is
# found through the pristine trees' .base files: warm archives kept
# before theirs existed (a cache from older klab) still seed.
rm -f "$C"/warm/*.base
R2=$TMP/repo2
G2="git -C $R2 -c user.name=Lab -c user.email=lab@example.invalid"
mkdir -p "$R2" && git -C "$R" archive "$C5" | tar -C "$R2" -xf - ||
	fail "cannot copy commit 5's tree"
echo '/* another line */' >>"$R2/block/elevator.c"
echo 'new' >"$R2/block/new-file"
$G2 init -q -b main && $G2 add -A && $G2 commit -qm "other" && O1=$($G2 rev-parse HEAD) ||
	fail "cannot make the second repository"
"$BUILD" --base "git:$R2@$O1" --cache "$C" --no-ccache --config "$D/build-tree.config" \
	--must-have CONFIG_KEXEC >"$TMP/o1" 2>"$TMP/eo1" || fail "other 1: $(cat "$TMP/eo1")"
[ "$(field warm_start "$TMP/o1")" = seed ] &&
	[ "$(field warm_from "$TMP/o1")" = "git commit $C5 tree $($G rev-parse "$C5^{tree}")" ] ||
	fail "the other repository's commit did not start from commit 5's tree: $(cat "$TMP/o1")"
[ "$(compiled "$TMP/o1")" = "block/elevator.o " ] ||
	fail "the other repository's commit compiled '$(compiled "$TMP/o1")', want block/elevator.o alone"
grep -q 'another line' "$(field vmlinuz "$TMP/o1")" || fail "its change is not in its image"
grep -q 'commit three' "$(field vmlinuz "$TMP/o1")" || fail "commit 3's change is not in its image"
grep -q 'same kernel version, 2 files differ' "$TMP/eo1" || fail "no seed note: $(cat "$TMP/eo1")"

# another kernel version: no seed, a cold build
sed -i 's/^VERSION = .*/VERSION = 0.2.0/' "$R2/Makefile"
echo '/* a third */' >>"$R2/block/blk-core.c"
# an orphan commit: no ancestor of its own either
$G2 checkout -q --orphan fresh && $G2 add -A && $G2 commit -qm "version" &&
	O2=$($G2 rev-parse HEAD) || fail "an orphan commit"
"$BUILD" --base "git:$R2@$O2" --cache "$C" --no-ccache --config "$D/build-tree.config" \
	--must-have CONFIG_KEXEC >"$TMP/o2" 2>"$TMP/eo2" || fail "other 2: $(cat "$TMP/eo2")"
[ "$(field warm_start "$TMP/o2")" = no ] ||
	fail "a tree of another kernel version started warm: $(cat "$TMP/o2")"
[ "$(compiled "$TMP/o2")" = "block/blk-core.o block/elevator.o " ] ||
	fail "other 2 compiled '$(compiled "$TMP/o2")'"

ok "git commits built warm from their nearest built ancestor, or from a built tree of the same kernel version"

# the cache keeps the pristine trees and warm archives used last: with
# room for one of each, a new commit's build leaves its own and removes
# the rest; a tree another build holds (its shared lock) stays
ntrees() { find "$C/trees" -mindepth 1 -maxdepth 1 -type d | wc -l; }
"$BUILD" --base "dir:$D/build-tree" --cache "$C" --no-ccache --config "$D/build-tree.config" \
	--must-have CONFIG_KEXEC >"$TMP/d1" 2>"$TMP/ed1" || fail "dir base: $(cat "$TMP/ed1")"
dir_tree=$C/trees/$(cd "$C/trees" && grep -l '^dir sha256:' *.base | head -n 1)
dir_tree=${dir_tree%.base}
[ -d "$dir_tree" ] || fail "no pristine tree marked as the dir base's: $(ls "$C/trees")"
[ "$(ntrees)" -ge 4 ] || fail "want the builds' pristine trees before pruning: $(ls "$C/trees")"
held=$(cd "$C/trees" && ls -t $(grep -l '^git commit ' *.base) | tail -n 1)
held=$C/trees/${held%.base}
held_id=${held##*/}
flock -s "$C/locks/tree-$held_id.lock" sleep 60 &
holder=$!
sleep 1
echo '/* prune */' >>"$R2/block/blk-core.c"
$G2 add -A && $G2 commit -qm "prune" && O3=$($G2 rev-parse HEAD) || fail "commit for pruning"
"$BUILD" --base "git:$R2@$O3" --cache "$C" --keep-trees 1 --keep-warm 1 \
	--no-ccache --config "$D/build-tree.config" --must-have CONFIG_KEXEC \
	>"$TMP/o3" 2>"$TMP/eo3" || fail "other 3: $(cat "$TMP/eo3")"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ "$(field warm_start "$TMP/o3")" = ancestor ] || fail "other 3 did not start warm: $(cat "$TMP/o3")"
[ "$(ntrees)" = 3 ] || fail "want 3 pristine trees (the build's, the held one, the dir base's): $(ls "$C/trees")"
[ -d "$held" ] || fail "the held tree $held_id was removed"
[ -d "$dir_tree" ] || fail "the dir base's tree was pruned"
grep -q "pruned the pristine tree" "$TMP/eo3" || fail "no prune note: $(cat "$TMP/eo3")"
[ "$(grep -l '^git commit ' "$C"/warm/*.base | wc -l)" = 1 ] ||
	fail "want 1 git commit's warm archive: $(ls "$C/warm")"
[ -z "$(ls "$C/tmp")" ] || fail "the pruned trees are left in tmp: $(ls "$C/tmp")"
# trees and archives go, never a built kernel: commit 5 is still a hit
"$BUILD" --base "git:$R@$C5" --cache "$C" --no-ccache --config "$D/build-tree.config" \
	--must-have CONFIG_KEXEC >"$TMP/b5b" 2>"$TMP/eb5b" || fail "commit 5 again: $(cat "$TMP/eb5b")"
[ "$(field cache "$TMP/b5b")" = hit ] && [ -f "$(field vmlinuz "$TMP/b5b")" ] ||
	fail "commit 5's kernel is gone after pruning: $(cat "$TMP/b5b")"
"$BUILD" --base "git:$R2@$O3" --cache "$C" --keep-trees 0 >"$TMP/o4" 2>&1 &&
	fail "--keep-trees 0 was taken"
grep -q "invalid cache bound '0'" "$TMP/o4" || fail "--keep-trees 0: $(cat "$TMP/o4")"
ok "the cache keeps the trees and archives used last, never a tree in use"
