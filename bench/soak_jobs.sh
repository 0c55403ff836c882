#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/soak_jobs.sh: klabd's memory against the number of jobs it has
# handed out and stored, in a minute rather than the soak's two hours
# (docs/PERFORMANCE.md, "Soak").  One klabd (build/bin) with a remote
# rig, host0; klab-agent on the host (--once --no-kexec, a 1 MiB file as
# its disk) runs each job with a stand-in klab-run that writes 40
# tiobench-like results and a raw output of SOAK_JOBS_RAW bytes (default
# 250000, about what a real tiobench cell stores), so the database grows
# as in the soak.  Every 10 jobs: klabd's VmRSS and its own figures from
# GET /api/status go to build/bench/soak-jobs.csv (job, rss_kb,
# heap_kb, in_use_kb, pool_idle, pool_stmt_kb).  What it answers: after
# how many jobs klabd's memory stops growing (its warm-up: every pooled
# handle has prepared every statement), and whether anything grows per
# job after that.  What it leaves out: the QEMU rigs' boots, kexecs and
# consoles, which the soak has.
#
#   bench/soak_jobs.sh                 300 jobs
#   SOAK_JOBS=N SOAK_JOBS_RAW=BYTES bench/soak_jobs.sh
set -u
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
KLAB_BIN=$TOP/build/bin
KLAB_PLAIN_BIN=$TOP/build/bin
N=${SOAK_JOBS:-300}
RAW=${SOAK_JOBS_RAW:-250000}
export TOP KLAB_BIN KLAB_PLAIN_BIN RAW
case $N$RAW in
'' | *[!0-9]*) echo "soak_jobs: SOAK_JOBS and SOAK_JOBS_RAW must be numbers" >&2; exit 2 ;;
esac
for t in curl jq; do
	command -v $t >/dev/null || { echo "soak_jobs: needs $t" >&2; exit 2; }
done
[ -x "$KLAB_BIN/klabd" ] || { echo "soak_jobs: no $KLAB_BIN/klabd: run make" >&2; exit 2; }
. "$TOP/tests/lib.sh"
CSV=$TOP/build/bench/soak-jobs.csv
mkdir -p "$TOP/build/bench"
echo "soak_jobs: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
host_rig_start

cat >"$TMP/fake-klab-run" <<'SH'
#!/bin/sh
while [ $# -ge 2 ]; do
	case $1 in --out) out=$2 ;; --id) id=$2 ;; esac
	shift
done
head -c "$RAW" /dev/urandom | base64 >"$out/tiotest-1.txt"
{
	printf '{"schema":"klab-results/1","kernel":"%s","suite":"tiobench",' "$id"
	printf '"format":"tiobench","results":['
	i=0
	while [ $i -lt 40 ]; do
		[ $i -gt 0 ] && printf ','
		printf '{"metric":"tiobench.m%d.rate","unit":"MB/s","value":%d.5,"direction":"higher"}' \
			$i $(($$ % 100 + i))
		i=$((i + 1))
	done
	printf ']}\n'
} >"$out/results.json"
SH
chmod +x "$TMP/fake-klab-run"
head -c 1M /dev/zero >"$TMP/d1"
echo "console=ttyS0 quiet" >"$TMP/cmdline"

echo "job,rss_kb,heap_kb,in_use_kb,pool_idle,pool_stmt_kb" >"$CSV"
i=1
while [ $i -le "$N" ]; do
	http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
		"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"scheduler\":\"mq-deadline\",\"scale\":0.05}" >/dev/null
	expect_status 201
	timeout 120 "$KLAB_BIN/klab-agent" --url "$URL" --rig host0 --token tok-host0 \
		--once --no-kexec --disks "$TMP/d1" --workdir "$TMP/agent" \
		--klab-run "$TMP/fake-klab-run" --cmdline-file "$TMP/cmdline" \
		--poll-wait 5 --backoff-max 2 >"$TMP/agent.log" 2>&1 ||
		{ cat "$TMP/agent.log"; fail "klab-agent failed on job $i"; }
	if [ $((i % 10)) = 0 ]; then
		http GET /api/status >/dev/null
		expect_status 200
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$KLABD_PID/status")
		jq -r --arg j "$i" --arg r "$rss" '[$j, $r, (.malloc.heap / 1024 | floor),
			(.malloc.in_use / 1024 | floor), .db_pool.idle,
			(.db_pool.stmt_bytes / 1024 | floor)] | @csv' "$TMP/body" |
			tr -d '"' >>"$CSV"
		tail -1 "$CSV"
	fi
	i=$((i + 1))
done
stop_klabd
echo "soak_jobs: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "soak_jobs: samples in $CSV"
