#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_load.sh: klabd at lab scale (`make bench-load`, or
# `bench/run.sh load`; docs/PERFORMANCE.md, "Load at lab scale").  One
# klabd on 127.0.0.1 with AGENTS remote rigs (a generated configuration,
# a token each, max_connections sized for them) and the fake kernel tree
# of tests/data/build-tree as base "fake"; one submission is built first,
# so that its two kernels (base and patched) are in the catalog.  Then
# bench_load (a libcurl multi client, bench/bench_load.c) runs the lab:
# AGENTS agents long-polling, downloading, checking in and uploading at a
# real lab's rate (one cell every CELL s a rig), 20 browsers, 5
# submitters, for SECONDS.  Afterwards klabd is stopped and every upload
# that got a 201 is looked for in the database (a lost upload fails the
# run).  Figures go to stdout and build/bench/load.md; klabd's VmRSS,
# threads and fds every 5 s to build/bench/load-samples.csv.
#
#   bench/bench_load.sh                 1000 agents, 600 s
#   bench/bench_load.sh --quick         100 agents, 60 s
#   bench/bench_load.sh --limit         the limit: runs of 120 s from 1000
#                                       agents, doubled while the p99 of a
#                                       poll answered with a job stays at
#                                       or under 50 ms (up to 8000), halved
#                                       while it is over (down to 125),
#                                       until the limit is bracketed
#   AGENTS=N LOAD_SECONDS=S CELL=S BROWSERS=N SUBMITTERS=N THINK=S
#   SUBMIT_EVERY=S BUSY=K (jobs on every K-th rig) bench/bench_load.sh
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
cd "$TOP"
MODE=${1:-full}
case $MODE in
full) : "${AGENTS:=1000}" "${SECONDS_RUN:=${LOAD_SECONDS:-600}}" ;;
--quick) : "${AGENTS:=100}" "${SECONDS_RUN:=${LOAD_SECONDS:-60}}" ;;
--limit) : "${AGENTS:=1000}" "${SECONDS_RUN:=${LOAD_SECONDS:-120}}" ;;
*) die "usage: bench/bench_load.sh [--quick | --limit]" ;;
esac
CELL=${CELL:-180}
OBJ=build/bench/obj
bench_build $OBJ
# the rig image the first job builds needs the agent and the workloads
make -s -j2 O=$OBJ all
command -v sqlite3 >/dev/null || die "needs the sqlite3 command"
# shellcheck disable=SC2046
bench_cc $OBJ bench_load $(pkg-config --cflags --libs libcurl jansson) -lm
D=$TOP/tests/data
KLABD=$TOP/$OBJ/bin/klabd

