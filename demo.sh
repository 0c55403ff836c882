#!/bin/sh
# SPDX-License-Identifier: MIT
# klab's main job on one machine: install what is missing, build, fetch the
# newest Debian 6.1 and 6.12 kernels, start klabd with a pool of two
# identical scsi QEMU rigs (the class "hdd": docs/OPERATOR.md, "Rig
# pools"), judge 6.12 against 6.1 with the tiobench suite on cells spread
# over both rigs via kexec (an adaptive comparison run: interleaved cells
# until every headline metric is decided or the cap), and print the
# comparison URL and the text table.
#
#   ./demo.sh              (as root on Debian 12; about 10-20 minutes)
#
# Environment: KLAB_PORT (8080), KLAB_DEMO_DIR (./demo), KLAB_DEMO_CELLS
# (the cap: 4 cells per kernel, at least 3), KLAB_DEMO_SCALE (0.05 of the
# full suite), KLAB_DEMO_RIGS (2 rigs in the class).
set -e
cd "$(dirname "$0")"
TOP=$(pwd)
scripts/install-deps.sh
make -j2 all >/dev/null
DIR=${KLAB_DEMO_DIR:-$TOP/demo}
PORT=${KLAB_PORT:-8080}
CELLS=${KLAB_DEMO_CELLS:-4}
SCALE=${KLAB_DEMO_SCALE:-0.05}
NRIGS=${KLAB_DEMO_RIGS:-2}
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
CONF
# identical rigs of one class: one configuration, klabd checks it
i=0
while [ $i -lt "$NRIGS" ]; do
	cat >>"$DIR/klabd.conf" <<CONF
[rig hdd$i]
class = hdd
kind = qemu
profile = scsi
disk_model = hdd
base_kernel = $BASE
memory_mb = 768
disk_mb = 256
CONF
	i=$((i + 1))
done
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
say "judging $K2 against $K1 with tiobench on the class hdd ($NRIGS rigs), at most $CELLS cells each"
say "each rig cold-boots $K1 once, then kexecs into each cell's kernel"
rc=0
$KLAB compare-run "$K1" "$K2" --rig hdd --suite tiobench --scale "$SCALE" \
	--max-cells "$CELLS" --wait || rc=$?
echo
echo "klabd is running (pid $(cat "$DIR/klabd.pid"), log $DIR/klabd.log)"
echo "operator token in $DIR/token (sign in at $KLAB_URL/login)"
echo "compare page: $KLAB_URL/compare?k=$K1&k=$K2&base=$K1&rig=hdd&suite=tiobench"
echo "the cells by rig: $KLAB jobs --rig hdd"
# 0 nothing worse, 4 worse, 5 undecided: each is a demo that ran
[ $rc -eq 0 ] || [ $rc -eq 4 ] || [ $rc -eq 5 ] || exit $rc
