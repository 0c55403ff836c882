#!/bin/bash
# SPDX-License-Identifier: MIT
# build-kernel.sh: turn a base tree + a patch series + the lab config fragment
# into a bootable bzImage, building each distinct kernel only once.
#
# The controller's kernel builder runs this script; docs/BUILDS.md describes
# the interface in full.  In short:
#
#   build-kernel.sh --base debian-6.1 [--patch FILE]... [options]
#
# A build is stored under CACHE/<key>/ (bzImage, config, build.log, record)
# where key = sha256(base exact version, each patch's diff in order, release
# suffix, merged .config, compiler + linker version).  Finding the merged
# config costs a tree copy and olddefconfig (about 15 s), so a second,
# cheaper index CACHE/inputs/<input key> (same inputs, with the fragment's
# hash in place of the merged config) answers an identical request in
# milliseconds.  On success stdout is the record (key=value lines) followed
# by cache=hit or cache=built; on failure stdout carries status= and error=.
#
# Exit status: 0 built or found, 1 usage or infrastructure error (retry),
# 2 a patch does not apply (never retried), 3 the kernel failed to build,
# 4 the build hit its time limit, 5 a must-have config option is missing.
#
# Every command that runs the tree's code (make, merge_config.sh) runs in
# the sandbox of build-sandbox.sh, as the user klab-build without network;
# without a sandbox the script refuses to build (--no-sandbox: debugging).
set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/build-lib.sh"
. "$HERE/build-sandbox.sh"

PROG=build-kernel
CACHE=${KLAB_BUILD_CACHE:-/var/cache/klab/builds}
FRAGMENT=$HERE/configs/lab.config
JOBS=$(nproc 2>/dev/null || echo 2)
TIME_LIMIT=3600
USE_CCACHE=auto
CC_WRAPPER=${KLAB_CC_WRAPPER:-}
COMPILER=gcc
BASE=
MODE=build
KEEP_TREE=0
MUST_HAVE="CONFIG_64BIT CONFIG_SERIAL_8250_CONSOLE CONFIG_BLK_DEV_INITRD
CONFIG_DEVTMPFS CONFIG_PCI CONFIG_VIRTIO_PCI CONFIG_SCSI_VIRTIO
CONFIG_BLK_DEV_SD CONFIG_EXT4_FS CONFIG_MQ_IOSCHED_DEADLINE CONFIG_KEXEC
CONFIG_BINFMT_ELF"
PATCHES=()
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/klab/ccache}
# The pristine trees and warm archives kept after a build, the ones used
# last (cache_prune): a tracked git line makes one of each per commit,
# 1.5 GB and 270 MB for linux-source-6.1.
KEEP_TREES=8
KEEP_WARM=16

usage() {
	cat <<EOF
usage: $PROG --base BASE [--patch FILE]... [options]
  --base BASE        debian-6.1, debian-6.12 (/usr/src/linux-source-V.tar.xz),
                     git:PATH@COMMIT, or dir:PATH (a plain tree); klabd
                     passes paths only from its [base NAME] sections
  --patch FILE       a diff, a git format-patch file or an mbox series;
                     repeat for more, applied in order
  --config FRAG      config fragment (default kernels/configs/lab.config)
  --cache DIR        artifact cache (default \$KLAB_BUILD_CACHE or
                     /var/cache/klab/builds)
  --jobs N           make -jN (default: number of CPUs)
  --time-limit SECS  limit on each step, make bzImage included, and CPU
                     seconds of each process (default 3600)
  --mem-limit SIZE   address space of each process (default 4G)
  --disk-limit SIZE  disk the build may add to its tree, and largest file
                     (default 8G)
  --max-procs N      processes of the build user, all builds (default 512)
  --keep-trees N     pristine base trees the cache keeps, those used last
                     (default 8)
  --keep-warm N      warm archives the cache keeps, those used last
                     (default 16)
  --no-sandbox       run the tree's code as the caller, with the network
                     (debugging only; klabd never passes it)
  --ccache|--no-ccache   compile through ccache (default: if installed)
  --cc-wrapper CMD   distcc, icecc ...: prefix for the compiler
  --cc COMPILER      the real compiler (default gcc)
  --must-have "CONFIG_A CONFIG_B"   options that must survive (fatal)
  --check            only split and dry-run the patches
  --print-key        print input_key and key, build nothing
  --keep-tree        keep the build tree (CACHE/tmp/...) for debugging
EOF
	exit 1
}

die() {
	echo "$PROG: $*" >&2
	printf 'status=error\nerror=%s\n' "$*"
	exit 1
}

# Fail with STATUS word, exit CODE and MESSAGE (also copied to stdout).
fail() {
	code=$1 status=$2; shift 2
	echo "$PROG: $*" >&2
	printf 'status=%s\nerror=%s\n' "$status" "$*"
	exit "$code"
}

