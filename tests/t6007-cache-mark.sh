#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-test: alone (it counts the reads of the machine's own disk)
# Read phases reach the device, and say so: tiotest on a file of a real
# block device (the test machine's own disk) with --drop-cache reads at
# least 90% of what it asked for from the device (tiobench.PHASE.cached =
# 0); the same run without it is served from the page cache and marked
# (cached = 1).  A real klabd comparing a kernel whose read rate halved in
# a phase marked cached gives that phase no verdict and says why, while a
# halved rate in a phase that reached the device is worse.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
TIO=$KLAB_BIN/tiotest
mkdir -p "$TMP/d"
if [ -z "$(stat -f -c %T "$TMP/d" | grep -v -e tmpfs -e overlay)" ]; then
	skip "'$TMP' is not on a block device"
fi
run() {
	"$TIO" --disk "$TMP/d" --threads 4 --size 32 --random 200 \
		--phases seq_write,seq_read,rand_read "$@" >"$TMP/r.json" 2>"$TMP/err" ||
		fail "tiotest $*: $(cat "$TMP/err")"
}
run --drop-cache
[ "$(metric tiobench.seq_read.cached "$TMP/r.json")" = missing ] &&
	skip "no block device found behind '$TMP' (no /sys/block counters)"
for p in seq_read rand_read; do
	check "$(metric tiobench.$p.cached "$TMP/r.json") == 0" "$p cached with --drop-cache"
	check "$(metric tiobench.$p.dev_read_share "$TMP/r.json") >= 0.9" "$p share"
done
[ "$(metric tiobench.seq_write.cached "$TMP/r.json")" = missing ] ||
	fail "a write phase has a cache mark"
cp "$TMP/r.json" "$TMP/device.json"
ok "--drop-cache: both read phases read >= 90% from the device, cached = 0"
run
check "$(metric tiobench.seq_read.cached "$TMP/r.json") == 1" "seq_read not marked cached"
check "$(metric tiobench.seq_read.dev_read_share "$TMP/r.json") < 0.9" "seq_read share"
cp "$TMP/r.json" "$TMP/cached.json"
ok "without it: seq_read served from the page cache, cached = 1"

# the judge: three cells a side; the candidate's seq_read and rand_read
# rates halve, seq_read marked cached in one of its runs
start_klabd
for n in 1 2 3; do
	for side in A B; do
		jq --arg k "6.1.$side" --arg s "$side" --argjson n "$n" '
			.kernel = $k | .suite = "tiobench" | .results |= map(.kernel = $k |
			if ($s == "B" and (.metric | test("read\\.rate$"))) then .value /= 2
			elif ($s == "B" and $n == 2 and .metric == "tiobench.seq_read.cached") then .value = 1
			elif (.metric | test("\\.rate$")) then .value *= (1 + $n / 1000)
			else . end)' "$TMP/device.json" >"$TMP/$side-$n.json"
		klab import "$TMP/$side-$n.json" >"$TMP/imp" || fail "import $side $n: $(cat "$TMP/imp")"
	done
done
http GET "/api/compare?k=6.1.A&k=6.1.B&suite=tiobench&format=json" >"$TMP/cmp.json"
expect_status 200
cell() { jq -r --arg m "$1" ".metrics[] | select(.name == \$m) | .cells[1].$2" "$TMP/cmp.json"; }
[ "$(cell tiobench.seq_read.rate verdict)" = none ] ||
	fail "cached seq_read: verdict $(cell tiobench.seq_read.rate verdict)"
[ "$(cell tiobench.seq_read.rate note)" = "served from cache, no verdict" ] ||
	fail "cached seq_read: note '$(cell tiobench.seq_read.rate note)'"
[ "$(cell tiobench.rand_read.rate verdict)" = worse ] ||
	fail "device rand_read: verdict $(cell tiobench.rand_read.rate verdict)"
http GET "/compare?k=6.1.A&k=6.1.B&suite=tiobench" >"$TMP/page.html"
expect_status 200
grep -q "served from cache" "$TMP/page.html" || fail "the page does not show the cache mark"
ok "compare: the cached phase has no verdict and says why; the device phase is worse"
stop_klabd
