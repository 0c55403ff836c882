# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# bench/lib.sh: what the benchmark scripts (bench/run.sh, bench/bench_lab.sh,
# bench/bench_verdicts.sh) share: their build of klabd and the bench
# programs, a token for their klabd, the wait for that klabd to listen,
# a lab run's private binaries, klabd and idle rigs, the disk and job
# timeout a rig needs for its suites and the machine's load.  Sourced
# once the script has set TOP; a script that wants another die() defines
# it after sourcing this.

# B: where the bench programs and their reports go.
B=$TOP/build/bench

# die MESSAGE: "bench/SCRIPT: MESSAGE" on stderr, exit 1.
die() { echo "bench/${0##*/}: $*" >&2; exit 1; }

# bench_build OBJ: klabd and libcore.a in a build dir of the script's own
# (plain -O2 -g), so that a rebuild of build/ by someone else cannot swap
# the binary under a running benchmark; then make $B.
bench_build() {
	make -s -j2 O="$1" "$1/bin/klabd" "$1/libcore.a"
	mkdir -p "$B"
}

# bench_cc OBJ NAME FLAGS...: compile bench/NAME.c and its parts
# bench/NAME_*.c (bench_load_client.c, ...) with the project's warnings
# against OBJ's libcore.a into $B/NAME; FLAGS (libraries) last.
bench_cc() {
	_obj=$1
	_name=$2
	shift 2
	_src="bench/$_name.c"
	for _part in "bench/${_name}"_*.c; do
		if [ -e "$_part" ]; then
			_src="$_src $_part"
		fi
	done
	# shellcheck disable=SC2086
	cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wstrict-prototypes \
		-Wvla -Wno-unused-parameter -Wmissing-prototypes -Wshadow \
		-Wformat=2 -I. -o "$B/$_name" $_src \
		"$_obj/libcore.a" "$@"
}

# suite_limits SCALE SUITE...: "DISK_MB JOB_TIMEOUT" for a rig that runs
# those suites at SCALE.  The disk: the largest need of the suites (their
# disk_mb lines, {N} scaled as klab-run does: floor(N * scale + 0.5), at
# least 1; plus 12% for the file system of a suite with one: a 1400 MiB
# ext4 has 1256 MiB free), rounded up to 64 MiB, and 256 MiB of room
# besides.  The job timeout: the largest suite timeout at that scale plus
# 600 s of boot, setup and upload, at least 1800 s.
suite_limits() {
	python3 - "$TOP" "$@" <<'PY'
import math, re, sys
top, scale = sys.argv[1], float(sys.argv[2])
def expand(v):
    v = re.sub(r"\{([0-9.]+)\}",
               lambda m: str(max(1, math.floor(float(m.group(1)) * scale
                                              + 0.5))), v)
    return sum(float(t) for t in v.split("+"))
disk, tmo = 256, 1800
for s in sys.argv[3:]:
    kv = {}
    for line in open("%s/workloads/suites/%s.suite" % (top, s)):
        k, sep, v = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            kv[k.strip()] = v.strip()
    need = expand(kv.get("disk_mb", "0"))
    if kv.get("filesystem"):
        need *= 1.12
    disk = max(disk, math.ceil(need / 64) * 64 + 256)
    tmo = max(tmo, int(expand(kv.get("timeout", "3600"))) + 600)
print(disk, tmo)
PY
}

# loadavg: the 1, 5 and 15 minute load averages.
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_token KLABD DB ROLE: a token named "bench" with ROLE in DB, exported
# as KLAB_TOKEN for klab and the HTTP clients.
bench_token() {
	KLAB_TOKEN=$("$1" token add bench --role "$3" --db "$2") ||
		die "cannot make a token"
	export KLAB_TOKEN
}

# bench_klabd_wait PID PORTFILE LOG: wait until klabd (PID) has written its
# port to PORTFILE; die with LOG when it exits or has not after 10 s.
bench_klabd_wait() {
	_n=0
	while [ ! -s "$2" ]; do
		_n=$((_n + 1))
		[ $_n -gt 200 ] && die "klabd did not start: $(cat "$3")"
		kill -0 "$1" 2>/dev/null || die "klabd exited: $(cat "$3")"
		sleep 0.05
	done
}

# bench_tmp NAME: TMP, a fresh directory /tmp/NAME.XXXXXX.  At exit the
# klabd in KLABD_PID (if any) is stopped and TMP removed, or kept and
# named when KLAB_BENCH_KEEP is set.
bench_tmp() {
	TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	KLABD_PID=
	trap bench_cleanup EXIT INT TERM
}

