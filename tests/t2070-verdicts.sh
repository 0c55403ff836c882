#!/bin/sh
# SPDX-License-Identifier: MIT
# Verdicts through a real klabd (docs/VERDICTS.md): floors from the
# configuration (verdict_floor, [suite NAME] floor) are the defaults of
# /api/compare and the compare page, a request's floor= overrides them;
# cells imported as interleaved pairs A B B A ... on a drifting level are
# tested as pairs ("paired" on the page, "analysis" in the JSON) and the
# 5% drop the drift hides from an unpaired test is decided worse; the
# same numbers imported one kernel after the other are tested unpaired,
# tails by ranks ("mann-whitney"); pairing=off turns pairs off; a bad
# floor in the configuration stops klabd naming it.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/klabd.conf" <<'CONF'
verdict_floor = *.rate:3, */*.max_lat:30
[suite manual]
floor = *.lat_p99:40
CONF
start_klabd --config "$TMP/klabd.conf"

# cell KERNEL PAIR SIDE: the level rises 10% a pair; the candidate's rate
# is 5% lower and its latencies 5% higher; a little noise per cell
noise="1.002 0.998 1.001 0.999 1.003 0.997 1.000 1.002 0.998 1.001"
cell() {
	f=$(echo "$noise" | cut -d' ' -f$(( $2 * 2 + $3 + 1 )))
	awk -v p="$2" -v s="$3" -v f="$f" -v k="$1" 'BEGIN {
		l = (1 + 0.1 * p) * f; c = s ? 0.95 : 1; d = s ? 1.05 : 1
		printf "{\"schema\":\"klab-results/1\",\"kernel\":\"%s\",\"results\":[" \
		       "{\"metric\":\"t.w.rate\",\"unit\":\"MB/s\",\"value\":%.6f,\"direction\":\"higher\"}," \
		       "{\"metric\":\"t.w.avg_lat\",\"unit\":\"ms\",\"value\":%.6f,\"direction\":\"lower\"}," \
		       "{\"metric\":\"t.w.lat_p99\",\"unit\":\"ms\",\"value\":%.6f,\"direction\":\"lower\"}]}\n",
		       k, 100 * l * c, 2 / l * d, 9 / l * d }' >"$TMP/cell.json"
	klab import "$TMP/cell.json" --suite manual >/dev/null || fail "import $1 pair $2"
}
# pairs A B, B A, A B ... as a comparison run queues them
for p in 0 1 2 3 4; do
	if [ $((p % 2)) = 0 ]; then cell p-base $p 0; cell p-cand $p 1
	else cell p-cand $p 1; cell p-base $p 0; fi
done
# the same numbers, every base cell first
for p in 0 1 2 3 4; do cell s-base $p 0; done
for p in 0 1 2 3 4; do cell s-cand $p 1; done

# check FILE METRIC KEY VALUE...: the candidate cell's fields
check() {
	python3 - "$@" <<'PY' || fail "$2 in $1: $(head -c 800 "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["metrics"] if x["name"] == sys.argv[2]][0]
c = m["cells"][1]
for k, v in zip(sys.argv[3::2], sys.argv[4::2]):
    got = c.get(k)
    if isinstance(got, float):
        got = "%g" % got
    assert str(got) == v, (k, got, v, c)
PY
}

http GET "/api/compare?k=p-base&k=p-cand&suite=manual" >"$TMP/p.json"
expect_status 200
check "$TMP/p.json" t.w.rate analysis paired verdict worse floor_pct 3
check "$TMP/p.json" t.w.avg_lat analysis paired verdict worse
check "$TMP/p.json" t.w.lat_p99 analysis paired floor_pct 40
expect_grep '"pairing": *"auto"' "$TMP/p.json"
expect_grep '"metric": *"\*.max_lat", *"pct": *30\|"pct": *30' "$TMP/p.json"
ok "interleaved pairs on a drift: paired, the 5% drop decided worse"

http GET "/api/compare?k=s-base&k=s-cand&suite=manual" >"$TMP/s.json"
expect_status 200
check "$TMP/s.json" t.w.rate analysis welch verdict undecided floor_pct 3
check "$TMP/s.json" t.w.lat_p99 analysis mann-whitney floor_pct 40
ok "one kernel after the other: Welch, tails by ranks, the drift leaves it undecided"

http GET "/api/compare?k=p-base&k=p-cand&suite=manual&pairing=off&floor=*.rate:4" >"$TMP/o.json"
expect_status 200
check "$TMP/o.json" t.w.rate analysis welch floor_pct 4
check "$TMP/o.json" t.w.avg_lat floor_pct 2
http GET "/api/compare?k=p-base&k=p-cand&suite=manual&pairing=maybe" >/dev/null
expect_status 400
expect_grep "invalid pairing 'maybe' (auto or off)"
ok "pairing=off, a request floor overrides the configuration's, bad pairing refused"

http GET "/compare?k=p-base&k=p-cand&suite=manual" >"$TMP/p.html"
expect_status 200
expect_grep '<span class="an">paired</span>' "$TMP/p.html"
expect_grep 'a paired t on interleaved A B pairs' "$TMP/p.html"
expect_grep 'test paired' "$TMP/p.html"
expect_grep '&plusmn;40.0%' "$TMP/p.html"
http GET "/compare?k=s-base&k=s-cand&suite=manual" >"$TMP/s.html"
expect_grep '<span class="an">ranks</span>' "$TMP/s.html"
expect_nogrep '<span class="an">paired</span>' "$TMP/s.html"
ok "the page names the analysis and the configured threshold"
stop_klabd

# a malformed floor in the configuration stops klabd, naming it
printf '[suite manual]\nfloor = *.rate\n' >"$TMP/bad.conf"
"$KLAB_BIN/klabd" --config "$TMP/bad.conf" --listen 127.0.0.1:0 \
	--db "$TMP/bad.db" --data-dir "$TMP/bad-data" >"$TMP/bad.log" 2>&1 &&
	fail "klabd started with a bad floor"
expect_grep "bad.conf:2: \[suite manual\] floor: invalid floor '\*.rate'" "$TMP/bad.log"
ok "a bad configured floor refused with file, line and key"
