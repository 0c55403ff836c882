#!/bin/sh
# SPDX-License-Identifier: MIT
# Lab tier (KLAB_LAB=1, `make check-lab`; not in CI): a real-rig A/A.
# klabd builds base 6.1 with the lab config and base + a patch that only
# adds a comment line (tests/data/patches/aa-comment.patch: the same code,
# a different build), then `klab compare-run` runs them against each other
# with adaptive repetition on a QEMU scsi rig.  The verdict must be quiet:
# no metric decided worse or better (the run ends "same" or "undecided
# after N cells"), whatever the rig's noise.  Takes 20-40 minutes under TCG.
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_LAB:-}" ] || skip "lab tier: set KLAB_LAB=1 (make check-lab) for long real-rig runs"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
command -v jq >/dev/null || skip "no jq"

MAX_CELLS=${KLAB_AA_CELLS:-12}
lab_scsi_start
lab_build_pair "$TOP/tests/data/patches/aa-comment.patch" aa-comment

start=$(date +%s)
timeout 10800 "$KLAB_BIN/klab" compare-run lab-6.1 lab-6.1+aa-comment --rig scsi0 \
	--suite tiobench --scale 0.02 --max-cells "$MAX_CELLS" --wait \
	>"$TMP/run.txt" 2>"$TMP/run.err"
rc=$?
cat "$TMP/run.err" "$TMP/run.txt"
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/run.txt")
http GET "/api/comparisons/$ID" >/dev/null
expect_status 200
jq -c '{state, verdict, summary, planned}' "$TMP/body"
case $rc in
0|5) ;;
*) tail -60 "$TMP/klabd.log"; fail "an A/A run ended with exit $rc (4: worse, 1: failed)" ;;
esac
n=$(jq '[.. | objects | select(.verdict? == "worse" or .verdict? == "better")] | length' "$TMP/body")
[ "$n" -eq 0 ] || fail "an A/A run decided $n cells worse or better: $(jq -c .metrics_decided "$TMP/body")"
stop_klabd
ok "real-rig A/A: $(jq -r .summary "$TMP/body") in $(( $(date +%s) - start )) s, nothing worse or better"
