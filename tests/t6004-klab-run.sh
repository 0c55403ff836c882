#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-test: alone (it compares the machine's vm settings before and after)
# klab-run: every suite at a small scale factor on directories under a
# temporary directory; results.json is a klab-results/1 document with the
# suite's name that a real klabd imports; raw outputs and per-repetition
# documents are kept; nothing is left on the disks.  The tiotest --text
# output imported by klabd gives back tiotest's own JSON numbers.  Errors:
# unknown suite, bad suite file, missing disk; SIGTERM mid-run.  The
# tiobench suite's vm key (its dirty limits) is set for the run, recorded
# as results and put back after it, after SIGTERM too, and after SIGKILL
# by the next run (of any suite) that finds the vm journal
# (/run/klab-run.vm) full and unlocked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wl-lib.sh"
KR=$KLAB_BIN/klab-run
SUITES=$TOP/workloads/suites
mkdir -p "$TMP/d1" "$TMP/d2"
start_klabd

run_suite() {
	s=$1; shift
	t0=$(date +%s)
	"$KR" "$s" --disks "$TMP/d1,$TMP/d2" --out "$TMP/out-$s" \
		--suites-dir "$SUITES" --id 6.1.176 "$@" 2>"$TMP/$s.log" ||
		fail "klab-run $s: exit $?: $(tail -3 "$TMP/$s.log")"
	f=$TMP/out-$s/results.json
	[ "$(jq -r .suite "$f")" = "$s" ] || fail "$s: suite name"
	[ "$(jq -r .incomplete "$f")" = false ] || fail "$s: incomplete"
	[ "$(jq -r '.results | length' "$f")" -gt 0 ] || fail "$s: no results"
	[ -s "$TMP/out-$s/raw/warmup.err" ] || [ -f "$TMP/out-$s/raw/warmup.out" ] ||
		fail "$s: no warm-up raw output"
	no_test_files "$TMP/d1"; no_test_files "$TMP/d2"
	[ -z "$(ls "$TMP/d1" "$TMP/d2" | grep -v '^/\|^$')" ] || fail "$s: left: $(ls -R "$TMP/d1")"
	klab import "$f" >"$TMP/imp" || fail "$s: klabd refused results.json: $(cat "$TMP/imp")"
	ok "$s ($(( $(date +%s) - t0 )) s)"
}

vm_now() {
	(cd /proc/sys/vm && cat dirty_bytes dirty_ratio dirty_background_bytes \
		dirty_background_ratio | tr '\n' ' ')
}
VM0=$(vm_now)
vm_same() { # WHEN: the machine's dirty limits are as before the test
	[ "$(vm_now)" = "$VM0" ] || fail "$1: vm left at $(vm_now), was $VM0"
	[ ! -s /run/klab-run.vm ] || fail "$1: journal left: $(cat /run/klab-run.vm)"
}
run_suite tiobench --scale 0.01 --repetitions 2
f=$TMP/out-tiobench
# the vm key: a thirty-second of the file, scaled; put back after
check "$(metric vm.dirty_bytes "$f/results.json") == 335544" "vm.dirty_bytes result"
check "$(metric vm.dirty_background_bytes "$f/results.json") == 167772" "vm.dirty_background_bytes result"
expect_grep 'klab-run: vm/dirty_bytes -> 335544 (was dirty_' "$TMP/tiobench.log"
vm_same "after tiobench"
for n in 1 2; do [ -s "$f/rep-$n.json" ] && [ -s "$f/raw/run-$n.json" ] || fail "repetition $n files"; done
# results.json holds the mean of the repetitions: harmonic for a rate
# (as mmtests), arithmetic for the rest
a=$(metric tiobench.rand_read.rate "$f/rep-1.json"); b=$(metric tiobench.rand_read.rate "$f/rep-2.json")
m=$(metric tiobench.rand_read.rate "$f/results.json")
check "(2 / (1 / $a + 1 / $b) - $m)^2 < 1e-9 * $m^2" "harmonic mean of $a and $b is not $m"
a=$(metric tiobench.rand_read.avg_lat "$f/rep-1.json"); b=$(metric tiobench.rand_read.avg_lat "$f/rep-2.json")
m=$(metric tiobench.rand_read.avg_lat "$f/results.json")
check "(($a + $b) / 2 - $m)^2 < 1e-9 * $m^2" "mean of $a and $b is not $m"
# and the sum of their latency histograms, phase by phase
hsum() { jq "[.hist.\"tiobench.$1\".buckets[][1]] | add" "$2"; }
for ph in seq_write rand_read; do
	a=$(hsum $ph "$f/rep-1.json"); b=$(hsum $ph "$f/rep-2.json"); m=$(hsum $ph "$f/results.json")
	check "$a > 0 && $a + $b == $m" "$ph histogram: $a + $b is not $m"
