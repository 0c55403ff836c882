# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# build-sandbox.sh: the sandbox every command from a kernel tree runs in,
# sourced by build-kernel.sh (docs/BUILDS.md, "The sandbox").
#
# Building a kernel runs the tree's code (Makefiles, Kconfig $(shell),
# host tools), so each such command runs through sbx: under timeout and
# prlimit (CPU seconds, address space, file size, and processes of the
# build user), as the system user klab-build (setpriv, no new privileges),
# inside bubblewrap with every namespace unshared (no network but its own
# loopback), a read-only /usr, a generated /etc, a small /tmp, and one
# writable directory: the build's own tree (plus the ccache directory).
# A watchdog kills the sandbox when the tree grows past the disk limit.
# Root never does a file operation by path inside a tree a patch shaped:
# the split, the scan and the apply of the patches, the stamp, the config
# and every product are done or read back inside the sandbox (tree_get),
# and the tree is walked (du) and removed as the build user, so a symlink
# planted in the tree never makes root read or write a host file.
# Run as root (klabd), the tree shares the pristine base through hard links
# whose inodes stay root-owned and read-only; run as another user
# (a developer), the tree is a full copy and bwrap runs as that user.

SANDBOX_USER=klab-build
SBX_MODE=root		# root, user, or off (--no-sandbox)
MEM_LIMIT=4G
DISK_LIMIT=8G
MAX_PROCS=512
TMP_SIZE=1G
WATCH_SECONDS=5

# SIZE (digits with an optional K, M, G or T suffix, then an optional
# "iB" or "B", as klabd's configuration writes sizes) in bytes.
size_bytes() {
	set -- "${1%B}"
	set -- "${1%i}"
	case $1 in
	''|*[!0-9KMGTkmgt]*|[!0-9]*) return 1 ;;
	*[Kk]) echo $((${1%?} << 10)) ;;
	*[Mm]) echo $((${1%?} << 20)) ;;
	*[Gg]) echo $((${1%?} << 30)) ;;
	*[Tt]) echo $((${1%?} << 40)) ;;
	*[!0-9]*) return 1 ;;
	*) echo "$1" ;;
	esac
}

# Close every descriptor but stdin, stdout and stderr: whatever the caller
# left open (a socket, a database) must not reach the tree's code.
fds_close() {
	for f in "/proc/$$/fd/"*; do
		f=${f##*/}
		[ "$f" -gt 2 ] 2>/dev/null && eval "exec $f>&-" 2>/dev/null
	done
	return 0
}

# Check the limits and choose the mode; dies when no sandbox can be made.
sandbox_init() {
	MEM_BYTES=$(size_bytes "$MEM_LIMIT") && [ "$MEM_BYTES" -gt 0 ] ||
		die "invalid memory limit '$MEM_LIMIT'"
	DISK_BYTES=$(size_bytes "$DISK_LIMIT") && [ "$DISK_BYTES" -gt 0 ] ||
		die "invalid disk limit '$DISK_LIMIT'"
	case $MAX_PROCS in ''|*[!0-9]*|0) die "invalid process limit '$MAX_PROCS'" ;; esac
	[ "$SBX_MODE" = off ] && {
		note "warning: --no-sandbox: the tree's code runs as $(id -un) with the network"
		return 0
	}
	command -v bwrap >/dev/null ||
		die "cannot make the build sandbox: bwrap not found (apt-get install bubblewrap), or build with --no-sandbox (debugging only)"
	if [ "$(id -u)" -eq 0 ]; then
		SBX_MODE=root
		SBX_UID=$(id -u "$SANDBOX_USER" 2>/dev/null) &&
			SBX_GID=$(id -g "$SANDBOX_USER" 2>/dev/null) ||
			die "cannot make the build sandbox: no user '$SANDBOX_USER' (scripts/install-deps.sh creates it)"
		command -v setpriv >/dev/null ||
			die "cannot make the build sandbox: setpriv not found (util-linux)"
	else
		SBX_MODE=user SBX_UID=$(id -u) SBX_GID=$(id -g)
	fi
}

# The base tree into $TREE: hard links as root (the build user cannot write
# root's read-only inodes; its own directories let it add files), a full
# copy otherwise (the caller owns the pristine files).
tree_copy() {
	PRISTINE_KB=$(du -sk "$PRISTINE" | cut -f 1)
	[ -n "$PRISTINE_KB" ] || return 1
	if [ "$SBX_MODE" = user ]; then
		cp -a "$PRISTINE" "$TREE"
	else
		cp -al "$PRISTINE" "$TREE"
	fi
}

