# SPDX-License-Identifier: MIT
# Helpers for klab's black-box tests: sourced by tests/tNNNN-*.sh.
# Starts a real klabd on a free loopback port with a temporary sqlite file.
set -u
: "${TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${KLAB_BIN:=$TOP/build/san/bin}"
: "${KLAB_PLAIN_BIN:=$TOP/build/bin}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/klab-test.XXXXXX")
KLABD_PID=
CLEANUPS=
# at_cleanup 'CMDS': run CMDS at exit (newest first), before klabd is
# killed and $TMP removed; a test adds its own undo here, never a trap.
at_cleanup() {
	CLEANUPS="$1
$CLEANUPS"
}
kill_klabd() {
	[ -n "$KLABD_PID" ] && kill "$KLABD_PID" 2>/dev/null && wait "$KLABD_PID" 2>/dev/null
	KLABD_PID=
}
cleanup() {
	_c=$CLEANUPS
	CLEANUPS=
	eval "$_c"
	kill_klabd
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
# killed (tests/run.sh's time limit sends SIGTERM): what klabd said last,
# for the log's tail that run.sh prints
on_signal() {
	trap - INT TERM
	echo "killed by a signal; klabd's last lines:"
	tail -n 12 "$TMP/klabd.log" 2>/dev/null
	exit 130
}
trap on_signal INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
ok() { echo "ok: $*"; }

# submit_conf FILE [LINE...]: a klabd configuration for submissions built
# on the fake kernel tree (tests/data/build-tree, artifacts cached in
# $TMP/cache) and run on remote rig r1 (token tok-r1-secret, tiobench),
# with LINEs added to the global keys; append further sections to FILE.
submit_conf() {
	_f=$1
	shift
	{
		echo "build_cache = $TMP/cache"
		echo "build_fragment = $TOP/tests/data/build-tree.config"
		echo "build_must_have = CONFIG_KEXEC"
		echo "submit_rigs = r1"
		echo "submit_suites = tiobench"
		for _l in "$@"; do echo "$_l"; done
		printf '[base fake]\ndir = %s\n' "$TOP/tests/data/build-tree"
		printf '[rig r1]\nkind = remote\ntoken = tok-r1-secret\n'
		echo "autostart = no"
	} >"$_f"
}

# make_token NAME ROLE: a new token in the test's database, printed once
make_token() {
	"$KLAB_BIN/klabd" token add "$1" --role "$2" --db "$TMP/klab.db"
}

# start_klabd [extra klabd args...]: sets PORT, URL, KLAB_URL, KLABD_PID,
# and KLAB_TOKEN (an operator token made before the first start, which
# klab and the http helper send)
start_klabd() {
	rm -f "$TMP/port"
	if [ ! -s "$TMP/operator.token" ]; then
		make_token test-operator operator >"$TMP/operator.token" ||
			fail "cannot make the operator token"
	fi
	KLAB_TOKEN=$(cat "$TMP/operator.token")
	export KLAB_TOKEN
	"$KLAB_BIN/klabd" --listen "${KLABD_LISTEN:-127.0.0.1:0}" --db "$TMP/klab.db" \
		--data-dir "$TMP/data" --port-file "$TMP/port" "$@" \
		>>"$TMP/klabd.log" 2>&1 &
	KLABD_PID=$!
	i=0
	while [ ! -s "$TMP/port" ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && { cat "$TMP/klabd.log"; fail "klabd did not start"; }
		kill -0 "$KLABD_PID" 2>/dev/null || { cat "$TMP/klabd.log"; fail "klabd exited at start"; }
		sleep 0.05
	done
	PORT=$(cat "$TMP/port")
	URL="http://127.0.0.1:$PORT"
	KLAB_URL=$URL
	export PORT URL KLAB_URL
}

# host_rig_start [extra klabd args...]: klabd (start_klabd) with one
# remote rig, host0 (token tok-host0), for a klab-agent run on the host;
# sets K, the newest Debian 6.1 kernel, added to its catalog
host_rig_start() {
	printf '[rig host0]\nkind = remote\ntoken = tok-host0\nboot_timeout = 600\njob_timeout = 300\n' \
		>"$TMP/klabd.conf"
	start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN" "$@"
	K=$(klab kernel add debian newest-6.1 | tr -d '"') ||
		fail "cannot add the newest 6.1 kernel"
}

# stop_klabd: SIGTERM, and it must exit 0
stop_klabd() {
	kill -TERM "$KLABD_PID"
	wait "$KLABD_PID"
	rc=$?
	KLABD_PID=
	[ $rc -eq 0 ] || { cat "$TMP/klabd.log"; fail "klabd exited $rc on SIGTERM"; }
}

klab() { "$KLAB_BIN/klab" "$@"; }
# The tests read and poke the database beside a running klabd: wait for
# its write lock (as klabd's own handles do) instead of failing at once
# with "database is locked" when a loaded machine slows its transaction.
sqlite3() { command sqlite3 -cmd '.timeout 10000' "$@"; }

# http METHOD PATH [curl args...]: prints body, sets STATUS.  Sends
# $KLAB_TOKEN unless the arguments carry their own Authorization header
# or HTTP_NOAUTH is set.
http() {
	m=$1; p=$2; shift 2
	case "$*" in
	*Authorization:*) set -- "$@" ;;
	*) [ -n "${KLAB_TOKEN:-}" ] && [ -z "${HTTP_NOAUTH:-}" ] &&
		set -- "$@" -H "Authorization: Bearer $KLAB_TOKEN" ;;
	esac
	STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -X "$m" "$URL$p" "$@")
	cat "$TMP/body"
}