done
run_suite tiobench-under-writes --scale 0.01 --repetitions 1
check "$(metric tiobench.seq_read.ops "$TMP/out-tiobench-under-writes/results.json") > 0" "under writes"
run_suite iops-alldisks --scale 0.02 --repetitions 1
check "$(metric iops.dev.d1 "$TMP/out-iops-alldisks/results.json") > 0" "iops d1"
check "$(metric iops.dev.d2 "$TMP/out-iops-alldisks/results.json") > 0" "iops d2"
# the suite's headline CPU per I/O reaches the run's results
check "$(metric iops.sys_cpu_per_op "$TMP/out-iops-alldisks/results.json") > 0" "iops CPU per op"
# tiotest --text, imported by klabd, gives back its own JSON numbers
"$KLAB_BIN/tiotest" --disk "$TMP/d1" --threads 2 --size 8 --random 200 \
	--text --json "$TMP/rt.json" --id 6.1.192 >"$TMP/rt.txt" || fail "tiotest --text"
klab import "$TMP/rt.txt" --suite manual >"$TMP/imp" || fail "text import: $(cat "$TMP/imp")"
for p in seq_read rand_read seq_write rand_write; do
	for fld in file_size:0.5 blk_size:0.5 threads:0.5 rate:0.005 avg_lat:0.0005 \
		max_lat:0.005 lat_2s:0.000005 cpu_eff:0.5; do
		k=${fld%%:*}; tol=${fld#*:}
		want=$(metric tiobench.$p.$k "$TMP/rt.json")
		got=$(klab history tiobench.$p.$k --suite manual --format json |
			jq -r '[.points[] | select(.kernel == "6.1.192") | .value][0]')
		check "($got - $want)^2 <= ($tol + 1e-9)^2" "$p.$k: text gave $got, JSON $want"
	done
done
ok "tiotest --text round-trips through the importer"

# errors
"$KR" nosuch --disks "$TMP/d1" --out "$TMP/o" --suites-dir "$SUITES" 2>"$TMP/e"
[ $? -eq 1 ] && grep -q "unknown suite 'nosuch'" "$TMP/e" || fail "unknown suite: $(cat "$TMP/e")"
printf 'name = x\nworkload = tiotest --disk {disk}\nwarmup = none\nbogus = 1\n' >"$TMP/bad.suite"
"$KR" "$TMP/bad.suite" --disks "$TMP/d1" --out "$TMP/o" 2>"$TMP/e"
grep -q "line 4: unknown key 'bogus'" "$TMP/e" || fail "bad key: $(cat "$TMP/e")"
printf 'name = x\nworkload = tiotest --size {x} --disk {disk}\nwarmup = none\n' >"$TMP/bad2.suite"
"$KR" "$TMP/bad2.suite" --disks "$TMP/d1" --out "$TMP/o" 2>"$TMP/e"
grep -q "unknown placeholder '{x}'" "$TMP/e" || fail "placeholder: $(cat "$TMP/e")"
"$KR" tiobench --disks /nonexistent/x --out "$TMP/o" --suites-dir "$SUITES" 2>"$TMP/e"
grep -q "disk '/nonexistent/x' does not exist" "$TMP/e" || fail "missing disk: $(cat "$TMP/e")"
printf 'name = x\nworkload = tiotest --threads 2 --size 4096 --sync --disk {disk}\nwarmup = none\ntimeout = 1\n' >"$TMP/slow.suite"
"$KR" "$TMP/slow.suite" --disks "$TMP/d1" --out "$TMP/slow" 2>/dev/null; rc=$?
[ $rc -eq 1 ] || fail "timeout exit $rc"
jq -r .error "$TMP/slow/results.json" | grep -q "repetition 1 of 1: tiotest: timeout after 1 s" ||
	fail "timeout error: $(jq .error "$TMP/slow/results.json")"
no_test_files "$TMP/d1"
ok "errors"

# SIGTERM: the running step stops, results.json is written incomplete
"$KR" tiobench --disks "$TMP/d1" --out "$TMP/sig" --suites-dir "$SUITES" \
	--scale 4 2>/dev/null &
pid=$!
i=0
while [ ! -e "$TMP/sig/raw/warmup.err" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 2 ] || fail "SIGTERM exit $rc: $(jq .error "$TMP/sig/results.json" 2>&1)"
[ "$(jq -r .incomplete "$TMP/sig/results.json")" = true ] || fail "not incomplete"
no_test_files "$TMP/d1"
vm_same "after SIGTERM"
ok "SIGTERM"

# SIGKILL while it holds the vm settings: the next run, of a suite with
# no vm key, puts them back
setsid "$KR" tiobench --disks "$TMP/d1" --out "$TMP/kill" \
	--suites-dir "$SUITES" --scale 4 2>"$TMP/kill.log" &
pid=$!
i=0
while ! grep -q 'vm/dirty_background_bytes' "$TMP/kill.log" && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -KILL -$pid
wait $pid
[ -s /run/klab-run.vm ] || fail "no vm journal after SIGKILL: $(cat "$TMP/kill.log")"
[ "$(cat /proc/sys/vm/dirty_bytes)" = 134217728 ] || fail "the killed run's dirty_bytes: $(vm_now)"
rm -rf "$TMP/d1" "$TMP/out-iops-alldisks"
mkdir -p "$TMP/d1"
run_suite iops-alldisks --scale 0.02 --repetitions 1
expect_grep 'put back /proc/sys/vm/dirty_.* = [0-9]*, left by a run that did not finish' "$TMP/iops-alldisks.log"
vm_same "after SIGKILL and the next run"
ok "SIGKILL: the next run put the vm settings back"
exit 0
