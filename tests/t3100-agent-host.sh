#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-agent on the host against a real klabd (docs/AGENT.md), no QEMU:
# a remote rig with a known token, a Debian kernel in the catalog, jobs
# queued through the API.  The agent runs with --once --no-kexec on two
# temporary files as disks and a stand-in klab-run that records how it was
# called and writes a klab-results/1 document plus a raw output.  Checks
# the boot files were downloaded and their sha256 checked, the suite ran
# with the job's parameters, the results and raw outputs are stored, a
# failing suite is reported as a benchmark failure with its output, and a
# wrong token or missing settings end the agent with a clear error.
. "$(dirname "$0")/lib.sh"
AGENT=$KLAB_BIN/klab-agent
[ -x "$AGENT" ] || fail "no '$AGENT': build with make O=build/san SANITIZE=1"

host_rig_start
echo "kernel: $K"

# the stand-in klab-run: FAKE_DIR gets its argv and the suite file
cat >"$TMP/fake-klab-run" <<'SH'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_DIR/args"
suite=$1; shift
while [ $# -ge 2 ]; do
	case $1 in
	--suites-dir) sd=$2 ;; --out) out=$2 ;; --id) id=$2 ;;
	esac
	shift 2
done
cp "$sd/$suite.suite" "$FAKE_DIR/suite" || exit 9
echo "fake klab-run: $suite on $id"
if [ -n "${FAKE_FAIL:-}" ]; then
	echo "fake: device '/dev/sdz' vanished" >&2
	exit 3
fi
printf 'raw output of %s\n\377 not utf-8\n' "$suite" >"$out/tiotest-1.txt"
cat >"$out/results.json" <<EOF
{"schema":"klab-results/1","kernel":"$id","suite":"$suite","format":"tiobench",
 "results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":42.5,
 "direction":"higher"}]}
EOF
SH
chmod +x "$TMP/fake-klab-run"
FAKE_DIR=$TMP/fake
mkdir -p "$FAKE_DIR"
export FAKE_DIR
head -c 1M /dev/zero >"$TMP/d1"
head -c 2M /dev/zero >"$TMP/d2"
echo "console=ttyS0 quiet" >"$TMP/cmdline"

# run_of_job JOB: the id of the run stored for that job
run_of_job() {
	for r in $(http GET "/api/runs?rig=host0" | grep -o '"id":[0-9]*' | cut -d: -f2); do
		http GET "/api/runs/$r" | grep -q "\"job\":$1[,}]" && { echo "$r"; return; }
	done
}

# run_agent LOG [extra options]: one job, bounded in time
run_agent() {
	log=$1; shift
	timeout 120 "$AGENT" --url "$URL" --rig host0 --once --no-kexec \
		--disks "$TMP/d1,$TMP/d2" --workdir "$TMP/agent" \
		--klab-run "$TMP/fake-klab-run" --cmdline-file "$TMP/cmdline" \
		--poll-wait 5 --backoff-max 2 "$@" >"$log" 2>&1
}

# --- a job that succeeds ---
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"scheduler\":\"mq-deadline\",\"scale\":0.05}" >/dev/null
expect_status 201
run_agent "$TMP/agent1.log" --token tok-host0 || { cat "$TMP/agent1.log"; fail "the agent exited $?"; }
cat "$TMP/agent1.log"
expect_grep 'klab-agent: registered as host0' "$TMP/agent1.log"
expect_grep 'kernel and initramfs ready, sha256 checked, downloaded [0-9]* bytes' "$TMP/agent1.log"
expect_grep "disk '$TMP/d1' is a file: no scheduler" "$TMP/agent1.log"
expect_grep 'results stored (HTTP 201)' "$TMP/agent1.log"
grep -q '^20[0-9-]*T[0-9:.]*Z klab-agent: ' "$TMP/agent1.log" || fail "log lines carry no timestamp"
expect_grep 'check-in on ' "$TMP/klabd.log"
# the files are what klabd serves, named by their checked sha256
for f in "$TMP"/agent/kernel-* "$TMP"/agent/initrd-*; do
	[ -f "$f" ] || fail "no downloaded '$f'"
	[ "$(sha256sum <"$f" | cut -d' ' -f1)" = "${f##*-}" ] || fail "'$f' does not match its sha256"
