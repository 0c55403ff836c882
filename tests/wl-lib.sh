# SPDX-License-Identifier: MIT
# Helpers for the workload tests (family t6): sourced after tests/lib.sh.
# jq reads the klab-results/1 documents; metric NAME [FILE] prints a value.
command -v jq >/dev/null 2>&1 || skip "jq not installed"

# metric NAME FILE: the value of metric NAME in a results document
metric() {
	jq -r --arg m "$1" '[.results[] | select(.metric == $m) | .value][0] // "missing"' "$2"
}

# check EXPR MESSAGE: awk-evaluated numeric condition
check() {
	awk "BEGIN { exit !($1) }" || fail "$2 ($1)"
}

# ordered FILE PREFIX [p90/p99_99 too]: min <= p50 <= p99 <= p99.9 <= max
ordered() {
	f=$1; p=$2; last=0
	for k in lat_p50 lat_p90 lat_p99 lat_p99_9 lat_p99_99; do
		v=$(metric "$p.$k" "$f")
		[ "$v" = missing ] && continue
		check "$v >= $last" "$p.$k=$v below the previous percentile $last"
		last=$v
	done
	echo "$last"
}

# no_test_files DIR: nothing klab created is left behind
no_test_files() {
	left=$(find "$1" -name 'klab-*' 2>/dev/null | head -3)
	[ -z "$left" ] || fail "test files left in $1: $left"
}

# loop_dev SIZE_MB: attach a loop device over a file in $TMP, print its
# path, or print nothing when this machine does not allow it
loop_dev() {
	truncate -s "${1}M" "$TMP/loop.img" 2>/dev/null || return 0
	losetup -f --show "$TMP/loop.img" 2>/dev/null || true
}

# started DIR: wait until a workload put its files (klab-*) in DIR, which
# it does after its signal handler is in, then give it a second to
# measure something; a fixed sleep instead lets a loaded machine deliver
# the signal before the handler (exit 143, not 2)
started() {
	n=0
	until [ -n "$(find "$1" -name 'klab-*' 2>/dev/null | head -1)" ]; do
		n=$((n + 1))
		[ $n -lt 600 ] || fail "no workload files in $1 after 60 s"
		sleep 0.1
	done
	sleep 1
}

# syscpu FILE PREFIX: the machine's CPU per I/O of a phase (syscpu.h) is
# there and consistent: CPU per op x ops (busy seconds) fits in the
# phase's CPUs x elapsed, with 0.25 s for the readings around the phase;
# the kernel threads' share is 0-100.  A phase long enough that the
# tick-sampled busy time cannot be 0 (0.1 CPU-seconds: 10 ticks at 100
# Hz, at least 25 kernel ticks) must have some, and a share of at most
# 100 (per-task times and /proc/stat's ticks are sampled apart).
syscpu() {
	f=$1; p=$2
	ncpu=$(getconf _NPROCESSORS_ONLN)
	per=$(metric "$p.sys_cpu_per_op" "$f"); share=$(metric "$p.kthread_share" "$f")
	ops=$(metric "$p.ops" "$f"); secs=$(metric "$p.elapsed" "$f")
	[ "$per" != missing ] && [ "$share" != missing ] ||
		fail "$f: $p.sys_cpu_per_op or $p.kthread_share missing"
	[ "$(jq -r --arg m "$p.sys_cpu_per_op" '.results[] | select(.metric == $m) | "\(.unit) \(.direction)"' "$f")" = "us lower" ] ||
		fail "$f: $p.sys_cpu_per_op is not in us, lower is better"
	[ "$(jq -r --arg m "$p.kthread_share" '.results[] | select(.metric == $m) | "\(.unit) \(.direction)"' "$f")" = "% none" ] ||
		fail "$f: $p.kthread_share is not a share without direction"
	check "$per >= 0 && $per * $ops / 1e6 <= $ncpu * ($secs + 0.25)" \
		"$f: $p: $per us x $ops ops of CPU in $secs s on $ncpu CPUs"
	check "$share >= 0" "$f: $p.kthread_share $share"
	if awk "BEGIN { exit !($ncpu * $secs >= 0.1) }"; then
		check "$per > 0" "$f: $p: no CPU in $secs s on $ncpu CPUs"
		check "$share <= 100" "$f: $p.kthread_share $share"
	fi
}
