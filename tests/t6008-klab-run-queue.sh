#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-run and a suite's queue key (block queue attributes for the run):
# on a loop device, tiobench-under-writes-nowbt turns writeback throttling
# off for the run, records queue.wbt_lat_usec = 0 with its results, and
# puts the device's own value back afterwards; an attribute the kernel
# does not have fails the run at once with a message naming it, and
# changes nothing; a suite with a queue key on a disk with no block
# device behind it (tmpfs) is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
KR=$KLAB_BIN/klab-run
[ "$(id -u)" = 0 ] || skip "needs root (a loop device, sysfs writes)"
command -v losetup >/dev/null || skip "no losetup"
truncate -s 160M "$TMP/disk.img"
LO=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || skip "cannot set up a loop device"
at_cleanup 'losetup -d "$LO"'
Q=/sys/block/${LO#/dev/}/queue
[ -w "$Q/wbt_lat_usec" ] || skip "$LO has no writable wbt_lat_usec"
echo 12345 >"$Q/wbt_lat_usec" 2>/dev/null || skip "cannot set $Q/wbt_lat_usec"
before=$(cat "$Q/wbt_lat_usec")

"$KR" tiobench-under-writes-nowbt --disks "$LO" --out "$TMP/out" --scale 0.02 \
	--repetitions 1 --suites-dir "$TOP/workloads/suites" --id 6.1.176 \
	2>"$TMP/log" || fail "klab-run: exit $?: $(tail -3 "$TMP/log")"
grep -q "queue/wbt_lat_usec $before -> 0" "$TMP/log" || fail "no line for the change: $(cat "$TMP/log")"
[ "$(metric queue.wbt_lat_usec "$TMP/out/results.json")" = 0 ] || fail "queue.wbt_lat_usec not recorded"
[ "$(cat "$Q/wbt_lat_usec")" = "$before" ] || fail "wbt_lat_usec not put back: $(cat "$Q/wbt_lat_usec")"
for p in seq_read rand_read; do
	[ "$(metric tiobench.$p.cached "$TMP/out/results.json")" = 0 ] ||
		fail "$p served from cache: device share" \
			"$(metric tiobench.$p.dev_read_share "$TMP/out/results.json")," \
			"$(metric tiobench.$p.ops "$TMP/out/results.json") ops;" \
			"$(grep -rih 'page cache' "$TMP/log" "$TMP/out" | head -3)"
done
ok "wbt off for the run ($before -> 0 -> $before), recorded, reads from the device"

mkdir -p "$TMP/s"
cat >"$TMP/s/q.suite" <<'S'
name = q
workload = tiotest --threads 1 --size 1 --random 10 --disk {disk}
warmup = none
queue = nr_requests=32 iosched/no_such_tunable=4
S
nr=$(cat "$Q/nr_requests")
"$KR" q --disks "$LO" --out "$TMP/q" --suites-dir "$TMP/s" 2>"$TMP/qlog"; rc=$?
[ $rc = 1 ] || fail "missing attribute: exit $rc"
grep -q "cannot set block queue attribute iosched/no_such_tunable=4 of suite 'q' on ${LO#/dev/}" \
	"$TMP/qlog" || fail "message: $(cat "$TMP/qlog")"
jq -r .error "$TMP/q/results.json" | grep -q "iosched/no_such_tunable" || fail "results.json error"
[ "$(cat "$Q/nr_requests")" = "$nr" ] || fail "nr_requests left at $(cat "$Q/nr_requests")"
[ "$(metric tiobench.seq_write.rate "$TMP/q/results.json")" = missing ] || fail "the workload ran"
ok "an attribute the kernel lacks: refused before the run, nothing left changed"

if [ -d /dev/shm ] && stat -f -c %T /dev/shm | grep -q tmpfs; then
	d=$(mktemp -d /dev/shm/klab-q.XXXXXX)
	"$KR" q --disks "$d" --out "$TMP/t" --suites-dir "$TMP/s" 2>"$TMP/tlog"; rc=$?
	rm -rf "$d"
	[ $rc = 1 ] || fail "tmpfs: exit $rc"
	grep -q "no block device is behind its disks" "$TMP/tlog" || fail "tmpfs: $(cat "$TMP/tlog")"
	ok "no block device behind the disk: refused"
fi
exit 0
