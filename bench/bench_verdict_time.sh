#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_verdict_time: issue 31's "Done when" figures on the default lab.
# One klabd as demo.sh sets it up (a class "hdd" of RIGS identical scsi
# QEMU rigs, disk model hdd, 768 MiB, the newest Debian 6.1 kernel as
# their base; the disk and job timeout sized for the suite as the other
# lab benches size them) with `submit_suites = SUITE` and the built-in
# source base debian-6.1 (/usr/src/linux-source-6.1.tar.xz, the lab
# config), takes submissions as a user makes them (`klab submit
# debian-6.1 PATCH --scale F --max-cells N`), one after the other, each
# waited for (and the rigs idle again) before the next:
#   worse  kernels/patches/elv-writes-first.patch (mq-deadline dispatches
#          writes first: reads starve under writes); bound: ends worse
#          within 20 minutes of its builds finishing;
#   aa     tests/data/patches/aa-comment.patch (a comment line: the A/A);
#          bound: ends same on every headline metric within 30 minutes.
# For each (bench/verdict_time_report.py, from the submission's API
# documents and klabd's database): when its builds finished (builds
# table), when its verdict was reached (the end of its verdict stage),
# the minutes between against the bound, the verdict per headline metric
# (worse, better, same, undecided), the cells per side, which rig ran
# each cell (the rig is the comparison's blocking factor) and the load
# average before and after.  Over the run: the lab's cells per hour
# (cells done / wall time of the cell phases: each submission's cells
# stage start to its last cell's end) as a ratio against the issue's
# reference, one hdd rig at 364 s a cell (9.9 cells an hour), and against
# one rig of this run running cells back to back (3600 / the run's mean
# cell time: the cell cost under this run's concurrency, not a rig
# alone; bench/bench_rig_pool.sh measures a rig alone against k at once).
# The report says "taken under load" when the 1-minute load average
# before was above 0.5.  Run it on a quiet machine.
#
# Time: the base kernel's build is cached (/var/cache/klab: ccache and
# the artifact cache); on a cold cache the first build of the base takes
# about 17 minutes before the first submission's cells start (its figure
# counts from the builds' end, so the report stays fair, but the run is
# longer).  Each patched build starts warm from the base's built tree
# (minutes).  Then up to MAX_CELLS cells a side per submission, about
# 3-6 minutes a cell on hdd at scale 0.05, spread over the rigs: about
# 1-2 hours in all with the defaults.
#
#   bench/bench_verdict_time.sh [--rigs N] [--suite S] [--scale F]
#                               [--max-cells N] [--cases worse,aa] [--keep]
#
# --rigs: rigs in the class (default 2, demo.sh's); --suite (default
# tiobench-under-writes); --scale (default 0.05); --max-cells: cells a
# side, the adaptive cap (default 8); --cases: which submissions, in that
# order (default worse,aa); --keep: keep the work directory (klabd.log,
# klab.db, the API documents).
#   KLAB_LAB_BIN=DIR   use these binaries (copied) instead of building
#                      build/bench/lab
#   KLAB_LAB_KERNEL=V  the rigs' kernel (default 6.1.192: newest-6.1
#                      must be it)
# The markdown summary goes to stdout and build/bench/verdict_time.md.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
RIGS=2 SUITE=tiobench-under-writes SCALE=0.05 MAX_CELLS=8 CASES=worse,aa
KEEP=0
KERNEL=${KLAB_LAB_KERNEL:-6.1.192}
usage() {
	echo "usage: $0 [--rigs N] [--suite S] [--scale F] [--max-cells N]" \
		"[--cases worse,aa] [--keep]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--rigs|--suite|--scale|--max-cells|--cases)
		[ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	--rigs) RIGS=$2; shift ;;
	--suite) SUITE=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--max-cells) MAX_CELLS=$2; shift ;;
	--cases) CASES=$2; shift ;;
	--keep) KEEP=1 ;;
	*) usage ;;
	esac
	shift
done
log() { echo "bench_verdict_time: $*" >&2; }
. "$TOP/bench/lib.sh"
die() { log "$*"; exit 1; }
case $RIGS in
''|*[!0-9]*|0) die "--rigs takes a number of rigs, at least 1" ;;
esac
case $MAX_CELLS in
''|*[!0-9]*) die "--max-cells takes a number" ;;
esac
if [ "$MAX_CELLS" -lt 3 ] || [ "$MAX_CELLS" -gt 200 ]; then
	die "--max-cells: $MAX_CELLS is not between 3 and 200"
