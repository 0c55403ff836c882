#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/soak.sh: klabd left running with two QEMU rigs on a mixed queue
# (`make soak`; docs/PERFORMANCE.md, "Soak"), outside CI.  One klabd, rigs
# scsi0 (profile scsi) and ide0 (profile ide), the newest Debian 6.1
# kernel; the queue is kept at two jobs a rig, cycling through the
# tiobench, iops-alldisks and rio-under-dbench suites at SOAK_SCALE, with
# every fifth job one that panics at boot (a kernel failure and a
# recovery cold boot).  Every minute klabd's VmRSS, threads, open
# descriptors, the database's size (main file + WAL) and the jobs done
# and failed go to build/bench/soak.csv; at the end bench/soak_check.sh
# says whether RSS, threads and descriptors are flat over the second
# half and whether the database's growth per stored run held steady.
#
#   bench/soak.sh                 (make soak) 120 minutes
#   SOAK_MINUTES=10 nice -n 10 bench/soak.sh      a short one
#   SOAK_MINUTES=M    how long (default 120; at least 6 for a verdict)
#   SOAK_SCALE=F      the suites' scale (default 0.05)
#   KLAB_SOAK_KEEP=1  keep the work directory (klabd.log, klab.db, rigs)
#
# Needs qemu-system-x86_64, curl, sqlite3, jq and a Debian 6.1 cloud
# kernel from apt (kernels/debian-kernels.sh); under TCG on 2 cores a
# cell takes minutes, so give it the whole SOAK_MINUTES.  Prints the load
# average before and after (other work on the machine shows in klabd's
# figures).  Writes build/bench/soak.csv (a line a minute: minute,
# rss_kb, threads, fds, db_bytes, runs, jobs_done, jobs_failed, load1,
# then from GET /api/status heap_kb, in_use_kb, free_kb, pool_idle,
# pool_cache_kb, slab_lines, pool_stmt_kb)
# and build/bench/soak.md (the summary and soak_check.sh's table).  Exit
# status: soak_check.sh's (0 flat, 1 not flat, 2 too short), or 1 when
# the soak itself fails.  On exit, however it ends (INT, TERM, a
# failure), klabd gets SIGTERM (SIGKILL after 60 s), any QEMU of the
# rigs still running is stopped and the work directory removed; the CSV
# so far stays, for `bench/soak_check.sh build/bench/soak.csv`.
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
MINUTES=${SOAK_MINUTES:-120}
SCALE=${SOAK_SCALE:-0.05}
SUITES="tiobench iops-alldisks rio-under-dbench"
[ $# = 0 ] || { sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
case $MINUTES in
'' | *[!0-9]*) echo "soak: SOAK_MINUTES must be a number of minutes" >&2; exit 2 ;;
esac
. "$TOP/bench/lib.sh"
log() { echo "soak: $*" >&2; }
die() { log "$*"; exit 1; }
for t in qemu-system-x86_64 curl sqlite3 jq; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' is not installed"
done
W=$(mktemp -d "${TMPDIR:-/tmp}/klab-soak.XXXXXX")
KLABD_PID=
# stop_klabd: SIGTERM, wait up to 60 s, then SIGKILL; exit status klabd's
stop_klabd() {
	kill -TERM "$KLABD_PID" 2>/dev/null || { KLABD_PID=; return 1; }
	i=0
	while kill -0 "$KLABD_PID" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$KLABD_PID" 2>/dev/null; then
		log "klabd did not stop in 60 s: SIGKILL"
		kill -KILL "$KLABD_PID" 2>/dev/null
	fi
	wait "$KLABD_PID"
	rc=$?
	KLABD_PID=
	return $rc
}
cleanup() {
	[ -n "$KLABD_PID" ] && stop_klabd
	# a QEMU that klabd left behind (killed, or stopped mid-boot)
	for d in "$W"/data/rigs/*/; do
		[ -f "$d/qemu.pid" ] && "$TOP/kernels/qemu-rig.sh" stop --dir "${d%/}"
	done
	if [ -n "${KLAB_SOAK_KEEP:-}" ]; then log "kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# private binaries: others rebuild build/ meanwhile
make -s -j2 O=build/bench/soak all >&2 || die "build failed"
cp -a build/bench/soak/bin "$W/bin" || die "cannot copy the binaries"
mkdir -p "$B"
K=$("$TOP/kernels/debian-kernels.sh" newest 6.1) || die "no Debian 6.1 kernel"
BASE=$("$TOP/kernels/debian-kernels.sh" fetch "$K" | sed -n 's/^upstream=//p')
[ -n "$BASE" ] || die "cannot fetch '$K'"
# the disk the suites need at SCALE (rio-under-dbench's file is several
# times the rig's memory: about 1.6 GiB at 0.05)
# shellcheck disable=SC2086 # SUITES: three names, split on purpose
LIMITS=$(suite_limits "$SCALE" $SUITES) ||
	die "cannot read the suites' disk_mb and timeout"
DISK_MB=${LIMITS% *} JOB_TIMEOUT=${LIMITS#* }
cat >"$W/klabd.conf" <<CONF
top_dir = $TOP
max_builds = 1
# the panicking jobs (every fifth) need rdinit= and panic= (issue 8 allows
# only a short list of kernel parameters by default)
job_cmdline_allow = elevator= quiet rdinit= panic=
[rig scsi0]
kind = qemu
profile = scsi
base_kernel = $BASE
memory_mb = 768
disk_mb = $DISK_MB
boot_timeout = 300
job_timeout = $JOB_TIMEOUT
[rig ide0]
kind = qemu
profile = ide
base_kernel = $BASE
memory_mb = 768
disk_mb = $DISK_MB
boot_timeout = 300
job_timeout = $JOB_TIMEOUT
CONF
bench_lab_klabd "$W"
klab() { "$W/bin/klab" "$@"; }
KV=$(klab kernel add debian newest-6.1 | tr -d '"') || die "cannot add the kernel"

# status FIELD: klabd's /proc status value
status() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$KLABD_PID/status"; }
njobs() { sqlite3 "$W/klab.db" "SELECT COUNT(*) FROM jobs WHERE state $1"; }
dbsize() {
	s=0
	for f in "$W/klab.db" "$W/klab.db-wal"; do
		[ -f "$f" ] && s=$((s + $(stat -c %s "$f")))
	done
	echo "$s"
}
# memstatus: GET /api/status as heap_kb,in_use_kb,free_kb,pool_idle,
# pool_cache_kb,slab_lines (glibc's arenas, the idle database handles'
# caches, the page cache lines in db/'s slab, their statements)
memstatus() {
	_s=$(curl -sf --noproxy '*' -H "Authorization: Bearer $KLAB_TOKEN" \
		"$KLAB_URL/api/status" | jq -r '[((.malloc.heap, .malloc.in_use,
		.malloc.free) / 1024 | floor), .db_pool.idle,
		(.db_pool.cache_bytes / 1024 | floor), .db_pool.slab_lines,
		(.db_pool.stmt_bytes / 1024 | floor)] |
		map(tostring) | join(",")')
	echo "${_s:-,,,,,,}"
}
n=0
# refill: two jobs waiting or running a rig
refill() {
	for rig in scsi0 ide0; do
		q=$(sqlite3 "$W/klab.db" "SELECT COUNT(*) FROM jobs j JOIN rigs r ON r.id = j.rig_id WHERE r.name = '$rig' AND j.state IN ('queued', 'assigned', 'booting', 'running')")
		while [ "$q" -lt 2 ]; do
			n=$((n + 1))
			# shellcheck disable=SC2086 # the words of SUITES
			set -- $SUITES
			shift $((n % 3))
			suite=${1:-tiobench}
			if [ $((n % 5)) = 0 ]; then
				klab job add "$KV" --rig "$rig" --suite "$suite" \
					--scale "$SCALE" --cmdline "rdinit=/nonexistent panic=1" >/dev/null
			else
				klab job add "$KV" --rig "$rig" --suite "$suite" \
					--scale "$SCALE" >/dev/null
			fi || die "cannot queue a job"
			q=$((q + 1))
		done
	done
}

CSV=$B/soak.csv
echo "minute,rss_kb,threads,fds,db_bytes,runs,jobs_done,jobs_failed,load1,heap_kb,in_use_kb,free_kb,pool_idle,pool_cache_kb,slab_lines,pool_stmt_kb" >"$CSV"
LOAD0=$(loadavg)
START=$(date -u '+%Y-%m-%d %H:%M UTC')
T0=$(date +%s)
log "load average before: $LOAD0"
log "klabd $KLABD_PID, kernel $KV, $MINUTES minutes, samples in $CSV"
# a sample at minute m of the clock (T0 + 60 m), however long refill took
m=0
while [ $m -le "$MINUTES" ]; do
	wait_s=$((T0 + m * 60 - $(date +%s)))
	# (sleep in the background: a TERM is taken at once, not after it)
	[ $wait_s -gt 0 ] && { sleep $wait_s & wait $!; }
	kill -0 "$KLABD_PID" 2>/dev/null || die "klabd died: $(tail -5 "$W/klabd.log")"
	refill
	echo "$m,$(status VmRSS),$(status Threads),$(ls "/proc/$KLABD_PID/fd" | wc -l),$(dbsize),$(sqlite3 "$W/klab.db" 'SELECT COUNT(*) FROM runs'),$(njobs "= 'done'"),$(njobs "= 'failed'"),$(cut -d' ' -f1 /proc/loadavg),$(memstatus)" >>"$CSV"
	[ $((m % 10)) = 0 ] && log "minute $m: $(tail -n 1 "$CSV")"
	m=$((m + 1))
done
LOAD1=$(loadavg)
log "load average after: $LOAD1"
stop_klabd || die "klabd exited non-zero on SIGTERM: $(tail -5 "$W/klabd.log")"
integ=$(sqlite3 "$W/klab.db" "PRAGMA integrity_check")
fails=$(sqlite3 "$W/klab.db" "SELECT failure || ' ' || COUNT(*) FROM jobs WHERE state = 'failed' GROUP BY failure" | tr '\n' ',' | sed 's/,$//; s/,/, /g')
{
	echo "Soak of $MINUTES minutes from $START,"
	echo "kernel $KV, rigs scsi0 (scsi) and ide0 (ide), scale $SCALE;"
	echo "load average $LOAD0 at the start, $LOAD1 at the end; integrity_check $integ."
	echo "Jobs done $(njobs "= 'done'"), failed $(njobs "= 'failed'"); failure classes: ${fails:-none}."
	echo
} >"$B/soak.md"
"$TOP/bench/soak_check.sh" "$CSV" >>"$B/soak.md"
rc=$?
cat "$B/soak.md"
[ "$integ" = ok ] || { log "integrity_check: $integ"; exit 1; }
exit $rc
