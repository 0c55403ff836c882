#!/bin/sh
# SPDX-License-Identifier: MIT
# Device counters per phase: klab-run on a directory whose block device is
# a partition in a fake sysroot (KLAB_SYSROOT); a ticker moves the disk's
# /sys/block/DEV/stat while the suite runs.  tiotest records
# tiobench.PHASE.dev_* (the disk's counters, not the partition's), klab-run
# records iops.dev_* around a whole step, all with direction "none"; with
# no block device nothing is recorded and stderr says so once.  A real
# klabd comparing two kernels whose dev_ counters differ tenfold gives them
# no verdict, while a tenfold drop of a rate gets one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
KR=$KLAB_BIN/klab-run
SUITES=$TOP/workloads/suites
mkdir -p "$TMP/d1" "$TMP/empty"

# the fake tree: $TMP/d1 lives on partition vdz1 of disk vdz
R=$TMP/root; D=$R/sys/devices/virtual/block/vdz
mkdir -p "$D/vdz1" "$R/sys/dev/block"
echo 1 >"$D/vdz1/partition"
echo "0 0 0 0 0 0 0 0 0 0 0" >"$D/vdz1/stat"
echo "0 0 0 0 0 0 0 0 0 0 0" >"$D/stat"
ln -s ../../devices/virtual/block/vdz/vdz1 "$R/sys/dev/block/$(stat -c '%Hd:%Ld' "$TMP/d1")"
# N reads of 8 KiB, N writes of 4 KiB, N ms busy, 2N ms in queue
(i=0; while [ ! -e "$TMP/stop" ]; do
	i=$((i + 1))
	echo "$i 0 $((16 * i)) 0 $i 0 $((8 * i)) 0 0 $i $((2 * i))" >"$D/stat.new"
	mv "$D/stat.new" "$D/stat"
	sleep 0.01
done) &
TICKER=$!

KLAB_SYSROOT=$R "$KR" tiobench --disks "$TMP/d1" --out "$TMP/out" \
	--suites-dir "$SUITES" --id 6.1.176 --scale 0.02 --repetitions 3 \
	2>"$TMP/run.log" || fail "klab-run: $(tail -3 "$TMP/run.log")"
KLAB_SYSROOT=$R "$KR" iops-alldisks --disks "$TMP/d1" --out "$TMP/out-iops" \
	--suites-dir "$SUITES" --id 6.1.176 --scale 0.02 --repetitions 1 \
	2>"$TMP/iops.log" || fail "klab-run iops: $(tail -3 "$TMP/iops.log")"
touch "$TMP/stop"; wait $TICKER

f=$TMP/out/results.json
dev() { jq -c --arg m "$1" '[.results[] | select(.metric == $m) | .direction, .unit][]' "$2" | tr '\n' ' '; }
sum=0
for p in seq_write seq_read rand_write rand_read; do
	for k in dev_reads:'""' dev_read_merges:'""' dev_read_sectors:'""' \
		dev_writes:'""' dev_write_merges:'""' dev_write_sectors:'""' \
		dev_io_ticks_ms:'"ms"' dev_queue_ms:'"ms"'; do
		n=tiobench.$p.${k%%:*}
		[ "$(dev "$n" "$f")" = "\"none\" ${k#*:} " ] || fail "$n: $(dev "$n" "$f")"
	done
	r=$(metric tiobench.$p.dev_reads "$f")
	s=$(metric tiobench.$p.dev_read_sectors "$f")
	check "$s == 16 * $r" "$p: $s sectors for $r reads"
	if [ "$r" != 0 ]; then
		check "$(metric tiobench.$p.dev_read_kib_per_io "$f") == 8" "$p KiB per read"
		[ "$(dev tiobench.$p.dev_read_kib_per_io "$f")" = '"none" "KiB" ' ] || fail "$p kib unit"
	fi
	sum=$(awk "BEGIN { print $sum + $r }")
done
check "$sum > 0" "the disk's counters never moved in any phase (partition read instead?)"
# tiotest recorded its phases: no whole-step tiobench.dev_reads on top
[ "$(metric tiobench.dev_reads "$f")" = missing ] || fail "tiobench.dev_reads recorded twice"
ok "tiobench.PHASE.dev_* from the disk behind the partition, direction none"
fi=$TMP/out-iops/results.json
[ "$(dev iops.dev_reads "$fi")" = '"none" "" ' ] || fail "iops.dev_reads: $(dev iops.dev_reads "$fi")"
check "$(metric iops.dev_reads "$fi") > 0" "iops.dev_reads did not move"
ok "klab-run records iops.dev_* around the step"

# no block device behind the disk: nothing recorded, said once
KLAB_SYSROOT=$TMP/empty "$KR" tiobench --disks "$TMP/d1" --out "$TMP/out-none" \
	--suites-dir "$SUITES" --id 6.1.176 --scale 0.01 --repetitions 2 \
	2>"$TMP/none.log" || fail "klab-run without device: $(tail -3 "$TMP/none.log")"
[ "$(grep -c 'no block device' "$TMP/none.log")" = 1 ] || fail "not said once: $(cat "$TMP/none.log")"
[ "$(jq '[.results[] | select(.metric | test("dev_"))] | length' "$TMP/out-none/results.json")" = 0 ] ||
	fail "dev_ metrics without a device"
ok "no device: no counters, one line on stderr"

# the judge: dev_ counters ten times higher get no verdict, a rate ten
# times lower does
start_klabd
for n in 1 2 3; do
	klab import "$TMP/out/rep-$n.json" >"$TMP/imp" || fail "import A $n: $(cat "$TMP/imp")"
	jq '.kernel = "6.1.192" | .results |= map(.kernel = "6.1.192" |
		if (.metric | test("\\.dev_")) then .value = .value * 10 + 1000
		elif .metric == "tiobench.seq_write.rate" then .value = .value / 10
		else . end)' "$TMP/out/rep-$n.json" >"$TMP/b-$n.json"
	klab import "$TMP/b-$n.json" >"$TMP/imp" || fail "import B $n: $(cat "$TMP/imp")"
done
http GET "/api/compare?k=6.1.176&k=6.1.192&suite=tiobench&format=json" >"$TMP/cmp.json"
expect_status 200
n=$(jq '[.metrics[] | select(.name | test("\\.dev_"))] | length' "$TMP/cmp.json")
[ "$n" -ge 32 ] || fail "only $n dev_ metrics in the comparison"
bad=$(jq -c '[.metrics[] | select(.name | test("\\.dev_")) |
	select(.direction != "none" or .cells[1].verdict != "none") | .name]' "$TMP/cmp.json")
[ "$bad" = "[]" ] || fail "dev_ metrics with a verdict: $bad"
v=$(jq -r '.metrics[] | select(.name == "tiobench.seq_write.rate") | .cells[1].verdict' "$TMP/cmp.json")
[ "$v" = worse ] || fail "the tenfold rate drop got verdict '$v'"
ok "compare: $n dev_ metrics without verdict, the rate drop is worse"
stop_klabd
