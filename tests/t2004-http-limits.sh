#!/bin/sh
# SPDX-License-Identifier: MIT
# Bounded resources in klabd's HTTP layer (docs/SECURITY.md), black-box
# against a real klabd, with hostile clients from tests/http-clients.py:
# - 1,000 idle connections from 127.0.0.2 (nothing sent) get at most
#   max_connections_per_ip (128) slots; 127.0.0.1, where every QEMU rig's
#   agent comes from, is still answered: /api/health, an agent's poll, a
#   401 for a wrong token; the refusals make a log line, not 872
# - 1,000 idle connections from 40 addresses fill max_connections; klabd
#   holds no more sockets than that (they get max_connections less the
#   slots kept for 127.0.0.1, http_conn.c), and a request from 127.0.0.1
#   is answered (t2012 has the slowloris that drips bytes)
# - 30 stalled uploads (Content-Length 15 MiB, 4 KiB sent) get
#   upload_memory and no more: the rest are 503 with Retry-After before
#   their body, klabd's VmRSS grows by less than upload_memory, and the
#   memory is given back when they go; with 12 MiB of each sent, VmRSS
#   grows by less than upload_memory + 16 MiB (not 30 x 12 MiB)
# - an oversize upload with Expect: 100-continue gets 413 naming its size
#   and never "100 Continue"; a chunked one is cut off at max_upload
# - 40 long polls on a pool of 2 threads park without a thread each while
#   /api/health is answered; each ends with 204; a queued job wakes a
#   parked poll before its wait is over; klabd stops cleanly with polls
#   parked, and they are answered before it closes
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
ulimit -n 4096 2>/dev/null
[ "$(ulimit -n)" -ge 2100 ] 2>/dev/null || skip "cannot open 2,100 files (ulimit -n)"
HC=$TOP/tests/http-clients.py
AUTH='Authorization: Bearer tok-host0'

rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$KLABD_PID/status"; }
threads() { sed -n 's/^Threads:[[:space:]]*//p' "/proc/$KLABD_PID/status"; }
nsockets() { find "/proc/$KLABD_PID/fd" -lname 'socket:*' | wc -l; }