fi
case $SCALE in
''|*[!0-9.]*|*.*.*|.) die "--scale: '$SCALE' is not a number" ;;
esac
case $SUITE in
''|*[!a-z0-9_-]*) die "--suite: bad suite name '$SUITE'" ;;
esac
[ -f "workloads/suites/$SUITE.suite" ] || die "--suite: no workloads/suites/$SUITE.suite"
# patch_of CASE: the patch a case submits
patch_of() {
	case $1 in
	worse) echo kernels/patches/elv-writes-first.patch ;;
	aa) echo tests/data/patches/aa-comment.patch ;;
	*) return 1 ;;
	esac
}
CASE_LIST=$(echo "$CASES" | tr ',' ' ')
n=0
for c in $CASE_LIST; do
	p=$(patch_of "$c") || die "--cases: expected worse or aa, not '$c'"
	[ -f "$p" ] || die "no $p"
	n=$((n + 1))
done
[ $n -gt 0 ] || die "--cases: no case named"
[ -f /usr/src/linux-source-6.1.tar.xz ] ||
	die "no /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1)"
for t in qemu-system-x86_64 python3 curl; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' is not installed"
done

bench_lab_begin klab-benchvt
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (with local changes)"
LIMITS=$(suite_limits "$SCALE" "$SUITE") ||
	die "cannot read the suite's disk_mb and timeout"
DISK_MB=${LIMITS% *} JOB_TIMEOUT=${LIMITS#* }
# demo.sh's lab: a class of identical hdd rigs; a disk for the suite
cat >"$W/klabd.conf" <<CONF
top_dir = $TOP
max_builds = 1
submit_rigs = hdd
submit_suites = $SUITE
submit_max_cells = $MAX_CELLS
CONF
bench_pool_conf "$W" hdd "$RIGS" hdd
bench_pool_start "$W" hdd "$RIGS"
klab() { "$W/bin/klab" "$@"; }
api() { curl -s --noproxy '*' --max-time 30 "$KLAB_URL$1"; }
# json FILE CODE: python CODE run on the JSON document in FILE (as d)
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])' "$1" "$2"
}
# a submission's progress, one line
PROGRESS='p = d["progress"]
print("stage %s, cells %d of %d, headline metrics decided %d of %d"
      % (d["stage"], p["cells_done"], p["cells_planned"],
         p["headline_decided"], p["headline_total"]))'

# submit CASE: its submission, waited for to its end and the rigs idle;
# "CASE ID START END LOAD0 LOAD1" appended to $W/cases, its API
# documents (sub-ID.json, cmp-C.json) and text report (sub-ID.txt) in $W
LIMIT=$((5400 + MAX_CELLS * 1200))
submit() {
	p=$(patch_of "$1")
	l0=$(loadavg)
	s0=$(date +%s)
	id=$(klab submit debian-6.1 "$TOP/$p" --scale "$SCALE" \
		--max-cells "$MAX_CELLS" --note "bench_verdict_time $1" |
		sed -n 's/^submission \([0-9]*\)$/\1/p')
	[ -n "$id" ] || die "cannot submit $p"
	log "$1: submission $id of $p (load $l0)"
	t=0
	while :; do
		api "/api/submissions/$id" >"$W/sub-$id.json"
		st=$(json "$W/sub-$id.json" 'print(d["state"])') ||
			die "submission $id: $(head -c 300 "$W/sub-$id.json")"
		[ "$st" = running ] || break
		t=$((t + 10))
		[ $t -gt $LIMIT ] && die "submission $id not ended after $LIMIT s"
		[ $((t % 120)) = 0 ] &&
			log "$t s: $(json "$W/sub-$id.json" "$PROGRESS")"
		sleep 10
	done
	vd=$(json "$W/sub-$id.json" 'print(d["verdict"] or "-")')
	log "$1: submission $id $st, verdict $vd after $(( $(date +%s) - s0 )) s"
	# the cells still running when the verdict came, then idle rigs
	bench_rigs_wait hdd "$RIGS" "$JOB_TIMEOUT"
	api "/api/submissions/$id" >"$W/sub-$id.json"
	for c in $(json "$W/sub-$id.json" \
		'print(*(x["comparison"] for x in d["cells"]))'); do
		api "/api/comparisons/$c" >"$W/cmp-$c.json"
	done
	api "/submissions/$id?format=text" >"$W/sub-$id.txt"
	echo "$1 $id $s0 $(date +%s) $l0 $(loadavg)" >>"$W/cases"
}
for c in $CASE_LIST; do
	submit "$c"
done
LOAD1=$(loadavg)
log "load average after: $LOAD1"
mkdir -p build/bench
python3 bench/verdict_time_report.py --db "$W/klab.db" --dir "$W" \
	--cases "$W/cases" --kernel "$K" --suite "$SUITE" --scale "$SCALE" \
	--max-cells "$MAX_CELLS" --rigs "$RIGS" --start "$START" \
	--commit "$COMMIT" --load0 "$LOAD0" --load1 "$LOAD1" \
	>build/bench/verdict_time.md || { KEEP=1; die "report failed"; }
kill -TERM "$KLABD_PID"; wait "$KLABD_PID"; KLABD_PID=
cat build/bench/verdict_time.md
