#!/bin/sh
# SPDX-License-Identifier: MIT
# klab-agent's kexec path on the host, with a stand-in kexec that records
# its arguments: the job's kernel (its kexec image, an ELF) and initramfs
# are downloaded, `kexec -l` gets them (with --args-linux) with the job's
# command line plus klab.url/rig/token/job/release (older klab.* words
# dropped), klabd hears the announcement (the rig goes
# booting), and a `kexec -e` that comes back is an infrastructure failure.
# The job comes back from the queue; this time `kexec -e` "switches" (the
# stand-in kills the agent, as a real switch ends it), and the "next boot"
# (the agent again, reading that command line) finds it is not on the
# job's kernel and reports a kernel failure.
. "$(dirname "$0")/lib.sh"
AGENT=$KLAB_BIN/klab-agent
[ -x "$AGENT" ] || fail "no '$AGENT': build with make O=build/san SANITIZE=1"

host_rig_start

cat >"$TMP/fake-kexec" <<'SH'
#!/bin/sh
printf '%s\n' "$@" >>"$FAKE_DIR/kexec.args"
case $1 in
-l) k=$2; [ "$k" = -i ] && k=$3
    [ -s "$k" ] || { echo "kexec: cannot read '$k'" >&2; exit 1; } ;;
-e) [ -n "${FAKE_SWITCH:-}" ] && kill -9 $PPID	# the old kernel is gone
    echo "kexec: pretending to switch" ;;
esac
SH
chmod +x "$TMP/fake-kexec"
FAKE_DIR=$TMP/fake
mkdir -p "$FAKE_DIR"
export FAKE_DIR
echo "BOOT_IMAGE=/vmlinuz klab.job=99 klab.rig=old ro" >"$TMP/cmdline"

http POST /api/jobs -H 'Content-Type: application/json' --data-binary \
	"{\"kernels\":[\"$K\"],\"rig\":\"host0\",\"suite\":\"tiobench\",\"cmdline\":\"quiet\"}" >/dev/null
expect_status 201
timeout 180 "$AGENT" --url "$URL" --rig host0 --token tok-host0 --once \
	--workdir "$TMP/agent" --kexec "$TMP/fake-kexec" \
	--cmdline-file "$TMP/cmdline" --poll-wait 5 --backoff-max 2 \
	>"$TMP/agent1.log" 2>&1
rc=$?
cat "$TMP/agent1.log"
[ $rc -eq 0 ] || fail "the agent exited $rc"
cat "$FAKE_DIR/kexec.args"
kernel=$(ls "$TMP"/agent/kernel-*) || fail "no kernel downloaded"
initrd=$(ls "$TMP"/agent/initrd-*) || fail "no initramfs downloaded"
rel=$(sed -n 's/.*klab.release=\([^ ]*\).*/\1/p' "$FAKE_DIR/kexec.args")
[ -n "$rel" ] || fail "no klab.release on the kexec command line"
# the job's kernel is klabd's kexec image of it, an ELF file, which
# kexec-tools loads with --args-linux (docs/RIGS.md, "The kexec image")
head -c 4 "$kernel" | od -An -c | grep -q 'E   L   F' ||
	fail "the job's kernel is not the kexec image (no ELF file)"
printf '%s\n' -l -i "$kernel" --args-linux "--initrd=$initrd" \
	"--append=console=ttyS0,115200 klab.disks=1 quiet klab.url=$URL klab.rig=host0 klab.token=tok-host0 klab.job=1 klab.release=$rel" \
	-e -y >"$TMP/want"
diff -u "$TMP/want" "$FAKE_DIR/kexec.args" || fail "kexec was not called as expected"
expect_grep 'job 1: kexec into ' "$TMP/agent1.log"
expect_grep "job 1: infra failure: '$TMP/fake-kexec -e' returned without switching kernels" "$TMP/agent1.log"
expect_grep 'assigned -> booting' "$TMP/klabd.log"
ok "kexec -l got the job's files and command line; a kexec -e that returns is an infra failure"

# infra failures are retried: the job comes back; this time kexec -e ends
# the agent as a real switch does
: >"$FAKE_DIR/kexec.args"
FAKE_SWITCH=1 timeout 180 "$AGENT" --url "$URL" --rig host0 --token tok-host0 \
	--once --workdir "$TMP/agent" --kexec "$TMP/fake-kexec" \
	--cmdline-file "$TMP/cmdline" --poll-wait 5 --backoff-max 2 \
	>"$TMP/agent2.log" 2>&1
rc=$?
cat "$TMP/agent2.log"
[ $rc -eq 137 ] || fail "expected the agent to be killed by the switch, exit $rc"
expect_grep 'job 1: kexec -e' "$TMP/agent2.log"
# the next boot reads that command line; this host is not the job's kernel
sed -n 's/^--append=//p' "$FAKE_DIR/kexec.args" >"$TMP/cmdline2"
timeout 20 "$AGENT" --once --workdir "$TMP/agent" --kexec "$TMP/fake-kexec" \
	--cmdline-file "$TMP/cmdline2" --poll-wait 2 --backoff-max 2 \
	>"$TMP/agent3.log" 2>&1
cat "$TMP/agent3.log"
expect_grep "registered as host0 with $URL: .* job 1\$" "$TMP/agent3.log"
expect_grep "job 1: kernel failure: booted '$(uname -r)', job wants '$rel'" "$TMP/agent3.log"
expect_nogrep 'cannot report the failure' "$TMP/agent3.log"
http GET /api/jobs/1 >/dev/null; expect_status 200
expect_grep '"state":"failed"'; expect_grep '"failure":"kernel"'
expect_grep "job wants '$rel'"
stop_klabd
ok "a boot on the wrong kernel is reported as a kernel failure"
