#!/bin/sh
# SPDX-License-Identifier: MIT
# Change points on the history, as a user meets them: a synthetic history
# with a 20% step is imported with `klab import`, then
#  (a) GET /api/changepoints (and `klab changepoints`) lists the change
#      point between the right kernels, with its size and p-value; bad
#      filters are 404 naming them;
#  (b) the history page, rendered by headless Chromium, marks it on the
#      chart between the last point before and the first after, and
#      lists it in its table;
#  (c) its alert (ALERT_CHANGE_POINT) is raised once: not again after the
#      same file is imported twice, nor after more results that keep it;
#  (d) a step where the rig's configuration changed is no change point,
#      a step inside one configuration is (one series per configuration);
#      the history page marks the configuration change in grey.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"

M=t2031.rate
# history FILE FIRST LAST LEVEL: kernels 6.1.FIRST..LAST, one value each
# at LEVEL plus a small wobble, as one klab-results/1 document
history() {
	{
		printf '{"schema":"klab-results/1","results":['
		k=$2
		while [ "$k" -le "$3" ]; do
			[ "$k" -gt "$2" ] && printf ','
			printf '{"kernel":"6.1.%s","metric":"%s","unit":"MB/s","value":%s.%s,"direction":"higher"}' \
				"$k" "$M" "$4" "$(( (k * 37) % 10 ))"
			k=$((k + 1))
		done
		printf ']}\n'
	} >"$1"
}
history "$TMP/h1.json" 170 185 100
# the step: kernels from 6.1.178 on lose 20%
history "$TMP/h1b.json" 178 185 80
jq -s '{schema: "klab-results/1", results: ([.[0].results[] | select(.kernel | test("^6[.]1[.]1(7[0-7])$"))] + .[1].results)}' \
	"$TMP/h1.json" "$TMP/h1b.json" >"$TMP/step.json"

start_klabd
klab import "$TMP/step.json" --rig default --suite manual >/dev/null || fail "import"

cps() { http GET "/api/changepoints?rig=default&suite=manual&metric=$M"; }
i=0
while ! cps | jq -e '.changepoints | length > 0' >/dev/null; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no change point listed: $(cps)"
	sleep 0.1
done
cps | jq -e '.changepoints | length == 1' >/dev/null || fail "not one change point: $(cps)"
cps | jq -e '.changepoints[0] | .kernel_before == "6.1.177" and
	.kernel_after == "6.1.178" and .size_pct < -18 and .size_pct > -22 and
	.p_value <= 0.01 and .confidence >= 0.99' >/dev/null ||
	fail "wrong change point: $(cps)"
klab changepoints "$M" --rig default --suite manual >"$TMP/out" || fail "klab changepoints"
grep -q "^RIG" "$TMP/out" && grep -q "6.1.177 *6.1.178 *-" "$TMP/out" ||
	fail "klab changepoints table: $(cat "$TMP/out")"
klab changepoints --format json | jq -e '.changepoints | length == 1' >/dev/null ||
	fail "klab changepoints --format json"
http GET '/api/changepoints?rig=nosuch' >/dev/null
expect_status 404
expect_grep "unknown rig 'nosuch'"
http GET '/api/changepoints?metric=no.such' >/dev/null
expect_status 404
expect_grep "unknown metric 'no.such'"
ok "the API lists the change point 6.1.177 -> 6.1.178"

# (b) the page, as a browser lays it out
page="$URL/history?metric=$M&rig=default&suite=manual"
http GET "/history?metric=$M&rig=default&suite=manual" >/dev/null
expect_grep 'class="changepoint"'
expect_grep '<table class="changepoints">'
grep -q 'class="rigchange"' "$TMP/body" && fail "a configuration mark on a one-configuration history"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
	chrome() {
		timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu \
			--disable-quic --no-first-run \
			--disable-background-networking \
			--disable-component-update --disable-sync \
			--user-data-dir="$TMP/chrome" "$@" 2>>"$TMP/chrome.log"
	}
	chrome --dump-dom "$page" >"$TMP/dom.html" ||
		fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
	expect_grep '<g class="changepoint">' "$TMP/dom.html"
	expect_grep 'change point: 6.1.177 -&gt; 6.1.178' "$TMP/dom.html"
	{
		echo '<!DOCTYPE html><html><body>'
		sed -n '/<svg[^>]*class="chart"/,/<\/svg>/p' "$TMP/dom.html"
		echo '<pre id="out"></pre><script>
var m = document.querySelector("g.changepoint line").getBBox().x, b = -1, a = -1;
document.querySelectorAll("circle").forEach(function (c) {
	var t = c.querySelector("title").textContent, x = c.getBBox().x + c.getBBox().width / 2;
	if (t.indexOf("6.1.177:") === 0) b = x;
	if (t.indexOf("6.1.178:") === 0) a = x;
});
document.getElementById("out").textContent = (b > 0 && b < m && m < a) ?
	"mark between " + Math.round(b) + " " + Math.round(m) + " " + Math.round(a) :
	"mark misplaced " + b + " " + m + " " + a;
</script></body></html>'
	} >"$TMP/mark.html"
	chrome --dump-dom "file://$TMP/mark.html" >"$TMP/mark-dom.html" ||
		fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
	# the script's own text says "mark between " too: the answer has digits
	grep -q 'mark between [0-9]' "$TMP/mark-dom.html" ||
		fail "chromium: $(grep -o 'mark [a-z]* [-0-9][-0-9. ]*' "$TMP/mark-dom.html")"
	ok "history page (chromium): $(grep -o 'mark between [0-9][0-9 ]*' "$TMP/mark-dom.html")"
