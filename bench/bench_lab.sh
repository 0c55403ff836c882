#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_lab: what a lab cell costs besides the benchmark, and how noisy the
# rig is.  In one klabd run with one `scsi` QEMU rig (TCG) and one Debian
# kernel (the rig's base kernel, so cold boots and kexecs boot the same
# kernel), it queues CELLS cells of the tiobench suite on that kernel (each
# a kexec switch: the agent's POST /kexec, sent just before kexec -e, to
# its check-in) with PANICS jobs that panic at boot spread among them
# (each ends in a recovery cold boot: QEMU start to agent check-in).  From
# klabd's log and the rig's consoles (both time-stamped here by
# lab_stamp.py as they are written), the agent's own time-stamped console
# lines and the stored results (/api/runs) it reports:
#   1. kexec switch against cold boot: medians and their ratio;
#   2. per-cell overhead (assigned -> results stored, minus klab-run's own
#      time: download, kexec -l, boot, setup, upload) against klab-run's
#      time, as a ratio;
#   3. the rig's noise: coefficient of variation of every tiobench metric
#      over the cells (cell means) against the 3% a regression lab needs;
# and the machine's load average during the run (printed before and
# after; a run on a busy machine is marked "taken under load" in the
# summary).  Also: the bytes the agent downloaded per cell (0 after the
# first: the rig's boot-file cache) and the lab's throughput in cells per
# hour.  Loopback only; every wait is bounded.  Takes 10-25 minutes.
# Run it with nothing else on the machine:
#
#   bench/bench_lab.sh [--cells N] [--panics N] [--scale F] [--keep]
#
# --scale defaults to 1, the suite's own (a job without a scale); the
# rig's disk is 256 MiB plus what the suite writes at that scale.
#   KLAB_LAB_BIN=DIR   use these binaries (copied) instead of building
#                      build/bench/lab
#   KLAB_LAB_KERNEL=V  the kernel (default 6.1.192: newest-6.1 must be it)
# The markdown summary goes to stdout and build/bench/lab.md.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
CELLS=10 PANICS=3 SCALE=1 KEEP=0
KERNEL=${KLAB_LAB_KERNEL:-6.1.192}
while [ $# -gt 0 ]; do
	case $1 in
	--cells) CELLS=$2; shift ;;
	--panics) PANICS=$2; shift ;;
	--scale) SCALE=$2; shift ;;
	--keep) KEEP=1 ;;
	*) echo "usage: $0 [--cells N] [--panics N] [--scale F] [--keep]" >&2; exit 2 ;;
	esac
	shift
done
log() { echo "bench_lab: $*" >&2; }
. "$TOP/bench/lib.sh"
die() { log "$*"; exit 1; }
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
if [ -n "${KLAB_LAB_BIN:-}" ]; then
	cp -a "$KLAB_LAB_BIN" "$W/bin" || die "cannot copy '$KLAB_LAB_BIN'"
else
	log "building into build/bench/lab"
	make -s -j2 O=build/bench/lab all >&2 || die "build failed"
	cp -a build/bench/lab/bin "$W/bin" || die "cannot copy the binaries"
fi

# Load average every 10 s for the whole run (1-minute figure).
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 10; done) >"$W/load" &
LOAD_PID=$!
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date -u '+%Y-%m-%d %H:%M UTC')
log "load average before: $LOAD0"

# the suite's files (tiobench: 1024 MiB at scale 1) and room besides
DISK_MB=$(python3 -c "import math; print(max(256, math.ceil($SCALE * 1024 / 64) * 64 + 256))")
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
job_timeout = 1800
CONF
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
LIMIT=$((2400 + CELLS * 600 + PANICS * 300))
python3 bench/lab_stamp.py consoles "$W/data/rigs/scsi0" "$LIMIT" \
	>"$W/consoles.log" &
CONS_PID=$!
export KLAB_URL
klab() { "$W/bin/klab" "$@"; }
api() { curl -s --noproxy '*' --max-time 30 "$KLAB_URL$1"; }

K=$(klab kernel add debian newest-6.1 | tr -d '"') || die "cannot fetch newest-6.1"
[ "$K" = "$KERNEL" ] || die "newest 6.1 is '$K', not '$KERNEL': set KLAB_LAB_KERNEL=$K"
log "kernel $K; waiting for the rig's first cold boot"
i=0
until api /api/rigs/scsi0 | grep -q '"state":"idle"'; do
	i=$((i + 5)); [ $i -gt 900 ] && die "rig not idle after 900 s"
	sleep 5
done

# The cells, with the panics spread among them (each panic is followed by
# a recovery cold boot), so that cold boots and kexecs see the same load.
queue() {	# queue [klab job add options...]: one job of kernel K
	klab job add "$K" --rig scsi0 --suite tiobench --scale "$SCALE" "$@" \
		>/dev/null || die "cannot queue a job"
}
p=0 i=0
while [ $i -lt "$CELLS" ]; do
	i=$((i + 1))
	queue
	if [ $i -lt "$CELLS" ] && [ $((i * (PANICS + 1) / CELLS)) -gt $p ]; then
		p=$((p + 1))
		queue --cmdline "rdinit=/nonexistent panic=1"
	fi
done
log "queued $PANICS panics and $CELLS cells at scale $SCALE"
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
	--load0 "$LOAD0" --load1 "$LOAD1" \
	>build/bench/lab.md || { KEEP=1; die "report failed"; }
kill -TERM "$KLABD_PID"; wait "$KLABD_PID"; KLABD_PID=
wait "$STAMP_PID"; STAMP_PID=
cat build/bench/lab.md
