#!/bin/sh
# SPDX-License-Identifier: MIT
# Controller fault (docs/FAULTS.md): the host's clock steps an hour
# forward, then an hour back, while a remote rig boots and while its job
# runs.  Stepping the real clock is not safe on a shared machine, so
# klabd alone sees the steps: a small LD_PRELOAD shim, built here, adds
# the offset in $TMP/offset (seconds, read at every call) to
# CLOCK_REALTIME, gettimeofday() and time(), as an NTP step would
# (CLOCK_MONOTONIC is left alone, as the kernel leaves it).  Every
# watchdog runs on the monotonic clock, so no boot and no job fails: the
# rig comes up, the job ends done with its results, and no failure of any
# class is recorded.  (What the shim cannot show: a timed wait on
# CLOCK_REALTIME inside libc; klabd has none, see rigmgr.c.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault-lib.sh"
command -v cc >/dev/null || skip "no C compiler for the clock shim"

cat >"$TMP/shift.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long offset(void)
{
	const char *p = getenv("CLOCK_SHIFT_FILE");
	char buf[32] = "";
	int fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtol(buf, NULL, 10);
}

int clock_gettime(clockid_t c, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	int rc;

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	rc = real(c, ts);
	if (!rc && (c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE))
		ts->tv_sec += offset();
	return rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
C
cc -shared -fPIC -O2 -o "$TMP/shift.so" "$TMP/shift.c" -ldl || fail "cannot build the clock shim"
echo 0 >"$TMP/offset"
# the shim is proven first: date under it is an hour ahead
echo 3600 >"$TMP/offset"
d=$(( $(CLOCK_SHIFT_FILE=$TMP/offset LD_PRELOAD=$TMP/shift.so date +%s) - $(date +%s) ))
[ "$d" -ge 3590 ] && [ "$d" -le 3610 ] || fail "the clock shim does not shift date (+$d s)"
echo 0 >"$TMP/offset"

cat >"$TMP/klabd.conf" <<CONF
[rig host0]
kind = remote
token = tok-host0
boot_timeout = 40
job_timeout = 90
CONF
# klabd's ASan runtime comes after the shim in the library order
CLOCK_SHIFT_FILE=$TMP/offset LD_PRELOAD=$TMP/shift.so \
	ASAN_OPTIONS="${ASAN_OPTIONS}:verify_asan_link_order=0" \
	start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "cannot add the newest 6.1 kernel"
klab job add "$K" --rig host0 --suite dbench --scale 0.05 >/dev/null || fail "queue job 1"

# while the rig boots: +1 h, then -1 h (from +1 h: two hours back)
wait_rig host0 booting 30
echo 3600 >"$TMP/offset"; sleep 3
echo -3600 >"$TMP/offset"; sleep 3
host_agent_start host0 tok-host0
wait_file "$TMP/fake/started.1"
# while the job runs: +1 h, then back to -1 h
echo 3600 >"$TMP/offset"; sleep 3
echo -3600 >"$TMP/offset"; sleep 3
: >"$TMP/fake/go"
wait "$APID" || { cat "$TMP/agent.log"; fail "the agent failed"; }
job_get 1
grep -q '"state":"done"' "$TMP/job" || fail "job 1 not done after the clock steps: $(cat "$TMP/job")"
f=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM jobs WHERE failure IS NOT NULL AND failure != ''")
[ "$f" -eq 0 ] || fail "$f failures recorded after clock steps"
expect_nogrep 'health check\|kernel failure\|(hang)' "$TMP/klabd.log"
# and klabd saw the steps: the job's start time is an hour off the real clock
s=$(sed -n 's/.*"started":\([0-9]*\).*/\1/p' "$TMP/job")
d=$(( $(date +%s) - s ))
[ "$d" -gt 3000 ] || [ "$d" -lt -3000 ] || fail "klabd did not see the stepped clock (started $d s ago)"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(*) FROM runs WHERE job_id = 1")
[ "$n" -eq 1 ] || fail "job 1 stored $n runs, expected 1"
stop_klabd
ok "clock steps of +-1 h during a boot and a job blamed nothing"
