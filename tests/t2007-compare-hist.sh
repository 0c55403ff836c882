#!/bin/sh
# SPDX-License-Identifier: MIT
# Latency distributions through a real klabd: klab-results/1 documents
# with "hist" for two kernels are imported (three cells each), the
# histograms are stored per run (raw outputs hist/<phase>.json), the
# compare page draws one tail chart with two curves whose coordinates are
# finite and inside the chart, /api/compare?hist=1 gives the merged
# buckets, and a malformed histogram is refused naming its member.  Last,
# a real iops run's output carries its histogram through the import.
. "$(dirname "$0")/lib.sh"
start_klabd
# cell KERNEL TAIL_NS I: 990 requests at ~100 us, 10 at TAIL_NS (cell I)
cell() {
	printf '{"schema":"klab-results/1","kernel":"%s","results":[
{"metric":"iops.total","unit":"IOPS","value":100%s,"direction":"higher"}],
"hist":{"iops":{"unit":"ns","buckets":[[98304,490],[102400,500],[%s,10]]}}}\n' \
		"$1" "$3" "$2" >"$TMP/cell.json"
	klab import "$TMP/cell.json" --suite manual >/dev/null || fail "import cell of $1"
}
for i in 0 1 2; do
	cell h-base 131072 $i
	cell h-cand 50331648 $i	# the tail moved from 128 us to 48 ms
done

http GET "/compare?k=h-base&k=h-cand&suite=manual" >"$TMP/page.html"
expect_status 200
expect_grep '<svg[^>]*class="chart cdf"' "$TMP/page.html"
expect_grep 'Latency distributions' "$TMP/page.html"
n=$(grep -c '<path class="cdf"' "$TMP/page.html")
[ "$n" = 2 ] || fail "expected 2 curves, got $n"
# every coordinate a finite number inside the 800 x 380 chart
grep -o '<path class="cdf"[^>]* d="[^"]*"' "$TMP/page.html" |
	sed 's/.* d="//; s/"$//; s/[ML]/ /g' | tr ' ' '\n' | grep -v '^$' >"$TMP/nums"
[ "$(wc -l <"$TMP/nums")" -ge 16 ] || fail "too few coordinates: $(cat "$TMP/nums")"
awk 'NR % 2 == 1 && !($1 >= 0 && $1 <= 800) { exit 1 }
     NR % 2 == 0 && !($1 >= 0 && $1 <= 380) { exit 1 }
     !($1 ~ /^-?[0-9]+(\.[0-9]+)?$/) { exit 1 }' "$TMP/nums" ||
	fail "a coordinate is not a number inside the chart: $(tr '\n' ' ' <"$TMP/nums")"
# the candidate's curve reaches further right than the baseline's
bx=$(grep -o '<path class="cdf" data-series="0"[^>]* d="[^"]*"' "$TMP/page.html" |
	sed 's/.* L\([0-9.]*\) [0-9.]*"$/\1/')
cx=$(grep -o '<path class="cdf" data-series="1"[^>]* d="[^"]*"' "$TMP/page.html" |
	sed 's/.* L\([0-9.]*\) [0-9.]*"$/\1/')
awk -v b="$bx" -v c="$cx" 'BEGIN { exit !(c > b + 100) }' ||
	fail "the candidate's tail ($cx) is not right of the baseline's ($bx)"
expect_grep 'h-base (3000)' "$TMP/page.html"

http GET "/api/compare?k=h-base&k=h-cand&suite=manual&hist=1" >"$TMP/cmp.json"
expect_status 200
python3 - "$TMP/cmp.json" <<'PY' || fail "hist in /api/compare: $(head -c 600 "$TMP/cmp.json")"
import json, sys
d = json.load(open(sys.argv[1]))["hist"]["iops"]
assert d["h-base"]["buckets"] == [[98304, 1470], [102400, 1500], [131072, 30]], d
assert d["h-cand"]["buckets"][-1] == [50331648, 30], d
PY
http GET "/api/compare?k=h-base&k=h-cand&suite=manual" >/dev/null
expect_nogrep '"hist"'
run=$(http GET "/api/runs?kernel=h-cand" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
[ -n "$run" ] || fail "no run of h-cand: $(cat "$TMP/body")"
http GET "/api/runs/$run" >/dev/null
expect_grep '"hist/iops.json"'
http GET "/api/runs/$run/raw/hist/iops.json" >/dev/null
expect_status 200
expect_grep '"buckets":\[\[98304,490\]'

# a histogram whose upper bounds go down is refused, naming it
printf '{"schema":"klab-results/1","kernel":"h-bad","results":[
{"metric":"iops.total","unit":"IOPS","value":1,"direction":"higher"}],
"hist":{"iops":{"unit":"ns","buckets":[[200,1],[100,1]]}}}\n' >"$TMP/bad.json"
http POST "/api/import?suite=manual" -H 'Content-Type: application/json' \
	--data-binary @"$TMP/bad.json" >/dev/null
expect_status 400
expect_grep "hist.iops"
expect_grep "buckets\[1\]"

# a real workload's output: its histogram arrives with its numbers
mkdir -p "$TMP/disk"
"$KLAB_BIN/iops" --disks "$TMP/disk" -s 4 --buffered --ramp 0 -T 0.5 \
	--id h-real -o "$TMP/iops.json" 2>"$TMP/iops.err" || fail "iops: $(cat "$TMP/iops.err")"
klab import "$TMP/iops.json" --suite manual >/dev/null || fail "import iops output"
run=$(http GET "/api/runs?kernel=h-real" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
http GET "/api/runs/$run/raw/hist/iops.json" >"$TMP/real.json"
expect_status 200
python3 - "$TMP/real.json" "$TMP/iops.json" <<'PY' || fail "real histogram: $(head -c 300 "$TMP/real.json")"
import json, sys
h = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
b = h["buckets"]
assert b and all(b[i][0] < b[i + 1][0] for i in range(len(b) - 1)), b
assert h == doc["hist"]["iops"]
PY
ok "latency histograms stored and drawn on the compare page"
