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
# 6.1.192 reads slower than 6.12.117 baseline: a regression, exit 4
klab compare 6.12.117 6.1.192 --suite tiobench --fail-on-worse >/dev/null; rc=$?
[ $rc -eq 4 ] || fail "--fail-on-worse: exit $rc"
stop_klabd
ok "cli"
