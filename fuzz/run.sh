#!/bin/sh
# SPDX-License-Identifier: MIT
# Build klab's libFuzzer targets (make fuzz-build: clang, ASan, UBSan, into
# build/fuzz/) and run each for SECONDS, on its seeds fuzz/corpus/TARGET/
# and dictionary fuzz/TARGET.dict, after replaying the regression inputs
# fuzz/crashes/TARGET/*.  Prints one summary line per target (execs,
# exec/s, cov, ft, corpus, findings); logs in build/fuzz/logs/.
#
#   fuzz/run.sh [--smoke] [-t SECONDS] [TARGET...] [-- libFuzzer flags]
#   fuzz/run.sh 600 import -jobs=2     (flags of the form -name=value pass)
#
# Targets: import query config jobspec cmdline api series result suite patchcheck
# (default: all).  A run
# keeps its corpus in build/fuzz/corpus/TARGET/; --smoke starts from the
# seeds alone each time (default 10 s).  Findings (crash-*, leak-*,
# timeout-*, oom-*) land in build/fuzz/findings/TARGET/; copy one into
# fuzz/crashes/TARGET/ once fixed.  Exit 0 when no target found anything,
# 1 otherwise, 77 without clang.  Docs: docs/PERFORMANCE.md "Fuzzing".
cd "$(dirname "$0")/.." || exit 1
smoke=0 secs= flags=
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1; shift ;;
	-t) secs=$2; shift 2 ;;
	--) shift; flags="$flags $*"; break ;;
	-*=*) flags="$flags $1"; shift ;;	# a libFuzzer flag
	-*) echo "usage: fuzz/run.sh [--smoke] [-t SECONDS] [TARGET...]" \
		"[-- libFuzzer flags]" >&2; exit 2 ;;
	[0-9]*) secs=$1; shift ;;		# the old "run.sh SECONDS"
	*) targets="${targets:+$targets }$1"; shift ;;
	esac
done
[ -n "$secs" ] || { [ $smoke = 1 ] && secs=10 || secs=60; }
: "${targets:=import query config jobspec cmdline api series result suite patchcheck}"
CLANG=${FUZZ_CC:-clang}
command -v "$CLANG" >/dev/null 2>&1 ||
	{ echo "fuzz: no $CLANG (Debian: clang libclang-rt-14-dev)" >&2; exit 77; }
out=build/fuzz
mkdir -p "$out/logs"
${MAKE:-make} -s --no-print-directory -j2 FUZZ_CC="$CLANG" fuzz-build \
	>"$out/logs/build.log" 2>&1 ||
	{ tail -n 30 "$out/logs/build.log" >&2; exit 1; }

# The value after "key:" in the last status line of a log.
field() {
	grep -E "^#[0-9].* $2: " "$1" | tail -n 1 |
		sed -n "s/.* $2: \([0-9]*\).*/\1/p"
}

# maximum input length per target
max_len() {
	case $1 in
	import) echo 65536 ;;
	api) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

failed=
for t in $targets; do
	bin=$out/bin/fuzz_$t
	log=$out/logs/$t.log
	[ -x "$bin" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
	if [ $smoke = 1 ]; then
		work=$out/smoke/$t
		rm -rf "$work"
	else
		work=$out/corpus/$t
	fi
	mkdir -p "$work" "$out/findings/$t"
	: >"$log"
	# regression inputs: each runs once and must pass
	if ls fuzz/crashes/"$t"/* >/dev/null 2>&1; then
		if ! "$bin" -runs=1 fuzz/crashes/"$t"/* >>"$log" 2>&1; then
			echo "fuzz $t: a regression input in fuzz/crashes/$t" \
				"fails again, see $log"
			failed="$failed $t"
			continue
		fi
	fi
	dict=
	[ -f fuzz/"$t".dict ] && dict=-dict=fuzz/$t.dict
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" \
		-timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/findings/$t/" $dict $flags \
		"$work" fuzz/corpus/"$t" >>"$log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	found=$(grep -c 'Test unit written to' "$log")
	echo "fuzz $t: ${execs:-?} execs in ${took} s (${rate:-?}/s)," \
		"cov $(field "$log" cov), ft $(field "$log" ft)," \
		"corpus $(grep -E 'corp: ' "$log" | tail -n 1 |
			sed -n 's/.*corp: \([0-9]*\).*/\1/p')," \
		"findings $found"
	if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" |
			head -n 3 | sed 's/^/    /'
		grep 'Test unit written to' "$log" | sed 's/^/    /'
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "fuzz: findings in:$failed"; exit 1; }
exit 0
