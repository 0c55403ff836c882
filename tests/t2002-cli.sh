#!/bin/sh
# SPDX-License-Identifier: MIT
# The klab CLI against a real klabd: import, compare (text pastes into mail
# unchanged: plain ASCII, no tabs), history, lists, exit codes.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data/demo
start_klabd

klab --help | grep -q 'usage: klab' || fail "--help"
klab import "$D/tiobench-mail.txt" >"$TMP/out" || fail "import: $(cat "$TMP/out")"
expect_grep 'imported 120 results' "$TMP/out"
klab import "$D/dbench-50.txt" >/dev/null || fail "import dbench"
klab import "$D/readlat-under-dbench.txt" --suite rio-under-dbench >/dev/null || fail "import readlat"
klab import - --kernel 6.1.176 <"$D/dbench-50.txt" >/dev/null || fail "import stdin"

klab compare 6.1.176 6.1.192 6.12.117 --suite tiobench >"$TMP/cmp.txt" || fail "compare"
expect_grep 'Sequential Reads' "$TMP/cmp.txt"
expect_grep 'Random Writes' "$TMP/cmp.txt"
expect_grep '^6.12.117 ' "$TMP/cmp.txt"
! grep -q "$(printf '\t')" "$TMP/cmp.txt" || fail "tab in text report"
LC_ALL=C grep -q '[^ -~]' "$TMP/cmp.txt" && fail "non-ASCII in text report"
klab compare 6.1.176 6.1.192 --format csv --suite tiobench >"$TMP/cmp.csv" || fail "compare csv"
expect_grep 'tiobench.seq_read.rate' "$TMP/cmp.csv"
klab compare 6.1.176 6.1.192 --format json --suite tiobench >"$TMP/cmp.json" || fail "compare json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/cmp.json" || fail "compare json invalid"

klab history tiobench.seq_read.rate >"$TMP/hist" || fail "history"
expect_grep '6.12.117' "$TMP/hist"
klab kernels >"$TMP/k" && expect_grep '6.1.192' "$TMP/k"
klab runs >/dev/null || fail "runs"
klab rigs | grep -q default || fail "rigs"

# exit codes
klab compare 6.1.176 nosuch >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 1 ] || fail "unknown kernel: exit $rc"
expect_grep "nosuch" "$TMP/err"
klab frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage exit"
klab import /nonexistent >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing file exit"
klab --url http://127.0.0.1:1 health >/dev/null 2>&1; [ $? -eq 3 ] || fail "unreachable exit"
# one pasted row a kernel is data, not a verdict: no failure
klab compare 6.12.117 6.1.192 --suite tiobench --fail-on-worse >"$TMP/n1.txt"; rc=$?
[ $rc -eq 0 ] || fail "--fail-on-worse with n=1: exit $rc"
expect_grep 'n=1, no verdict' "$TMP/n1.txt"
# results of one kernel in two suites are never pooled: name one
klab compare 6.1.176 6.1.192 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc -eq 1 ] || fail "pooled suites: exit $rc"
expect_grep 'results from 3 suites (dbench; rio-under-dbench; tiobench)' "$TMP/err"
expect_grep 'name one with suite=' "$TMP/err"

# verdicts need cells: three imports (runs) a kernel
cell() {	# kernel rate p99
	printf '{"schema":"klab-results/1","kernel":"%s","results":[
{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"},
{"metric":"tiobench.seq_read.lat_p99","unit":"ms","value":%s,"direction":"lower"}]}\n' \
		"$1" "$2" "$3" >"$TMP/cell.json"
	klab import "$TMP/cell.json" --suite manual >/dev/null || fail "import cell of $1"
}
for i in 0 1 2; do
	cell v-base 100.$i 10.$i
	cell v-slow 80.$i 10.$i		# rate -20%: a headline metric worse
	cell v-tail 100.$i 15.$i	# p99 +50%: only a secondary one worse
	cell v-same 100.$((2 - i)) 10.$((2 - i))	# A/A: the same cells
done
klab compare v-base v-slow --suite manual --fail-on-worse >"$TMP/v.txt"; rc=$?
[ $rc -eq 4 ] || fail "--fail-on-worse, rate -20% on 3 cells: exit $rc"
expect_grep 'rate -20.0% (worse, p<0.001)' "$TMP/v.txt"
expect_grep 'tiobench.seq_read.rate (worse, headline)' "$TMP/v.txt"
klab compare v-base v-tail --suite manual --fail-on-worse >"$TMP/t.txt"; rc=$?
[ $rc -eq 0 ] || fail "--fail-on-worse, only p99 worse: exit $rc"
expect_grep 'tiobench.seq_read.lat_p99 (worse)' "$TMP/t.txt"
klab compare v-base v-tail --suite manual --fail-on-any-worse >/dev/null; rc=$?
[ $rc -eq 4 ] || fail "--fail-on-any-worse, p99 worse: exit $rc"
# an unchanged kernel (A/A) is not worse
klab compare v-base v-same --suite manual --fail-on-any-worse >"$TMP/aa.txt"; rc=$?
[ $rc -eq 0 ] || fail "A/A: exit $rc"
expect_grep 'rate 0.0% (same, p=1.000)' "$TMP/aa.txt"
stop_klabd
ok "cli"
