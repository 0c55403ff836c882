#!/bin/sh
# SPDX-License-Identifier: MIT
# A remote rig whose power-cycle command hangs (docs/RIGS.md, "Timeouts"),
# no QEMU: while the command hangs, GET /api/rigs, POST /api/jobs and an
# agent of another rig are answered at once (the rig manager's lock is
# never held across a child); the command's whole process group is killed
# at power_timeout; the failure is the rig's (infra: health check failed,
# then offline), never a kernel's: the rig's queued job stays queued; and
# klabd shuts down promptly while a power-cycle hangs, killing it too.
. "$(dirname "$0")/lib.sh"

PT=4	# power_timeout, s
cat >"$TMP/klabd.conf" <<CONF
# t3203: one rig that hangs, one that works
[rig hang]
kind = remote
token = tok-hang
boot_timeout = 600
power_timeout = $PT
power_cycle = echo \$\$ >$TMP/sh.pid; sleep 1000 & echo \$! >$TMP/sleep.pid; wait
[rig ok]
kind = remote
token = tok-ok
boot_timeout = 600
CONF

# gone PID: no such process, or a zombie nobody reaps (killed all the same)
gone() {
	[ ! -e "/proc/$1/stat" ] && return 0
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# wait_for FILE: until it exists and is not empty (10 s at most)
wait_for() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && { cat "$TMP/klabd.log"; fail "no '$1'"; }
		sleep 0.05
	done
}

# quick METHOD PATH [curl args]: must be answered within 3 s
quick() {
	m=$1; p=$2; shift 2
	case "$*" in
	*Authorization:*) ;;
	*) set -- "$@" -H "Authorization: Bearer $KLAB_TOKEN" ;;
	esac
	STATUS=$(curl -s -m 3 -o "$TMP/body" -w '%{http_code}' -X "$m" "$URL$p" "$@")
	[ "$STATUS" != 000 ] || fail "$m $p was not answered within 3 s while the power-cycle hangs"
}

start_klabd --config "$TMP/klabd.conf"
wait_for "$TMP/sleep.pid"
SH=$(cat "$TMP/sh.pid")
SLEEP=$(cat "$TMP/sleep.pid")
kill -0 "$SLEEP" 2>/dev/null || fail "the power-cycle command is not running"

# --- while it hangs: the API, job add and the other rig's agent ---
quick GET /api/rigs
expect_status 200
expect_grep '"name": *"ok"'
quick POST /api/kernels -H 'Content-Type: application/json' \
	--data-binary '{"ident":"6.1.999-t3203","version":"6.1.999-t3203"}'
expect_status 201
quick POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	'{"kernel":"6.1.999-t3203","rig":"hang","suite":"tiobench"}'
expect_status 201
JOB=$(grep -o '[0-9][0-9]*' "$TMP/body" | head -1)
quick POST /api/agent/register -H 'Authorization: Bearer tok-ok' \
	-H 'Content-Type: application/json' \
	--data-binary '{"kernel_release":"6.1.0-host","job":0}'
expect_status 200
expect_grep '"rig": *"ok"'
quick GET "/api/agent/next?wait=0" -H 'Authorization: Bearer tok-ok'
expect_status 204
i=0
until quick GET /api/rigs && tr -d ' \n' <"$TMP/body" | grep -q '"name":"ok"[^}]*"state":"idle"'; do
	i=$((i + 1))
	[ $i -gt 30 ] && fail "rig 'ok' is not idle after its agent checked in: $(cat "$TMP/body")"
	sleep 0.1
done
# the hanging rig's own agent is answered too (and told nothing)
quick GET "/api/agent/next?wait=0" -H 'Authorization: Bearer tok-hang'
expect_status 204
kill -0 "$SLEEP" 2>/dev/null || fail "the power-cycle ended before the requests were answered: nothing was shown"
ok "answered while the power-cycle command hangs"

# --- killed at its timeout, with its whole group; blamed on the rig ---
i=0
until grep -q "power-cycle command of rig 'hang' timed out after $PT s" "$TMP/klabd.log"; do
	i=$((i + 1))
	[ $i -gt $((PT * 20 + 100)) ] && { cat "$TMP/klabd.log"; fail "no timeout of the power-cycle command"; }
	sleep 0.1
done
i=0
until gone "$SH" && gone "$SLEEP"; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "the power-cycle command's group survived its timeout (sh $SH, sleep $SLEEP)"
	sleep 0.1
done
expect_grep "rig hang: health check 1 failed (infra)" "$TMP/klabd.log"
ok "the hung command and its child were killed at power_timeout"

# the second attempt hangs too: offline after two failed health checks
i=0
while :; do
	http GET /api/rigs >/dev/null
	tr -d ' \n' <"$TMP/body" | grep -q '"name":"hang"[^}]*"state":"offline"' && break
	i=$((i + 1))
	[ $i -gt $((PT * 10 + 100)) ] && { cat "$TMP/body" "$TMP/klabd.log"; fail "rig 'hang' did not go offline"; }
	sleep 0.2
done
http GET "/api/jobs/$JOB" >/dev/null
expect_status 200
expect_grep '"state": *"queued"'
expect_nogrep '"kernel_failure\|"class": *"kernel"'
ok "offline after two failed power-cycles; its job is still queued, no kernel blamed"
stop_klabd

# --- shutdown while a power-cycle hangs: prompt, and the command dies ---
rm -f "$TMP/sh.pid" "$TMP/sleep.pid"
start_klabd --config "$TMP/klabd.conf"
wait_for "$TMP/sleep.pid"
SLEEP=$(cat "$TMP/sleep.pid")
t0=$(date +%s)
stop_klabd
[ $(($(date +%s) - t0)) -lt $PT ] || fail "klabd waited for the hung power-cycle command to stop"
i=0
until gone "$SLEEP"; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "the power-cycle command survived klabd's shutdown"
	sleep 0.1
done
ok "shutdown stops a hanging power-cycle command"