bench_cleanup() {
	[ -n "$KLABD_PID" ] && kill "$KLABD_PID" 2>/dev/null && wait "$KLABD_PID"
	if [ -n "${KLAB_BENCH_KEEP:-}" ]; then
		echo "kept: $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}

# bench_klabd OBJ: klabd of build dir OBJ on a free port of 127.0.0.1
# with a fresh database in TMP and a submitter token (KLAB_TOKEN); sets
# KLABD_PID and U, its base URL.
bench_klabd() {
	bench_token "$TOP/$1/bin/klabd" "$TMP/klab.db" submitter
	"$TOP/$1/bin/klabd" --listen 127.0.0.1:0 --db "$TMP/klab.db" \
		--data-dir "$TMP/data" --port-file "$TMP/port" \
		>"$TMP/klabd.log" 2>&1 &
	KLABD_PID=$!
	bench_klabd_wait "$KLABD_PID" "$TMP/port" "$TMP/klabd.log"
	# shellcheck disable=SC2034 # U is the caller's
	U="http://127.0.0.1:$(cat "$TMP/port")"
}

# bench_lab_bins W: private copies of klab's binaries in W/bin (others may
# rebuild build/bin during a long lab run): KLAB_LAB_BIN's when set, else
# a build into build/bench/lab.
bench_lab_bins() {
	if [ -n "${KLAB_LAB_BIN:-}" ]; then
		cp -a "$KLAB_LAB_BIN" "$1/bin" || die "cannot copy '$KLAB_LAB_BIN'"
	else
		echo "bench/${0##*/}: building into build/bench/lab" >&2
		make -s -j2 O=build/bench/lab all >&2 || die "build failed"
		cp -a build/bench/lab/bin "$1/bin" || die "cannot copy the binaries"
	fi
}

# bench_lab_klabd W: klabd of W/bin on a free port of 127.0.0.1 with W's
# database, data and klabd.conf, W/bin as the rigs' binaries and an
# operator token (KLAB_TOKEN); sets KLABD_PID and exports KLAB_URL.
bench_lab_klabd() {
	bench_token "$1/bin/klabd" "$1/klab.db" operator
	"$1/bin/klabd" --listen 127.0.0.1:0 --db "$1/klab.db" \
		--data-dir "$1/data" --port-file "$1/port" \
		--config "$1/klabd.conf" --rig-bin "$1/bin" >"$1/klabd.log" 2>&1 &
	KLABD_PID=$!
	bench_klabd_wait "$KLABD_PID" "$1/port" "$1/klabd.log"
	KLAB_URL=http://127.0.0.1:$(cat "$1/port")
	export KLAB_URL
}

# bench_rigs_idle PREFIX N: true when the rigs PREFIX0 .. PREFIX<N-1> of
# the klabd at KLAB_URL are all idle.
bench_rigs_idle() {
	_i=0
	while [ $_i -lt "$2" ]; do
		curl -s --noproxy '*' --max-time 30 "$KLAB_URL/api/rigs/$1$_i" |
			grep -q '"state":"idle"' || return 1
		_i=$((_i + 1))
	done
}

# bench_pool_conf W CLASS N MODEL: N identical scsi QEMU rigs CLASS0 ..
# CLASS<N-1> of class CLASS appended to W/klabd.conf: disk model MODEL,
# 768 MiB, base kernel KERNEL, disk DISK_MB, job timeout JOB_TIMEOUT (the
# caller's variables).
bench_pool_conf() {
	_i=0
	while [ $_i -lt "$3" ]; do
		cat >>"$1/klabd.conf" <<CONF
[rig $2$_i]
class = $2
kind = qemu
profile = scsi
disk_model = $4
base_kernel = $KERNEL
memory_mb = 768
disk_mb = $DISK_MB
boot_timeout = 300
job_timeout = $JOB_TIMEOUT
CONF
		_i=$((_i + 1))
	done
}

# bench_pool_start W CLASS N: bench_lab_klabd W, the newest Debian 6.1
# kernel into its catalog as K (it must be KERNEL), then the wait (at
# most 1800 s) for the N rigs of CLASS to be idle after their first
# cold boots.
bench_pool_start() {
	bench_lab_klabd "$1"
	K=$("$1/bin/klab" kernel add debian newest-6.1 | tr -d '"') ||
		die "cannot fetch newest-6.1"
	[ "$K" = "$KERNEL" ] ||
		die "newest 6.1 is '$K', not '$KERNEL': set KLAB_LAB_KERNEL=$K"
	echo "bench/${0##*/}: kernel $K; waiting for the $3 rigs' first" \
		"cold boots" >&2
	bench_rigs_wait "$2" "$3" 1800
}

# bench_rigs_wait PREFIX N SECONDS: until bench_rigs_idle PREFIX N, looked
# at every 5 s; die after SECONDS.
bench_rigs_wait() {
	_t=0
	until bench_rigs_idle "$1" "$2"; do
		_t=$((_t + 5))
		[ $_t -gt "$3" ] && die "rigs $1* not idle after $3 s"
		sleep 5
	done
}

# bench_lab_begin NAME: the start of a lab bench: W, a fresh directory
# /tmp/NAME.XXXXXX, cleaned up at exit by bench_lab_cleanup (kept when
# the caller's KEEP is 1), the private binaries in W/bin, and LOAD0 and
# START, the load average and the UTC time before the run.
bench_lab_begin() {
	W=$(mktemp -d "/tmp/$1.XXXXXX") || die "cannot make a directory"
	KLABD_PID=''
	trap 'bench_lab_cleanup "$W" "$KEEP"' EXIT
	trap 'exit 1' INT TERM
	bench_lab_bins "$W"
	LOAD0=$(loadavg)
	# shellcheck disable=SC2034 # START is the caller's
	START=$(date -u '+%Y-%m-%d %H:%M UTC')
	echo "bench/${0##*/}: load average before: $LOAD0" >&2
}

# bench_lab_cleanup W KEEP: at the exit of a lab bench, klabd (KLABD_PID)
# stopped, a QEMU it left behind (stopped mid-boot) stopped, then W
# removed, or kept and named when KEEP is 1.
bench_lab_cleanup() {
	[ -n "$KLABD_PID" ] && kill "$KLABD_PID" 2>/dev/null && wait "$KLABD_PID"
	for _d in "$1"/data/rigs/*/; do
		[ -f "$_d/qemu.pid" ] &&
			"$TOP/kernels/qemu-rig.sh" stop --dir "${_d%/}"
	done
	if [ "$2" = 1 ]; then
		echo "bench/${0##*/}: kept: $1" >&2
	else
		rm -rf "$1"
	fi
}
