#!/bin/sh
# SPDX-License-Identifier: MIT
# rio on files in a temporary directory: readers under streaming writers
# and under a background command (dbench when installed), consistent
# numbers (the machine's CPU per read too), the two text lines, a load that ends early, SIGTERM.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
R=$KLAB_BIN/rio
mkdir -p "$TMP/d"

"$R" --disk "$TMP/d" --readers 2 --random --read-size 16 --writers 1 \
	--write-size 32 --warmup 0.5 --time 2 --id 6.1.176 --out "$TMP/r.json" ||
	fail "rio with writers: exit $?"
mb=$(metric readlat.read_mb "$TMP/r.json"); rate=$(metric readlat.rate "$TMP/r.json")
secs=$(metric readlat.elapsed "$TMP/r.json"); ops=$(metric readlat.ops "$TMP/r.json")
check "$secs >= 2 && $secs < 3" "measured $secs s for --time 2"
check "($mb - $ops * 4096 / 1048576)^2 < 1e-9" "MB read != reads x 4 KiB"
check "($rate * $secs - $mb)^2 <= (0.001 * $mb)^2" "rate x time != MB"
last=$(ordered "$TMP/r.json" readlat)
max=$(metric readlat.lat_max "$TMP/r.json"); min=$(metric readlat.lat_min "$TMP/r.json")
avg=$(metric readlat.lat_avg "$TMP/r.json")
check "$min <= $avg && $avg <= $max && $last <= $max" "min/avg/max order"
check "$(metric readlat.write_rate "$TMP/r.json") > 0" "writers wrote nothing"
# the machine's CPU per read over the timed reads, the writers' included
syscpu "$TMP/r.json" readlat
no_test_files "$TMP/d"
ok "readers under writers"

# the cache check on the readers' own reads (/proc/self/io): two readers
# alone going round 8 MiB regions for 1.5 s read them from the page cache
# after the first pass, and say so; a sequential reader drops its file at
# each turn and is not marked; on a file system without a block device
# (tmpfs) there is no check
"$R" --disk "$TMP/d" --readers 2 --random --read-size 8 --warmup 0 \
	--time 1.5 --out "$TMP/c.json" || fail "rio, cached: exit $?"
case $(findmnt -n -o SOURCE --target "$TMP") in
/dev/*)
	[ -r /proc/self/io ] || skip "no /proc/self/io (CONFIG_TASK_IO_ACCOUNTING)"
	check "$(metric readlat.cached "$TMP/c.json") == 1" "re-read regions not marked cached"
	check "$(metric readlat.dev_read_share "$TMP/c.json") < 0.9" "device share of re-read regions"
	ok "re-reads served by the page cache are marked cached"
	# a sequential reader going round its 8 MiB file drops it at each
	# turn, so every pass reads the disk again: not marked
	"$R" --disk "$TMP/d" --readers 1 --read-size 8 --warmup 0 \
		--time 1.5 --out "$TMP/s.json" || fail "rio, sequential: exit $?"
	mb=$(metric readlat.read_mb "$TMP/s.json")
	check "$mb > 8" "the sequential reader did not go round its file: $mb MB"
	check "$(metric readlat.cached "$TMP/s.json") == 0" "a sequential reader's later passes marked cached"
	ok "a sequential reader that goes round its file reads the disk each time ($mb MB)" ;;
*)
	jq -e '[.results[].metric] | index("readlat.cached") == null' "$TMP/c.json" >/dev/null ||
		fail "a cache mark without a block device"
	ok "no cache check without a block device" ;;
esac

"$R" --disk "$TMP/d" --read-size 8 --writers 1 --write-size 16 --warmup 0 \
	--time 1 --text >"$TMP/t.txt" || fail "--text"
grep -Eq '^reads: [0-9.]+ MB, [0-9.]+ MB/s$' "$TMP/t.txt" || fail "reads line: $(cat "$TMP/t.txt")"
grep -Eq '^read latency min [0-9.]+ avg [0-9.]+ max [0-9.]+ > 2s [0-9.]+% > 10s [0-9.]+%$' \
	"$TMP/t.txt" || fail "latency line: $(cat "$TMP/t.txt")"
ok "text lines"

if command -v dbench >/dev/null 2>&1; then
	"$R" --disk "$TMP/d" --read-size 8 --load-cmd "dbench -t 100 4" \
		--warmup 1 --time 2 --out "$TMP/db.json" || fail "rio under dbench: exit $?"
	check "$(metric readlat.ops "$TMP/db.json") > 0" "no reads under dbench"
	[ -z "$(ls "$TMP/d")" ] || fail "left behind: $(ls "$TMP/d")"
	ok "readers under dbench"
else
	echo "dbench not installed: background-command case uses sleep only"
fi

# the load ends before the measurement does: an error saying so
"$R" --disk "$TMP/d" --read-size 8 --load-cmd "sleep 0.3" --warmup 0 \
	--time 3 --out "$TMP/early.json" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || fail "early load end: exit $rc"
jq -r .error "$TMP/early.json" | grep -q "background load 'sleep 0.3' ended early (exit 0)" ||
	fail "early: $(jq .error "$TMP/early.json")"
"$R" --disk "$TMP/d" --load-cmd "no-such-program-klab" --time 1 \
	--out "$TMP/nx.json" 2>/dev/null; [ $? -eq 1 ] || fail "missing program"
jq -r .error "$TMP/nx.json" | grep -q "cannot run 'no-such-program-klab'" || fail "missing program message"
"$R" --disk "$TMP/d" --readers 0 2>"$TMP/e"; [ $? -eq 1 ] || fail "nothing to run"
grep -q "nothing to run" "$TMP/e" || fail "nothing to run message"
"$R" --disk "$TMP/d" --load-cmd 'dbench "4' 2>/dev/null --out "$TMP/q.json"
jq -r .error "$TMP/q.json" | grep -q "unterminated quote" || fail "quote error"
no_test_files "$TMP/d"
ok "errors"

# writers only, at the end (tiobench-under-writes' background load): each
# writer's region is --write-size long, not the unused --read-size (64 MiB
# by default), so the writers stay clear of the disk's start, where
# tiotest works (the regions of an existing file begin at 1 TiB)
: >"$TMP/disk"
"$R" --disk "$TMP/disk" --readers 0 --writers 2 --write-size 4 --at-end \
	--warmup 0 --time 1 --out "$TMP/w.json" || fail "writers only: exit $?"
size=$(stat -c %s "$TMP/disk")
[ "$size" = $(((1 << 40) + (8 << 20))) ] ||
	fail "two 4 MiB writers at the end grew the file to $size bytes (want 1 TiB + 8 MiB)"
rm -f "$TMP/disk"
ok "writers only: regions of --write-size at the end"

# SIGTERM during the measurement: partial numbers marked incomplete,
# the load stopped, files removed
"$R" --disk "$TMP/d" --read-size 8 --writers 1 --write-size 16 \
	--load-cmd "sleep 100.$$" --warmup 0 --time 60 --out "$TMP/sig.json" 2>/dev/null &
pid=$!
started "$TMP/d"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 2 ] || fail "SIGTERM exit $rc"
[ "$(jq -r .incomplete "$TMP/sig.json")" = true ] || fail "not incomplete"
check "$(metric readlat.ops "$TMP/sig.json") > 0" "no partial numbers"
pgrep -f "sleep 100.$$" >/dev/null && fail "background load still running"
no_test_files "$TMP/d"
ok "SIGTERM"
exit 0