note() {
	echo "$PROG: $*" >&2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--base) BASE=${2:?}; shift ;;
		--patch) PATCHES+=("${2:?}"); shift ;;
		--config) FRAGMENT=${2:?}; shift ;;
		--cache) CACHE=${2:?}; shift ;;
		--jobs) JOBS=${2:?}; shift ;;
		--time-limit) TIME_LIMIT=${2:?}; shift ;;
		--mem-limit) MEM_LIMIT=${2:?}; shift ;;
		--disk-limit) DISK_LIMIT=${2:?}; shift ;;
		--max-procs) MAX_PROCS=${2:?}; shift ;;
		--keep-trees) KEEP_TREES=${2:?}; shift ;;
		--keep-warm) KEEP_WARM=${2:?}; shift ;;
		--no-sandbox) SBX_MODE=off ;;
		--ccache) USE_CCACHE=yes ;;
		--no-ccache) USE_CCACHE=no ;;
		--cc-wrapper) CC_WRAPPER=${2:?}; shift ;;
		--cc) COMPILER=${2:?}; shift ;;
		--must-have) MUST_HAVE=$2; shift ;;
		--check) MODE=check ;;
		--print-key) MODE=key ;;
		--keep-tree) KEEP_TREE=1 ;;
		-h|--help) usage ;;
		*) echo "$PROG: unknown option '$1'" >&2; usage ;;
		esac
		shift
	done
	[ -n "$BASE" ] || usage
	case $JOBS in ''|*[!0-9]*|0) die "invalid job count '$JOBS'" ;; esac
	case $TIME_LIMIT in ''|*[!0-9]*|0) die "invalid time limit '$TIME_LIMIT'" ;; esac
	[ -f "$FRAGMENT" ] || die "cannot read config fragment '$FRAGMENT'"
	FRAGMENT=$(realpath "$FRAGMENT")
	for p in "${PATCHES[@]}"; do
		[ -f "$p" ] || die "cannot read patch '$p'"
	done
	if [ "$USE_CCACHE" = auto ]; then
		command -v ccache >/dev/null && USE_CCACHE=yes || USE_CCACHE=no
	fi
	mkdir -p "$CACHE/tmp" "$CACHE/inputs" "$CACHE/locks" "$CACHE/trees" \
		"$CACHE/failed" "$CACHE/warm" "$CACHE/configs" ||
		die "cannot create cache directory '$CACHE'"
	CACHE=$(cd "$CACHE" && pwd)
}

# Resolve BASE into BASE_ID (its exact version, one line) and the function
# that unpacks it into a directory.
base_resolve() {
	case $BASE in
	debian-6.1|debian-6.12)
		line=${BASE#debian-}
		BASE_TAR=/usr/src/linux-source-$line.tar.xz
		[ -f "$BASE_TAR" ] || die "unknown base '$BASE': $BASE_TAR missing (apt-get install linux-source-$line)"
		v=$(dpkg-query -W -f '${Version}' "linux-source-$line" 2>/dev/null)
		[ -n "$v" ] || v="sha256:$(sha256_of <"$BASE_TAR")"
		BASE_ID="linux-source-$line $v" ;;
	git:*@*)
		spec=${BASE#git:}
		BASE_GIT=${spec%@*} rev=${spec##*@}
		t=$(git -C "$BASE_GIT" rev-parse --verify -q "$rev^{commit}") ||
			fail 1 no_commit "unknown base '$BASE': no commit '$rev' in '$BASE_GIT'"
		BASE_COMMIT=$t
		BASE_ID="git commit $t tree $(git -C "$BASE_GIT" rev-parse "$t^{tree}")" ;;
	dir:*)
		BASE_DIR=${BASE#dir:}
		[ -d "$BASE_DIR" ] || die "unknown base '$BASE': no directory '$BASE_DIR'"
		BASE_ID="dir sha256:$(tar -C "$BASE_DIR" --sort=name --mtime=@0 \
			--owner=0 --group=0 --numeric-owner -cf - . | sha256_of)" ;;
	*) die "unknown base '$BASE'" ;;
	esac
}

base_unpack() {
	dest=$1
	mkdir -p "$dest" || return 1
	case $BASE in
	debian-*) tar -C "$dest" --strip-components=1 --no-same-owner \
		--no-same-permissions -xJf "$BASE_TAR" ;;
	# one old mtime for every file (git archive gives the commit's
	# time): a commit made after an ancestor's build would otherwise be
	# newer than every object of that build's warm archive
	git:*) git -C "$BASE_GIT" archive --format=tar "$BASE_COMMIT" |
		tar -C "$dest" --no-same-owner --no-same-permissions -xf - &&
		find "$dest" -exec touch -h -d @315532800 -- {} + ;;
	dir:*) tar -C "$BASE_DIR" -cf - . |
		tar -C "$dest" --no-same-owner --no-same-permissions -xf - ;;
	esac &&
	chmod -R go-w "$dest"
}

# The pristine tree of the base, unpacked once and shared by every build
# through hard links: its files are the caller's and not writable by
# others, so the sandbox user cannot change them.  Sets PRISTINE.
# The build holds a shared lock on the tree's lock file (fd 8, which the
# sandbox never gets) until it ends, so cache_prune never removes a tree
# in use; the tree's mtime is its last use.
base_pristine() {
	id=$(printf 'v3 %s\n' "$BASE_ID" | sha256_of | cut -c 1-16)
	tree=$CACHE/trees/$id
	lock=$CACHE/locks/tree-$id.lock
	exec 8>"$lock" && flock -s 8 || die "cannot lock '$lock'"
	if [ ! -d "$tree" ]; then
		flock -x 8 || die "cannot lock '$lock'"
		if [ ! -d "$tree" ]; then
			rm -rf "$tree.tmp"
			if pristine_derive "$tree.tmp"; then
				note "pristine tree of $BASE_COMMIT: ancestor $PRISTINE_FROM's, $(tr -cd '\0' <"$WORK/pristine-all" | wc -c) files renewed"
			else
				note "unpacking base '$BASE' ($BASE_ID)"
				rm -rf "$tree.tmp"
				base_unpack "$tree.tmp"
			fi && mv "$tree.tmp" "$tree" ||
				die "cannot unpack base '$BASE'"
		fi
		flock -s 8 || die "cannot lock '$lock'"
	fi
	touch -c "$tree"
	# what it is, for cache_prune (the tree's name is a hash)
	[ -f "$tree.base" ] || printf '%s\n' "$BASE_ID" >"$tree.base" ||
		rm -f "$tree.base"
	PRISTINE=$tree
}

