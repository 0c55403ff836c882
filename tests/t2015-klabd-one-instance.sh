#!/bin/sh
# SPDX-License-Identifier: MIT
# One klabd per port and per database (docs/SECURITY.md, "The daemon
# core"; issue 29): with one klabd serving,
# - a second on the same port (another database) exits non-zero at start
#   with an error naming the address, and every request still reaches the
#   first (no SO_REUSEPORT sharing the port between the two);
# - a second on the same database (another port) exits non-zero naming
#   the lock file and the first one's pid, and leaves the database alone;
# - once the first is stopped, or killed with SIGKILL, a new klabd starts
#   on the same port and database (the lock goes with the process).
. "$(dirname "$0")/lib.sh"

printf '[rig r1]\nkind = remote\ntoken = tok-r1\nautostart = no\n' >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"
FIRST=$KLABD_PID

# second ARGS...: another klabd that must not start; its log in $TMP/second.log
second() {
	timeout 20 "$KLAB_BIN/klabd" --data-dir "$TMP/data2" "$@" >"$TMP/second.log" 2>&1 &
	_p=$!
	i=0
	while kill -0 $_p 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			kill $_p; wait $_p
			fail "a second klabd started ($*): $(cat "$TMP/second.log")"
		fi
		sleep 0.05
	done
	wait $_p
	rc=$?
	[ $rc -ne 0 ] || fail "a second klabd exited 0 ($*): $(cat "$TMP/second.log")"
	[ $rc -ne 124 ] || fail "a second klabd ran until killed ($*)"
}

second --listen "127.0.0.1:$PORT" --db "$TMP/other.db"
expect_grep "cannot listen on 127.0.0.1:$PORT: Address already in use" "$TMP/second.log"
expect_grep "another klabd" "$TMP/second.log"
# every connection still reaches the first klabd
i=0
while [ $i -lt 20 ]; do
	http GET /api/rigs >/dev/null
	expect_status 200
	expect_grep '"r1"'
	i=$((i + 1))
done
ok "a second klabd on port $PORT refused at start ($(tail -1 "$TMP/second.log")); 20 of 20 requests reach the first"

second --listen 127.0.0.1:0 --db "$TMP/klab.db"
expect_grep "another klabd uses the database: '$TMP/klab.db.lock' is locked by pid $FIRST" "$TMP/second.log"
expect_nogrep "serving http" "$TMP/second.log"
second --listen "127.0.0.1:$PORT" --db "$TMP/klab.db"
expect_grep "another klabd uses the database" "$TMP/second.log"
http GET /api/health >/dev/null
expect_status 200
ok "a second klabd on the same database refused, naming the lock file and pid $FIRST"

# the lock and the port go with the process: after a stop, and a SIGKILL
stop_klabd
KLABD_LISTEN=127.0.0.1:$PORT start_klabd --config "$TMP/klabd.conf"
http GET /api/rigs >/dev/null
expect_status 200
kill -KILL "$KLABD_PID"
wait "$KLABD_PID" 2>/dev/null
KLABD_PID=
KLABD_LISTEN=127.0.0.1:$PORT start_klabd --config "$TMP/klabd.conf"
[ "$(cat "$TMP/klab.db.lock")" = "$KLABD_PID" ] || fail "the lock file holds '$(cat "$TMP/klab.db.lock")', not $KLABD_PID"
http GET /api/rigs >/dev/null
expect_status 200
ok "klabd starts again on the same port and database after a stop and after a SIGKILL"
stop_klabd
