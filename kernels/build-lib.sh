# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# build-lib.sh: the pure steps of a kernel build, sourced by build-kernel.sh.
#
# Splitting a submission into patches (single diff, git format-patch file or
# mbox series), checking each one with a dry run and explaining a failure as
# "cannot apply patch 'NAME': hunk N of FILE failed", identifying a base tree
# exactly, hashing the inputs into the build key, and checking which options
# of the config fragment survived olddefconfig.  Nothing here builds or
# touches the cache; every function reports through stdout and its status.
# The functions that read a submitter's patch or write a tree (split, scan,
# apply) run inside the build sandbox (build-sandbox.sh), never as root.

# The identity line of the toolchain: compiler and linker versions.  Both end
# up in the kernel (CONFIG_CC_VERSION_TEXT, LD_VERSION), so both key a build.
toolchain_id() {
	cc=$1
	ccv=$("$cc" --version 2>/dev/null | head -n 1) || return 1
	[ -n "$ccv" ] || return 1
	ldv=$(ld --version 2>/dev/null | head -n 1)
	printf '%s; %s\n' "$ccv" "$ldv"
}

# Split FILE into one file per patch under DIR, named 0001, 0002, ... in the
# order they appear (the order `git am` applies them).  A file holding several
# mbox messages ("From <sha> Mon Sep 17 ..." separators) is a series; anything
# else is one patch.  Messages without a diff (a cover letter) are dropped.
# Prints the number of patches written.
patch_split() {
	file=$1 dir=$2
	mkdir -p "$dir" || return 1
	awk -v dir="$dir" '
	function flush() {
		if (n == 0) return
		if (hasdiff) {
			out++
			fn = sprintf("%s/%04d", dir, out)
			printf "%s", buf > fn
			close(fn)
		}
		buf = ""; hasdiff = 0; n = 0
	}
	/^From [^ ]+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) / {
		flush()
	}
	{
		buf = buf $0 "\n"; n++
		if (prev ~ /^--- / && $0 ~ /^\+\+\+ /) hasdiff = 1
		prev = $0
	}
	END { flush(); print out + 0 }
	' "$file"
}

# The subject of a patch file (format-patch header), without "[PATCH n/m]".
patch_subject() {
	sed -n '/^$/q; s/^Subject: *//p' "$1" | head -n 1 |
		sed 's/^\[[^]]*\] *//'
}

# The part of a patch that decides what it does to the tree: everything
# from its first diff header to its end.  GNU patch applies every diff it
# finds, a signature ("-- ") or a second message's included, so all of it
# keys a build; the commit message before it does not change the kernel.
patch_body() {
	awk '!on && /^(diff |Index: |--- |\*\*\* )/ { on = 1 } on' "$1"
}

# The files a patch writes (its "+++ b/path" lines, -p1), one per line.
patch_targets() {
	sed -n 's/^+++ [^/]*\/\([^\t]*\).*/\1/p' "$1" | sort -u
}

# The paths a patch changes, created or deleted, one a line (both the
# "---" and "+++" names, less their first component).
patch_paths() {
	sed -n 's/^\(---\|+++\) [^/]*\/\([^\t]*\).*/\2/p' "$1" | sort -u
}

# Of the tree paths on stdin (one a line), print those that can change
# what kconfig makes of a config: a top-level file (the Makefile's
# version), a Kconfig, Makefile or Kbuild file, a config fragment, a
# script, anything under scripts/ or a configs/ directory.  None printed:
# a config merged for the tree before these paths changed holds after.
config_paths() {
	grep -E '^[^/]*$|(^|/)(Kconfig|Makefile|Kbuild)[^/]*$|\.(config|sh|py|pl)$|^scripts/|(^|/)configs/'
}