# cached_ancestors GLOB: the last WARM_ANCESTORS ancestors of BASE_COMMIT,
# nearest first, "commit tree" a line, that one of the cache's .base
# files matching GLOB names ("git commit C tree T"): a walk of 64
# ancestors then hashes only those the cache holds something of.
cached_ancestors() {
	local -A have=()
	local m l a t
	[ -n "${BASE_COMMIT:-}" ] || return 0
	for m in $1; do
		[ -f "$m" ] && IFS= read -r l <"$m" && have[$l]=1
	done
	git -C "$BASE_GIT" log --format='%H %T' -n "$WARM_ANCESTORS" \
		"$BASE_COMMIT^" -- 2>/dev/null | while read -r a t; do
		[ -z "${have["git commit $a tree $t"]:-}" ] || echo "$a $t"
	done
}

# ancestor_diff A [OPTION...]: the paths commit A and BASE_COMMIT differ
# in, each ended by a NUL.
ancestor_diff() {
	local a=$1
	shift
	git -C "$BASE_GIT" diff -z --name-only --no-renames "$@" "$a" \
		"$BASE_COMMIT" --
}

# A git commit's pristine tree made from the nearest of its last
# WARM_ANCESTORS ancestors whose tree the cache holds: hard links to the
# ancestor's files (no build writes one: pristine files are never
# writable by the sandbox), less every path the commits differ in, which
# git writes anew as base_unpack would.  For linux-source-6.1, 1 s and
# the changed files against 24 s and 1.3 GB written for git archive.
# The ancestor's tree is held (a shared lock on fd 7) while copied, so
# cache_prune leaves it.  Sets PRISTINE_FROM; returns 1 when there is no
# such tree or git cannot say what changed (base_unpack then).
pristine_derive() {
	local dest=$1 a t id src rc
	while read -r a t; do
		id=$(printf 'v3 git commit %s tree %s\n' "$a" "$t" | sha256_of | cut -c 1-16)
		src=$CACHE/trees/$id
		[ -d "$src" ] || continue
		exec 7>"$CACHE/locks/tree-$id.lock" || return 1
		flock -s -w 300 7 && [ -d "$src" ] || { exec 7>&-; continue; }
		cp -al "$src" "$dest" && pristine_renew "$a" "$dest"
		rc=$?
		exec 7>&-
		[ $rc -eq 0 ] || { rm -rf "$dest"; return 1; }
		PRISTINE_FROM=$a
		return 0
	done < <(cached_ancestors "$CACHE/trees/*.base")
	return 1
}

# Make DEST, a copy of commit A's tree, BASE_COMMIT's: remove every path
# the two differ in (in git's order: a path that was a link or a file is
# gone before anything is written below it), and the directories left
# empty, then write what BASE_COMMIT has there, with base_unpack's old
# mtime.
pristine_renew() {
	local a=$1 dest=$2
	ancestor_diff "$a" >"$WORK/pristine-all" &&
		ancestor_diff "$a" --diff-filter=D >"$WORK/pristine-gone" &&
		ancestor_diff "$a" --diff-filter=d >"$WORK/pristine-new" ||
		return 1
	# a directory among them is one a file replaces: emptied here (its
	# files are among them too) and removed below
	(cd "$dest" && while IFS= read -r -d '' p; do
		[ -d "$p" ] && [ ! -L "$p" ] || printf '%s\0' "$p"
	done <"$WORK/pristine-all" | xargs -0 -r rm -f --) || return 1
	# best effort: a directory left behind is empty, and one a file
	# replaces makes tar fail below
	(cd "$dest" && tr '\0' '\n' <"$WORK/pristine-gone" | sed -n 's|/[^/]*$||p' |
		sort -ru | xargs -r -d '\n' rmdir -p --ignore-fail-on-non-empty -- \
		2>/dev/null)
	[ -s "$WORK/pristine-new" ] || return 0
	# shellcheck disable=SC2016
	(set -o pipefail && umask 022 && GIT_LITERAL_PATHSPECS=1 xargs -0 sh -c \
		'g=$1 c=$2; shift 2; exec git -C "$g" archive --format=tar "$c" -- "$@"' \
		sh "$BASE_GIT" "$BASE_COMMIT" <"$WORK/pristine-new" |
		tar -C "$dest" -i --no-same-owner --no-same-permissions -xf -) &&
		(cd "$dest" && xargs -0 touch -h -d @315532800 -- <"$WORK/pristine-new")
}

# After a build: every pristine tree and warm archive of a git commit
# but the KEEP_TREES and KEEP_WARM used last go (a tracked line makes one
# of each per commit; a Debian source or a directory base has one, the
# seed of every build of its version, and stays).  A tree another build
# holds (base_pristine's shared lock) stays; it is renamed away under
# the exclusive lock, then removed, so no build sees half of one.  An
# archive a build is reading stays readable to it (an open file).
cache_prune() {
	local d id n=0
	for d in $(ls -dt "$CACHE"/trees/*/ 2>/dev/null); do
		d=${d%/} id=${d##*/}
		case $(head -c 11 "$d.base" 2>/dev/null) in
		"git commit ") ;;
		*) continue ;;
		esac
		n=$((n + 1))
		[ "$n" -gt "$KEEP_TREES" ] && [ "$d" != "$PRISTINE" ] || continue
		if (flock -n -x 6 && mv -T "$d" "$CACHE/tmp/pruned-$id.$$") \
			6>"$CACHE/locks/tree-$id.lock"; then
			note "pruned the pristine tree $id (kept $KEEP_TREES)"
			rm -rf "$d.base" "$CACHE/tmp/pruned-$id.$$"
		fi
	done
	n=0
	for d in $(ls -t "$CACHE"/warm/*.tar 2>/dev/null); do
		case $(head -c 11 "${d%.tar}.base" 2>/dev/null) in
		"git commit ") ;;
		*) continue ;;
		esac
		n=$((n + 1))
		[ "$n" -gt "$KEEP_WARM" ] || continue
		rm -f "$d" "${d%.tar}.base" &&
			note "pruned the warm archive ${d##*/} (kept $KEEP_WARM)"
	done
	# merged configs (tens of KB each): the KEEP_WARM x 4 used last
	n=0
	for d in $(ls -t "$CACHE"/configs/ 2>/dev/null); do
		case $d in *.base|*.tmp) continue ;; esac
		n=$((n + 1))
		[ "$n" -le $((KEEP_WARM * 4)) ] ||
			rm -f "$CACHE/configs/$d" "$CACHE/configs/$d.base"
	done
}

