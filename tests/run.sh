#!/bin/bash
# SPDX-License-Identifier: MIT
# Run klab's tests: every cmocka unit binary, then every tests/tNNNN-*.sh
# (or the scripts named on the command line).  A script passes with exit 0,
# is skipped with exit 77, fails otherwise.  Ends with the counted summary
#   N passed, N failed, N skipped
# and exits non-zero when anything failed.
#
#   tests/run.sh [-j N] [SCRIPT...]
#
# -j N (or KLAB_TEST_JOBS=N) runs up to N scripts at a time: each has its
# own scratch directory, klabd port and QEMU rig, and most of a rig
# test's time is the guest waiting on its disk model, so two at a time on
# two cores nearly halve `make check`.  A script whose header has the line
#   # klab-test: alone
# (it measures, or compares machine-wide settings before and after) runs
# after the others, with nothing beside it.  Unit binaries run one by one.
#
# Each script has a time limit, KLAB_TEST_LIMIT seconds (1200), or its
# own from a header line
#   # klab-test: limit SECONDS
# Past it the script's process group gets SIGTERM (SIGKILL 30 s later)
# and it fails, "timed out": a hung test costs its limit, never CI's
# whole run, and the log it leaves says where it was.
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
export TOP
: "${KLAB_BIN:=$TOP/build/san/bin}"
: "${KLAB_PLAIN_BIN:=$TOP/build/bin}"
export KLAB_BIN KLAB_PLAIN_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
LOGDIR=${KLAB_TEST_LOGS:-$TOP/build/test-logs}
JOBS=${KLAB_TEST_JOBS:-1}
LIMIT=${KLAB_TEST_LIMIT:-1200}
if [ "${1:-}" = -j ] && [ $# -ge 2 ]; then
	JOBS=$2
	shift 2
fi
case $JOBS in
''|*[!0-9]*|0) echo "tests/run.sh: -j: expected a number of scripts at a time, got '$JOBS'" >&2
	exit 2 ;;
esac
case $LIMIT in
''|*[!0-9]*|0) echo "tests/run.sh: KLAB_TEST_LIMIT: expected seconds, got '$LIMIT'" >&2
	exit 2 ;;
esac
mkdir -p "$LOGDIR"
TALLY=$(mktemp "$LOGDIR/.tally.XXXXXX") || exit 1
trap 'rm -f "$TALLY"' EXIT
T0=$(date +%s)

# limit_of SCRIPT: its time limit in seconds (its header's, or LIMIT)
limit_of() {
	local l
	l=$(sed -n 's/^# klab-test: limit \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	echo "${l:-$LIMIT}"
}

# run_one NAME LIMIT CMD...: run it for at most LIMIT seconds, log to
# $LOGDIR/NAME.log, print one block (in one write, so that scripts run
# side by side do not interleave) and add "pass|fail|skip NAME" to the
# tally.
run_one() {
	local name=$1 limit=$2 log="$LOGDIR/$1.log" start rc secs msg why=
	shift 2
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	timeout -k 30 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc = 124 ] || { [ $rc = 137 ] && [ "$secs" -ge "$limit" ]; }; then
		why="timed out at its limit, $limit s; "
	fi
	case $rc in
	0) msg="ok   $name (${secs}s)"; echo "pass $name" >>"$TALLY" ;;
	77) msg="skip $name: $(tail -n 1 "$log")"; echo "skip $name" >>"$TALLY" ;;
	*) msg="FAIL $name (${why}exit $rc, ${secs}s), last lines of $log:
$(tail -n 25 "$log" | sed 's/^/    /')"
	   echo "fail $name" >>"$TALLY" ;;
	esac
	printf '%s\n' "$msg"
}

if [ $# -eq 0 ]; then
	for t in "$TOP"/build/san/tests/test_*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" "$LIMIT" "$t"
	done
	set -- "$TOP"/tests/t[0-9]*.sh
fi

alone=()
running=0
for t in "$@"; do
	[ -f "$t" ] || continue
	if [ "$JOBS" -gt 1 ] && grep -q '^# klab-test: alone' "$t"; then
		alone+=("$t")
		continue
	fi
	if [ "$JOBS" -le 1 ]; then
		run_one "$(basename "$t" .sh)" "$(limit_of "$t")" sh "$t"
		continue
	fi
	while [ "$running" -ge "$JOBS" ]; do
		wait -n
		running=$((running - 1))
	done
	run_one "$(basename "$t" .sh)" "$(limit_of "$t")" sh "$t" &
	running=$((running + 1))
done
wait
for t in "${alone[@]}"; do
	run_one "$(basename "$t" .sh)" "$(limit_of "$t")" sh "$t"
done

pass=$(grep -c '^pass ' "$TALLY")
fail=$(grep -c '^fail ' "$TALLY")
skip=$(grep -c '^skip ' "$TALLY")
echo
[ "$fail" -eq 0 ] || echo "failed: $(sed -n 's/^fail //p' "$TALLY" | tr '\n' ' ')"
echo "($JOBS at a time, $(( $(date +%s) - T0 )) s)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
