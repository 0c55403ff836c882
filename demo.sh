#!/bin/sh
# SPDX-License-Identifier: MIT
# klab's main job on one machine: install what is missing, build, fetch the
# newest Debian 6.1 and 6.12 kernels, start klabd with one scsi QEMU rig,
# run the tiobench suite on both kernels via kexec (interleaved
# repetitions), and print the comparison URL and the text table.
#
#   ./demo.sh              (as root on Debian 12; about 5-10 minutes)
#
# Environment: KLAB_PORT (8080), KLAB_DEMO_DIR (./demo), KLAB_DEMO_REPEAT
# (2 cells per kernel), KLAB_DEMO_SCALE (0.05 of the full suite).
set -e
cd "$(dirname "$0")"
TOP=$(pwd)
scripts/install-deps.sh
make -j2 all >/dev/null
DIR=${KLAB_DEMO_DIR:-$TOP/demo}
PORT=${KLAB_PORT:-8080}
REPEAT=${KLAB_DEMO_REPEAT:-2}
SCALE=${KLAB_DEMO_SCALE:-0.05}
mkdir -p "$DIR"
if [ -f "$DIR/klabd.pid" ] && kill -0 "$(cat "$DIR/klabd.pid")" 2>/dev/null; then
	kill "$(cat "$DIR/klabd.pid")"; sleep 2
fi
say() { printf 'demo: %s\n' "$*"; }

say "fetching the newest Debian 6.1 kernel (the rig's base)"
P61=$(kernels/debian-kernels.sh newest 6.1)
BASE=$(kernels/debian-kernels.sh fetch "$P61" | sed -n 's/^upstream=//p')
cat >"$DIR/klabd.conf" <<CONF
listen = 127.0.0.1:$PORT
db = $DIR/klab.db
data_dir = $DIR/data
[rig scsi0]
kind = qemu
profile = scsi
base_kernel = $BASE
memory_mb = 768
disk_mb = 256
CONF
rm -f "$DIR/port"
# an operator token for this demo (shown once: kept in the demo's dir)
if [ ! -s "$DIR/token" ]; then
	(umask 077; build/bin/klabd token add demo --role operator \
		--config "$DIR/klabd.conf" >"$DIR/token") || exit 1
fi
KLAB_TOKEN=$(cat "$DIR/token")
export KLAB_TOKEN
nohup build/bin/klabd --config "$DIR/klabd.conf" --port-file "$DIR/port" \
	>"$DIR/klabd.log" 2>&1 &
echo $! >"$DIR/klabd.pid"
i=0
while [ ! -s "$DIR/port" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && { cat "$DIR/klabd.log"; exit 1; }
	sleep 0.1
done
KLAB_URL="http://127.0.0.1:$(cat "$DIR/port")"
export KLAB_URL
KLAB=build/bin/klab
K1=$($KLAB kernel add debian newest-6.1 | tr -d '"')
say "fetching the newest Debian 6.12 kernel"
K2=$($KLAB kernel add debian newest-6.12 | tr -d '"')
say "queueing tiobench on $K1 and $K2, $REPEAT cells each, interleaved"
$KLAB job add "$K1" "$K2" --rig scsi0 --suite tiobench --scale "$SCALE" \
	--repeat "$REPEAT" >/dev/null
say "the rig cold-boots $K1 once, then kexecs into each job's kernel"
last=
while :; do
	s=$($KLAB jobs --rig scsi0 | awk '{print $5}' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
	[ "$s" != "$last" ] && say "jobs:$s"
	last=$s
	$KLAB jobs --rig scsi0 | awk '{print $5}' | grep -q 'queued\|assigned\|booting\|running' || break
	sleep 5
done
echo
echo "klabd is running (pid $(cat "$DIR/klabd.pid"), log $DIR/klabd.log)"
echo "operator token in $DIR/token (sign in at $KLAB_URL/login)"
echo "compare page: $KLAB_URL/compare?k=$K1&k=$K2&base=$K1&rig=scsi0&suite=tiobench"
echo
$KLAB compare "$K1" "$K2" --rig scsi0 --suite tiobench