# Split every --patch into pieces under $WORK/patches, in the sandbox (the
# files are copied to $WORK/in first), filling PIECES (paths for root's
# reading), SBX_PIECE_PATHS (the same, as the sandbox sees them),
# PIECE_NAMES ("file" or "file[i/n]") and LOCALVERSION.  A piece that makes
# a symbolic link, renames a file or names a path outside the tree is
# refused by name (patch_scan), as is a series over MAX_PIECES pieces.
MAX_PIECES=200
patches_split() {
	PIECES=() PIECE_NAMES=() SBX_PIECE_PATHS=()
	names=""
	mkdir "$WORK/in" "$WORK/patches" || die "cannot create '$WORK/in'"
	i=0
	for p in "${PATCHES[@]}"; do
		i=$((i + 1))
		cp -- "$p" "$WORK/in/$(printf '%02d' "$i")" ||
			die "cannot read patch '$p'"
		names="$names+$(patch_short_name "$p")"
	done
	LOCALVERSION="-klab$names"
	# uname -r holds 64 characters; keep room for "6.12.NNN".
	LOCALVERSION=${LOCALVERSION:0:52}
	[ "$i" -gt 0 ] || return 0
	chmod -R go+rX "$WORK/in"
	sandbox_own "$WORK/patches"
	sandbox_use "$WORK/patches"
	# shellcheck disable=SC2016
	out=$(sbx sh -c '. "$1/build-lib.sh" && series_split_all "$2" .' \
		sh "$SBX_LIB" "$SBX_IN" 2>&1)
	rc=$?
	while read -r nn n why; do
		case $nn in
		refuse)
			f=$(basename "${PATCHES[$((10#$n - 1))]}")
			[ "${why%% *}" = - ] || f=$f${why%% *}
			fail 2 patch_failed "cannot apply patch '$f': ${why#* }" ;;
		[0-9][0-9]) patches_add "$nn" "$n" ;;
		esac
	done <<<"$(patches_refusal_names "$out")"
	[ "$rc" -eq 0 ] || die "cannot split the patches: $out"
	[ "${#PIECES[@]}" -le "$MAX_PIECES" ] || fail 2 patch_failed \
		"too many patches: ${#PIECES[@]} in the series, at most $MAX_PIECES"
}

# The split's output with each refusal's piece number made its name's
# suffix: "refuse NN J REASON" -> "refuse NN [J/N] REASON" ("-" for one).
patches_refusal_names() {
	printf '%s\n' "$1" | awk '
	$1 ~ /^[0-9][0-9]$/ { n[$1] = $2; print; next }
	$1 == "refuse" {
		r = $0; sub(/^refuse [0-9]+ [0-9]+ /, "", r)
		cnt = ($2 in n) ? n[$2] : 0
		print "refuse " $2 " " (cnt > 1 ? "[" $3 "/" cnt "]" : "-") " " r
	}'
}

