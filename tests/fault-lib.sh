# SPDX-License-Identifier: MIT
# fault-lib.sh: shared pieces of the fault suite (docs/FAULTS.md), sourced
# after lib.sh by tests/t22NN-fault-*.sh (cheap, in `make check`) and
# tests/t8NNN-fault-*.sh (real QEMU rigs, `make check-faults` only).
#
# fault_qemu_start CONF-EXTRA: klabd with one QEMU scsi rig, scsi0, that
# cold-boots the newest Debian 6.1 (fetched into the catalog) and whose
# top_dir ($TMP/top) serves the shipped suites plus the test hooks of
# tests/data/suites/ (suites that crash or reset the kernel on purpose:
# never shipped under workloads/suites).  Sets K (the kernel's ident).

# fault_slow: the QEMU fault cases run only from `make check-faults`.
fault_slow() {
	[ -n "${KLAB_FAULTS:-}" ] || skip "a QEMU fault case: run it with make check-faults (KLAB_FAULTS=1)"
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
	[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
}

# fault_top: $TMP/top, a klab tree whose suites include the test hooks.
fault_top() {
	mkdir -p "$TMP/top/workloads/suites"
	ln -s "$TOP/kernels" "$TMP/top/kernels"
	cp "$TOP"/workloads/suites/*.suite "$TOP"/tests/data/suites/*.suite \
		"$TMP/top/workloads/suites/"
}

fault_qemu_start() {
	fault_top
	BASE=$("$TOP/kernels/debian-kernels.sh" fetch "$("$TOP/kernels/debian-kernels.sh" newest 6.1)" |
		sed -n 's/^upstream=//p')
	[ -n "$BASE" ] || fail "cannot fetch the newest 6.1 kernel"
	cat >"$TMP/klabd.conf" <<CONF
top_dir = $TMP/top
job_cmdline_allow = elevator= quiet loglevel= rdinit= panic=
$1
[rig scsi0]
kind = qemu
profile = scsi
base_kernel = $BASE
memory_mb = 768
disk_mb = 128
boot_timeout = ${FAULT_BOOT_TIMEOUT:-150}
job_timeout = ${FAULT_JOB_TIMEOUT:-400}
CONF
	start_klabd --config "$TMP/klabd.conf" --rig-bin "$KLAB_PLAIN_BIN"
	K=$(klab kernel add debian newest-6.1 | tr -d '"') || fail "fetch 6.1"
	for f in "$TOP"/tests/data/suites/*.suite; do
		s=$(sed -n 's/^name = //p' "$f")
		http POST /api/suites -H 'Content-Type: application/json' --data-binary \
			"{\"name\":\"$s\",\"description\":\"test hook (tests/data/suites)\"}" >/dev/null
		[ "$STATUS" = 200 ] || [ "$STATUS" = 201 ] || fail "cannot register suite '$s': $STATUS $(cat "$TMP/body")"
	done
}

# job_get ID: the job's JSON in $TMP/body (whitespace removed in $TMP/job)
job_get() {
	http GET "/api/jobs/$1" >/dev/null
	tr -d '\n' <"$TMP/body" | sed 's/": /":/g' >"$TMP/job"
}

# wait_job ID [SECS]: until the job is done or failed
wait_job() {
	i=0
	while :; do
		job_get "$1"
		grep -q '"state":"\(done\|failed\)"' "$TMP/job" && return 0
		i=$((i + 3))
		[ $i -gt "${2:-900}" ] && { tail -30 "$TMP/klabd.log"; fail "job $1 did not end"; }
		sleep 3
	done
}

# wait_rig NAME STATE [SECS]: until GET /api/rigs/NAME says STATE
wait_rig() {
	i=0
	until http GET "/api/rigs/$1" | tr -d ' \n' | grep -q "\"state\":\"$2\""; do
		i=$((i + 2))
		[ $i -gt "${3:-600}" ] && { tail -30 "$TMP/klabd.log"; fail "rig $1 not $2: $(cat "$TMP/body")"; }
		sleep 2
	done
}

# cold_boots: how many times scsi0 was cold-booted (console logs)
cold_boots() {
	ls "$TMP/data/rigs/scsi0/"console-*.log 2>/dev/null | wc -l
}

# db_ok: the database passes PRAGMA integrity_check
db_ok() {
	r=$(sqlite3 "$TMP/klab.db" 'PRAGMA integrity_check')
	[ "$r" = ok ] || fail "integrity_check: $r"
}

# host_agent_start RIG TOKEN [agent args]: klab-agent on the host (remote
# rig, --once --no-kexec, a 1 MiB file as its disk) whose klab-run is a
# stand-in (the agent talks to $AGENT_URL, default $URL): it touches $FAKE_DIR/started.N (N counts the runs), waits for
# $FAKE_DIR/go (60 s at most), then writes one result.  Sets APID.
host_agent_start() {
	FAKE_DIR=$TMP/fake
	mkdir -p "$FAKE_DIR"
	export FAKE_DIR
	cat >"$TMP/fake-klab-run" <<'SH'
#!/bin/sh
while [ $# -ge 2 ]; do
	case $1 in --out) out=$2 ;; --id) id=$2 ;; esac
	shift
done
n=1
while [ -f "$FAKE_DIR/started.$n" ]; do n=$((n + 1)); done
: >"$FAKE_DIR/started.$n"
i=0
while [ ! -f "$FAKE_DIR/go" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cat >"$out/results.json" <<JSON
{"schema":"klab-results/1","kernel":"$id","results":[{"metric":"dbench.throughput",
 "unit":"MB/s","value":123.5,"direction":"higher"}]}
JSON
SH
	chmod +x "$TMP/fake-klab-run"
	head -c 1M /dev/zero >"$TMP/d1"
	r=$1 t=$2
	shift 2
	timeout 300 "$KLAB_BIN/klab-agent" --url "${AGENT_URL:-$URL}" --rig "$r" --token "$t" \
		--once --no-kexec --disks "$TMP/d1" --workdir "$TMP/agent" \
		--klab-run "$TMP/fake-klab-run" --cmdline-file /dev/null \
		--poll-wait 5 --backoff-max 2 "$@" >>"$TMP/agent.log" 2>&1 &
	APID=$!
}

# wait_file PATH [SECS]: until it exists
wait_file() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -gt $((${2:-120} * 10)) ] && { cat "$TMP/agent.log"; tail -20 "$TMP/klabd.log"; fail "no '$1'"; }
		sleep 0.1
	done
}
