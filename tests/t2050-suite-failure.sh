#!/bin/sh
# SPDX-License-Identifier: MIT
# A benchmark that fails is a failure, and every repetition is a sample
# (issue 9, 1b and 3), through the host agent path (docs/AGENT.md): a
# remote rig, the real klab-agent with --once --no-kexec and the real
# klab-run on a directory disk, no QEMU.
# - rio-under-dbench whose dbench (a stand-in first on PATH that fails as a
#   real one does, with its reason on stderr) dies: the job ends "failed"
#   (kind "benchmark") with dbench's own words, on the job API, `klab jobs`
#   and the run's page; the run is not "done";
# - klab-run alone: a suite's `background =` load that dies is reported
#   with its own stderr; a suite that needs a file system refuses a file
#   disk at once, and a disk too small for its disk_mb;
# - tiobench at a tiny scale: the job is done and each of its 3
#   repetitions is stored as a sample of the run, visible at /api/runs/ID;
# - fio (filesystem = ext4) on a loop device, when root: the agent formats
#   and mounts it for the run and unmounts it after.
. "$(dirname "$0")/lib.sh"
AGENT=$KLAB_BIN/klab-agent
RUN=$KLAB_BIN/klab-run
[ -x "$AGENT" ] && [ -x "$RUN" ] || fail "no '$AGENT' or '$RUN': build with make O=build/san SANITIZE=1"

host_rig_start
echo "console=ttyS0 quiet" >"$TMP/cmdline"
mkdir -p "$TMP/disk" "$TMP/fakebin"

# a dbench that fails after saying why, on stderr, as a real one does
cat >"$TMP/fakebin/dbench" <<'SH'
#!/bin/sh
echo "dbench version 4.00 - stand-in"
echo "ERROR: failed to create clients/client7: No space left on device" >&2
exit 1
SH
chmod +x "$TMP/fakebin/dbench"

run_agent() {
	log=$1; shift
	PATH=$TMP/fakebin:$PATH timeout 200 "$AGENT" --url "$URL" --rig host0 \
		--token tok-host0 --once --no-kexec --disks "$TMP/disk" \
		--workdir "$TMP/agent" --klab-run "$RUN" \
		--cmdline-file "$TMP/cmdline" --poll-wait 5 --backoff-max 2 \
		"$@" >"$log" 2>&1
}

# queue SUITE SCALE: the new job's id
queue() {
	http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
		"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"$1\",\"scale\":$2}" >/dev/null
	expect_status 201
	sed -n 's/.*"jobs":\[\([0-9]*\).*/\1/p' "$TMP/body"
}

run_of_job() {
	for r in $(http GET "/api/runs?rig=host0" | grep -o '"id":[0-9]*' | cut -d: -f2); do
		http GET "/api/runs/$r" | grep -q "\"job\":$1[,}]" && { echo "$r"; return; }
	done
}

# --- a failing background load: the job is failed, with dbench's words ---
job=$(queue rio-under-dbench 0.01)
run_agent "$TMP/agent1.log" || { cat "$TMP/agent1.log"; fail "the agent exited $?"; }
cat "$TMP/agent1.log"
expect_grep 'results stored (HTTP 201)' "$TMP/agent1.log"
http GET "/api/jobs/$job" >/dev/null; expect_status 200
expect_grep '"state":"failed"'; expect_grep '"failure":"benchmark"'
expect_grep "background load 'dbench -t 100000 50' ended early (exit"
expect_grep 'ERROR: failed to create clients/client7: No space left on device'
expect_nogrep '"state":"done"'
klab jobs --rig host0 >"$TMP/jobs.txt" || fail "klab jobs failed"
cat "$TMP/jobs.txt"
grep "^$job " "$TMP/jobs.txt" | grep -q 'failed.*benchmark' || fail "klab jobs does not show job $job failed"
# the operator's queue page lists it among the failures, blamed on the
# benchmark, with the first line of its error
http GET /queue >/dev/null; expect_status 200
expect_grep "<a href=\"/api/jobs/$job\">$job</a></td><td>[^<]*</td><td>host0</td><td>rio-under-dbench</td><td>benchmark</td><td>repetition 1 of 3: rio: background load &#39;dbench"
http GET '/queue?format=json' >/dev/null
[ "$(jq -r --argjson j "$job" '.failed[] | select(.id == $j) | .failure' "$TMP/body")" = benchmark ] ||
	fail "klab queue's JSON does not list job $job as failed: $(cat "$TMP/body")"
