#!/bin/sh
# SPDX-License-Identifier: MIT
# The compare page as a user sees it: headless Chromium loads it and the
# tiobench-layout table with coloured deltas is in the rendered DOM; a
# screenshot is kept under build/test-logs for a human to look at.
. "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium is not installed (apt-get install chromium)"
D=$TOP/tests/data/demo
start_klabd
klab import "$D/tiobench-mail.txt" >/dev/null || fail "import"
klab import "$D/dbench-50.txt" >/dev/null || fail "import"
# verdicts need cells: three imports (runs) a kernel
cell() {	# kernel rate avg_lat
	printf '{"schema":"klab-results/1","kernel":"%s","results":[
{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"},
{"metric":"tiobench.seq_read.avg_lat","unit":"ms","value":%s,"direction":"lower"}]}\n' \
		"$1" "$2" "$3" >"$TMP/cell.json"
	klab import "$TMP/cell.json" --suite manual >/dev/null || fail "import cell of $1"
}
for i in 0 1 2; do
	cell v-base 100.$i 2.$i
	cell v-cand 80.$i 1.$i		# rate worse, latency better
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
mkdir -p "$TOP/build/test-logs"
chrome --screenshot="$TOP/build/test-logs/compare-page.png" --window-size=1280,1400 \
	"$page" >/dev/null || fail "screenshot failed"
[ -s "$TOP/build/test-logs/compare-page.png" ] || fail "no screenshot"
ok "compare page rendered by chromium"