done
# klab-run got the job's parameters and the suite klabd sent
[ "$(sed -n 1p "$FAKE_DIR/args")" = tiobench ] || fail "suite argument: $(cat "$FAKE_DIR/args")"
expect_grep "^$TMP/d1,$TMP/d2\$" "$FAKE_DIR/args"
expect_grep '^0.05$' "$FAKE_DIR/args"
expect_grep "^$K\$" "$FAKE_DIR/args"
if [ -f "$TOP/workloads/suites/tiobench.suite" ]; then
	cmp -s "$FAKE_DIR/suite" "$TOP/workloads/suites/tiobench.suite" || fail "suite text differs from klabd's"
fi
http GET "/api/jobs?rig=host0" >/dev/null; expect_status 200
expect_grep '"state":"done"'
run=$(run_of_job 1)
[ -n "$run" ] || fail "no run stored for job 1: $(http GET /api/runs)"
http GET "/api/runs/$run" >/dev/null; expect_status 200
expect_grep 'tiobench.seq_read.rate'; expect_grep 'tiotest-1.txt'; expect_grep 'klab-run.log'
# the run's configuration names the suite text it ran by hash: an edited
# suite file is a new configuration, never pooled with the old one's cells
sha=$(sha256sum <"$FAKE_DIR/suite" | cut -c1-12)
got=$(jq -r '[.. | objects | select(has("rigconf")) | .rigconf.text][0]' "$TMP/body")
printf '%s\n' "$got" | grep -qx "suite_sha=$sha" ||
	fail "run $run: no suite_sha=$sha in its configuration: $got"
http GET "/api/runs/$run/raw/tiotest-1.txt" >/dev/null; expect_status 200
expect_grep 'raw output of tiobench'
# the byte that is not UTF-8 arrives as U+FFFD (lib/utf8.h)
expect_grep "$(printf '\357\277\275 not utf-8')"
http GET "/api/runs/$run/raw/klab-run.log" >/dev/null; expect_status 200
expect_grep "fake klab-run: tiobench on $K"
ok "a job ran on the host and its results and raw outputs are stored"

# --- the real klab-run and tiobench suite, scaled to about a second ---
if "$KLAB_BIN/klab-run" --help >/dev/null 2>&1; then
	http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
		"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"scale\":0.005}" >/dev/null
	expect_status 201
	job=$(sed -n 's/.*"jobs":\[\([0-9]*\).*/\1/p' "$TMP/body")
	run_agent "$TMP/agent1b.log" --token tok-host0 --klab-run "$KLAB_BIN/klab-run" ||
		{ cat "$TMP/agent1b.log"; fail "the agent exited $?"; }
	cat "$TMP/agent1b.log"
	expect_grep 'results stored (HTTP 201)' "$TMP/agent1b.log"
	http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"done"'
	run=$(run_of_job "$job")
	[ -n "$run" ] || fail "no run stored for job $job"
	http GET "/api/runs/$run" >/dev/null; expect_status 200
	expect_grep 'tiobench.rand_write'; expect_grep 'raw/run-1.json'
	http GET "/api/runs/$run/raw/raw/run-1.json" >/dev/null; expect_status 200
	ok "the real klab-run's tiobench results and raw outputs are stored"
	# where the cell's time went: the agent's, klab-run's, tiotest's and
	# klabd's steps, in the order they ran (docs/RESULTS.md, "steps")
	http GET "/api/jobs/$job" >/dev/null; expect_status 200
	got=$(jq -r '[.steps[] | "\(.step)/\(.rep)"] | join(" ")' "$TMP/body")
	echo "steps: $got"
	for s in prepare/0 suite_setup/0 warmup/0 setup/1 seq_write/1 \
		seq_read.drop_cache/1 seq_read/1 rand_read/3 cleanup/3 \
		workload.rest/3 klab-run.rest/0 finish/0 collect/0 upload/0; do
		case " $got " in *" $s "*) ;; *) fail "job $job: no step $s in: $got" ;; esac
	done
	case $got in "prepare/0 suite_setup/0 warmup/0 "*" upload/0") ;;
		*) fail "job $job: steps out of order: $got" ;; esac
	jq -e '[.steps[].secs] | all(. >= 0) and add > 0' "$TMP/body" >/dev/null ||
		fail "job $job: step times: $(jq -c .steps "$TMP/body")"
	http GET "/api/runs/$run" >/dev/null
	jq -e '.steps | length > 10' "$TMP/body" >/dev/null || fail "run $run has no steps"
	http GET "/runs/$run" >/dev/null; expect_status 200
	expect_grep "Where the cell's time went"; expect_grep '<td>rand_read</td><td class="num">3</td>'
	http GET "/api/steps?rig=host0&suite=tiobench" >/dev/null; expect_status 200
	jq -e '.jobs >= 1 and (.steps | map(.step) | index("rand_read")) != null' "$TMP/body" >/dev/null ||
		fail "/api/steps: $(cat "$TMP/body")"
	http GET "/steps?rig=host0" >/dev/null; expect_status 200
	expect_grep 'Where cells spend their time'
	klab --url "$URL" steps --rig host0 --suite tiobench >"$TMP/steps.txt" ||
		fail "klab steps failed: $(cat "$TMP/steps.txt")"
	cat "$TMP/steps.txt"
	expect_grep '^rand_read  *[0-9.]*  *[0-9.]*%  *1$' "$TMP/steps.txt"
	expect_grep '^[0-9]* jobs, [0-9.]* s a cell$' "$TMP/steps.txt"
	http GET "/api/steps?limit=0" >/dev/null; expect_status 400
	ok "the job's steps are stored, shown on its run's page and summed"
