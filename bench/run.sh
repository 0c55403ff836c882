#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/run.sh: the results-store and pages benchmark (`make bench`).  In
# one run, with 100,000 results stored, it measures
#   1. import throughput: bench_db (db_import vs a bare sqlite insert loop,
#      same process), the realistic fill through db_import (bench_fill) and
#      the rest of the data set POSTed through klabd's /api/import;
#   2. server-side time of the compare page of 10 kernels (HTML and text)
#      and of a history page of 10,000 points: median and p90 of N requests
#      on one reused connection, against GET /api/health (and /style.css)
#      on the same klabd in the same run;
#   3. klabd's memory (VmRSS, VmHWM, threads from /proc/PID/status) at rest
#      and under 32 concurrent clients for LOAD_S seconds.
# Everything runs on 127.0.0.1 with a temporary database; timings are
# reported, never asserted.  The summary goes to stdout and to
# build/bench/results-store.md, ready for docs/PERFORMANCE-LOG.md.
#
#   bench/run.sh             (or: make bench)
#   bench/run.sh load        klabd at lab scale (make bench-load)
#   KLAB_BENCH_N=100 KLAB_BENCH_LOAD_S=10 KLAB_BENCH_CLIENTS=32 bench/run.sh
# The lab benchmark (kexec vs cold boot, per-cell overhead, rig noise on a
# QEMU rig) takes 15-25 minutes: bench/bench_lab.sh on its own, or
# KLAB_BENCH_LAB=1 bench/run.sh to run it after this one.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
# bench/run.sh load [--quick | --limit]: klabd at lab scale instead
[ "${1:-}" = load ] && { shift; exec "$TOP/bench/bench_load.sh" "$@"; }
. "$TOP/bench/lib.sh"
N=${KLAB_BENCH_N:-100}
LOAD_S=${KLAB_BENCH_LOAD_S:-10}
CLIENTS=${KLAB_BENCH_CLIENTS:-32}
TOTAL=100000
cd "$TOP"
OBJ=build/bench/obj
bench_build $OBJ
# bench_db: the data layer with what it uses of lib/ (libcore.a)
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O2 -I. -o "$B/bench_db" bench/bench_db.c \
	$OBJ/libcore.a $(pkg-config --cflags --libs sqlite3 libcrypto jansson) -lm
# shellcheck disable=SC2046
bench_cc $OBJ bench_fill $(pkg-config --cflags --libs jansson sqlite3 libcrypto) -lm
# shellcheck disable=SC2046
bench_cc $OBJ bench_http $(pkg-config --cflags --libs libcurl)

bench_tmp klab-bench
# status FIELD: klabd's /proc status value in kB (or the thread count)
status() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$KLABD_PID/status"; }
mem() { echo "VmRSS $(status VmRSS) kB, VmHWM $(status VmHWM) kB, $(status Threads) threads"; }
# field NAME LINE: value of NAME=... in a tab-separated bench_http line
field() { printf '%s\n' "$2" | tr '\t' '\n' | sed -n "s/^$1=//p"; }

LOAD0=$(loadavg)
echo "== 1. import (bench_db: $TOTAL results, db_import vs bare sqlite loop)"
"$B/bench_db" | tee "$TMP/bench_db.out"

echo "== fill: compare and history sets through db_import"
"$B/bench_fill" db "$TMP/klab.db" | tee "$TMP/fill.out"
stored=$(sed -n 's/^stored: //p' "$TMP/fill.out")

# a submitter token for the POSTs
bench_klabd $OBJ
export KLAB_BENCH_PID=$KLABD_PID
MEM_START=$(mem)

