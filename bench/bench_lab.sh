#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_lab: what a lab cell costs besides the benchmark, and how noisy the
# rig is.  In one klabd run with one `scsi` QEMU rig (TCG) and one Debian
# kernel (the rig's base kernel, so cold boots and kexecs boot the same
# kernel), it queues CELLS cells of each suite of SUITES on that kernel,
# interleaved cell by cell (cell 1 of every suite in the order given, then
# cell 2, ...; each job a kexec switch: the agent's POST /kexec, sent just
# before kexec -e, to its check-in) with PANICS jobs (of the first suite)
# that panic at boot spread among them (each ends in a recovery cold
# boot: QEMU start to agent check-in).  From
# klabd's log and the rig's consoles (both time-stamped here by
# lab_stamp.py as they are written), the agent's own time-stamped console
# lines and the stored results (/api/runs) it reports:
#   1. kexec switch against cold boot: medians and their ratio (the first
#      suite's cells);
#   2. per-cell overhead (assigned -> results stored, minus klab-run's own
#      time: download, kexec -l, boot, setup, upload) against klab-run's
#      time, as a ratio (the first suite's cells);
#   3. where a cell of the first suite spent its time, step by step
#      (klab steps: boot, warm-up, each phase, the writers' stop,
#      upload; docs/RESULTS.md, "steps");
#   4. the rig's noise (bench/noise_table.py), per suite: coefficient of
#      variation of every metric over the cells (cell means); the
#      headline metrics (each tiobench phase's rate and avg_lat,
#      iops.total, rio's readlat.rate) against the 3% goal of issue 9,
#      the tail ones (p90 and up, max, lat_2s, lat_10s) and the rest
#      reported on their own;
# and the machine's load average during the run (printed before and
# after; a run on a busy machine is marked "taken under load" in the
# summary).  Also: the bytes the agent downloaded per cell (0 after the
# first: the rig's boot-file cache) and the lab's throughput in cells per
# hour.  Loopback only; every wait is bounded.  Takes 10-25 minutes with
# tiobench alone at scale 0.1, about three times that with three suites.
# Run it with nothing else on the machine:
#
#   bench/bench_lab.sh [--cells N] [--panics N] [--scale F]
#                      [--suites S1,S2,..] [--disk-model M] [--pin V/O]
#                      [--keep]
#
# e.g. the noise table of issue 9 (10 cells of three suites, default disk):
#   bench/bench_lab.sh --scale 0.1 --suites tiobench,iops-alldisks,rio-under-dbench
#
# --cells defaults to 10 (per suite), --panics to 3.  --scale defaults to
# 1, the suites' own (a job without a scale).  --suites: suites of
# workloads/suites/ (default tiobench); the first one also gives the boot
# and overhead figures.  The rig's disk is 256 MiB plus the largest
# `disk_mb` of the suites at that scale ({N} scaled; plus 12% for the
# file system of a suite with one); job_timeout is the largest suite
# `timeout` at that scale plus 600 s, at least 1800.  --disk-model M
# (hdd, ssd or host; docs/RIGS.md) sets the rig's disk_model; without it
# klabd's default, hdd.  --pin VCPUS/OTHERS (e.g. 1/0; docs/RIGS.md,
# "Pinning") pins the rig's vCPU thread to VCPUS and QEMU's other
# threads, klabd and this script's helpers to OTHERS; the rig's recorded
# configuration then carries pin=, and the summary says so.
#   KLAB_LAB_BIN=DIR   use these binaries (copied) instead of building
#                      build/bench/lab
#   KLAB_LAB_KERNEL=V  the kernel (default 6.1.192: newest-6.1 must be it)
# The markdown summary goes to stdout and build/bench/lab.md.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
CELLS=10 PANICS=3 SCALE=1 KEEP=0 SUITES=tiobench DISK_MODEL= PIN=
KERNEL=${KLAB_LAB_KERNEL:-6.1.192}
usage() {
	echo "usage: $0 [--cells N] [--panics N] [--scale F]" \
		"[--suites S1,S2,..] [--disk-model hdd|ssd|host] [--pin V/O]" \
		"[--keep]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--cells|--panics|--scale|--suites|--disk-model|--pin)
		[ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	--cells) CELLS=$2; shift ;;
	--panics) PANICS=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--suites) SUITES=$2; shift ;;
	--disk-model) DISK_MODEL=$2; shift ;;
	--pin) PIN=$2; shift ;;
	--keep) KEEP=1 ;;
	*) usage ;;
	esac
	shift
