#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-run with the suites that drive other programs: rio-under-dbench
# (dbench as rio's background load), dbench and fio (their output parsed by
# lib/import's parsers), at a small scale factor on temporary directories;
# results.json imports into a real klabd, nothing is left on the disks.
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

if command -v dbench >/dev/null 2>&1; then
	run_suite rio-under-dbench --scale 0.02 --repetitions 1
	check "$(metric readlat.ops "$TMP/out-rio-under-dbench/results.json") > 0" "rio ops"
	run_suite dbench --scale 0.1 --repetitions 1	# dbench -t 6: shorter may report 0
	check "$(metric dbench.throughput "$TMP/out-dbench/results.json") > 0" "dbench throughput"
else
	echo "dbench not installed: rio-under-dbench and dbench suites skipped"
fi
if command -v fio >/dev/null 2>&1; then
	run_suite fio --scale 0.02 --repetitions 1
	check "$(metric fio.randread.read.iops "$TMP/out-fio/results.json") > 0" "fio iops"
else
	echo "fio not installed: fio suite skipped"
fi

exit 0