echo "== fill: the rest through POST /api/import"
mkdir "$TMP/mails"
"$B/bench_fill" mails "$TMP/mails" $((TOTAL - stored))
POST=$("$B/bench_http" post "$U/api/import?rig=default&suite=tiobench" "$TMP"/mails/*.txt)
echo "$POST"
n=$(curl -s --noproxy '*' "$U/api/health" | sed 's/.*"results":\([0-9]*\).*/\1/')
[ "$n" = "$TOTAL" ] || die "expected $TOTAL results stored, klabd has '$n'"
MEM_FILLED=$(mem)

K=""
for v in 170 171 172 173 174 175 176 177 178 179; do K="${K}k=6.1.$v&"; done
CMP="$U/compare?${K}base=6.1.170&rig=default&suite=tiobench"
HIST="$U/history?metric=readlat.lat_avg&rig=default&suite=readlat&limit=10000"
echo "== 2. pages: $N requests each after 5 warm-up, one connection"
"$B/bench_http" time "$N" "$U/api/health" "$U/style.css" "$CMP" \
	"$CMP&format=text" "$HIST" | tee "$TMP/time.out"
MEM_REST=$(mem)

echo "== 3. memory under $CLIENTS concurrent clients for $LOAD_S s"
"$B/bench_http" load "$CLIENTS" "$LOAD_S" "$CMP" "$CMP&format=text" "$HIST" \
	>"$TMP/load.out" &
LPID=$!
peak=0; peak_thr=0
while kill -0 "$LPID" 2>/dev/null; do
	r=$(status VmRSS); t=$(status Threads)
	[ "$r" -gt "$peak" ] && peak=$r
	[ "$t" -gt "$peak_thr" ] && peak_thr=$t
	sleep 0.2
done
wait "$LPID" || die "load client failed"
cat "$TMP/load.out"
MEM_LOAD="VmRSS peak $peak kB (sampled every 0.2 s), VmHWM $(status VmHWM) kB, up to $peak_thr threads"
sleep 1
MEM_AFTER=$(mem)
kill -TERM "$KLABD_PID"
wait "$KLABD_PID" || die "klabd exited non-zero on SIGTERM"
KLABD_PID=
LOAD1=$(loadavg)

# ---- summary -------------------------------------------------------------
line() { grep -F "$1	" "$TMP/time.out"; }
H=$(line "$U/api/health"); S=$(line "$U/style.css")
C=$(line "$CMP"); CT=$(line "$CMP&format=text"); HI=$(line "$HIST")
ref=$(field total_median_ms "$H")
row() {
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" \
		"$(field server_median_ms "$2")" "$(field server_p90_ms "$2")" \
		"$(field total_median_ms "$2")" "$(field server_cpu_ms "$2")" \
		"$(awk -v a="$(field total_median_ms "$2")" -v b="$ref" \
			'BEGIN { printf "%.1f", a / b }')" "$(field bytes "$2")"
}
{
	echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores" \
		"($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"kernel $(uname -r), sqlite $(pkg-config --modversion sqlite3)," \
		"libmicrohttpd $(pkg-config --modversion libmicrohttpd)."
	echo "Load average (1, 5, 15 min): $LOAD0 at the start, $LOAD1 at the end."
	echo
	echo "Import ($TOTAL results):"
	echo
	echo '```'
	cat "$TMP/bench_db.out" "$TMP/fill.out"
	echo "$POST"
	echo '```'
	echo
	echo "Pages, $N requests each on one connection, $TOTAL results stored;"
	echo "server = first response byte minus request sent, total = whole"
	echo "answer received, cpu = klabd's CPU time (all threads) per request;"
	echo "x health = total median / total median of /api/health:"
	echo
	echo "| request | server median ms | server p90 ms | total median ms | klabd cpu ms | x health | bytes |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	row "GET /api/health (reference)" "$H"
	row "GET /style.css" "$S"
	row "compare, 10 kernels, HTML" "$C"
	row "compare, 10 kernels, text" "$CT"
	row "history, 10,000 points, HTML" "$HI"
	echo
	echo "Memory of klabd (plain -O2 build):"
	echo
	echo "- at start, $stored results stored: $MEM_START"
	echo "- after the API imports, $TOTAL stored: $MEM_FILLED"
	echo "- at rest after the page runs: $MEM_REST"
	echo "- under $CLIENTS clients, $LOAD_S s, compare HTML/text and history in turn: $MEM_LOAD"
	echo "- $(sed 's/\t/, /g' "$TMP/load.out")"
	echo "- at rest 1 s after the load: $MEM_AFTER"
} >"$B/results-store.md"
echo "== summary (also in build/bench/results-store.md)"
cat "$B/results-store.md"
if [ "${KLAB_BENCH_LAB:-0}" = 1 ]; then
	echo "== lab: bench/bench_lab.sh (also in build/bench/lab.md)"
	"$TOP/bench/bench_lab.sh"
fi
