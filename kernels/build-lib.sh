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

# The part of a patch that decides what it does to the tree: everything from
# the first diff header to the signature ("-- ").  Commit messages, dates and
# the "From <sha>" line do not change the kernel, so they do not key a build.
patch_body() {
	awk '
	!on && (/^diff / || /^Index: / || /^--- /) { on = 1 }
	on && /^-- $/ { exit }
	on { print }
	' "$1"
}

# The files a patch writes (its "+++ b/path" lines, -p1), one per line.
patch_targets() {
	sed -n 's/^+++ [^/]*\/\([^\t]*\).*/\1/p' "$1" | sort -u
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

# Dry-run PATCH (a split piece) in TREE, then apply it.  Hard links to the
# pristine tree are broken first for every file the patch writes, so the
# shared pristine copy never changes.  On failure prints the reason (see
# patch_explain) and returns 1; the tree is left as it was.
patch_apply_one() {
	tree=$1 piece=$2
	out=$(cd "$tree" && patch -p1 --forward --batch --fuzz=0 --dry-run \
		-i "$piece" 2>&1) || {
		printf '%s\n' "$out" | patch_explain
		return 1
	}
	patch_targets "$piece" | while IFS= read -r t; do
		# never through a symlink or "..": only the tree's own files
		case /$t/ in */../*) continue ;; esac
		[ -f "$tree/$t" ] && [ ! -L "$tree/$t" ] || continue
		r=$(realpath -e -- "$tree/$t") || continue
		case $r in "$(realpath -e -- "$tree")"/*) ;; *) continue ;; esac
		cp -p "$tree/$t" "$tree/$t.klab-unlink" &&
			mv -f "$tree/$t.klab-unlink" "$tree/$t"
	done
	out=$(cd "$tree" && patch -p1 --forward --batch --fuzz=0 \
		--no-backup-if-mismatch -i "$piece" 2>&1) || {
		printf '%s\n' "$out" | patch_explain
		return 1
	}
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
