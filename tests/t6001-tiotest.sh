#!/bin/sh
# SPDX-License-Identifier: MIT
# tiotest on files in a temporary directory (and a loop device when the
# machine allows): consistent numbers (bytes = rate x time, request counts,
# ordered percentiles, the machine's CPU per request), --text in tiobench's layout, parameter errors,
# disk full, timeout and SIGTERM (partial results, files removed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
T=$KLAB_BIN/tiotest
mkdir -p "$TMP/d"

"$T" --disk "$TMP/d" --threads 4 --size 32 --random 300 --id 6.1.176 \
	--out "$TMP/r.json" || fail "tiotest run: exit $?"
[ "$(jq -r .schema "$TMP/r.json")" = klab-results/1 ] || fail "schema"
[ "$(jq -r .incomplete "$TMP/r.json")" = false ] || fail "incomplete"
[ "$(jq -r '.results[0].kernel' "$TMP/r.json")" = 6.1.176 ] || fail "--id"
for p in seq_write seq_read rand_write rand_read; do
	m=tiobench.$p
	rate=$(metric $m.rate "$TMP/r.json"); secs=$(metric $m.elapsed "$TMP/r.json")
	ops=$(metric $m.ops "$TMP/r.json"); max=$(metric $m.max_lat "$TMP/r.json")
	avg=$(metric $m.avg_lat "$TMP/r.json")
	case $p in
	seq_*) want=$((32 * 1024 * 1024 / 4096)) ;;	# every block once
	rand_*) want=$((4 * 300)) ;;
	esac
	check "$ops == $want" "$p: $ops requests, expected $want"
	# bytes moved = rate x time, within 0.1%
	check "($rate * $secs * 1048576 - $ops * 4096)^2 <= (0.001 * $ops * 4096)^2" \
		"$p: rate x time != bytes"
	last=$(ordered "$TMP/r.json" $m)
	check "$last <= $max && $avg <= $max && $avg > 0" "$p: avg/p99.99/max order"
	[ "$(metric $m.threads "$TMP/r.json")" = 4 ] || fail "$p threads"
	# how the threads shared it: io_busy = avg_lat x ops over threads x time
	busy=$(metric $m.io_busy "$TMP/r.json"); spread=$(metric $m.finish_spread "$TMP/r.json")
	check "($busy - 100 * $avg * $ops / 1000 / (4 * $secs))^2 < 1e-6 * $busy^2 + 1e-9" \
		"$p: io_busy $busy is not avg_lat x ops / (threads x elapsed)"
	check "$busy > 0 && $busy <= 100 && $spread >= 0 && $spread <= 100" \
		"$p: io_busy $busy or finish_spread $spread out of 0-100"
	# the whole machine's CPU per request and the kernel threads' share
	syscpu "$TMP/r.json" $m
done
no_test_files "$TMP/d"
ok "four phases consistent"

# --text: the four sections in tiobench's layout, the JSON beside it
"$T" --disk "$TMP/d" --threads 2 --size 8 --random 100 --text \
	--json "$TMP/t.json" --id 6.1.192 >"$TMP/t.txt" || fail "--text"
for s in "Sequential Reads" "Random Reads" "Sequential Writes" "Random Writes"; do
	grep -q "^$s\$" "$TMP/t.txt" || fail "section '$s' missing"
done
grep -q '^Identifier                    Size  Size  Thr   Rate  (CPU%)  Latency    Latency      >2s      >10s    Eff$' \
	"$TMP/t.txt" || fail "header line"
[ "$(grep -c '^---------------------------- ------ ----- ---  ------' "$TMP/t.txt")" = 4 ] || fail "rules"
row=$(grep -A4 '^Random Reads' "$TMP/t.txt" | tail -1)
set -- $row
[ "$1 $2 $3 $4" = "6.1.192 8 4096 2" ] || fail "row: $row"
rate=$(metric tiobench.rand_read.rate "$TMP/t.json")
check "($5 - $rate)^2 <= 0.005^2" "text rate $5 != json $rate"
ok "--text layout matches its JSON"

# steps: where its time went, in order, adding up to about its run
steps=$(jq -r '[.steps[].step] | join(" ")' "$TMP/r.json")
[ "$steps" = "setup seq_write seq_read.prefill seq_read rand_write rand_read cleanup" ] ||
	fail "steps: $steps"
check "$(jq '[.steps[].secs] | add' "$TMP/r.json") > 0" "steps take no time"

# --time: each phase ends after its time, done or not; it stays a whole
# measurement (bytes = rate x time), and the read phases still read
# written data (the rest of the files is filled before them)
"$T" --disk "$TMP/d" --threads 2 --size 512 --random 10000000 --time 0.2 \
	--drop-cache --out "$TMP/tb.json" || fail "--time run: exit $?"
[ "$(jq -r .incomplete "$TMP/tb.json")" = false ] || fail "--time: incomplete"
for p in seq_write seq_read rand_write rand_read; do
	m=tiobench.$p
	rate=$(metric $m.rate "$TMP/tb.json"); secs=$(metric $m.elapsed "$TMP/tb.json")
	ops=$(metric $m.ops "$TMP/tb.json")
	check "$ops > 0 && $ops < 2 * 10000000" "--time: $p made $ops requests"
	check "($rate * $secs * 1048576 - $ops * 4096)^2 <= (0.001 * $ops * 4096)^2" \
		"--time: $p: rate x time != bytes"
done
# reads took no more than their bound and a little (the last requests)
check "$(metric tiobench.rand_read.elapsed "$TMP/tb.json") < 5" "--time: rand_read not bounded"
jq -e '.steps | map(.step) | index("seq_read.prefill") != null' "$TMP/tb.json" >/dev/null ||
	fail "--time: no prefill after a cut sequential write"