# Turn the output of `patch --dry-run` into the one-line reason a submitter
# reads after "cannot apply patch 'NAME': ".
patch_explain() {
	awk '
	/^(checking|patching) file / {
		f = $0; sub(/^(checking|patching) file /, "", f)
		gsub(/^'\''|'\''$/, "", f)
	}
	/^\|\+\+\+ / {
		m = $2; sub(/^[^\/]*\//, "", m); sub(/\t.*/, "", m)
	}
	/^can.t find file to patch/ { want = 1 }
	/^No file to patch/ && want && !why { why = "file " m " not found in the tree" }
	/^Hunk #[0-9]+ FAILED/ && !why {
		h = $2; sub(/^#/, "", h)
		why = "hunk " h " of " f " failed"
	}
	/^Reversed \(or previously applied\) patch detected/ && !why {
		why = "already applied to " f " (reversed patch)"
	}
	/malformed patch at line/ && !why {
		why = $0; sub(/^.*malformed/, "malformed", why)
	}
	/^Only garbage was found/ && !why { why = "no diff found in it" }
	/^(File|file) .* is not a regular file/ && !why { why = $0 }
	{ if (first == "") first = $0 }
	END {
		if (why == "") why = (first == "" ? "patch failed" : first)
		print why
	}
	'
}

# Why PIECE must not be applied, or nothing: a symbolic link made,
# changed or removed (git's mode 120000), a rename or copy, or a path that
# is absolute or climbs out with "..".  The tree is the sandbox's, so such
# a patch could not reach the host; it is refused all the same, by name
# (klabd refuses it earlier with the same rule, lib/patchcheck.c).
patch_scan() {
	awk '
	function bad(p) {
		return p ~ /^\// || p ~ /(^|\/)\.\.(\/|$)/
	}
	function strip(p) {
		sub(/\t.*/, "", p)
		if (p == "/dev/null") return ""
		if (p !~ /^\//) sub(/^[^\/]*\//, "", p)	# -p1
		return p
	}
	/^diff --git / { file = $4; sub(/^[^\/]*\//, "", file) }
	/^(new file|deleted file|old|new) mode 120000/ {
		print "it makes or changes a symbolic link (" file ")"; exit
	}
	/^(rename|copy) (from|to) / {
		print "it renames or copies a file (" file ")"; exit
	}
	/^\+\+\+ / && prev ~ /^--- / {
		a = strip(substr(prev, 5)); b = strip(substr($0, 5))
		if (bad(a) || bad(b)) {
			print "it names a path outside the tree (" (bad(b) ? b : a) ")"
			exit
		}
	}
	{ prev = $0 }
	' "$1"
}

# Dry-run PATCH (a split piece) in the current directory, then apply it.
# Run inside the sandbox as the build user, who cannot write the pristine
# tree's files (root's, read-only, shared through hard links) but owns the
# tree's directories: a file is copied and renamed over before patch
# writes it, so the shared pristine copy never changes.  On failure prints the reason (see patch_explain) and
# returns 1; the tree is left as it was.
patch_apply_one() {
	piece=$1
	why=$(patch_scan "$piece")
	[ -z "$why" ] || { printf '%s\n' "$why"; return 1; }
	out=$(patch -p1 --forward --batch --fuzz=0 --dry-run \
		--read-only=ignore -i "$piece" 2>&1) || {
		printf '%s\n' "$out" | patch_explain
		return 1
	}
	# the pristine files show as unmapped ids in the sandbox, whose group
	# patch cannot copy: each file the patch writes becomes the build
	# user's own copy first (never through a link: patch_scan refused them)
	patch_targets "$piece" | while IFS= read -r t; do
		[ -f "$t" ] && [ ! -L "$t" ] || continue
		rm -f -- "$t.klab-unlink" && cp -- "$t" "$t.klab-unlink" &&
			mv -f -- "$t.klab-unlink" "$t"
	done
	out=$(patch -p1 --forward --batch --fuzz=0 --read-only=ignore \
		--no-backup-if-mismatch -i "$piece" 2>&1) || {
		printf '%s\n' "$out" | patch_explain
		return 1
	}
}

# In the sandbox: split every file of INDIR (01, 02, ... in order) into
# OUTDIR/NN/0001 ..., printing "NN COUNT" per file; then scan each piece,
# and stop at the first refused one with "refuse NN J REASON" (status 2).
series_split_all() {
	indir=$1 outdir=$2
	for f in "$indir"/*; do
		[ -f "$f" ] || continue
		nn=${f##*/}
		n=$(patch_split "$f" "$outdir/$nn") || return 1
		echo "$nn $n"
		j=1
		while [ "$j" -le "$n" ]; do
			why=$(patch_scan "$outdir/$nn/$(printf '%04d' "$j")")
			[ -z "$why" ] || { echo "refuse $nn $j $why"; return 2; }
			j=$((j + 1))
		done
	done
}

# In the sandbox, in the tree: apply each piece named on stdin (one path a
# line), printing "applied K" (K from 0), or "failed K REASON" and status 2
# at the first that does not apply; then the stamp warm_save compares with
# (removed first: never written through a link a patch made).
series_apply_all() {
	k=0
	while IFS= read -r piece; do
		[ -n "$piece" ] || continue
		why=$(patch_apply_one "$piece") || {
			echo "failed $k $why"
			return 2
		}
		echo "applied $k"
		k=$((k + 1))
	done
	rm -f .klab-stamp && : >.klab-stamp
}

# A file name turned into a release-string word: "0001-elv-lowlat.patch" ->
# "elv-lowlat".
patch_short_name() {
	basename "$1" | sed -e 's/\.\(patch\|diff\|mbox\|eml\|txt\)$//' \
		-e 's/^[0-9]\{4\}-//' -e 's/[^A-Za-z0-9._-]/_/g'
}

# sha256 of stdin, hex only.
sha256_of() {
	sha256sum | cut -d ' ' -f 1
}

# Compare the fragment FRAG with the merged CONFIG: print one line per
# option whose requested value did not survive, "CONFIG_X=want (now: got)".
config_dropped() {
	frag=$1 config=$2
	awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			o = $0; sub(/=.*/, "", o); v = $0; sub(/^[^=]*=/, "", v)
			want[o] = v; order[++n] = o
		} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) {
			o = $2; want[o] = "n"; order[++n] = o
		}
		next
	}
	/^CONFIG_[A-Za-z0-9_]+=/ {
		o = $0; sub(/=.*/, "", o); v = $0; sub(/^[^=]*=/, "", v); got[o] = v
	}
	END {
		for (i = 1; i <= n; i++) {
			o = order[i]; g = (o in got) ? got[o] : "n"
			if (g != want[o])
				print o "=" want[o] " (now: " (g == "n" ? "not set" : g) ")"
		}
	}
	' "$frag" "$config"
}
