#!/bin/sh
# SPDX-License-Identifier: MIT
# Run klab's tests: every cmocka unit binary, then every tests/tNNNN-*.sh
# (or the scripts named on the command line).  A script passes with exit 0,
# is skipped with exit 77, fails otherwise.  Ends with the counted summary
#   N passed, N failed, N skipped
# and exits non-zero when anything failed.
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
export TOP
: "${KLAB_BIN:=$TOP/build/san/bin}"
: "${KLAB_PLAIN_BIN:=$TOP/build/bin}"
export KLAB_BIN KLAB_PLAIN_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
LOGDIR=${KLAB_TEST_LOGS:-$TOP/build/test-logs}
mkdir -p "$LOGDIR"

pass=0 fail=0 skip=0 failed=""

run_one() {
	name=$1; shift
	log="$LOGDIR/$name.log"
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "skip $name: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed="$failed $name"
	   echo "FAIL $name (exit $rc, ${secs}s), last lines of $log:"
	   tail -n 25 "$log" | sed 's/^/    /' ;;
	esac
}

if [ $# -eq 0 ]; then
	for t in "$TOP"/build/san/tests/test_*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$t"
	done
	set -- "$TOP"/tests/t[0-9]*.sh
fi
for t in "$@"; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t" .sh)" sh "$t"
done

echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
