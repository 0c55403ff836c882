#!/bin/sh
# SPDX-License-Identifier: MIT
# Lab tier (KLAB_LAB=1, `make check-lab`): the shipped elv-lowlat patch
# (mq-deadline read_expire 500 -> 100 ms, write_expire 5 -> 1 s, fifo_batch
# 16 -> 4, writes_starved 2 -> 4) against its base, both built from 6.1
# with the lab config, on the scsi rig with the hdd disk model, under
# mq-deadline, with tiobench-under-writes-nowbt (reads under two streaming
# writers, writeback throttling off: the case the patch is written for).
# `klab compare-run --wait` interleaves A B cells until every headline
# metric is decided or the cap is reached.  The patch's header expects
# lower read latency under mixed load: the comparison must say so, with
# at least one read phase's average latency decided better; what else it
# decided is printed (docs/RIGS.md records the figures).
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_LAB:-}" ] || skip "lab tier: set KLAB_LAB=1 (make check-lab)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip "linux-source-6.1 is not installed"
[ -x "$KLAB_PLAIN_BIN/klab-agent" ] || skip "no plain build of klab-agent in $KLAB_PLAIN_BIN"
command -v jq >/dev/null || skip "no jq"

MAX_CELLS=${T7006_MAX_CELLS:-6}
SCALE=${T7006_SCALE:-0.1}
LAB_DISK_MB=256
lab_scsi_start hdd
lab_build_pair "$TOP/kernels/patches/elv-lowlat.patch" elv-lowlat

timeout 10800 "$KLAB_BIN/klab" compare-run lab-6.1 lab-6.1+elv-lowlat --rig scsi0 \
	--suite tiobench-under-writes-nowbt --scheduler mq-deadline --scale "$SCALE" \
	--max-cells "$MAX_CELLS" --wait >"$TMP/run.txt" 2>"$TMP/run.err"
rc=$?
cat "$TMP/run.err" "$TMP/run.txt"
# 0 decided, 4 a regression somewhere, 5 undecided at the cap: all say
# what changed; anything else is a failure of the lab
case $rc in 0|4|5) ;; *) tail -60 "$TMP/klabd.log"; fail "compare-run: exit $rc" ;; esac
ID=$(sed -n 's/^comparison \([0-9]*\)$/\1/p' "$TMP/run.txt")
http GET "/api/comparisons/$ID" >/dev/null
expect_status 200
jq -r '.metrics_decided | to_entries[] | "  \(.key): \(.value)"' "$TMP/body"
b=$(jq -r '[.metrics_decided | to_entries[] |
	select((.key | test("(seq|rand)_read\\.avg_lat$")) and .value == "better") | .key] | join(", ")' "$TMP/body")
[ -n "$b" ] || fail "elv-lowlat: no read phase's average latency decided better"
ok "elv-lowlat vs its base under writes (hdd, mq-deadline, wbt off): better $b"
stop_klabd
