#!/bin/sh
# SPDX-License-Identifier: MIT
# t2032: change-point alerts worth a person's time (issue 32, part 3).  A
# line of 41 imported kernels (6.1.100-6.1.140) and, after it, the A/B
# builds of four submissions (kernels whose source is "build"), with:
#  - t2032.rate (MB/s, higher): level on the line, 25% higher on every
#    submission build: the A/B pairs are never part of a line's history,
#    so no change point (ee67a64 searched them: one, and its alert);
#  - t2032.count (no direction): a 23% step on the line: a counter or a
#    parameter is never searched (ee67a64: a change point);
#  - t2032.small (MB/s, higher): a 0.5% step with almost no noise:
#    significant, but under the metric's 2% threshold: dropped (ee67a64:
#    a change point);
#  - t2032.lat (ms, lower): a 30% step on the line: found and alerted once
#    (the positive control);
#  - 30 more headline metrics that do not change: no alert (the error
#    budget is the verdicts', split over the metrics).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"

# results FILE: one klab-results/1 document of the whole history
results() {
	awk 'BEGIN {
		printf "{\"schema\":\"klab-results/1\",\"results\":["
		n = 0
		for (k = 100; k <= 140; k++) {
			w = (k * 37) % 10
			kern = "6.1." k
			row(kern, "t2032.rate", "MB/s", 100 + w / 10, "higher")
			row(kern, "t2032.count", "", (k >= 120 ? 123 : 100) + w / 10, "none")
			row(kern, "t2032.small", "MB/s", (k >= 120 ? 1005 : 1000) + w / 1000, "higher")
			row(kern, "t2032.lat", "ms", (k >= 120 ? 13 : 10) + w / 100, "lower")
			for (m = 1; m <= 30; m++)
				row(kern, "t2032.phase" m ".rate", "MB/s", 50 + m + ((k * m * 13) % 10) / 10, "higher")
		}
		for (s = 1; s <= 4; s++) {
			row("sub" s "-base", "t2032.rate", "MB/s", 125 + s / 10, "higher")
			row("sub" s "-patched", "t2032.rate", "MB/s", 125.5 + s / 10, "higher")
		}
		printf "]}\n"
	}
	function row(kern, m, unit, v, dir) {
		printf "%s{\"kernel\":\"%s\",\"metric\":\"%s\",\"unit\":\"%s\",\"value\":%s,\"direction\":\"%s\"}", \
			(n++ ? "," : ""), kern, m, unit, v, dir
	}' >"$1"
}
results "$TMP/h.json"

start_klabd
# the submissions' kernels come from builds, as the builder registers them
for s in 1 2 3 4; do
	for side in base patched; do
		http POST /api/kernels -H 'Content-Type: application/json' \
			-d "{\"ident\":\"sub$s-$side\",\"version\":\"6.1.140\",\"source\":\"build\"}" >/dev/null
		case $STATUS in 20[01]) ;; *) fail "kernel sub$s-$side: $STATUS $(cat "$TMP/body")" ;; esac
	done
done
klab import "$TMP/h.json" --rig default --suite manual >/dev/null || fail "import"

cps() { http GET "/api/changepoints?rig=default&suite=manual"; }
i=0
while ! cps | jq -e '[.changepoints[] | select(.metric == "t2032.lat")] | length > 0' >/dev/null; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "the 30% step of t2032.lat was not found: $(cps)"
	sleep 0.1
done
cps | jq -e '.changepoints | length == 1' >/dev/null ||
	fail "change points beyond t2032.lat: $(cps | jq -c '[.changepoints[] | {metric, kernel_before, kernel_after, size_pct}]')"
cps | jq -e '.changepoints[0] | .kernel_before == "6.1.119" and .kernel_after == "6.1.120" and .size_pct > 25' >/dev/null ||
	fail "wrong change point: $(cps)"
sleep 1
n=$(grep -c 'alert change_point' "$TMP/klabd.log")
[ "$n" = 1 ] || fail "alerts: $(grep 'alert change_point' "$TMP/klabd.log")"
grep -q 'alert change_point: change point in t2032.lat' "$TMP/klabd.log" ||
	fail "the alert is not t2032.lat's"
ok "only the line's real step is a change point and an alert: no A/B builds, no counter, no step under the threshold, no false alarm among 30 flat metrics"