klab queue >"$TMP/queue.txt" || fail "klab queue failed"
sed -n '/^failed last:/,$p' "$TMP/queue.txt" | grep -q "^$job .*benchmark" ||
	fail "klab queue does not list job $job as failed: $(cat "$TMP/queue.txt")"
run=$(run_of_job "$job")
[ -n "$run" ] || fail "no run stored for job $job"
http GET "/api/runs/$run" >/dev/null
expect_grep '"status":"incomplete"'
expect_grep 'No space left on device'
http GET "/runs/$run" >/dev/null; expect_status 200
expect_grep 'its numbers are not counted in comparisons'
expect_grep 'No space left on device'
ok "a failing background load fails its job with the load's own stderr"

# --- klab-run alone: the suite's own background load, and refusals ---
cat >"$TMP/bg.suite" <<'EOF'
name = bg
warmup = none
background = dbench -t 100000 5
background_warmup = 1
workload = tiotest --threads 1 --size 1 --phases seq_write --disk {disk}
disk_mb = 1
EOF
PATH=$TMP/fakebin:$PATH "$RUN" "$TMP/bg.suite" --disks "$TMP/disk" --out "$TMP/bg" \
	>"$TMP/bg.log" 2>&1 && fail "klab-run succeeded with a dead background load"
cat "$TMP/bg.log"
expect_grep '"error": "repetition 1 of 1: background load .dbench -t 100000 5. ended before the workload started (exit' "$TMP/bg/results.json"
expect_grep 'stand-in; ERROR: failed to create clients/client7' "$TMP/bg/results.json"
expect_grep 'the end of' "$TMP/bg.log"
"$RUN" dbench --disks "$TMP/file.img" --out "$TMP/fs" >"$TMP/fs.log" 2>&1 &&
	fail "dbench ran on a file disk"
expect_grep "suite 'dbench' needs a file system (ext4): disk '$TMP/file.img' is not a directory" "$TMP/fs/results.json"
sed 's/^disk_mb = 1$/disk_mb = 100000000/' "$TMP/bg.suite" >"$TMP/big.suite"
"$RUN" "$TMP/big.suite" --disks "$TMP/disk" --out "$TMP/big" >"$TMP/big.log" 2>&1 &&
	fail "a suite ran on a disk too small for it"
grep -q "disk '$TMP/disk' too small for suite 'bg' (bg): needs 100000000 MiB, has [0-9]* MiB" \
	"$TMP/big/results.json" || fail "no refusal: $(cat "$TMP/big/results.json")"
[ ! -e "$TMP/big/raw/run-1.out" ] || fail "the refused suite ran anyway"
ok "klab-run reports a dead background load's stderr and refuses what cannot run"

