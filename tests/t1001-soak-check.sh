#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/soak_check.sh, the soak's judge (docs/PERFORMANCE.md, "Soak"), on
# made-up samples of bench/soak.sh: a flat klabd passes (exit 0); RSS, a
# descriptor, a thread or database growth per run that keeps climbing in
# the second half fails (exit 1, naming it); fewer than 7 samples cannot
# be judged (exit 2).  No klabd, no rig.
. "$(dirname "$0")/lib.sh"
CHECK=$TOP/bench/soak_check.sh

# soak NAME MINUTES RSS FDS THREADS DB: NAME.csv with a sample a minute;
# RSS kB, FDS and THREADS added a minute from the start, DB bytes a run
# in the second half (50000 in the first); RSS warms up for 5 minutes
# and wobbles by 300 kB, a run is stored every 3 minutes.
soak() {
	awk -v n="$2" -v rs="$3" -v fs="$4" -v ts="$5" -v db2="$6" 'BEGIN {
		print "minute,rss_kb,threads,fds,db_bytes,runs,jobs_done,jobs_failed,load1"
		db = 200000; runs = 0
		for (m = 0; m <= n; m++) {
			if (m % 3 == 0) { runs++; db += m > n / 2 ? db2 : 50000 }
			rss = 40000 + (m < 5 ? m * 2000 : 10000) + rs * m + m % 2 * 300
			printf "%d,%d,%d,%d,%d,%d,%d,0,1.50\n", m, rss,
				12 + int(ts * m), 30 + int(fs * m), db, runs, runs
		}
	}' >"$TMP/$1.csv"
}

# judge NAME RC TEXT: soak_check.sh on NAME.csv exits RC and says TEXT
judge() {
	"$CHECK" "$TMP/$1.csv" >"$TMP/$1.out" 2>&1
	rc=$?
	[ "$rc" = "$2" ] || fail "$1: soak_check.sh exited $rc, not $2: $(cat "$TMP/$1.out")"
	expect_grep "$3" "$TMP/$1.out"
}

soak flat 120 0 0 0 50000
judge flat 0 "Verdict: flat once warm"
expect_grep "| rss_kb | 50000 | 50000 |" "$TMP/flat.out"
soak rss 120 60 0 0 50000		# 3.6 MB an hour
judge rss 1 "Verdict: NOT flat: rss\.$"
soak fds 120 0 0.1 0 50000		# a descriptor every 10 minutes
judge fds 1 "Verdict: NOT flat: fds\.$"
soak threads 120 0 0 0.05 50000
judge threads 1 "Verdict: NOT flat: threads\.$"
soak db 120 0 0 0 400000		# 8x the bytes per run
judge db 1 "Verdict: NOT flat: db\.$"
expect_grep "(50000 and 400000 bytes a run)" "$TMP/db.out"
soak both 120 60 0.1 0 50000
judge both 1 "Verdict: NOT flat: rss fds\.$"
# RSS within 2% of its mean over the half (or 1 MiB) is flat
soak small 120 15 0 0 50000		# 450 kB over the second hour
judge small 0 "Verdict: flat once warm"
soak short 5 0 0 0 50000
judge short 2 "too few samples (6)"
"$CHECK" >/dev/null 2>&1
[ $? = 2 ] || fail "soak_check.sh without a CSV did not exit 2"
ok "soak_check.sh: flat passes; rss, fds, threads, db growth fail; short is no verdict"
