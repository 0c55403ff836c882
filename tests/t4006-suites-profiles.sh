#!/bin/sh
# SPDX-License-Identifier: MIT
# Every shipped suite on every rig profile (issue 9, 1b): klabd drives real
# QEMU rigs that cold-boot the newest Debian 6.1 kernel, and each suite
# runs once at scale 0.01, or refuses at once saying why.  Disk sizes are
# the demo's (scsi, 256 MiB) and the defaults (ide 512 MiB, manydisk
# 64 x 32 MiB), plus a scsi rig with room for dbench's 50 clients (1400
# MiB), where the agent formats and mounts the disk for the dbench suites.
# Checks for each job: "done" with a run of status "done", or "failed" as
# a benchmark failure "disk ... too small for suite ...: needs N MiB, has
# M MiB" that ran nothing.  Slow tier (KLAB_SLOW=1, `make check-slow`):
# about 6 minutes, and `make check` after it in CI would run it twice.
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_SLOW:-}" ] || skip "slow tier: set KLAB_SLOW=1 (make check-slow) to run every suite on every profile"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
command -v jq >/dev/null || skip "no jq"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"

BASE=$("$TOP/kernels/debian-kernels.sh" fetch "$("$TOP/kernels/debian-kernels.sh" newest 6.1)" |
	sed -n 's/^upstream=//p')
rig() {	# NAME PROFILE DISK_MB
	cat <<CONF
[rig $1]
kind = qemu
profile = $2
base_kernel = $BASE
memory_mb = 768
disk_mb = $3
boot_timeout = 300
job_timeout = 900
CONF
}
{
	rig scsi0 scsi 256
	rig scsi1 scsi 1400
	rig ide0 ide 512
	rig many0 manydisk 32
} >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "fetch the newest 6.1"
echo "kernel: $K (rigs boot $BASE)"

# what each rig runs, and what must come of it: done, or refused
cat >"$TMP/plan" <<'EOF'
scsi0 tiobench done
scsi0 tiobench-under-writes done
scsi0 tiobench-under-writes-nowbt done
scsi0 fio done
scsi0 iops-alldisks done
scsi0 dbench refused
scsi0 rio-under-dbench refused
scsi1 dbench done
scsi1 rio-under-dbench done
ide0 tiobench done
ide0 fio done
ide0 tiobench-under-writes done
ide0 tiobench-under-writes-nowbt done
ide0 rio-under-dbench refused
many0 iops-alldisks done
many0 tiobench done
EOF
while read -r r s want; do
	klab job add "$K" --rig "$r" --suite "$s" --scale 0.01 </dev/null >/dev/null ||
		fail "cannot queue $s on $r"
done <"$TMP/plan"

t0=$(date +%s)
while :; do
	http GET "/api/jobs" >/dev/null
	jq -e '[.jobs[] | select(.state | test("queued|assigned|booting|running"))] | length == 0' \
		"$TMP/body" >/dev/null && break
	[ $(($(date +%s) - t0)) -gt 2400 ] && { tail -60 "$TMP/klabd.log"; fail "jobs did not finish in 2400 s"; }
	sleep 10
done
echo "all jobs ended after $(($(date +%s) - t0)) s"
cp "$TMP/body" "$TMP/jobs.json"

bad=0
while read -r r s want; do
	j=$(jq -c --arg r "$r" --arg s "$s" '[.jobs[] | select(.rig == $r and .suite == $s)][0]' "$TMP/jobs.json")
	state=$(echo "$j" | jq -r .state)
	err=$(echo "$j" | jq -r .error)
	echo "$r $s: $state ${err:+($err)}"
	case $want in
	done)
		[ "$state" = done ] || { bad=1; echo "  expected done"; continue; }
		;;
	refused)
		[ "$state" = failed ] || { bad=1; echo "  expected a refusal"; continue; }
		echo "$j" | jq -e '.failure == "benchmark"' >/dev/null || { bad=1; echo "  not a benchmark failure"; }
		echo "$err" | grep -q "too small for suite '$s' (.*): needs [0-9]* MiB, has [0-9]* MiB" ||
			{ bad=1; echo "  not a disk-size refusal"; }
		;;
	esac
done <"$TMP/plan"
[ $bad -eq 0 ] || { tail -80 "$TMP/klabd.log"; fail "a suite neither ran nor refused as planned"; }

# the runs of finished jobs are "done", with every repetition stored; a
# refusal ran nothing
for r in scsi0 scsi1 ide0 many0; do
	http GET "/api/runs?rig=$r&limit=100" >/dev/null
	jq -r '.runs[] | "\(.id) \(.suite) \(.status)"' "$TMP/body" >"$TMP/runs-$r"
done
cat "$TMP"/runs-*
while read -r r s want; do
	line=$(grep " $s " "$TMP/runs-$r" | head -1)
	[ -n "$line" ] || fail "no run of $s on $r"
	run=${line%% *}
	http GET "/api/runs/$run" </dev/null >/dev/null
	if [ "$want" = done ]; then
		jq -e '.status == "done" and (.repetitions | length) > 0' "$TMP/body" >/dev/null ||
			fail "run $run of $s on $r: not done, or no repetitions stored"
	else
		jq -e '.status != "done" and (.raw | index("raw/run-1.out") | not)' "$TMP/body" >/dev/null ||
			fail "run $run of $s on $r: the refused suite ran"
	fi
done <"$TMP/plan"
# the dbench suites ran on a formatted, mounted disk
http GET "/api/runs?rig=scsi1&limit=100" >/dev/null
run=$(jq -r '[.runs[] | select(.suite == "dbench")][0].id' "$TMP/body")
http GET "/api/runs/$run" >/dev/null
jq -e '([.results[].metric] | index("dbench.throughput")) and
	([.repetitions[] | select(.metric == "dbench.throughput")] | length == 3)' \
	"$TMP/body" >/dev/null || fail "dbench on scsi1: no throughput, or not 3 repetitions of it"
stop_klabd
ok "every shipped suite ran, or refused with its reason, on scsi, ide and manydisk"