done
log() { echo "bench_lab: $*" >&2; }
. "$TOP/bench/lib.sh"
die() { log "$*"; exit 1; }
case $DISK_MODEL in
''|hdd|ssd|host) ;;
*) die "--disk-model: expected hdd, ssd or host, not '$DISK_MODEL'" ;;
esac
case $PIN in
'') ;;
*/*) taskset -c "${PIN#*/}" true 2>/dev/null ||
	die "--pin: cannot run on CPUs '${PIN#*/}'"
     # klabd and every helper of this script on OTHERS from here on
     taskset -p -c "${PIN#*/}" $$ >/dev/null ;;
*) die "--pin: expected VCPUS/OTHERS, e.g. 1/0, not '$PIN'" ;;
esac
SUITE_LIST=$(echo "$SUITES" | tr ',' ' ')
NSUITES=0 FIRST_SUITE=
for s in $SUITE_LIST; do
	case $s in
	*[!a-z0-9_-]*) die "--suites: bad suite name '$s'" ;;
	esac
	[ -f "workloads/suites/$s.suite" ] ||
		die "--suites: no workloads/suites/$s.suite"
	NSUITES=$((NSUITES + 1))
	[ -n "$FIRST_SUITE" ] || FIRST_SUITE=$s
done
[ "$NSUITES" -gt 0 ] || die "--suites: no suite named"
for t in qemu-system-x86_64 python3 curl sqlite3; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' is not installed"
done

W=$(mktemp -d /tmp/klab-benchlab.XXXXXX)
KLABD_PID='' STAMP_PID='' LOAD_PID='' CONS_PID=''
cleanup() {
	[ -n "$KLABD_PID" ] && kill "$KLABD_PID" 2>/dev/null && wait "$KLABD_PID"
	[ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null
	[ -n "$CONS_PID" ] && kill "$CONS_PID" 2>/dev/null
	[ -n "$STAMP_PID" ] && wait "$STAMP_PID" 2>/dev/null
	if [ "$KEEP" = 1 ]; then log "kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Private binaries: others rebuild build/bin while this runs for 20 min.
bench_lab_bins "$W"

# Load average every 10 s for the whole run (1-minute figure).
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 10; done) >"$W/load" &
LOAD_PID=$!
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date -u '+%Y-%m-%d %H:%M UTC')
log "load average before: $LOAD0"

# shellcheck disable=SC2086 # SUITE_LIST: names checked above, split on purpose
LIMITS=$(suite_limits "$SCALE" $SUITE_LIST) ||
	die "cannot read the suites' disk_mb and timeout"