# clients MODE ARGS...: start the helper; HPID, and REPORT once it is ready
clients() {
	rm -f "$TMP/clients.out"
	python3 "$HC" "$@" >"$TMP/clients.out" 2>>"$TMP/clients.err" &
	HPID=$!
	i=0
	while ! grep -q '^open=' "$TMP/clients.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "the client helper did not report: $(cat "$TMP/clients.err")"
		kill -0 $HPID 2>/dev/null || fail "the client helper died: $(cat "$TMP/clients.err")"
		sleep 0.1
	done
	REPORT=$(cat "$TMP/clients.out")
	echo "clients $1: $REPORT"
}
clients_stop() {
	[ -n "$HPID" ] || return 0
	kill "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	HPID=
}
field() { echo "$REPORT" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
at_cleanup clients_stop
HPID=

conf() {
	{
		cat
		printf '[rig host0]\nkind = remote\ntoken = tok-host0\n'
	} >"$TMP/klabd.conf"
}

# --- idle connections from one address ---
conf </dev/null
start_klabd --config "$TMP/klabd.conf"
clients idle "$PORT" 1000 127.0.0.2
open=$(field open)
[ "$open" -le 128 ] || fail "127.0.0.2 holds $open connections, over the per-address limit of 128"
[ "$open" -ge 64 ] || fail "only $open idle connections were accepted: $REPORT"
http GET /api/health --max-time 5 >/dev/null
expect_status 200
http GET "/api/agent/next?wait=0" --max-time 5 -H "$AUTH" >/dev/null
expect_status 204
http GET "/api/agent/next?wait=0" --max-time 5 -H 'Authorization: Bearer nope' >/dev/null
expect_status 401
n=$(grep -c 'connection limit' "$TMP/klabd.log")
[ "$n" -le 2 ] || fail "$n log lines for refused connections"
clients_stop
ok "1,000 idle connections from 127.0.0.2: $open held, 127.0.0.1 answered, $n log line(s)"
stop_klabd

# --- idle connections from many addresses fill max_connections ---
conf <<CONF
max_connections = 200
connection_timeout = 2
CONF
start_klabd --config "$TMP/klabd.conf"
srcs=$(seq 10 49 | sed 's/^/127.0.0./')
# shellcheck disable=SC2086
clients idle "$PORT" 1000 $srcs
held=$(nsockets)
[ "$held" -le 210 ] || fail "klabd holds $held sockets with max_connections = 200"
start=$(date +%s)
http GET /api/health --max-time 90 >/dev/null
expect_status 200
clients_stop
ok "1,000 idle connections over 40 addresses: klabd held $held sockets; a request from 127.0.0.1 answered after $(( $(date +%s) - start )) s"
stop_klabd

# --- stalled uploads and upload_memory ---
conf <<CONF
upload_memory = 32M
connection_timeout = 60
CONF
start_klabd --config "$TMP/klabd.conf"
http GET /api/health >/dev/null
# without a token: refused from the headers, the body never read
KLAB_TOKEN= clients upload "$PORT" 30 15728640 4096
case $REPORT in *answers=401:30*) ;; *) fail "expected 30 uploads without a token refused with 401: $REPORT" ;; esac
clients_stop
ok "30 uploads without a token: 401 before their body"
rss0=$(rss)
clients upload "$PORT" 30 15728640 4096
rss1=$(rss)
open=$(field open)
case $REPORT in *answers=503:28*) ;; *) fail "expected 28 of 30 stalled uploads refused with 503: $REPORT" ;; esac
[ "$open" = 2 ] || fail "expected 2 stalled uploads held: $REPORT"
grow=$((rss1 - rss0))
echo "VmRSS $rss0 kB -> $rss1 kB with 30 stalled 15 MiB uploads (+$grow kB)"
[ "$grow" -lt 32768 ] || fail "VmRSS grew by $grow kB, over upload_memory (32 MiB)"
head -c 3M /dev/zero | tr '\0' ' ' >"$TMP/3m.json"
STATUS=$(curl -s -D "$TMP/hdr" -o "$TMP/body" -w '%{http_code}' -H 'Content-Type: application/json' \
	-H "Authorization: Bearer $KLAB_TOKEN" --data-binary @"$TMP/3m.json" "$URL/api/import?format=klab")
expect_status 503
expect_grep 'upload of 3145728 bytes refused'
grep -qi '^Retry-After: [0-9]' "$TMP/hdr" || fail "no Retry-After with the 503: $(cat "$TMP/hdr")"
clients_stop
i=0
while :; do
	http POST "/api/import?format=klab" -H 'Content-Type: application/json' \
		--data-binary @"$TMP/3m.json" >/dev/null
	[ "$STATUS" != 503 ] && break
	i=$((i + 1))
	[ $i -gt 50 ] && fail "upload_memory not given back after the stalled uploads went"
	sleep 0.1
done
[ "$STATUS" = 400 ] || fail "a 3 MiB upload after the stall: expected 400 (not a klab document), got $STATUS"
ok "30 stalled uploads: 2 held, 28 refused with 503 and Retry-After, VmRSS +$grow kB, memory given back"

# the same with 12 MiB of each body sent: thread-per-connection klabd grew
# by 30 x 12 MiB; now by what upload_memory admits (plus the sanitizer's
# shadow and libmicrohttpd's buffers)
rss0=$(rss)
clients upload "$PORT" 30 15728640 12582912
rss1=$(rss)
[ "$(field open)" -le 2 ] || fail "expected at most 2 stalled uploads held: $REPORT"
grow=$((rss1 - rss0))
echo "VmRSS $rss0 kB -> $rss1 kB with 30 stalled uploads, 12 MiB sent each (+$grow kB)"
[ "$grow" -lt 49152 ] || fail "VmRSS grew by $grow kB with upload_memory = 32 MiB"
clients_stop
ok "30 stalled uploads with 12 MiB sent each: VmRSS +$grow kB"

