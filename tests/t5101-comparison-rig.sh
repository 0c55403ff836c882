#!/bin/sh
# SPDX-License-Identifier: MIT
# Slow tier (KLAB_SLOW=1, `make check-slow`): a comparison run with
# adaptive repetition on a real QEMU rig.  klabd builds base 6.1 with the
# lab config and base + the canary-slow patch (a 500 us delay on every
# request start), as t7004 does; then `klab compare-run lab-6.1
# lab-6.1+canary-slow --wait` queues interleaved A B cells on the scsi rig
# until every headline metric is decided or the cap is reached, and must
# end "worse" (exit 4) within the cap, with the canary's cells booted, and
# worse on both a read and a write phase; `klab compare --fail-on-worse`
# on the same cells must exit 4 (t7004 checks it
# on a plain job queue in the lab tier).  The rig has the ssd disk model
# (100 us a request): the canary's 500 us is then most of a request's time
# (on the hdd model's 8 ms it is 6%, within that model's noise at this
# small scale; docs/RIGS.md, "Disk models").
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_SLOW:-}" ] || skip "slow tier: set KLAB_SLOW=1 (make check-slow) to build real kernels"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
command -v jq >/dev/null || skip "no jq"

MAX_CELLS=8
lab_scsi_start ssd

lab_build_pair "$TOP/kernels/patches/canary-slow.patch" canary-slow

timeout 7200 "$KLAB_BIN/klab" compare-run lab-6.1 lab-6.1+canary-slow --rig scsi0 \
	--suite tiobench --scale 0.02 --max-cells $MAX_CELLS --wait \
	>"$TMP/run.txt" 2>"$TMP/run.err"
rc=$?
cat "$TMP/run.err" "$TMP/run.txt"
[ $rc -eq 4 ] || { tail -60 "$TMP/klabd.log"; fail "the canary was not decided worse (exit $rc)"; }
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/run.txt")
http GET "/api/comparisons/$ID" >/dev/null
expect_status 200
[ "$(jq -r .verdict "$TMP/body")" = worse ] || fail "verdict: $(jq -c '{state,verdict,summary}' "$TMP/body")"
[ "$(jq -r .planned "$TMP/body")" -le $MAX_CELLS ] || fail "more cells than the cap"
[ "$(jq -r '[.metrics_decided[] | select(. == "worse")] | length' "$TMP/body")" -ge 1 ] ||
	fail "no headline metric decided worse: $(jq -c .metrics_decided "$TMP/body")"
for p in read write; do
	[ "$(jq -r --arg p "$p" '[.metrics_decided | to_entries[] |
		select((.key | test("(seq|rand)_" + $p + "\\.(rate|avg_lat)$")) and .value == "worse")] | length' \
		"$TMP/body")" -ge 1 ] || fail "no $p phase decided worse: $(jq -c .metrics_decided "$TMP/body")"
done
expect_grep 'check-in on .*-klab+canary-slow' "$TMP/klabd.log"
expect_grep "comparison $ID: look at" "$TMP/klabd.log"
expect_grep '(worse, headline)' "$TMP/run.txt"
# the same cells through `klab compare --fail-on-worse` (what a script or
# CI job runs): exit 4, the canary flagged as a headline regression
klab compare lab-6.1 lab-6.1+canary-slow --rig scsi0 --suite tiobench \
	--fail-on-worse >"$TMP/cmp.txt"
rc=$?
cat "$TMP/cmp.txt"
[ $rc -eq 4 ] || fail "klab compare --fail-on-worse did not flag the canary (exit $rc)"
expect_grep '(worse, headline)' "$TMP/cmp.txt"
stop_klabd
ok "compare-run on a real rig: the canary is decided worse within $MAX_CELLS cells a side"