# run_one N SECONDS TAG: one klabd, N agents; the figures in $B/load-TAG.*
run_one() {
	n=$1 secs=$2 tag=$3
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/klab-load.XXXXXX")
	chmod 755 "$TMP"	# the build sandbox's user reaches the cache
	KLABD_PID=
	trap 'bench_cleanup' EXIT INT TERM
	{
		echo "build_cache = $TMP/cache"
		echo "build_fragment = $D/build-tree.config"
		echo "build_must_have = CONFIG_KEXEC"
		echo "top_dir = $TOP"
		echo "max_connections = $((n + 512))"
		echo "[base fake]"
		echo "dir = $D/build-tree"
		i=0
		while [ $i -lt "$n" ]; do
			printf '[rig a%d]\nkind = remote\ntoken = tok-a%d-load\n' $i $i
			printf 'autostart = no\nboot_timeout = 900\njob_timeout = 900\n'
			i=$((i + 1))
		done
	} >"$TMP/klabd.conf"
	: >"$TMP/tokens"
	for who in op s1 s2 s3 s4 s5 s6 s7 s8 s9; do
		role=submitter
		[ $who = op ] && role=operator
		"$KLABD" token add "$who" --role $role --db "$TMP/klab.db" \
			>>"$TMP/tokens" || die "cannot make a token"
	done
	"$KLABD" --listen 127.0.0.1:0 --config "$TMP/klabd.conf" \
		--db "$TMP/klab.db" --data-dir "$TMP/data" \
		--port-file "$TMP/port" >"$TMP/klabd.log" 2>&1 &
	KLABD_PID=$!
	bench_klabd_wait "$KLABD_PID" "$TMP/port" "$TMP/klabd.log"
	U="http://127.0.0.1:$(cat "$TMP/port")"
	op=$(head -n 1 "$TMP/tokens")
	# the two kernels: one submission of the tiny patch, built
	jq -Rs '{base: "fake", patches: [{name: "good-elv.patch", text: .}],
		rigs: ["a0"], suites: ["tiobench"]}' "$D/patches/good-elv.patch" |
		curl -sf --noproxy '*' -H "Authorization: Bearer $op" \
		-H 'Content-Type: application/json' --data-binary @- \
		"$U/api/submissions" >/dev/null || die "first submission refused"
	i=0
	until [ "$(sqlite3 "$TMP/klab.db" "SELECT stage FROM submissions WHERE id = 1")" = cells ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && die "the first submission was not built: $(tail -5 "$TMP/klabd.log")"
		sleep 0.5
	done
	K1=$(sqlite3 "$TMP/klab.db" "SELECT k.ident FROM jobs j JOIN kernels k ON k.id = j.kernel_id ORDER BY j.id LIMIT 1")
	K2=$(sqlite3 "$TMP/klab.db" "SELECT k.ident FROM jobs j JOIN kernels k ON k.id = j.kernel_id WHERE k.ident != '$K1' LIMIT 1")
	[ -n "$K1" ] && [ -n "$K2" ] || die "no kernels from the first submission"
	# the rig image (built by the first job's hand-out, tens of seconds
	# that hold an HTTP thread each poll: see docs/PERFORMANCE.md), and
	# results of both kernels on a0 for the pages: a0 runs the six cells
	# of the first submission, before the clock runs
	A0='Authorization: Bearer tok-a0-load'
	curl -sf --noproxy '*' -H "$A0" -H 'Content-Type: application/json' \
		-d '{"kernel_release":"6.1.0-load","job":0}' \
		"$U/api/agent/register" >/dev/null || die "a0 cannot register"
	for i in 1 2 3 4 5 6; do
		job=$(curl -sf --noproxy '*' -m 600 -H "$A0" "$U/api/agent/next?wait=0" |
			jq -r .job.id) || die "no job for a0: $(tail -3 "$TMP/klabd.log")"
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%d,"direction":"higher"}],"machine":{"cpus":8,"disks":[{"name":"sda","model":"LOAD HDD","size_bytes":4000787030016}]}}' \
			$((90 + i)) | curl -sf --noproxy '*' -H "$A0" \
			-H 'Content-Type: application/json' --data-binary @- \
			"$U/api/agent/jobs/$job/results" >/dev/null ||
			die "cannot upload the results of job $job"
	done
	LOAD0=$(loadavg)
	rc=0
	"$B/bench_load" "$U" agents="$n" seconds="$secs" cell="$CELL" \
		browsers="${BROWSERS:-20}" submitters="${SUBMITTERS:-5}" \
		think="${THINK:-2}" submit_every="${SUBMIT_EVERY:-60}" \
		busy="${BUSY:-2}" jobs=$(( (2 * secs / CELL + 2) / 2 * 2 )) \
		ramp=$((secs / 10)) k1="$K1" k2="$K2" \
		compare="/compare?k=$K1&k=$K2&base=$K1&rig=a0&suite=tiobench" \
		history="/history?metric=tiobench.seq_read.rate&rig=a0&suite=tiobench" \
		patch="$D/patches/good-elv.patch" tokens="$TMP/tokens" \
		acked="$B/load-$tag.acked" samples="$B/load-$tag.csv" \
		pid="$KLABD_PID" >"$B/load-$tag.tsv" || rc=$?
	LOAD1=$(loadavg)
	kill -TERM "$KLABD_PID"
	wait "$KLABD_PID" || die "klabd exited non-zero on SIGTERM"
	KLABD_PID=
	# every acknowledged upload is in the database, once
	acked=$(sort -u "$B/load-$tag.acked" | wc -l)
	sort -un "$B/load-$tag.acked" | sed 's/.*/INSERT INTO a VALUES (&);/' >"$TMP/acked.sql"
	stored=$(sqlite3 "$TMP/klab.db" "CREATE TEMP TABLE a (id INTEGER); $(cat "$TMP/acked.sql")
		SELECT COUNT(DISTINCT r.job_id) FROM runs r JOIN a ON a.id = r.job_id;")
	dup=$(sqlite3 "$TMP/klab.db" "SELECT COUNT(*) FROM (SELECT job_id FROM runs WHERE job_id IS NOT NULL GROUP BY job_id HAVING COUNT(*) > 1)")
	integ=$(sqlite3 "$TMP/klab.db" "PRAGMA integrity_check")
	dbsize=$(stat -c %s "$TMP/klab.db")
	{
		echo "agents $n, $secs s, cell $CELL s, load average $LOAD0 before, $LOAD1 after"
		cat "$B/load-$tag.tsv"
		echo "stored of the acknowledged uploads	$stored of $acked (jobs stored twice: $dup)"
		echo "integrity_check	$integ"
		echo "database size	$dbsize bytes"
		awk -F, 'NR > 1 { if ($2 > r) r = $2; if ($3 > t) t = $3; if ($4 > f) f = $4 }
			END { printf "klabd peak	VmRSS %d kB, %d threads, %d fds\n", r, t, f }' \
			"$B/load-$tag.csv"
	} >"$B/load-$tag.md"
	cat "$B/load-$tag.md"
	bench_cleanup
	trap - EXIT INT TERM
	[ "$stored" = "$acked" ] && [ "$dup" = 0 ] || die "lost or doubled uploads: $stored of $acked stored, $dup doubled"
	[ "$rc" = 0 ] || die "errors in the run (see above)"
}

# p99 of the polls answered with a job that was waiting for them (klabd's
# latency, not the wait for a job), from a run's table
poll_p99() { awk -F'\t' '$1 ~ /next \(a job waiting\)/ { print $5 }' "$B/load-$1.tsv"; }

if [ "$MODE" = --limit ]; then
	# bracket the agents at which the poll p99 passes 50 ms: under is the
	# most agents seen at or under it, over the fewest seen over it
	n=$AGENTS under= over=
	: >"$B/load-limit.md"
	while :; do
		# a run with errors or lost uploads still gives its p99
		(run_one $n "$SECONDS_RUN" "limit-$n") || true
		p=$(poll_p99 "limit-$n")
		echo "limit: $n agents, poll p99 ${p:-?} ms" |
			tee -a "$B/load-limit.md"
		if [ -n "$p" ] && awk -v p="$p" 'BEGIN { exit !(p > 50) }'; then
			over=$n
			[ -z "$under" ] && [ $n -gt 125 ] || break
			n=$((n / 2))
		else
			under=$n
			[ -z "$over" ] && [ $n -lt 8000 ] || break
			n=$((n * 2))
		fi
	done
	echo "limit: poll p99 at or under 50 ms with ${under:-no run's} agents," \
		"over it with ${over:-none up to 8000}" | tee -a "$B/load-limit.md"
	exit 0
fi
run_one "$AGENTS" "$SECONDS_RUN" "${MODE#--}" && cp "$B/load-${MODE#--}.md" "$B/load.md"
