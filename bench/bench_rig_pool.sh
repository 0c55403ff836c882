#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_rig_pool: how many hdd QEMU rigs one box runs at once without
# changing their numbers (issue 31, rig pools).  In one klabd run with
# RIGS identical `scsi` QEMU rigs of one class (TCG, disk model hdd by
# default) and one Debian kernel (the rigs' base kernel: every cell is the
# same kernel, an A/A across the rigs of the class), it runs levels of
# concurrency in turn (default 1 2 3 1): at level k, CELLS cells on each
# of the first k rigs at once (jobs pinned to each rig by its name), the
# other rigs idle, until they are all done.  Then, per headline metric
# (bench/rig_pool_report.py):
#   - each level's mean of the cells and its CV, and the ratio of the
#     mean against level 1's (every level-1 block of the run pooled: a
#     reference measured in the same run) with a 95% CI (Welch on the
#     logs), marked when the CI excludes 1 or the ratio is off by 3% or
#     more;
#   - each level's cells per hour (wall time of the level), as a ratio
#     against level 1;
#   - the load average before and after each level and the whole run.
# A level whose numbers moved is the box running too many rigs at once;
# the largest level with no headline metric moved is the answer
# (docs/PERFORMANCE.md, "Rig pools").  Run it on a quiet machine: the
# report says "taken under load" when the 1-minute load average before
# the run was above 0.5.  Takes about CELLS x levels x a cell's time (an
# hdd cell at scale 0.05: ~6 min): 1-2 hours with the defaults.
#
#   bench/bench_rig_pool.sh [--rigs N] [--cells N] [--levels "1 2 3 1"]
#                           [--scale F] [--suite S] [--disk-model M]
#                           [--keep]
#
# --rigs: rigs in the class (default 3, at least the largest level);
# --cells: cells a rig a level (default 4); --scale (default 0.05);
# --suite (default tiobench); --disk-model hdd|ssd|host (default hdd).
#   KLAB_LAB_BIN=DIR   use these binaries (copied) instead of building
#                      build/bench/lab
#   KLAB_LAB_KERNEL=V  the kernel (default 6.1.192: newest-6.1 must be it)
# The markdown summary goes to stdout and build/bench/rig_pool.md.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
RIGS=3 CELLS=4 LEVELS="1 2 3 1" SCALE=0.05 SUITE=tiobench MODEL=hdd KEEP=0
KERNEL=${KLAB_LAB_KERNEL:-6.1.192}
usage() {
	echo "usage: $0 [--rigs N] [--cells N] [--levels \"1 2 3 1\"]" \
		"[--scale F] [--suite S] [--disk-model hdd|ssd|host] [--keep]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--rigs|--cells|--levels|--scale|--suite|--disk-model)
		[ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	--rigs) RIGS=$2; shift ;;
	--cells) CELLS=$2; shift ;;
	--levels) LEVELS=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--suite) SUITE=$2; shift ;;
	--disk-model) MODEL=$2; shift ;;
	--keep) KEEP=1 ;;
	*) usage ;;
	esac
	shift
done
log() { echo "bench_rig_pool: $*" >&2; }
. "$TOP/bench/lib.sh"
die() { log "$*"; exit 1; }
case $RIGS$CELLS in
*[!0-9]*) die "--rigs and --cells take numbers" ;;
esac
for k in $LEVELS; do
	case $k in
	''|*[!0-9]*) die "--levels: '$k' is not a number" ;;
	esac
	if [ "$k" -lt 1 ] || [ "$k" -gt "$RIGS" ]; then
		die "--levels: $k rigs at once, but the class has $RIGS"
	fi
done
case $MODEL in
hdd|ssd|host) ;;
*) die "--disk-model: expected hdd, ssd or host, not '$MODEL'" ;;
esac
case $SUITE in
*[!a-z0-9_-]*) die "--suite: bad suite name '$SUITE'" ;;
esac
[ -f "workloads/suites/$SUITE.suite" ] || die "--suite: no workloads/suites/$SUITE.suite"
for t in qemu-system-x86_64 python3 curl sqlite3; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' is not installed"
done

bench_lab_begin klab-benchpool
LIMITS=$(suite_limits "$SCALE" "$SUITE") ||
	die "cannot read the suite's disk_mb and timeout"
DISK_MB=${LIMITS% *} JOB_TIMEOUT=${LIMITS#* }
: >"$W/klabd.conf"
bench_pool_conf "$W" pool "$RIGS" "$MODEL"
bench_pool_start "$W" pool "$RIGS"
api() { curl -s --noproxy '*' --max-time 30 "$KLAB_URL$1"; }
# all_idle: every rig of the class idle
all_idle() { bench_rigs_idle pool "$RIGS"; }

# level N K: K rigs at once, CELLS cells each; "N K START END LOAD0 LOAD1
# JOB-IDS..." appended to $W/levels
LIMIT=$((CELLS * (JOB_TIMEOUT + 600)))
level() {
	l0=$(loadavg)
	s0=$(date +%s)
	ids=
	i=0
	while [ $i -lt "$2" ]; do
		out=$(curl -s --noproxy '*' --max-time 30 -X POST \
			-H "Authorization: Bearer $KLAB_TOKEN" \
			-H 'Content-Type: application/json' \
			-d "{\"kernels\":[\"$K\"],\"rig\":\"pool$i\",\"suite\":\"$SUITE\",\"scale\":$SCALE,\"repeat\":$CELLS}" \
			"$KLAB_URL/api/jobs")
		out=$(echo "$out" | python3 -c 'import json, sys; print(" ".join(str(j) for j in json.load(sys.stdin)["jobs"]))') ||
			die "cannot queue level $1's cells on pool$i"
		ids="$ids $out"
		i=$((i + 1))
	done
	log "level $1: $2 rigs at once, $CELLS cells each (load $l0)"
	t=0
	while :; do
		n=0
		for j in $ids; do
			api "/api/jobs/$j" | grep -q '"state":"\(done\|failed\)"' || n=$((n + 1))
		done
		[ $n = 0 ] && break
		t=$((t + 10)); [ $t -gt $LIMIT ] && die "level $1 not finished after $LIMIT s"
		sleep 10
	done
	until all_idle; do sleep 2; done
	echo "$1 $2 $s0 $(date +%s) $l0 $(loadavg) $ids" >>"$W/levels"
	log "level $1 done in $(( $(date +%s) - s0 )) s (load $(loadavg))"
}
n=0
for k in $LEVELS; do
	n=$((n + 1))
	level "$n" "$k"
done
LOAD1=$(loadavg)
log "load average after: $LOAD1"
mkdir -p build/bench
python3 bench/rig_pool_report.py --db "$W/klab.db" --levels "$W/levels" \
	--kernel "$K" --suite "$SUITE" --scale "$SCALE" --model "$MODEL" \
	--rigs "$RIGS" --cells "$CELLS" --start "$START" \
	--load0 "$LOAD0" --load1 "$LOAD1" >build/bench/rig_pool.md ||
	{ KEEP=1; die "report failed"; }
kill -TERM "$KLABD_PID"; wait "$KLABD_PID"; KLABD_PID=
cat build/bench/rig_pool.md
