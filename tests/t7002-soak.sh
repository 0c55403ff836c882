#!/bin/sh
# SPDX-License-Identifier: MIT
# Lab tier (KLAB_LAB=1, `make check-lab`; not in CI): the soak.
# bench/soak.sh runs klabd with two QEMU rigs (scsi, ide) on a mixed queue
# with panicking kernels among the jobs for KLAB_SOAK_MINUTES (default
# 120) and bench/soak_check.sh judges klabd's samples: RSS, threads and
# descriptors flat over the second half, the database's growth per run
# steady.  Figures in build/bench/soak.md and soak.csv, to be recorded in
# docs/PERFORMANCE-LOG.md (a dated entry) and docs/PERFORMANCE.md ("Soak"),
# with their date and commit.
. "$(dirname "$0")/lib.sh"
[ -n "${KLAB_LAB:-}" ] || skip "lab tier: set KLAB_LAB=1 (make check-lab) for long real-rig runs"
for t in qemu-system-x86_64 curl sqlite3 jq; do
	command -v "$t" >/dev/null || skip "$t is not installed"
done
"$TOP/kernels/debian-kernels.sh" newest 6.1 >/dev/null 2>&1 ||
	skip "no Debian 6.1 cloud kernel from apt"

SOAK_MINUTES=${KLAB_SOAK_MINUTES:-120} "$TOP/bench/soak.sh"
case $? in
0) ok "soak of ${KLAB_SOAK_MINUTES:-120} minutes: flat once warm" ;;
2) fail "the soak was too short to judge" ;;
*) fail "the soak failed or klabd was not flat (above, build/bench/soak.md)" ;;
esac