# --- a rate of 0 in one repetition: the cell's rate is their harmonic
# mean, 0 (a stalled repetition), not dropped (dbench -t 1 says
# "Throughput 0 MB/sec" on a slow rig) ---
mkdir -p "$TMP/zbin"
cat >"$TMP/zbin/dbench" <<'SH'
#!/bin/sh
n=$(cat "$ZCOUNT" 2>/dev/null || echo 0); echo $((n + 1)) >"$ZCOUNT"
[ "$n" = 0 ] && v=0 || v=10	# the first: nothing to add it to
printf ' Operation      Count    AvgLat    MaxLat\n ----\n NTCreateX        5    1.0   2.0\n\n'
printf 'Throughput %s MB/sec  5 clients  5 procs  max_latency=2.000 ms\n' "$v"
SH
chmod +x "$TMP/zbin/dbench"
cat >"$TMP/z.suite" <<'EOF'
name = z
warmup = none
workload = dbench -t 1 5
filesystem = ext4
disk_mb = 1
repetitions = 3
EOF
ZCOUNT=$TMP/zcount PATH=$TMP/zbin:$PATH "$RUN" "$TMP/z.suite" --disks "$TMP/disk" \
	--out "$TMP/z" >"$TMP/z.log" 2>&1 || fail "klab-run with a zero rate: $(tail -3 "$TMP/z.log")"
[ "$(jq '[.results[] | select(.metric == "dbench.throughput")][0].value' "$TMP/z/results.json")" = 0 ] ||
	fail "a zero rate among the repetitions: $(jq -c '.results[] | select(.metric == "dbench.throughput")' "$TMP/z/results.json")"
[ "$(jq '[.results[] | select(.metric == "dbench.op.NTCreateX.avg_lat")][0].value' "$TMP/z/results.json")" = 1 ] ||
	fail "the latency beside it"
ok "a repetition's rate of 0 makes the cell's harmonic mean 0, never drops the metric"

# --- every repetition is a sample of its run ---
job=$(queue tiobench 0.005)
run_agent "$TMP/agent2.log" || { cat "$TMP/agent2.log"; fail "the agent exited $?"; }
expect_grep 'results stored (HTTP 201)' "$TMP/agent2.log"
http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"done"'
run=$(run_of_job "$job")
[ -n "$run" ] || fail "no run stored for job $job"
http GET "/api/runs/$run" >/dev/null; expect_status 200
expect_grep '"status":"done"'
for rep in 1 2 3; do
	grep -o "{[^{}]*\"rep\":$rep[^{}]*}" "$TMP/body" | grep -q '"metric":"tiobench.seq_write.rate"' ||
		fail "repetition $rep of tiobench.seq_write.rate not stored: $(head -c 800 "$TMP/body")"
done
expect_nogrep '"rep":4'
http GET "/runs/$run?format=json" >/dev/null; expect_grep '"repetitions": \[$'; expect_grep '"rep": 3,'
http GET "/runs/$run" >/dev/null; expect_grep '<h2>Repetitions</h2>'
ok "each repetition of a run is stored as its own sample"

# --- a suite that needs a file system gets the block device formatted,
# mounted for the run and unmounted after (root and a loop device only) ---
LOOP=
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null &&
	PATH=$PATH:/sbin:/usr/sbin command -v mke2fs >/dev/null &&
	head -c 64M /dev/zero >"$TMP/loop.img" &&
	LOOP=$(losetup -f --show "$TMP/loop.img" 2>/dev/null) && [ -b "$LOOP" ]; then
	at_cleanup 'grep -q "^$LOOP " /proc/mounts && umount "$LOOP"; losetup -d "$LOOP"'
	job=$(queue fio 0.02)
	run_agent "$TMP/agent3.log" --disks "$LOOP" || { cat "$TMP/agent3.log"; fail "the agent exited $?"; }
	cat "$TMP/agent3.log"
	expect_grep "formatting $LOOP as ext4" "$TMP/agent3.log"
	expect_grep "$LOOP mounted on $TMP/agent/job-$job/mnt (ext4)" "$TMP/agent3.log"
	expect_grep "running suite fio on $TMP/agent/job-$job/mnt " "$TMP/agent3.log"
	http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"done"'
	grep -q "^$LOOP " /proc/mounts && fail "$LOOP is still mounted after the job"
	ok "fio ran on its block device formatted and mounted, unmounted after"
else
	echo "note: not root, or no loop device or mke2fs: the format-and-mount part is left out"
fi
stop_klabd
