#!/bin/sh
# SPDX-License-Identifier: MIT
# klab's main job on one machine: install what is missing, build, start
# klabd, run the demo lab, and print the comparison URL and text table.
#
#   ./demo.sh              (as root on Debian 12)
#
# Environment: KLAB_PORT (default 8080), KLAB_DEMO_DIR (default ./demo).
set -e
cd "$(dirname "$0")"
TOP=$(pwd)
scripts/install-deps.sh
make -j2 all >/dev/null
DIR=${KLAB_DEMO_DIR:-$TOP/demo}
PORT=${KLAB_PORT:-8080}
mkdir -p "$DIR"
if [ -f "$DIR/klabd.pid" ] && kill -0 "$(cat "$DIR/klabd.pid")" 2>/dev/null; then
	kill "$(cat "$DIR/klabd.pid")"; sleep 1
fi
rm -f "$DIR/port"
nohup build/bin/klabd --listen "127.0.0.1:$PORT" --db "$DIR/klab.db" \
	--data-dir "$DIR/data" --port-file "$DIR/port" >"$DIR/klabd.log" 2>&1 &
echo $! >"$DIR/klabd.pid"
i=0
while [ ! -s "$DIR/port" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && { cat "$DIR/klabd.log"; exit 1; }
	sleep 0.1
done
KLAB_URL="http://127.0.0.1:$(cat "$DIR/port")"
export KLAB_URL
KLAB=build/bin/klab
if ! $KLAB kernels | grep -q .; then
	for f in tests/data/demo/*.txt; do $KLAB import "$f" >/dev/null; done
fi
K="k=6.1.176&k=6.1.192&k=6.12.117&base=6.1.176"
echo
echo "klabd is running (pid $(cat "$DIR/klabd.pid"), log $DIR/klabd.log)"
echo "compare page: $KLAB_URL/compare?$K&suite=tiobench"
echo
$KLAB compare 6.1.176 6.1.192 6.12.117 --suite tiobench