else
	echo "note: no working '$KLAB_BIN/klab-run': the real suite part is left out"
fi

# --- an upload's steps: a bad one is a 400 naming it, nothing stored;
# good ones are stored in order with klabd's upload step after them ---
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"scale\":0.05}" >/dev/null
expect_status 201
job=$(sed -n 's/.*"jobs":\[\([0-9]*\).*/\1/p' "$TMP/body")
RT='Authorization: Bearer tok-host0'
http GET "/api/agent/next?wait=20" -H "$RT" >/dev/null; expect_status 200
[ "$(jq -r .job.id "$TMP/body")" = "$job" ] || fail "the agent was handed $(cat "$TMP/body"), not job $job"
doc() {
	printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":40,"direction":"higher"}],"steps":%s}' "$1" >"$TMP/steps.json"
}
doc '[{"step":"warmup","secs":2},{"step":"seq_read","rep":1,"secs":-1}]'
http POST "/api/agent/jobs/$job/results" -H "$RT" -H 'Content-Type: application/json' \
	--data-binary @"$TMP/steps.json" >/dev/null
expect_status 400; expect_grep "steps\[1\].secs"
[ -z "$(run_of_job "$job")" ] || fail "a refused upload stored a run"
doc '[{"step":"warmup","secs":2},{"step":"seq_read","rep":1,"secs":3.5}]'
http POST "/api/agent/jobs/$job/results" -H "$RT" -H 'Content-Type: application/json' \
	--data-binary @"$TMP/steps.json" >/dev/null
expect_status 201
http GET "/api/jobs/$job" >/dev/null
got=$(jq -r '[.steps[] | "\(.step)/\(.rep)/\(.secs)"] | join(" ")' "$TMP/body")
case $got in "warmup/0/2 seq_read/1/3.5 upload/0/"*) ;;
	*) fail "job $job: steps $got" ;; esac
ok "an upload's steps are checked and stored, klabd's upload step after them"

# --- a failing suite is a benchmark failure with its output ---
http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"scale\":0.05}" >/dev/null
expect_status 201
job=$(sed -n 's/.*"jobs":\[\([0-9]*\).*/\1/p' "$TMP/body")
FAKE_FAIL=1 run_agent "$TMP/agent2.log" --token tok-host0 || { cat "$TMP/agent2.log"; fail "the agent exited $?"; }
cat "$TMP/agent2.log"
expect_grep 'benchmark failure: klab-run tiobench exited with status 3' "$TMP/agent2.log"
http GET "/api/jobs/$job" >/dev/null; expect_status 200
expect_grep '"state":"failed"'; expect_grep '"failure":"benchmark"'
expect_grep "device '/dev/sdz' vanished"
ok "a failing suite is reported as a benchmark failure with its output"

# --- refused and unconfigured agents say why and stop (not as init) ---
run_agent "$TMP/agent3.log" --token wrong && fail "the agent accepted a wrong token"
cat "$TMP/agent3.log"
expect_grep "cannot register rig 'host0': klabd answered 401: unknown or missing rig token" "$TMP/agent3.log"
"$AGENT" --url "$URL" --rig host0 --cmdline-file "$TMP/cmdline" >"$TMP/agent4.log" 2>&1
[ $? -eq 2 ] || fail "missing token: expected exit 2"
expect_grep 'no token: give --token or klab.token= on the kernel command line' "$TMP/agent4.log"
"$AGENT" --url "$URL" --cmdline-file /dev/null --nope >"$TMP/agent5.log" 2>&1
[ $? -eq 2 ] || fail "bad option: expected exit 2"
stop_klabd
ok "wrong token and missing settings are clear errors"