else
	echo "note: no chromium, the mark checked in the HTML only"
	ok "history page marks the change point"
fi

# (c) one alert, however often the history is recomputed
alerts() { grep -c "alert change_point: change point in $M on rig default, suite manual: 6.1.177 -> 6.1.178" "$TMP/klabd.log"; }
[ "$(alerts)" = 1 ] || fail "expected one alert, got $(alerts): $(grep alert "$TMP/klabd.log")"
u1=$(cps | jq '.changepoints[0].updated')
sleep 1.1
klab import "$TMP/step.json" --rig default --suite manual >/dev/null || fail "second import"
history "$TMP/more.json" 186 189 80
klab import "$TMP/more.json" --rig default --suite manual >/dev/null || fail "import of more"
i=0
while ! cps | jq -e ".changepoints[0].updated > $u1" >/dev/null; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "change points not recomputed after new results: $(cps)"
	sleep 0.1
done
cps | jq -e '.changepoints | length == 1 and .[0].kernel_after == "6.1.178"' >/dev/null ||
	fail "the change point moved: $(cps)"
[ "$(alerts)" = 1 ] || fail "alerted $(alerts) times"
[ "$(grep -c 'alert change_point' "$TMP/klabd.log")" = 1 ] || fail "other alerts: $(grep alert "$TMP/klabd.log")"
ok "one alert after three imports"

# (d) a change of the rig is not a change point between kernels: rig r1's
# metric $MC drops 20% where the rig's configuration changes (memory_mb
# 768 -> 1024, as when a rig is rebuilt), which the tracker must not
# report; in the second configuration $M2 has a real 20% step, 6.1.185 ->
# 6.1.186, which it must.  Pooled into one series, $MC would show a
# change point 6.1.177 -> 6.1.178 (as in (a)).
MC=t2031.cfg M2=t2031.scfg
cfg() {
	printf '[rig r1]\nkind = remote\ntoken = tok-r1\nmemory_mb = %s\n' "$1" \
		>"$TMP/klabd.conf"
}
levels() { # FILE METRIC FIRST LAST LEVEL
	M=$2 history "$1" "$3" "$4" "$5"
}
stop_klabd
cfg 768
start_klabd --config "$TMP/klabd.conf"
levels "$TMP/c1.json" $MC 170 177 100
levels "$TMP/c2.json" $M2 170 177 100
for f in c1 c2; do
	klab import "$TMP/$f.json" --rig r1 --suite manual >/dev/null || fail "import $f"
done
stop_klabd
cfg 1024
start_klabd --config "$TMP/klabd.conf"
levels "$TMP/c3.json" $MC 178 193 80
levels "$TMP/c4.json" $M2 178 185 100
levels "$TMP/c5.json" $M2 186 193 80
for f in c3 c4 c5; do
	klab import "$TMP/$f.json" --rig r1 --suite manual >/dev/null || fail "import $f"
done
cps1() { http GET "/api/changepoints?rig=r1&suite=manual&metric=$1"; }
i=0
while ! cps1 $M2 | jq -e '.changepoints | length > 0' >/dev/null; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no change point in the second configuration: $(cps1 $M2)"
	sleep 0.1
done
cps1 $M2 | jq -e '.changepoints | length == 1 and .[0].kernel_before == "6.1.185" and
	.[0].kernel_after == "6.1.186"' >/dev/null ||
	fail "wrong change point in the second configuration: $(cps1 $M2)"
cps1 $MC | jq -e '.changepoints | length == 0' >/dev/null ||
	fail "the rig's configuration change reported as a change point: $(cps1 $MC)"
http GET "/api/history?metric=$MC&rig=r1&suite=manual" >/dev/null
jq -e '[.points[].rigconf] | unique | length == 2 and all(length == 12)' "$TMP/body" >/dev/null ||
	fail "history points do not carry their two rig configurations: $(cat "$TMP/body")"
grep -q "change point in $MC" "$TMP/klabd.log" && fail "alerted the configuration change"
# the history page marks where the rig changed, in grey, and no change point
http GET "/history?metric=$MC&rig=r1&suite=manual" >/dev/null
expect_grep '<g class="rigchange">'
expect_grep 'rig configuration changed: [0-9a-f]\{12\} -&gt; [0-9a-f]\{12\}'
[ "$(grep -c '<g class="rigchange">' "$TMP/body")" = 1 ] || fail "not one configuration mark"
grep -q 'class="changepoint"' "$TMP/body" && fail "a change point drawn at the configuration change"
http GET "/history?metric=$M2&rig=r1&suite=manual" >/dev/null
expect_grep '<g class="changepoint">'
expect_grep '<g class="rigchange">'
ok "a rig configuration change is no change point; a step inside one is"
