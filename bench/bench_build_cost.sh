#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_build_cost.sh: what issue 29's sandboxing of the split, the
# apply and the stamp costs a build, measured against the build scripts
# before it (kernels/ at REF, default ee67a64) in the same run, on the
# real base (debian-6.1, linux-source-6.1):
#   1. the patch check (build-kernel.sh --check, what a request waits
#      for) of kernels/patches/elv-lowlat.patch, RUNS times each,
#      alternating old and new;
#   2. a patched build with a warm start from the base's built tree
#      (the canary, kernels/patches/canary-slow.patch), RUNS times each,
#      alternating, each in a fresh cache seeded with the shared pristine
#      tree and warm archive (hard links) and a fresh copy of the base's
#      ccache, so that neither side finds the other's objects (the old
#      scripts stored a patched build's objects; the new ones do not).
# Part 2 needs the unpatched base built once in CACHE, through ccache
# (t4100 does that; BUILD_BASE=1 makes this script do it first: 15+
# minutes on two cores); without it, part 2 is skipped and said so.  The
# cleanup of the tree (as the build user now) is inside both timings.
# Prints the load average before and after and each side's median; the
# ratio new/old of the medians is the figure (target: at most 1.05).
#
#   bench/bench_build_cost.sh [REF]      (RUNS=3 CACHE=/var/cache/klab/builds)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
REF=${1:-ee67a64}
RUNS=${RUNS:-5}
CACHE=${CACHE:-/var/cache/klab/builds}
CCACHE_BASE=${CCACHE_DIR:-/var/cache/klab/ccache}
W=$(mktemp -d /tmp/klab-bench-build.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
echo "load before: $(cut -d ' ' -f 1-3 /proc/loadavg)"

mkdir -p "$W/old"
git -C "$TOP" archive "$REF" kernels | tar -C "$W/old" -xf - ||
	die "cannot read kernels/ at $REF"
NEW=$TOP/kernels OLD=$W/old/kernels
COMMON="--base debian-6.1 --must-have CONFIG_KEXEC"

# The unpatched base, once: the pristine tree and the warm archive.
if [ "${BUILD_BASE:-0}" = 1 ]; then
	CCACHE_DIR=$CCACHE_BASE "$NEW/build-kernel.sh" $COMMON --ccache \
		--cache "$CACHE" >"$W/base.out" 2>"$W/base.err" ||
		die "base build: $(tail -3 "$W/base.err")"
fi
# the pristine tree, for part 1 (a --check unpacks it once)
"$NEW/build-kernel.sh" $COMMON --cache "$CACHE" --check >/dev/null 2>&1 ||
	die "cannot unpack the base into $CACHE/trees"
WHAT="check build"
ls "$CACHE"/warm/*.tar >/dev/null 2>&1 && [ -d "$CCACHE_BASE" ] || {
	echo "part 2 skipped: no warm archive in $CACHE/warm (BUILD_BASE=1)"
	WHAT=check
}

# seed DIR: a fresh cache sharing CACHE's pristine trees and warm archives
seed() {
	mkdir -p "$1/warm"
	cp -al "$CACHE/trees" "$1/trees"
	for t in "$CACHE"/warm/*.tar; do
		[ -f "$t" ] && ln "$t" "$1/warm/"
	done
	return 0
}

# timed SIDE WHAT ARGS...: seconds of one build-kernel.sh run
timed() {
	side=$1 what=$2; shift 2
	dir=$OLD; [ "$side" = new ] && dir=$NEW
	c=$W/c-$side-$what-$$-$(date +%s%N)
	seed "$c"
	mkdir -p "$W/ccache-run"
	[ -d "$CCACHE_BASE" ] && cp -a "$CCACHE_BASE/." "$W/ccache-run/"
	t0=$(date +%s.%N)
	CCACHE_DIR=$W/ccache-run "$dir/build-kernel.sh" $COMMON --ccache \
		--cache "$c" "$@" >"$W/out" 2>"$W/err" ||
		die "$side $what: $(tail -3 "$W/err")"
	t1=$(date +%s.%N)
	grep -q '^warm_start=yes' "$W/out" || [ "$what" = check ] ||
		die "$side $what: no warm start"
	rm -rf "$c" "$W/ccache-run"
	echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for what in $WHAT; do
	: >"$W/$what.old"; : >"$W/$what.new"
	for i in $(seq 1 "$RUNS"); do
		for side in old new; do
			if [ "$what" = check ]; then
				s=$(timed $side check --check \
					--patch "$TOP/kernels/patches/elv-lowlat.patch")
			else
				s=$(timed $side build \
					--patch "$TOP/kernels/patches/canary-slow.patch")
			fi
			echo "$s" >>"$W/$what.$side"
			echo "$what run $i $side: $s s"
		done
	done
	o=$(median <"$W/$what.old"); n=$(median <"$W/$what.new")
	printf '%s: old %s s, new %s s (medians of %s), new/old %.3f\n' \
		"$what" "$o" "$n" "$RUNS" "$(echo "$n / $o" | bc -l)"
done
echo "load after: $(cut -d ' ' -f 1-3 /proc/loadavg)"