# --- oversize uploads: 413 before the body, chunked ones cut off ---
python3 "$HC" expect "$PORT" 20971520 >"$TMP/expect.out" 2>&1 || fail "expect client: $(cat "$TMP/expect.out")"
head -1 "$TMP/expect.out" | grep -q '^HTTP/1.1 413 ' || fail "oversize upload with Expect: 100-continue: $(cat "$TMP/expect.out")"
expect_nogrep '100 Continue' "$TMP/expect.out"
expect_grep 'upload of 20971520 bytes exceeds the limit of 16777216 bytes' "$TMP/expect.out"
head -c 17M /dev/zero >"$TMP/17m"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
	-H 'Transfer-Encoding: chunked' -H 'Expect:' --data-binary @"$TMP/17m" \
	"$URL/api/import?format=klab")
[ "$code" = 000 ] || fail "a chunked upload over max_upload got HTTP $code, not cut off"
http GET /api/health >/dev/null
expect_status 200
ok "an oversize upload is 413 before its body with the right size; a chunked one is cut off"
stop_klabd

# --- long polls on a pool of two threads ---
conf <<CONF
http_threads = 2
CONF
start_klabd --config "$TMP/klabd.conf"
pids=
for i in $(seq 1 40); do
	curl -s -o /dev/null -w '%{http_code}' --max-time 60 -H "$AUTH" \
		"$URL/api/agent/next?wait=20" >"$TMP/poll.$i" &
	pids="$pids $!"
done
sleep 3
nt=$(threads)
[ "$nt" -lt 20 ] || fail "klabd runs $nt threads with 40 long polls parked"
for i in 1 2 3; do
	http GET /api/health --max-time 5 >/dev/null
	expect_status 200
done
# shellcheck disable=SC2086
wait $pids
for i in $(seq 1 40); do
	[ "$(cat "$TMP/poll.$i")" = 204 ] || fail "long poll $i ended with '$(cat "$TMP/poll.$i")', not 204"
done
ok "40 long polls parked on 2 pool threads ($nt threads in all), /api/health answered, each ended with 204"

# a job queued for the rig wakes a parked poll long before its wait is over
http POST /api/agent/register -H "$AUTH" -H 'Content-Type: application/json' \
	--data-binary '{"kernel_release":"6.1.0-test"}' >/dev/null
expect_status 200
curl -s -o "$TMP/woken" -w '%{http_code}' --max-time 60 -H "$AUTH" \
	"$URL/api/agent/next?wait=300" >"$TMP/woken.code" &
wpid=$!
sleep 2
http POST /api/kernels -H 'Content-Type: application/json' \
	--data-binary '{"ident":"6.1.0-fake","version":"6.1.0"}' >/dev/null
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	'{"kernels":["6.1.0-fake"],"rig":"host0","suite":"tiobench"}' >/dev/null
expect_status 201
wait $wpid
# the job was handed out; the kernel has no boot files: an infra failure
[ "$(cat "$TMP/woken.code")" = 500 ] || fail "the woken poll: HTTP $(cat "$TMP/woken.code") $(cat "$TMP/woken")"
expect_grep 'no bootable image' "$TMP/woken"
ok "a queued job woke a parked poll"

# klabd stops cleanly with polls parked (they are resumed first)
pids=
for i in $(seq 1 10); do
	curl -s -o /dev/null -w '%{http_code}' --max-time 60 -H "$AUTH" \
		"$URL/api/agent/next?wait=300" >"$TMP/poll.$i" &
	pids="$pids $!"
done
sleep 2
stop_klabd
# shellcheck disable=SC2086
wait $pids
ends=$(for i in $(seq 1 10); do cat "$TMP/poll.$i"; echo; done | sort | uniq -c | tr -s ' \n' ' ')
for i in $(seq 1 10); do
	# 204, or 500 for a poll that took the job the test queued above
	case $(cat "$TMP/poll.$i") in
	204|500) ;;
	*) fail "a long poll parked at the stop ended with '$(cat "$TMP/poll.$i")' (all: $ends)" ;;
	esac
done
ok "klabd stopped with long polls parked, each answered (HTTP:$ends)"
