#!/bin/sh
# SPDX-License-Identifier: MIT
# klabd restarted in the middle of a job loses no result: klab-agent (on
# the host, --once --no-kexec) runs a stand-in klab-run that holds the job
# until klabd has been stopped; the upload then fails to connect, the agent
# retries with backoff, klabd comes back on the same port and database, and
# the results are stored exactly once for that job.
. "$(dirname "$0")/lib.sh"
AGENT=$KLAB_BIN/klab-agent
[ -x "$AGENT" ] || fail "no '$AGENT': build with make O=build/san SANITIZE=1"

host_rig_start

cat >"$TMP/fake-klab-run" <<'SH'
#!/bin/sh
while [ $# -ge 2 ]; do
	case $1 in --out) out=$2 ;; --id) id=$2 ;; esac
	shift
done
: >"$FAKE_DIR/started"
i=0
while [ ! -f "$FAKE_DIR/go" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cat >"$out/results.json" <<EOF
{"schema":"klab-results/1","kernel":"$id","results":[{"metric":"dbench.throughput",
 "unit":"MB/s","value":123.5,"direction":"higher"}]}
EOF
SH
chmod +x "$TMP/fake-klab-run"
FAKE_DIR=$TMP/fake
mkdir -p "$FAKE_DIR"
export FAKE_DIR
head -c 1M /dev/zero >"$TMP/d1"

http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"dbench\",\"scale\":0.05}" >/dev/null
expect_status 201
timeout 180 "$AGENT" --url "$URL" --rig host0 --token tok-host0 --once \
	--no-kexec --disks "$TMP/d1" --workdir "$TMP/agent" \
	--klab-run "$TMP/fake-klab-run" --cmdline-file /dev/null \
	--poll-wait 5 --backoff-max 2 >"$TMP/agent.log" 2>&1 &
APID=$!
i=0
while [ ! -f "$FAKE_DIR/started" ]; do
	i=$((i + 1))
	[ $i -gt 1200 ] && { cat "$TMP/agent.log"; fail "the suite did not start in 120 s"; }
	kill -0 $APID 2>/dev/null || { cat "$TMP/agent.log"; fail "the agent exited early"; }
	sleep 0.1
done
stop_klabd
: >"$FAKE_DIR/go"
# let the upload fail a few times before klabd is back
i=0
while [ "$(grep -c 'results: .*attempt' "$TMP/agent.log")" -lt 2 ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && { cat "$TMP/agent.log"; fail "no retried upload in 30 s"; }
	sleep 0.1
done
start_klabd --listen "127.0.0.1:$PORT" --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
wait $APID
rc=$?
cat "$TMP/agent.log"
[ $rc -eq 0 ] || fail "the agent exited $rc"
expect_grep "POST /api/agent/jobs/1/results: POST '/api/agent/jobs/1/results': " "$TMP/agent.log"
expect_grep 'results stored (HTTP 201)' "$TMP/agent.log"
http GET /api/jobs/1 >/dev/null; expect_status 200; expect_grep '"state":"done"'
http GET "/api/runs?rig=host0" >/dev/null; expect_status 200
n=$(grep -o '"id":[0-9]*' "$TMP/body" | wc -l)
[ "$n" -eq 1 ] || fail "expected 1 run for the job, found $n: $(cat "$TMP/body")"
expect_grep '"job":1'
stop_klabd
ok "an upload that klabd missed while restarting was retried and stored once"
