#!/bin/sh
# SPDX-License-Identifier: MIT
# A slowloris from 12 addresses (docs/SECURITY.md, "Bounded resources";
# issue 29), black-box against a real klabd with its default limits but
# header_timeout = 3: tests/slowloris.py opens 1,500 connections from
# 127.0.0.2..127.0.0.13, sends each the start of a request and then a
# byte every second (so connection_timeout, an idle timeout, never
# fires), and opens again whatever klabd closes.  Meanwhile:
# - requests from 127.0.0.1 are answered (an agent's poll, /api/health,
#   a page), each within 10 s (a generous bound, not a timing claim: the
#   2 s target is measured by bench/bench_slowloris.sh);
# - klabd closes the connections whose request has not arrived within
#   header_timeout, however they drip (the attacker has to open again,
#   and klabd says so in its log);
# - the 12 addresses cannot fill max_connections: each holds at most
#   max_connections_per_ip (128) connections;
# - the same for bodies: POST /login with whole headers, then a body
#   (declared or chunked) dripped a byte a second, is closed too (a body
#   must average 16 KiB/s past header_timeout).
# Then, with max_connections = 300 (less than the attack), the slots
# kept for 127.0.0.1 still let its requests in.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
ulimit -Sn 4096 2>/dev/null || ulimit -n 4096 2>/dev/null
[ "$(ulimit -n)" -ge 2000 ] 2>/dev/null || skip "cannot open 2,000 files (ulimit -n)"
AUTH='Authorization: Bearer tok-host0'
SRCS=$(seq 2 13 | sed 's/^/127.0.0./')

nsockets() { find "/proc/$KLABD_PID/fd" -lname 'socket:*' 2>/dev/null | wc -l; }

# attack N [--body=...]: the slowloris with N connections from the 12
# addresses; LPID, its output in $TMP/loris.out
attack() {
	# shellcheck disable=SC2086
	python3 "$TOP/tests/slowloris.py" ${2:-} "$PORT" "$1" 1 $SRCS >"$TMP/loris.out" 2>"$TMP/loris.err" &
	LPID=$!
	i=0
	until grep -q '^open=' "$TMP/loris.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "the slowloris did not start: $(cat "$TMP/loris.err")"
		kill -0 $LPID 2>/dev/null || fail "the slowloris died: $(cat "$TMP/loris.err")"
		sleep 0.1
	done
}
attack_stop() {
	[ -n "$LPID" ] || return 0
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	LPID=
}
LPID=
at_cleanup attack_stop

# answered WHAT: requests from 127.0.0.1 during the attack, each within 10 s
answered() {
	http GET "/api/agent/next?wait=0" --max-time 10 -H "$AUTH" >/dev/null
	[ "$STATUS" = 204 ] || fail "$1: an agent's poll from 127.0.0.1 got '$STATUS' (last: $(tail -1 "$TMP/loris.out"))"
	http GET /api/health --max-time 10 >/dev/null
	[ "$STATUS" = 200 ] || fail "$1: /api/health from 127.0.0.1 got '$STATUS'"
	HTTP_NOAUTH=1 http GET /rigs --max-time 10 >/dev/null
	[ "$STATUS" = 200 ] || fail "$1: /rigs from 127.0.0.1 got '$STATUS'"
}

printf 'header_timeout = 3\n[rig host0]\nkind = remote\ntoken = tok-host0\n' >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"
attack 1500
echo "slowloris: $(head -1 "$TMP/loris.out") from 12 addresses"
max=0
t0=$(date +%s)
n=0
while [ $(($(date +%s) - t0)) -lt 20 ]; do
	answered "after $(($(date +%s) - t0)) s"
	n=$((n + 1))
	s=$(nsockets)
	[ "$s" -gt "$max" ] && max=$s
	sleep 1
done
last=$(tail -1 "$TMP/loris.out")
echo "slowloris after 20 s: $last; klabd held at most $max sockets"
[ "$max" -le $((12 * 128 + 40)) ] || fail "klabd held $max sockets: over 12 x max_connections_per_ip"
reopened=$(echo "$last" | sed -n 's/.*reopened=\([0-9]*\).*/\1/p')
[ "${reopened:-0}" -ge 1000 ] || fail "klabd did not close the dripping connections ($last)"
expect_grep 'connections closed that sent no request within 3 s' "$TMP/klabd.log"
attack_stop
ok "1,500 dripping connections from 12 addresses: $n rounds of requests from 127.0.0.1 answered; the drippers closed at the header deadline ($last)"

for body in --body=2000 --body=chunked; do
	attack 300 $body
	sleep 6
	answered "bodies dripped ($body)"
	last=$(tail -1 "$TMP/loris.out")
	attack_stop
	reopened=$(echo "$last" | sed -n 's/.*reopened=\([0-9]*\).*/\1/p')
	[ "${reopened:-0}" -ge 300 ] || fail "klabd did not close the connections dripping a body ($body: $last)"
done
ok "300 connections dripping a declared or a chunked body closed at the deadline, 127.0.0.1 answered"
stop_klabd

# a global limit below the attack: 127.0.0.1 keeps its reserve
printf 'max_connections = 300\nheader_timeout = 3\n[rig host0]\nkind = remote\ntoken = tok-host0\n' >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"
attack 1500
t0=$(date +%s)
n=0
while [ $(($(date +%s) - t0)) -lt 8 ]; do
	answered "max_connections = 300, after $(($(date +%s) - t0)) s"
	n=$((n + 1))
	s=$(nsockets)
	[ "$s" -le 320 ] || fail "klabd holds $s sockets with max_connections = 300"
	sleep 1
done
attack_stop
expect_grep 'refused beyond 172 from addresses other than 127.0.0.1' "$TMP/klabd.log"
ok "max_connections = 300 under 1,500 dripping connections: $n rounds from 127.0.0.1 answered in the reserve"
stop_klabd
