#!/bin/sh
# SPDX-License-Identifier: MIT
# klabd's configuration is strict (docs/RIGS.md, "The configuration file's
# rules"): an unknown key or section stops klabd at start with the file,
# line and key; '#' starts a comment only at the start of a line, so a
# rig token with '#' in it is the whole token.
. "$(dirname "$0")/lib.sh"

# bad CONTENT EXPECTED: klabd must refuse to start, saying EXPECTED
bad() {
	printf '%s' "$1" >"$TMP/bad.conf"
	"$KLAB_BIN/klabd" --config "$TMP/bad.conf" --listen 127.0.0.1:0 \
		--db "$TMP/bad.db" --data-dir "$TMP/bad-data" >"$TMP/bad.log" 2>&1 &
	pid=$!
	i=0
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { kill $pid; fail "klabd started with: $1"; }
		sleep 0.05
	done
	wait $pid && fail "klabd exited 0 with: $1"
	expect_grep "$2" "$TMP/bad.log"
}

bad 'listen = 127.0.0.1:0
lisen = 127.0.0.1:0
' "bad.conf:2: unknown key 'lisen'"
bad '[rig a]
kind = remote
boot_timout = 5
' "bad.conf:3: unknown key 'boot_timout' in section '\[rig a\]'"
bad '[rigs a]
' "bad.conf:1: unknown section '\[rigs a\]'"
bad '[rig a]
kind = remote              # a trailing comment is part of the value
' "expected 'qemu' or 'remote', got 'remote              # a trailing"
ok "unknown keys and sections refused with file and line"
for v in 1 /0 1/ 1/0/2 'a/0' '1-/0' '1,/0' '0--1/0' '1 /0'; do
	bad "[rig a]
pin = $v
" "bad.conf: \\[rig a\\] pin: expected VCPUS/OTHERS"
done
ok "bad pin values refused: $(printf 'pin = %s; ' 1 /0 1/ 1/0/2 a/0)..."

cat >"$TMP/klabd.conf" <<'CONF'
# a comment
   # an indented comment
[rig box]
kind = remote
token = ab#cd ef
CONF
start_klabd --config "$TMP/klabd.conf"
http POST /api/agent/register -H 'Authorization: Bearer ab#cd ef' \
	-H 'Content-Type: application/json' \
	--data-binary '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 200
http POST /api/agent/register -H 'Authorization: Bearer ab' \
	-H 'Content-Type: application/json' \
	--data-binary '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
expect_status 401
stop_klabd
ok "'#' inside a value is kept"