# bwrap's arguments for a sandbox whose one writable directory is DIR
# (the build's tree, or the directory the split writes its pieces to): the
# /etc it sees is a passwd and a group file (fds 3, 4), the dynamic
# linker's cache and alternatives; writable are DIR, the ccache directory
# (for an unpatched build only) and a bounded /tmp.  Read-only, at fixed
# paths: build-lib.sh's directory (SBX_LIB), the request's patch files
# (SBX_IN) and their split pieces (SBX_PIECES).  Every build sees its tree
# at SBX_TREE, one path for all: the absolute paths a build records
# (tools/objtool's, in its .cmd files) then match from one build to the
# next, as a warm start needs, and ccache's base directory is that path.
SBX_TREE=/klab/tree
sandbox_args() {
	dir=$1
	SBX_ARGS=(--unshare-all --die-with-parent --new-session --clearenv
		--setenv PATH /usr/local/bin:/usr/bin:/bin --setenv HOME /tmp
		--setenv TMPDIR /tmp --setenv LC_ALL C
		--ro-bind /usr /usr)
	for d in bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$d" ]; then
			SBX_ARGS+=(--symlink "$(readlink "/$d")" "/$d")
		elif [ -d "/$d" ]; then
			SBX_ARGS+=(--ro-bind "/$d" "/$d")
		fi
	done
	for f in /etc/ld.so.cache /etc/alternatives; do
		[ -e "$f" ] && SBX_ARGS+=(--ro-bind "$f" "$f")
	done
	SBX_ARGS+=(--ro-bind-data 3 /etc/passwd --ro-bind-data 4 /etc/group
		--proc /proc --dev /dev --remount-ro /dev
		--size "$(size_bytes "$TMP_SIZE")" --tmpfs /tmp
		--ro-bind "$FRAGMENT" "$FRAGMENT" --ro-bind "$HERE" "$SBX_LIB"
		--bind "$dir" "$SBX_TREE")
	[ -d "$WORK/in" ] && SBX_ARGS+=(--ro-bind "$WORK/in" "$SBX_IN")
	[ "$dir" != "$WORK/patches" ] && [ -d "$WORK/patches" ] &&
		SBX_ARGS+=(--ro-bind "$WORK/patches" "$SBX_PIECES")
	sandbox_ccache_args
	# bwrap's root is a tmpfs holding the mount points' parents: read-only
	# (and unbounded) once they exist
	SBX_ARGS+=(--remount-ro / --chdir "$SBX_TREE")
	SBX_PASSWD="root:x:0:0:root:/root:/usr/sbin/nologin
$(id -un "$SBX_UID" 2>/dev/null || echo "$SANDBOX_USER"):x:$SBX_UID:$SBX_GID:klab build sandbox:/tmp:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"
	SBX_GROUP="root:x:0:
$(id -gn "$SBX_UID" 2>/dev/null || echo "$SANDBOX_USER"):x:$SBX_GID:
nogroup:x:65534:"
}

# ccache in the sandbox.  Only an unpatched build writes the cache: its
# code is the base's, which the operator chose.  A patched build runs a
# submitter's code as the build user, which could write any entry it
# likes, so it reads the cache through a read-only mount and adds nothing
# (docs/SECURITY.md, "Caches"); that also keeps it from growing the cache
# past its disk limit.
sandbox_ccache_args() {
	[ "$USE_CCACHE" = yes ] || return 0
	if [ "${#PIECES[@]}" -eq 0 ]; then
		SBX_ARGS+=(--bind "$CCACHE_DIR" "$CCACHE_DIR")
	else
		SBX_ARGS+=(--ro-bind "$CCACHE_DIR" "$CCACHE_DIR"
			--setenv CCACHE_READONLY 1 --setenv CCACHE_NOSTATS 1
			--setenv CCACHE_TEMPDIR /tmp)
	fi
	SBX_ARGS+=(--setenv CCACHE_DIR "$CCACHE_DIR"
		--setenv CCACHE_BASEDIR "$SBX_TREE")
	[ -n "${CCACHE_PREFIX:-}" ] &&
		SBX_ARGS+=(--setenv CCACHE_PREFIX "$CCACHE_PREFIX")
	return 0
}

# Where the sandboxed steps find build-lib.sh, the request's files and the
# split pieces; with --no-sandbox, the real directories.
SBX_LIB=/klab/lib
SBX_IN=/klab/in
SBX_PIECES=/klab/pieces

