#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/soak_check.sh CSV: is the soak flat once warm?  Over the second
# half of the samples of bench/soak.sh (minute,rss_kb,threads,fds,
# db_bytes,runs,...), the least-squares slope of RSS, threads and
# descriptors per hour, and the database's growth per stored run.  Flat:
# RSS grows by at most 2% of its mean or 1 MiB, whichever is more, over
# that half (the fitted slope times the half's span), threads and
# descriptors by less than 1 each.  The database grows with the data it
# keeps, so it is judged per stored run: its bytes per run over the
# second half at most twice the first half's, plus 64 KiB.
# Prints a markdown table and a verdict; exit 0 flat, 1 not, 2 too few
# samples (at least 7: minutes 0-6) or no readable CSV.
# tests/t1001-soak-check.sh runs it on made-up samples.
set -u
[ $# = 1 ] && [ -r "$1" ] || { echo "usage: bench/soak_check.sh CSV" >&2; exit 2; }
awk -F, '
NR == 1 { next }
{ n++; m[n] = $1; c[2, n] = $2; c[3, n] = $3; c[4, n] = $4; c[5, n] = $5; c[6, n] = $6 }
function slope(col, a, b,    i, k, sx, sy, sxx, sxy, x, y) {
	k = 0; sx = sy = sxx = sxy = 0
	for (i = a; i <= b; i++) {
		x = m[i]; y = c[col, i]; k++
		sx += x; sy += y; sxx += x * x; sxy += x * y
	}
	if (k < 2 || k * sxx == sx * sx) return 0
	return (k * sxy - sx * sy) / (k * sxx - sx * sx)
}
function mean(col, a, b,    i, s) { s = 0; for (i = a; i <= b; i++) s += c[col, i]; return s / (b - a + 1) }
END {
	if (n < 7) { print "too few samples (" n ") to judge"; exit 2 }
	a = int(n / 2) + 1; span = m[n] - m[a]
	split("rss_kb threads fds db_bytes", name, " ")
	print "| over minutes " m[a] "-" m[n] " | first | last | mean | slope per hour | change over the half |"
	print "| --- | ---: | ---: | ---: | ---: | ---: |"
	flat = 1
	for (col = 2; col <= 5; col++) {
		s = slope(col, a, n); mu = mean(col, a, n)
		printf "| %s | %d | %d | %.0f | %+.1f | %+.1f |\n", name[col - 1], c[col, a], c[col, n], mu, s * 60, s * span
		if (col == 2 && (s * span > 0.02 * mu && s * span > 1024)) { flat = 0; why = why " rss" }
		if ((col == 3 || col == 4) && s * span >= 1) { flat = 0; why = why " " name[col - 1] }
	}
	r1 = c[6, a] - c[6, 1]; r2 = c[6, n] - c[6, a]
	d1 = c[5, a] - c[5, 1]; d2 = c[5, n] - c[5, a]
	printf "\nDatabase growth: %s bytes for %d runs in the first half, %s bytes for %d runs in the second", d1, r1, d2, r2
	if (r1 > 0 && r2 > 0) {
		printf " (%.0f and %.0f bytes a run)", d1 / r1, d2 / r2
		if (d2 / r2 > 2 * d1 / r1 + 65536) { flat = 0; why = why " db" }
	}
	print "."
	print ""
	if (flat) print "Verdict: flat once warm (second half)."
	else print "Verdict: NOT flat:" why "."
	exit !flat
}' "$1"
