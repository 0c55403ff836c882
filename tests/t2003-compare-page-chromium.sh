#!/bin/sh
# SPDX-License-Identifier: MIT
# The compare page as a user sees it: headless Chromium loads it and the
# tiobench-layout table with coloured deltas is in the rendered DOM, as is
# the latency tail chart, whose two curves Chromium lays out with a
# length; a screenshot is kept under build/test-logs for a human to look
# at.
. "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium is not installed (apt-get install chromium)"
D=$TOP/tests/data/demo
start_klabd
klab import "$D/tiobench-mail.txt" >/dev/null || fail "import"
klab import "$D/dbench-50.txt" >/dev/null || fail "import"
# verdicts need cells: three imports (runs) a kernel; each with a latency
# histogram whose slowest request is TAIL ns
cell() {	# kernel rate avg_lat tail
	printf '{"schema":"klab-results/1","kernel":"%s","results":[
{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"},
{"metric":"tiobench.seq_read.avg_lat","unit":"ms","value":%s,"direction":"lower"}],
"hist":{"tiobench.seq_read":{"unit":"ns","buckets":[[1000,90],[2000,9],[%s,1]]}}}\n' \
		"$1" "$2" "$3" "$4" >"$TMP/cell.json"
	klab import "$TMP/cell.json" --suite manual >/dev/null || fail "import cell of $1"
}
for i in 0 1 2; do
	cell v-base 100.$i 2.$i 100000
	cell v-cand 80.$i 1.$i 5000000	# rate worse, latency better, tail worse
done

chrome() {
	timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TMP/chrome" "$@" 2>>"$TMP/chrome.log"
}
page="$URL/compare?k=6.1.176&k=6.1.192&k=6.12.117&base=6.1.176&suite=tiobench"
chrome --dump-dom "$page" >"$TMP/dom.html" || fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
expect_grep '<table' "$TMP/dom.html"
expect_grep 'Sequential Reads' "$TMP/dom.html"
expect_grep '6.12.117' "$TMP/dom.html"
# one pasted row a kernel: data, no verdict
expect_grep 'class="num delta noverdict"' "$TMP/dom.html"
expect_grep 'n=1, no verdict' "$TMP/dom.html"
if grep -q 'class="num[^"]*\(better\|worse\)' "$TMP/dom.html"; then
	fail "a verdict from one value a side"
fi
page="$URL/compare?k=v-base&k=v-cand&suite=manual"
chrome --dump-dom "$page" >"$TMP/dom.html" || fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
expect_grep 'class="[^"]*better' "$TMP/dom.html"
expect_grep 'class="[^"]*worse' "$TMP/dom.html"
expect_grep 'class="note rule"' "$TMP/dom.html"
expect_grep 'n=3/3 ' "$TMP/dom.html"
# the latency tail chart: in the DOM, and laid out by the browser (each
# curve, measured by script in a page holding the chart, has a length and
# spans some width)
expect_grep '<svg[^>]*class="chart cdf"' "$TMP/dom.html"
n=$(grep -c '<path class="cdf"' "$TMP/dom.html")
[ "$n" = 2 ] || fail "expected 2 tail curves in the DOM, got $n"
{
	echo '<!DOCTYPE html><html><body>'
	sed -n '/<svg[^>]*class="chart cdf"/,/<\/svg>/p' "$TMP/dom.html"
	echo '<pre id="out"></pre><script>
var o = [];
document.querySelectorAll("path.cdf").forEach(function (p) {
	var b = p.getBBox();
	o.push("curve len=" + Math.round(p.getTotalLength()) + " w=" + Math.round(b.width));
});
document.getElementById("out").textContent = o.join(" ; ");
</script></body></html>'
} >"$TMP/cdf.html"
chrome --dump-dom "file://$TMP/cdf.html" >"$TMP/cdf-dom.html" ||
	fail "chromium failed: $(tail -5 "$TMP/chrome.log")"
grep -o 'curve len=[0-9]* w=[0-9]*' "$TMP/cdf-dom.html" >"$TMP/curves" || true
[ "$(wc -l <"$TMP/curves")" = 2 ] || fail "chromium laid out no 2 curves: $(cat "$TMP/cdf-dom.html" | tail -5)"
awk '{ split($2, l, "="); split($3, w, "="); if (l[2] < 50 || w[2] < 20) exit 1 }' "$TMP/curves" ||
	fail "a curve has no length: $(cat "$TMP/curves")"
mkdir -p "$TOP/build/test-logs"
chrome --screenshot="$TOP/build/test-logs/compare-page.png" --window-size=1280,1400 \
	"$page" >/dev/null || fail "screenshot failed"
[ -s "$TOP/build/test-logs/compare-page.png" ] || fail "no screenshot"
ok "compare page rendered by chromium"