# Open WORK to the sandbox and give it DIR's directories (the build user
# writes there; the files stay root's, hard links to the pristine tree).
sandbox_own() {
	[ "$SBX_MODE" = off ] && return 0
	chmod 0755 "$WORK" || die "cannot open '$WORK' to the sandbox"
	[ "$SBX_MODE" = root ] || return 0
	find "$1" -type d -exec chown "$SBX_UID:$SBX_GID" {} + ||
		die "cannot give the directories of '$1' to '$SANDBOX_USER'"
}

# Make the tree the build user's to write (its directories only), then
# check that the sandbox can be made at all.  Runs on the pristine copy,
# before any patch is applied.
sandbox_prepare() {
	[ "$SBX_MODE" = off ] && { SBX_DIR=$TREE; return 0; }
	sandbox_own "$TREE"
	# the ccache directory is the build user's (a build run without the
	# sandbox may have left root's files in it)
	if [ "$SBX_MODE" = root ] && [ "$USE_CCACHE" = yes ]; then
		find "$CCACHE_DIR" ! -user "$SBX_UID" \
			-exec chown -h "$SBX_UID:$SBX_GID" {} + ||
			die "cannot give '$CCACHE_DIR' to '$SANDBOX_USER'"
	fi
	sandbox_use "$TREE"
	why=$(sbx true 2>&1 >/dev/null) ||
		die "cannot make the build sandbox: ${why:-bwrap failed} (see docs/BUILDS.md, or --no-sandbox for debugging only)"
}

# The directory sbx runs in (writable) from now on.
sandbox_use() {
	SBX_DIR=$1
	[ "$SBX_MODE" = off ] || sandbox_args "$1"
}

# Disk used by the build: its tree less the pristine tree's size, taken
# once (a copy, or hard links that du counts in the tree).  A poll walks
# the tree alone: walking the pristine tree too, as "du PRISTINE TREE"
# would, cost about 0.6 s of CPU every poll on linux-source-6.1.  Files
# the patch or the build replaced make it count a little less than the
# build added.
disk_used_kb() {
	echo $(($(as_builder du -sk "$TREE" 2>/dev/null | cut -f 1) - PRISTINE_KB))
}

# CMD as the build user (no sandbox: for walking or removing a tree a patch
# shaped, which root never does by path); as the caller in the other modes.
as_builder() {
	if [ "$SBX_MODE" = root ]; then
		setpriv --reuid="$SBX_UID" --regid="$SBX_GID" --clear-groups \
			--no-new-privs "$@"
	else
		"$@"
	fi
}

# sbx CMD...: run CMD in the tree, in the sandbox, under the limits; its
# status, 124 when it ran out of time (the time limit) or disk (then
# $WORK/disk-limit exists).
sbx() {
	local run pid wd rc
	if [ "$SBX_MODE" = off ]; then
		(cd "$SBX_DIR" && timeout -k 30 "$TIME_LIMIT" "$@" 7>&- 8>&- 9>&-)
		return
	fi
	run=(timeout -k 30 "$TIME_LIMIT" prlimit --cpu="$TIME_LIMIT"
		--as="$MEM_BYTES" --fsize="$DISK_BYTES" --core=0)
	[ "$SBX_MODE" = root ] && run+=(--nproc="$MAX_PROCS"
		setpriv --reuid="$SBX_UID" --regid="$SBX_GID" --clear-groups
		--no-new-privs)
	# fds 7, 8 and 9 hold build-kernel.sh's locks: not for the sandbox; an
	# empty environment, as bwrap stays the sandbox's pid 1, whose
	# /proc/1/environ the tree's code can read
	"${run[@]}" env -i bwrap "${SBX_ARGS[@]}" "$@" \
		3<<<"$SBX_PASSWD" 4<<<"$SBX_GROUP" 7>&- 8>&- 9>&- &
	pid=$!
	(
		limit=$((DISK_BYTES >> 10))
		while sleep "$WATCH_SECONDS"; do
			used=$(disk_used_kb) || continue
			[ "$used" -le "$limit" ] && continue
			echo "$used KiB" >"$WORK/disk-limit"
			kill -TERM "$pid"
			exit 0
		done
	) </dev/null >/dev/null 2>&1 8>&- 9>&- &
	wd=$!
	wait "$pid"
	rc=$?
	kill -KILL "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	[ -f "$WORK/disk-limit" ] && return 124
	return $rc
}

# tree_get FILE DEST: copy FILE (relative to the tree) to DEST, reading it
# inside the sandbox.
tree_get() {
	sbx cat -- "$1" >"$2"
}