# a read of a hole would count as a cached read: the device share says
# how much came from the device (tmpfs has none: only check the files)
no_test_files "$TMP/d"
ok "--time bounds each phase, rates whole, files filled before reads"

# parameter errors: exit 1, a message naming the option
"$T" --threads 0 --disk "$TMP/d" 2>"$TMP/e"; [ $? -eq 1 ] || fail "threads 0"
grep -q "for --threads" "$TMP/e" || fail "threads message: $(cat "$TMP/e")"
"$T" --disk "$TMP/d" --phases seq_read,bogus 2>"$TMP/e"; [ $? -eq 1 ] || fail "phases"
"$T" --disk "$TMP/d" --direct --block 1000 2>"$TMP/e"; [ $? -eq 1 ] || fail "direct block"
"$T" --disk "$TMP/d" --time 0 2>"$TMP/e"; [ $? -eq 1 ] || fail "time 0"
grep -q "for --time" "$TMP/e" || fail "time message: $(cat "$TMP/e")"
"$T" 2>"$TMP/e"; [ $? -eq 1 ] && grep -q "missing --disk" "$TMP/e" || fail "no disk"
"$T" --disk /nonexistent/dir/f --size 1 --threads 1 >"$TMP/o" 2>&1
[ $? -eq 1 ] || fail "missing parent dir"
ok "parameter errors"

# timeout: an error result naming it
"$T" --disk "$TMP/d" --threads 2 --size 2048 --timeout 0.5 --sync \
	--out "$TMP/to.json" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || fail "timeout exit $rc"
jq -r .error "$TMP/to.json" | grep -q "timeout after 0.5 s" || fail "timeout error: $(jq .error "$TMP/to.json")"
no_test_files "$TMP/d"
ok "timeout"

# SIGTERM: stop, write what was measured marked incomplete, remove files
"$T" --disk "$TMP/d" --threads 2 --size 4096 --sync --out "$TMP/sig.json" 2>/dev/null &
pid=$!
started "$TMP/d"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 2 ] || fail "SIGTERM exit $rc"
[ "$(jq -r .incomplete "$TMP/sig.json")" = true ] || fail "not marked incomplete"
ops=$(metric tiobench.seq_write.ops "$TMP/sig.json")
check "$ops > 0" "no partial numbers after SIGTERM"
no_test_files "$TMP/d"
ok "SIGTERM"

# disk full on a small tmpfs
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=4m tmpfs "$TMP/small" 2>/dev/null; then
	"$T" --disk "$TMP/small" --threads 2 --size 16 --out "$TMP/full.json" 2>/dev/null
	rc=$?
	no_test_files "$TMP/small"
	umount "$TMP/small"
	[ $rc -eq 1 ] || fail "disk full exit $rc"
	jq -r .error "$TMP/full.json" | grep -q "disk full on '$TMP/small/klab-tiotest" ||
		fail "disk full error: $(jq .error "$TMP/full.json")"
	ok "disk full"
else
	echo "no tmpfs mount allowed: disk-full case skipped"
fi

# a loop device: regions of a block device, O_DIRECT
dev=$(loop_dev 64)
if [ -n "$dev" ]; then
	"$T" --disk "$dev" --threads 4 --size 32 --random 200 --direct \
		--out "$TMP/loop.json"; rc=$?
	"$T" --disk "$dev" --threads 4 --size 128 --out "$TMP/big.json" 2>/dev/null
	rc2=$?
	losetup -d "$dev"
	[ $rc -eq 0 ] || fail "loop device run: exit $rc"
	check "$(metric tiobench.rand_read.ops "$TMP/loop.json") == 800" "loop ops"
	[ $rc2 -eq 1 ] || fail "too small device: exit $rc2"
	jq -r .error "$TMP/big.json" | grep -q "too small" || fail "too small: $(jq .error "$TMP/big.json")"
	ok "loop device $dev"
fi
# --region-flush: a write phase writes back its own regions, not the
# dirty pages another writer left on the device (an fsync writes both).
# The shell holds the device open (fd 3), so that no close is its last
# one: the last close of a block device writes all of it back.
dev=$(loop_dev 64)
if [ -n "$dev" ]; then
	exec 3<"$dev"
	sectors() { awk '{ print $7 }' "/sys/block/${dev#/dev/}/stat"; }
	# tiotest writes MiB 0-16; 16 MiB of another writer's at 48-64
	dd if=/dev/zero of="$dev" bs=1M seek=48 count=16 conv=notrunc \
		status=none || fail "dd to $dev"
	s0=$(sectors)
	"$T" --disk "$dev" --threads 2 --size 16 --phases seq_write \
		--region-flush --out "$TMP/rf.json" || fail "--region-flush: exit $?"
	s1=$(sectors)
	"$T" --disk "$dev" --threads 2 --size 16 --phases seq_write \
		--out "$TMP/fs.json" || fail "fsync run: exit $?"
	s2=$(sectors)
	exec 3<&-
	losetup -d "$dev"
	check "$(metric tiobench.seq_write.ops "$TMP/rf.json") == 4096" \
		"--region-flush ops"
	rf=$(((s1 - s0) / 2048)) fs=$(((s2 - s1) / 2048))
	check "$rf >= 16 && $rf < 24" \
		"--region-flush wrote $rf MiB to the device, expected its own 16"
	check "$fs >= 32" \
		"fsync wrote $fs MiB, expected its 16 and the other writer's 16"
	ok "--region-flush writes back its own regions ($rf MiB; fsync $fs)"
else
	echo "no loop device on this machine: block-device case skipped"
fi
exit 0
