#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_alerts.sh: the alert outbox under a burst of events, for
# docs/PERFORMANCE.md ("Alerts").  bench_alerts emits N events (default
# 1000) through alerts_emit_to into a fresh database, then drains the
# outbox with alerts_deliver_due, the delivery thread's pass: one signed
# webhook POST per event to a local receiver, then (with python3 aiosmtpd)
# one mail per event to a local SMTP sink; the reference is the same
# number of signed POSTs sent bare, in the same process.  Everything runs
# on 127.0.0.1 (tests/t2020-alerts-sink.py).  Timings are reported, never
# asserted.  Output: stdout and build/bench/alerts.md.
#   bench/bench_alerts.sh
#   KLAB_BENCH_ALERTS=1000 bench/bench_alerts.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
N=${KLAB_BENCH_ALERTS:-1000}
cd "$TOP"
OBJ=build/bench/aobj
bench_build $OBJ
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wstrict-prototypes -Wvla \
	-Wno-unused-parameter -Wmissing-prototypes -Wshadow -Wformat=2 -I. \
	-o "$B/bench_alerts" bench/bench_alerts.c $OBJ/libctl.a $OBJ/libcore.a \
	$(pkg-config --cflags --libs libmicrohttpd libcurl sqlite3 jansson libcrypto) \
	$(pkg-config --libs liburing 2>/dev/null) -lpthread -lm

bench_tmp klab-bench-alerts
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import aiosmtpd' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || die "python3 aiosmtpd is not installed (apt-get install python3-aiosmtpd)"
mkdir "$TMP/sink"
"$PY" tests/t2020-alerts-sink.py "$TMP/sink" bench-secret >"$TMP/sink.log" 2>&1 &
SINK_PID=$!
trap 'kill $SINK_PID 2>/dev/null; bench_cleanup' EXIT INT TERM
n=0
while [ ! -s "$TMP/sink/ports" ]; do
	n=$((n + 1))
	[ $n -gt 100 ] && die "the sink did not start: $(cat "$TMP/sink.log")"
	sleep 0.1
done
SMTP=smtp://127.0.0.1:$(awk '$1 == "smtp" { print $2 }' "$TMP/sink/ports")
HOOK=http://127.0.0.1:$(awk '$1 == "http" { print $2 }' "$TMP/sink/ports")/count

LOAD0=$(loadavg)
"$B/bench_alerts" "$TMP/alerts.db" "$HOOK" "$N" "$SMTP" 2>"$TMP/err" | tee "$TMP/out"
mails=$(ls "$TMP/sink" | grep -c '\.eml$' || true)
posts=$(cat "$TMP/sink/requests")
echo "received: $posts webhook requests ($N through the outbox + $N bare), $mails mails"
[ "$posts" -eq $((2 * N)) ] || die "expected $((2 * N)) webhook requests, got $posts: $(tail "$TMP/err")"
[ "$mails" -eq "$N" ] || die "expected $N mails, got $mails: $(tail "$TMP/err")"
{
	echo "Measured by \`bench/bench_alerts.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs,"
	echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), load average $LOAD0 at start:"
	echo
	sed 's/^/    /' "$TMP/out"
} >"$B/alerts.md"
echo "report: $B/alerts.md"