expect_status() { [ "$STATUS" = "$1" ] || fail "expected HTTP $1, got $STATUS: $(cat "$TMP/body")"; }
expect_grep() { grep -q -- "$1" "${2:-$TMP/body}" || fail "expected '$1' in ${2:-body}: $(head -c 600 "${2:-$TMP/body}")"; }
expect_nogrep() { ! grep -q -- "$1" "${2:-$TMP/body}" || fail "did not expect '$1' in ${2:-body}"; }
# wait_for WHAT TENTHS CMD...: until CMD succeeds, failing after TENTHS
# tenths of a second with "timed out waiting for WHAT"
wait_for() {
	_what=$1 _n=$2; shift 2
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -gt "$_n" ] && fail "timed out waiting for $_what"
		sleep 0.1
	done
}

# sink_start SECRET: the alerts' far ends (tests/t2020-alerts-sink.py: an
# SMTP sink and a webhook receiver that checks signatures under SECRET)
# on 127.0.0.1, writing into $SINK; sets PY (a python3 with aiosmtpd),
# SMTP_PORT and HOOK (the receiver's base URL).  Skips without aiosmtpd.
sink_start() {
	PY=
	for p in python3 /usr/bin/python3; do
		"$p" -c 'import aiosmtpd' 2>/dev/null && { PY=$p; break; }
	done
	[ -n "$PY" ] || skip "python3 aiosmtpd is not installed (apt-get install python3-aiosmtpd)"
	SINK=$TMP/sink
	mkdir -p "$SINK"
	"$PY" "$TOP/tests/t2020-alerts-sink.py" "$SINK" "$1" >"$TMP/sink.log" 2>&1 &
	SINK_PID=$!
	at_cleanup 'kill $SINK_PID 2>/dev/null'
	i=0
	while [ ! -s "$SINK/ports" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && { cat "$TMP/sink.log"; fail "the sink did not start"; }
		sleep 0.1
	done
	SMTP_PORT=$(awk '$1 == "smtp" { print $2 }' "$SINK/ports")
	HOOK=http://127.0.0.1:$(awk '$1 == "http" { print $2 }' "$SINK/ports")
}

# lab_scsi_start [MODEL]: klabd with one QEMU scsi rig, scsi0, with disk
# model MODEL (hdd, klabd's default; docs/RIGS.md), that cold-boots the
# newest Debian 6.1 kernel (fetched into the catalog): the slow and lab
# tiers' rig.  Sets BASE (that kernel's upstream version).  With LAB_TOP
# set, klabd's top_dir is that tree (suites of the test's own); LAB_DISK_MB
# sizes the rig's disk (128); LAB_CONF holds more global keys.
lab_scsi_start() {
	LAB_MODEL=${1:-hdd}
	BASE=$("$TOP/kernels/debian-kernels.sh" fetch "$("$TOP/kernels/debian-kernels.sh" newest 6.1)" |
		sed -n 's/^upstream=//p')
	cat >"$TMP/klabd.conf" <<CONF
max_builds = 1
${LAB_TOP:+top_dir = $LAB_TOP}
${LAB_CONF:-}
[rig scsi0]
kind = qemu
profile = scsi
base_kernel = $BASE
memory_mb = 768
disk_mb = ${LAB_DISK_MB:-128}
disk_model = $LAB_MODEL
boot_timeout = 240
job_timeout = 600
CONF
	start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
	klab kernel add debian newest-6.1 >/dev/null || fail "fetch the rig's base kernel"
}

# lab_build_pair PATCH NAME: klabd builds base 6.1 with the lab config as
# lab-6.1, and base + PATCH as lab-6.1+NAME.
lab_build_pair() {
	klab build debian-6.1 --ident lab-6.1 --wait >"$TMP/b1" 2>&1 ||
		fail "base build: $(cat "$TMP/b1")"
	klab build debian-6.1 "$1" --ident "lab-6.1+$2" --wait >"$TMP/b2" 2>&1 ||
		fail "$2 build: $(cat "$TMP/b2")"
}

# fake_deb DIR ABI UPSTREAM: a tiny fake Debian kernel package in DIR (a
# local archive, KLAB_DEBIAN_ARCHIVE), linux-image-6.1.0-ABI-cloud-amd64
# version UPSTREAM-1: a vmlinuz that is not a kernel and an empty modules
# directory; it never boots, klabd fetches and catalogs it
fake_deb() {
	_rel=6.1.0-$2-cloud-amd64
	_d=$TMP/deb-$2
	mkdir -p "$_d/DEBIAN" "$_d/boot" "$_d/lib/modules/$_rel/kernel"
	printf 'Package: linux-image-%s\nVersion: %s-1\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: a fake kernel package for klab tests\n' \
		"$_rel" "$3" >"$_d/DEBIAN/control"
	echo "not a kernel $2" >"$_d/boot/vmlinuz-$_rel"
	: >"$_d/lib/modules/$_rel/modules.order"
	: >"$_d/lib/modules/$_rel/modules.builtin"
	: >"$_d/lib/modules/$_rel/modules.builtin.modinfo"
	dpkg-deb --root-owner-group -Zgzip -b "$_d" "$1/linux-image-$_rel.deb" >/dev/null ||
		fail "dpkg-deb -b $_rel"
}

# fake_archive FROM TO: a local archive $ARCH (KLAB_DEBIAN_ARCHIVE, with
# KLAB_CACHE under $TMP, both exported) of fake_deb packages 6.1.FROM ..
# 6.1.TO, ABI the upstream's last number - 100
fake_archive() {
	ARCH=$TMP/archive
	mkdir -p "$ARCH"
	_v=$1
	while [ "$_v" -le "$2" ]; do
		fake_deb "$ARCH" $((_v - 100)) "6.1.$_v"
		_v=$((_v + 1))
	done
	KLAB_DEBIAN_ARCHIVE=$ARCH
	KLAB_CACHE=$TMP/kcache
	export KLAB_DEBIAN_ARCHIVE KLAB_CACHE
}

# chromium_need: skip unless headless Chromium and a node with WebSocket
# can drive it (the tests' DevTools client, tests/cdp-lib.js); sets CHROME
chromium_need() {
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$CHROME" ] || skip "chromium is not installed (apt-get install chromium)"
	command -v node >/dev/null || skip "node is not installed"
	node --experimental-websocket -e 'new WebSocket("ws://127.0.0.1:1").onerror = () => 0' 2>/dev/null ||
		skip "node has no WebSocket"
}

# chromium_start [SECONDS]: a fresh headless Chromium (profile
# $TMP/chrome, its DevTools port in $TMP/chrome/DevToolsActivePort) for at
# most SECONDS (90); sets CPID; chromium_stop ends it (at exit too)
chromium_start() {
	rm -rf "$TMP/chrome"
	timeout "${1:-90}" "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --remote-debugging-port=0 \
		--user-data-dir="$TMP/chrome" about:blank 2>>"$TMP/chrome.log" &
	CPID=$!
	at_cleanup chromium_stop
}
chromium_stop() {
	[ -n "${CPID:-}" ] || return 0
	kill "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
	CPID=
}