DISK_MB=${LIMITS% *} JOB_TIMEOUT=${LIMITS#* }
log "suites $SUITES: disk $DISK_MB MiB, job timeout $JOB_TIMEOUT s"
cat >"$W/klabd.conf" <<CONF
top_dir = $TOP
# the panicking jobs' words (recovery cold boots) on top of the defaults
job_cmdline_allow = elevator= quiet loglevel= rdinit= panic=
[rig scsi0]
kind = qemu
profile = scsi
base_kernel = $KERNEL
memory_mb = 768
disk_mb = $DISK_MB
boot_timeout = 300
job_timeout = $JOB_TIMEOUT
CONF
[ -n "$DISK_MODEL" ] && echo "disk_model = $DISK_MODEL" >>"$W/klabd.conf"
[ -n "$PIN" ] && echo "pin = $PIN" >>"$W/klabd.conf"
# klabd's stderr through a stamper: "EPOCH.mmm line" as each line arrives
mkfifo "$W/klabd.fifo"
python3 bench/lab_stamp.py lines <"$W/klabd.fifo" >"$W/klabd.log" &
STAMP_PID=$!
# an operator token for klab (kernel add, job add)
bench_token "$W/bin/klabd" "$W/klab.db" operator
"$W/bin/klabd" --listen 127.0.0.1:0 --db "$W/klab.db" --data-dir "$W/data" \
	--port-file "$W/port" --config "$W/klabd.conf" --rig-bin "$W/bin" \
	>"$W/klabd.fifo" 2>&1 &
KLABD_PID=$!
bench_klabd_wait "$KLABD_PID" "$W/port" "$W/klabd.log"
KLAB_URL=http://127.0.0.1:$(cat "$W/port")
LIMIT=$((2400 + CELLS * NSUITES * 600 + PANICS * 300))
python3 bench/lab_stamp.py consoles "$W/data/rigs/scsi0" "$LIMIT" \
	>"$W/consoles.log" &
CONS_PID=$!
export KLAB_URL
klab() { "$W/bin/klab" "$@"; }
api() { curl -s --noproxy '*' --max-time 30 "$KLAB_URL$1"; }

K=$(klab kernel add debian newest-6.1 | tr -d '"') || die "cannot fetch newest-6.1"
[ "$K" = "$KERNEL" ] || die "newest 6.1 is '$K', not '$KERNEL': set KLAB_LAB_KERNEL=$K"
log "kernel $K; waiting for the rig's first cold boot"
bench_rigs_wait scsi 1 900

# The cells, each suite's interleaved cell by cell, with the panics spread
# among them (each panic is followed by a recovery cold boot), so that
# cold boots and kexecs see the same load.
queue() {	# queue SUITE [klab job add options...]: one job of kernel K
	s=$1; shift
	klab job add "$K" --rig scsi0 --suite "$s" --scale "$SCALE" "$@" \
		>/dev/null || die "cannot queue a job of suite $s"
}
p=0 i=0
while [ $i -lt "$CELLS" ]; do
	i=$((i + 1))
	for s in $SUITE_LIST; do
		queue "$s"
	done
	if [ $i -lt "$CELLS" ] && [ $((i * (PANICS + 1) / CELLS)) -gt $p ]; then
		p=$((p + 1))
		queue "$FIRST_SUITE" --cmdline "rdinit=/nonexistent panic=1"
	fi
done
log "queued $PANICS panics and $CELLS cells of each of $SUITES at scale $SCALE"
t=0
while :; do
	api "/api/jobs?rig=scsi0" >"$W/jobs.json"
	grep -q '"state":"\(queued\|assigned\|booting\|running\)"' "$W/jobs.json" || break
	t=$((t + 10)); [ $t -gt $LIMIT ] && die "jobs not finished after $LIMIT s"
	[ $((t % 120)) = 0 ] && log "$t s: $(grep -o '"state":"[a-z]*"' "$W/jobs.json" | sort | uniq -c | tr -s ' \n' ' ')"
	sleep 10
done
# the rig back to idle: the last "-> idle" (or a recovery's check-in) logged
i=0
until api /api/rigs/scsi0 | grep -q '"state":"idle"'; do
	i=$((i + 2)); [ $i -gt 600 ] && die "rig not idle 600 s after the last job"
	sleep 2
done
kill "$LOAD_PID" "$CONS_PID" 2>/dev/null; LOAD_PID='' CONS_PID=''
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
log "load average after: $LOAD1"
image=$(sqlite3 "$W/klab.db" "SELECT image FROM kernels WHERE ident = '$K'")
KB=$(stat -c %s "$image" 2>/dev/null || echo 0)
IB=$(stat -c %s "$W"/data/initrd/*.cpio.gz 2>/dev/null | head -1)
mkdir -p build/bench
python3 bench/lab_report.py --dir "$W" --url "$KLAB_URL" --kernel "$K" \
	--kernel-bytes "$KB" --initrd-bytes "${IB:-0}" \
	--scale "$SCALE" --disk-mb "$DISK_MB" --start "$START" \
	--suites "$SUITES" --disk-model "${DISK_MODEL:-hdd}" --pin "$PIN" \
	--load0 "$LOAD0" --load1 "$LOAD1" \
	>build/bench/lab.md || { KEEP=1; die "report failed"; }
# where the first suite's cells spent their time: each step's mean over
# its done jobs (the jobs' steps, docs/RESULTS.md)
{
	printf '\n### Where a cell of %s spent its time (klab steps, %s cells)\n\n```\n' \
		"$FIRST_SUITE" "$CELLS"
	klab steps --rig scsi0 --suite "$FIRST_SUITE" --limit "$CELLS"
	printf '```\n'
} >>build/bench/lab.md
kill -TERM "$KLABD_PID"; wait "$KLABD_PID"; KLABD_PID=
wait "$STAMP_PID"; STAMP_PID=
cat build/bench/lab.md