# Add file NN's N pieces (file "no diff" when there are none).
patches_add() {
	nn=$1 n=$2
	p=${PATCHES[$((10#$nn - 1))]}
	[ "$n" -gt 0 ] || fail 2 patch_failed \
		"cannot apply patch '$(basename "$p")': no diff found in it"
	for j in $(seq 1 "$n"); do
		PIECES+=("$WORK/patches/$nn/$(printf '%04d' "$j")")
		SBX_PIECE_PATHS+=("$SBX_PIECES/$nn/$(printf '%04d' "$j")")
		if [ "$n" -eq 1 ]; then
			PIECE_NAMES+=("$(basename "$p")")
		else
			PIECE_NAMES+=("$(basename "$p")[$j/$n]")
		fi
	done
}

# Every piece, in order, in the sandbox: dry run, then apply; then the
# stamp.  A failure is final (exit 2).
patches_apply() {
	sandbox_use "$TREE"
	# shellcheck disable=SC2016
	out=$(printf '%s\n' "${SBX_PIECE_PATHS[@]}" |
		sbx sh -c '. "$1/build-lib.sh" && series_apply_all' sh \
			"$SBX_LIB" 2>&1)
	rc=$?
	while read -r what k why; do
		case $what in
		applied) note "applied '${PIECE_NAMES[$k]}'" ;;
		failed)
			subj=$(patch_subject "${PIECES[$k]}")
			[ -n "$subj" ] && note "failing patch: '$subj'"
			fail 2 patch_failed "cannot apply patch '${PIECE_NAMES[$k]}': $why" ;;
		esac
	done <<<"$out"
	[ "$rc" -eq 0 ] || die "cannot apply the patches: $out"
}

# The text hashed into both keys; $1 is its last line (the merged config's
# hash for the key, the fragment's for the input key).
key_text() {
	echo "klab-build-key v2"
	echo "base $BASE_ID"
	for k in "${!PIECES[@]}"; do
		echo "patch $(patch_body "${PIECES[$k]}" | sha256_of)"
	done
	echo "localversion $LOCALVERSION"
	echo "arch x86_64"
	echo "toolchain $TOOLCHAIN"
	printf '%s\n' "$1"
}

# The CC make gets: ccache in front (a wrapper then runs through
# CCACHE_PREFIX), or the wrapper alone, or the plain compiler.
cc_setup() {
	if [ "$USE_CCACHE" = yes ]; then
		[ -n "$CC_WRAPPER" ] && export CCACHE_PREFIX=$CC_WRAPPER
		export CCACHE_BASEDIR=$CACHE/tmp
		mkdir -p "$CCACHE_DIR" || die "cannot create '$CCACHE_DIR'"
		CC_CMD="ccache $COMPILER"
	elif [ -n "$CC_WRAPPER" ]; then
		CC_CMD="$CC_WRAPPER $COMPILER"
	else
		CC_CMD=$COMPILER
	fi
}

# Merged configs, kept per unpatched base (CACHE/configs/<key>): the
# key is the base's exact version, the fragment and the toolchain.
config_key() {
	printf 'klab-config v1\nbase %s\nfragment %s\ntoolchain %s\ncc %s\n' \
		"$1" "$(sha256_of <"$FRAGMENT")" "$TOOLCHAIN" "$CC_CMD" | sha256_of
}

config_keep() {
	local c
	c=$CACHE/configs/$(config_key "$BASE_ID")
	[ -f "$c" ] && return 0
	printf '%s\n' "$BASE_ID" >"$c.base" &&
		cp "$WORK/config" "$c.$$.tmp" && mv -f "$c.$$.tmp" "$c" ||
		{ rm -f "$c.$$.tmp" "$c.base"; note "warning: cannot keep the merged config in '$c'"; }
}

# tinyconfig + merge + olddefconfig is 14 s of a 42 s warm build of a
# git commit, and gives what it gave for the tree it started from when
# nothing kconfig reads changed: the base's own merged config (a patched
# build), or its nearest git ancestor's with such a config kept, when
# none of the paths in between (build-lib.sh config_paths) and none the
# patches name can change it.  Sets CONFIG_SRC and CONFIG_FROM.
config_reuse() {
	local c a t
	for k in "${!PIECES[@]}"; do patch_paths "${PIECES[$k]}"; done |
		config_paths | grep -q . && return 1
	c=$CACHE/configs/$(config_key "$BASE_ID")
	if [ -f "$c" ]; then
		CONFIG_SRC=$c CONFIG_FROM="base $BASE_ID"
		touch -c "$c"	# its last use, for cache_prune
		return 0
	fi
	while read -r a t; do
		c=$CACHE/configs/$(config_key "git commit $a tree $t")
		[ -f "$c" ] || continue
		ancestor_diff "$a" >"$WORK/config-diff" || return 1
		# a name with a newline in it: not read line by line
		[ "$(tr -d '\n' <"$WORK/config-diff" | wc -c)" = "$(wc -c <"$WORK/config-diff")" ] ||
			return 1
		tr '\0' '\n' <"$WORK/config-diff" | config_paths | grep -q . && return 1
		CONFIG_SRC=$c CONFIG_FROM="ancestor $a"
		touch -c "$c"
		return 0
	done < <(cached_ancestors "$CACHE/configs/*.base")
	return 1
}

# make in the tree, in the sandbox.
kmake() {
	sbx make ARCH=x86_64 CC="$CC_CMD" HOSTCC=gcc \
		LOCALVERSION="$LOCALVERSION" KBUILD_BUILD_USER=klab \
		KBUILD_BUILD_HOST=klab "$@"
}

# tinyconfig + the fragment + olddefconfig (or a merged config that
# holds for this tree: config_reuse), then the survival check.
config_merge() {
	log=$WORK/build.log
	if config_reuse; then
		sbx cp /dev/fd/5 .config 5<"$CONFIG_SRC" >>"$log" 2>&1 &&
			cp "$CONFIG_SRC" "$WORK/config" ||
			die "cannot write the config of $CONFIG_FROM into the tree$(disk_note)"
		note "config: the merged config of $CONFIG_FROM (nothing kconfig reads changed since)"
	else
		{ kmake tinyconfig &&
		  sbx env ARCH=x86_64 CC="$CC_CMD" \
		   bash scripts/kconfig/merge_config.sh -m .config "$FRAGMENT" &&
		  kmake olddefconfig &&
		  tree_get .config "$WORK/config"; } >>"$log" 2>&1 || {
			keep_failure "$INPUT_KEY" 1
			fail 3 build_failed "config of base '$BASE' failed$(disk_note), log: $CACHE/failed/$INPUT_KEY/build.log"
		}
	fi
	# an unpatched tree's, for the builds after it
	[ "${#PIECES[@]}" -gt 0 ] || config_keep
	DROPPED=$(config_dropped "$FRAGMENT" "$WORK/config")
	[ -z "$DROPPED" ] || printf '%s\n' "$DROPPED" | while IFS= read -r d; do
		note "warning: option $d did not survive olddefconfig"
	done
	for o in $MUST_HAVE; do
		grep -q "^$o=" "$WORK/config" ||
			fail 5 config_failed "must-have option '$o' missing from the merged config"
	done
	CONFIG_HASH=$(sha256_of <"$WORK/config")
}

# Print a stored record plus how it was answered.
answer() {
	cat "$CACHE/$1/record"
	echo "cache=$2"
	exit 0
}

# Copy the pristine tree (hard links), apply the patches, merge the config.
prepare_tree() {
	base_pristine
	TREE=$WORK/tree
	tree_copy || die "cannot copy base tree into '$TREE'"
	sandbox_prepare
	# the stamp: what the build writes from here on is newer (warm_save)
	patches_apply
	if [ "$MODE" = check ]; then
		echo "status=ok"
		echo "base_version=$BASE_ID"
		[ -n "${BASE_COMMIT:-}" ] && echo "base_commit=$BASE_COMMIT"
		exit 0
	fi
	config_merge
}

# A patched build starts from its base's built tree: the products of the
# unpatched build of the same base, config and compiler (CACHE/warm/<key>
# .tar, written by warm_save), unpacked over the patched tree, so make
# rebuilds only what the patches and the release name change (the canary:
# 29 s of make and 9 files, against 282 s and 1,354 through ccache in a
# fresh tree; docs/BUILDS.md).  The archive comes
# from an unpatched build only (the base's own code ran, no submitter's),
# it is unpacked inside the sandbox (the tree may hold the patch's
# symlinks by now), and never over a file a patch writes.
#
# An unpatched build of a git commit starts the same way from its nearest
# built ancestor (warm_ancestor): every file the two commits' trees differ
# in is left out of the unpacking and made anew in the sandbox, so it is
# newer than the ancestor's objects (the pristine files are older than
# any build: base_unpack).  A tracked line's next head, or a bisection's
# step, then compiles what its commits changed.
warm_key() {
	printf 'klab-warm v2\nbase %s\nconfig %s\ntoolchain %s\ncc %s\n' \
		"${1:-$BASE_ID}" "$CONFIG_HASH" "$TOOLCHAIN" "$CC_CMD" | sha256_of
}

# The newest of the last WARM_ANCESTORS ancestors of BASE_COMMIT with a
# warm archive: sets w and WARM_FROM, and writes the files the two trees
# differ in to $WORK/warm-exclude.  Returns 1 when there is none.
WARM_ANCESTORS=64
warm_ancestor() {
	while read -r a t; do
		w=$CACHE/warm/$(warm_key "git commit $a tree $t").tar
		[ -f "$w" ] || continue
		git -C "$BASE_GIT" -c core.quotePath=false diff --name-only \
			--no-renames "$a" "$BASE_COMMIT" -- >"$WORK/warm-diff" ||
			return 1
		sed 's|^|./|' "$WORK/warm-diff" >"$WORK/warm-exclude"
		WARM_FROM=$a
		return 0
	done < <(cached_ancestors "$CACHE/warm/*.base")
	return 1
}

# The kernel version a pristine tree's Makefile names (VERSION,
# PATCHLEVEL, SUBLEVEL, EXTRAVERSION), "" when it names none.
tree_kver() {
	sed -n -e 's/^VERSION = //p' -e 's/^PATCHLEVEL = //p' \
		-e 's/^SUBLEVEL = //p' -e 's/^EXTRAVERSION = //p' "$1/Makefile" \
		2>/dev/null | head -n 4 | tr '\n' ' '
}

# The files the pristine trees $1 (the seed's) and $2 differ in, one
# "./path" a line, into $WORK/warm-exclude: changed, or in one tree only
# (every file under a directory only in $2, which must be made anew).
# Both trees were unpacked from the operator's sources, never shaped by a
# patch; --no-dereference follows no link.  Returns 1 on a line it cannot
# read (a name with the separators in it): no warm start then.
tree_diff() {
	local a=$1 b=$2 line rest p
	: >"$WORK/warm-exclude" || return 1
	diff -rq --no-dereference "$a" "$b" >"$WORK/warm-diff" 2>/dev/null
	[ $? -le 1 ] || return 1
	while IFS= read -r line; do
		case $line in
		"Files $a/"*" and $b/"*" differ")
			rest=${line#"Files $a/"}
			p=${rest%%" and $b/"*} ;;
		"Only in $a: "*) p=${line#"Only in $a: "} ;;
		"Only in $a/"*": "*)
			rest=${line#"Only in $a/"}
			p=${rest%%": "*}/${rest#*": "} ;;
		"Only in $b: "*|"Only in $b/"*": "*)
			rest=${line#"Only in $b"}
			rest=${rest#/}
			case $rest in
			": "*) p=${rest#": "} ;;
			*) p=${rest%%": "*}/${rest#*": "} ;;
			esac
			;;
		"File $a/"*) rest=${line#"File $a/"}
			p=${rest%%" is a "*} ;;
		*) return 1 ;;
		esac
		[ -n "$p" ] || return 1
		printf './%s\n' "$p" >>"$WORK/warm-exclude"
		if [ -d "$b/$p" ] && [ ! -L "$b/$p" ]; then
			(cd "$b" && find "./$p" ! -type d) >>"$WORK/warm-exclude" ||
				return 1
		fi
	done <"$WORK/warm-diff"
}

# A git commit with no built ancestor starts from the built tree of
# another base of the same kernel version (its Makefile's), built with
# the same config and compiler: a Debian source or another line's commit.
# The candidates are the cache's pristine trees (each names its base in
# its .base file, written at every use), the one used last first, that
# have a warm archive for this config and compiler.  The files the two
# pristine trees differ in are left out and made anew, as after an
# ancestor.  Sets w and WARM_FROM; returns 1 when there is none.
warm_seed() {
	local v d bid
	[ -n "${BASE_COMMIT:-}" ] || return 1
	v=$(tree_kver "$PRISTINE")
	[ -n "$v" ] || return 1
	# the tree used last first; their names are hashes, one word each
	for d in $(ls -td "$CACHE"/trees/*/ 2>/dev/null); do
		d=${d%/}
		[ -f "$d.base" ] && [ "$d" != "$PRISTINE" ] || continue
		bid=$(sed -n 1p "$d.base")
		[ -n "$bid" ] && [ "$bid" != "$BASE_ID" ] || continue
		w=$CACHE/warm/$(warm_key "$bid").tar
		[ -f "$w" ] && [ "$(tree_kver "$d")" = "$v" ] || continue
		tree_diff "$d" "$PRISTINE" || continue
		WARM_FROM=$bid
		return 0
	done
	return 1
}

warm_start() {
	if [ "${#PIECES[@]}" -gt 0 ]; then
		w=$CACHE/warm/$(warm_key).tar
		[ -f "$w" ] || return 0
		for k in "${!PIECES[@]}"; do patch_targets "${PIECES[$k]}"; done |
			sed 's|^|./|' >"$WORK/warm-exclude"
	elif warm_ancestor; then
		kind=ancestor
	elif warm_seed; then
		kind=seed
	else
		return 0
	fi
	if ! sbx tar -xf /dev/fd/5 --exclude-from=/dev/fd/6 5<"$w" \
		6<"$WORK/warm-exclude" >>"$WORK/build.log" 2>&1; then
		note "warning: cannot unpack '$w'; make rebuilds what is stale"
		return 0
	fi
	touch -c "$w"	# its last use, for cache_prune
	if [ -n "${WARM_FROM:-}" ]; then
		# shellcheck disable=SC2016
		sbx sh -c 'while IFS= read -r f; do
			[ -f "$f" ] && [ ! -L "$f" ] || continue
			cp -- "$f" "$f.klab-new" && mv -f -- "$f.klab-new" "$f" ||
				exit 1
		done' <"$WORK/warm-exclude" >>"$WORK/build.log" 2>&1 ||
			die "cannot renew the files changed since $WARM_FROM$(disk_note)"
		WARM_TAR=$w
		WARM=$kind
		if [ "$WARM" = ancestor ]; then
			note "warm start: the built tree of ancestor $WARM_FROM, $(wc -l <"$WORK/warm-diff") files changed since"
		else
			note "warm start: the built tree of $WARM_FROM, the same kernel version, $(wc -l <"$WORK/warm-exclude") files differ"
		fi
	else
		WARM=yes
		note "warm start: the base's built tree ($(basename "$w"))"
	fi
}

# After an unpatched build: keep what it made, for warm_start: what it
# wrote (newer than the stamp) and, after an ancestor's warm start, what
# it took from the ancestor's archive and kept.  Best effort: a failure
# costs the next build time, not correctness.
warm_save() {
	[ "${#PIECES[@]}" -eq 0 ] || return 0
	w=$CACHE/warm/$(warm_key).tar
	[ -f "$w" ] && { warm_base; return 0; }
	: >"$WORK/warm-kept"
	if [ -n "${WARM_TAR:-}" ]; then
		tar -tf "$WARM_TAR" | grep -vxF -f "$WORK/warm-exclude" \
			>"$WORK/warm-kept"
	fi
	# shellcheck disable=SC2016
	sbx sh -c '{ while IFS= read -r f; do
			[ -f "$f" ] && printf "%s\n" "$f"
		done <&5
		find . -newer .klab-stamp ! -type d ! -name .klab-stamp; } |
		sort -u | tar --verbatim-files-from -T - -cf -' \
		5<"$WORK/warm-kept" >"$w.$$.tmp" 2>>"$WORK/build.log" &&
		mv -f "$w.$$.tmp" "$w" ||
		{ rm -f "$w.$$.tmp"; note "warning: cannot keep the built tree in '$w'"; }
	warm_base
}

# Beside an unpatched build's warm archive, its base and kernel version
# (the .base file): cache_prune and cached_ancestors find a git commit's
# archives by it.  Also on a cache hit: an archive kept before .base
# files existed, or whose .base was lost, gets one the next time its
# build is asked for.
warm_base() {
	[ "${#PIECES[@]}" -eq 0 ] || return 0
	w=$CACHE/warm/$(warm_key).tar
	[ -f "$w" ] && [ ! -f "${w%.tar}.base" ] || return 0
	printf '%s\n%s\n' "$BASE_ID" "$(tree_kver "$PRISTINE")" \
		>"${w%.tar}.base" || rm -f "${w%.tar}.base"
}

# make bzImage under the time limit; the products go to $WORK/out.
build_kernel() {
	log=$WORK/build.log
	note "building $KEY (make -j$JOBS, CC='$CC_CMD', limit ${TIME_LIMIT}s)"
	t0=$(date +%s)
	kmake -j"$JOBS" bzImage >>"$log" 2>&1
	rc=$?
	BUILD_SECONDS=$(($(date +%s) - t0))
	[ $rc -eq 0 ] || build_failed $rc
	RELEASE=$(kmake -s kernelrelease 2>/dev/null | tail -n 1)
	out=$WORK/out
	mkdir -p "$out" &&
		tree_get arch/x86/boot/bzImage "$out/bzImage" &&
		tree_get .config "$out/config" && cp "$log" "$out/build.log" ||
		die "cannot store the products of $KEY"
}

# Keep the log, config and record of a failed build under
# CACHE/failed/<id>/ (never a cache hit: a failed build is tried again).
keep_failure() {
	f=$CACHE/failed/$1
	mkdir -p "$f" && cp "$WORK/build.log" "$f/build.log"
	tree_get .config "$f/config" 2>/dev/null || rm -f "$f/config"
	{ record_common; echo "status=failed"; echo "exit=$2"; } >"$f/record"
	tail -n 20 "$WORK/build.log" >&2
}

# Give up on a failed or timed-out make bzImage.
build_failed() {
	rc=$1 f=$CACHE/failed/$KEY
	keep_failure "$KEY" "$rc"
	[ -f "$WORK/disk-limit" ] && fail 3 build_failed \
		"build of $KEY failed$(disk_note), log: $f/build.log"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && fail 4 build_timeout \
		"build of $KEY exceeded ${TIME_LIMIT}s, log: $f/build.log"
	fail 3 build_failed "build of $KEY failed (make exit $rc), log: $f/build.log"
}

# ": over the disk limit" when the watchdog stopped the build.
disk_note() {
	[ -f "$WORK/disk-limit" ] &&
		printf ': over the disk limit of %s (%s)' "$DISK_LIMIT" \
			"$(cat "$WORK/disk-limit")"
}

record_common() {
	echo "key=${KEY:-}"
	echo "input_key=$INPUT_KEY"
	echo "base=$BASE"
	echo "base_version=$BASE_ID"
	echo "base_kernel=$(kmake -s kernelversion 2>/dev/null | tail -n 1)"
	(IFS=,; echo "patches=${PIECE_NAMES[*]}")
	sums=()
	for p in "${PIECES[@]}"; do sums+=("$(patch_body "$p" | sha256_of)"); done
	(IFS=,; echo "patch_sha256=${sums[*]}")
	echo "fragment=$FRAGMENT"
	echo "fragment_sha256=$(sha256_of <"$FRAGMENT")"
	echo "config_hash=${CONFIG_HASH:-}"
	echo "dropped_options=$(printf '%s' "${DROPPED:-}" | tr '\n' ';')"
	echo "compiler=$TOOLCHAIN"
	echo "cc=$CC_CMD"
	echo "jobs=$JOBS"
	echo "localversion=$LOCALVERSION"
}

# Write the record, then publish $WORK/out as CACHE/<key> with one rename.
publish() {
	dir=$CACHE/$KEY
	{
		record_common
		echo "status=ok"
		echo "ident=build-$(printf '%s' "$KEY" | cut -c 1-12)"
		echo "source=build"
		echo "kernelrelease=$RELEASE"
		echo "version=$RELEASE"
		echo "build_seconds=$BUILD_SECONDS"
		echo "warm_start=${WARM:-no}"
		echo "warm_from=${WARM_FROM:-}"
		echo "config_from=${CONFIG_FROM:-merged}"
		echo "bzimage_bytes=$(stat -c %s "$WORK/out/bzImage")"
		echo "sha256=$(sha256_of <"$WORK/out/bzImage")"
		echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "dir=$dir"
		echo "vmlinuz=$dir/bzImage"
		echo "config=$dir/config"
		echo "log=$dir/build.log"
	} >"$WORK/out/record" || die "cannot write the record of $KEY"
	mv -T "$WORK/out" "$dir" 2>/dev/null || [ -f "$dir/record" ] ||
		die "cannot publish '$dir'"
	printf '%s\n' "$KEY" >"$CACHE/inputs/$INPUT_KEY.tmp" &&
		mv -f "$CACHE/inputs/$INPUT_KEY.tmp" "$CACHE/inputs/$INPUT_KEY"
}

# The fast path: an identical request already answered.
lookup_inputs() {
	f=$CACHE/inputs/$INPUT_KEY
	[ -f "$f" ] || return 1
	k=$(cat "$f")
	[ -f "$CACHE/$k/record" ] || return 1
	answer "$k" hit
}

cleanup() {
	[ -n "${WORK:-}" ] || return 0
	if [ "$KEEP_TREE" = 1 ]; then
		note "build tree kept in $WORK"
	else
		# the tree and the pieces as the build user, who owns their
		# directories: root never walks what a patch shaped
		for d in "$WORK/tree" "$WORK/patches"; do
			[ -d "$d" ] && as_builder find "$d" -mindepth 1 -delete
		done
		rm -rf "$WORK"
	fi
	# A build writes gigabytes (objects, the warm archive, the tree it
	# deletes): written back here, inside the build's time, not beside
	# the next cells of a rig on this host (t5104: a bisection step's
	# cells after its build ran 40% slower while the host wrote back,
	# and the harmless commit came out worse).
	[ "${WROTE:-0}" = 0 ] || sync -f "$CACHE" 2>/dev/null || sync
}

main() {
	fds_close
	parse_args "$@"
	for n in "$KEEP_TREES" "$KEEP_WARM"; do
		case $n in ''|*[!0-9]*|0) die "invalid cache bound '$n'" ;; esac
	done
	sandbox_init
	base_resolve
	TOOLCHAIN=$(toolchain_id "$COMPILER") ||
		die "cannot run compiler '$COMPILER'"
	cc_setup
	WORK=$(mktemp -d "$CACHE/tmp/build.XXXXXX") ||
		die "cannot create a build directory in '$CACHE/tmp'"
	if [ "$SBX_MODE" = off ]; then
		SBX_LIB=$HERE SBX_IN=$WORK/in SBX_PIECES=$WORK/patches
	fi
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	patches_split
	INPUT_KEY=$(key_text "fragment $(sha256_of <"$FRAGMENT")" | sha256_of)
	[ "$MODE" = check ] && prepare_tree
	[ "$MODE" = build ] && lookup_inputs
	# Identical requests wait here for each other and build once.
	exec 9>"$CACHE/locks/$INPUT_KEY.lock" &&
		flock -w $((TIME_LIMIT + 900)) 9 ||
		die "cannot lock '$CACHE/locks/$INPUT_KEY.lock'"
	[ "$MODE" = build ] && lookup_inputs
	prepare_tree
	KEY=$(key_text "config $CONFIG_HASH" | sha256_of)
	if [ "$MODE" = key ]; then
		printf 'input_key=%s\nkey=%s\nconfig_hash=%s\n' \
			"$INPUT_KEY" "$KEY" "$CONFIG_HASH"
		exit 0
	fi
	if [ -f "$CACHE/$KEY/record" ]; then
		printf '%s\n' "$KEY" >"$CACHE/inputs/$INPUT_KEY"
		warm_base
		answer "$KEY" hit
	fi
	warm_start
	WROTE=1
	build_kernel
	warm_save
	publish
	cache_prune
	answer "$KEY" built
}

main "$@"
