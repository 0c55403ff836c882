#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_slowloris.sh: how long an agent on 127.0.0.1 waits for an
# answer while 12 addresses run a slowloris against klabd (issue 29's
# target: 2 s; docs/SECURITY.md, "Bounded resources").  One klabd with
# its default limits (header_timeout 10 s) and one remote rig; REQS agent
# polls (GET /api/agent/next?wait=0 with the rig's token) from 127.0.0.1,
# one every GAP s, first alone (the reference), then while
# tests/slowloris.py holds CONNS connections from 127.0.0.2..127.0.0.13,
# a byte every DRIP s each, opening again whatever klabd closes.  Prints
# the p50 and max latency of each series, their ratio, what the attacker
# saw, and the load average before and after.
#
#   bench/bench_slowloris.sh
#   KLAB_BIN=DIR CONNS=N REQS=N GAP=S DRIP=S bench/bench_slowloris.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
cd "$TOP"
CONNS=${CONNS:-1500}
REQS=${REQS:-20}
GAP=${GAP:-1.5}
DRIP=${DRIP:-2}
if [ -n "${KLAB_BIN:-}" ]; then
	KLABD=$KLAB_BIN/klabd
else
	bench_build build/bench/obj
	KLABD=$TOP/build/bench/obj/bin/klabd
fi
command -v python3 >/dev/null || die "no python3"
ulimit -Sn 4096 2>/dev/null || ulimit -n 4096 2>/dev/null || true
[ "$(ulimit -n)" -ge $((CONNS + 200)) ] || die "cannot open $CONNS files (ulimit -n)"
bench_tmp klab-bench-loris
LPID=
trap '[ -n "$LPID" ] && kill $LPID 2>/dev/null; bench_cleanup' EXIT INT TERM

printf '[rig host0]\nkind = remote\ntoken = tok-host0\nautostart = no\n' >"$TMP/klabd.conf"
"$KLABD" --config "$TMP/klabd.conf" --listen 127.0.0.1:0 --db "$TMP/klab.db" \
	--data-dir "$TMP/data" --port-file "$TMP/port" >"$TMP/klabd.log" 2>&1 &
KLABD_PID=$!
bench_klabd_wait "$KLABD_PID" "$TMP/port" "$TMP/klabd.log"
PORT=$(cat "$TMP/port")

# series FILE: REQS agent polls from 127.0.0.1, one every GAP s; each
# line "SECONDS HTTP_CODE" (000 and 10 s for one not answered in 10 s)
series() {
	: >"$1"
	_i=0
	while [ $_i -lt "$REQS" ]; do
		curl -s -o /dev/null -w '%{time_total} %{http_code}\n' --max-time 10 \
			-H 'Authorization: Bearer tok-host0' \
			"http://127.0.0.1:$PORT/api/agent/next?wait=0" >>"$1" || true
		_i=$((_i + 1))
		sleep "$GAP"
	done
}

# stats FILE: "p50 X s, max Y s, N of REQS answered 204"
stats() {
	python3 - "$1" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
t = sorted(float(r[0]) for r in rows)
ok = sum(1 for r in rows if r[1] == "204")
print("%.4f %.4f %d %d" % (t[(len(t) - 1) // 2], t[-1], ok, len(rows)))
PY
}

load0=$(loadavg)
series "$TMP/alone"
# shellcheck disable=SC2046
python3 "$TOP/tests/slowloris.py" "$PORT" "$CONNS" "$DRIP" $(seq 2 13 | sed 's/^/127.0.0./') \
	>"$TMP/loris.out" 2>"$TMP/loris.err" &
LPID=$!
i=0
until grep -q '^open=' "$TMP/loris.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 300 ] && die "the slowloris did not start: $(cat "$TMP/loris.err")"
	sleep 0.1
done
sleep 3
series "$TMP/attack"
kill $LPID 2>/dev/null
wait $LPID 2>/dev/null || true
LPID=
load1=$(loadavg)

set -- $(stats "$TMP/alone")
a50=$1 amax=$2 aok=$3
set -- $(stats "$TMP/attack")
s50=$1 smax=$2 sok=$3
echo "bench_slowloris: $CONNS connections from 12 addresses, a byte every $DRIP s, $(nproc) cores, klabd $KLABD"
echo "  alone:        p50 ${a50} s, max ${amax} s, $aok of $REQS answered 204"
echo "  under attack: p50 ${s50} s, max ${smax} s, $sok of $REQS answered 204"
python3 -c "print('  ratio under attack / alone: p50 %.1f, max %.1f' % ($s50 / $a50, $smax / $amax))"
echo "  attacker at the end: $(tail -1 "$TMP/loris.out")"
echo "  $(grep "connections closed that sent no request" "$TMP/klabd.log" | head -1 | cut -c1-170)"
echo "  load average before: $load0, after: $load1"
