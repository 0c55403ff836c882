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
