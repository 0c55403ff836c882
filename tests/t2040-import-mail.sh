#!/bin/sh
# SPDX-License-Identifier: MIT
# Importing a whole mail (issue 11): `klab import` of a pasted mail that
# mixes tiobench tables, dbench Throughput lines and read latency lines
# stores every value, each kind in its own suite and with its kernels, in
# one import; the report (CLI and JSON) lists what each kind contributed.
# A bad line in the mail's second kind stores nothing and names file,
# line and field; a repeat stores nothing new; the import limits count
# the whole mail; a file of one kind imports as it always did.  The same
# mail re-flowed by an archive into one paragraph stores the same results
# (issue 30), and one of its dbench lines cut short stores nothing.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
MAIL=$TOP/tests/data/mixed-mail.txt

cat >"$TMP/klabd.conf" <<CONF
max_import_kernels = 4
CONF
start_klabd --config "$TMP/klabd.conf"

results() { http GET /api/health | jq .results; }

# ---- the mail: every kind, every value --------------------------------
klab import "$MAIL" >"$TMP/out" 2>&1 || fail "import: $(cat "$TMP/out")"
expect_grep '^imported 110 results (format mail, rig default, suite tiobench,dbench,readlat) into 8 runs$' "$TMP/out"
expect_grep '^  tiobench: 80 results into suite tiobench: 6.1.176 40, 6.1.192+elv-lowlat 40$' "$TMP/out"
expect_grep '^  dbench: 11 results into suite dbench: 6.1.176 4, 6.1.192+elv-lowlat 4, 6.1.190 3$' "$TMP/out"
expect_grep '^  readlat: 19 results into suite readlat: 6.1.176 7, 6.1.192+elv-lowlat 7, 6.1.0-28-cloud-amd64 5$' "$TMP/out"
[ "$(results)" = 110 ] || fail "stored $(results) results, expected 110"

# value KERNEL SUITE METRIC: the stored value, read back through the API
value() {
	run=$(http GET "/api/runs?kernel=$(printf %s "$1" | jq -sRr @uri)&suite=$2" |
		jq '.runs[0].id')
	[ "$run" != null ] || fail "no run of $1 in suite $2"
	http GET "/api/runs/$run" | jq -r --arg m "$3" \
		'.results[] | select(.metric == $m) | .value'
}
check() {
	v=$(value "$1" "$2" "$3")
	[ "$v" = "$4" ] || fail "$1 $3 in suite $2: '$v', expected $4"
}
check 6.1.176 tiobench tiobench.seq_read.rate 41.2
check 6.1.192+elv-lowlat tiobench tiobench.rand_write.cpu_eff 84
check 6.1.192+elv-lowlat tiobench tiobench.seq_write.max_lat 8123.9
check 6.1.176 dbench dbench.throughput 412.5
check 6.1.192+elv-lowlat dbench dbench.max_latency 41.5
check 6.1.190 dbench dbench.nb_throughput 123
check 6.1.176 readlat readlat.lat_max 4420.3
check 6.1.192+elv-lowlat readlat readlat.rate 1.92
check 6.1.0-28-cloud-amd64 readlat readlat.lat_avg 9.5
# one kind per suite: no dbench value in the tiobench suite's run
[ -z "$(value 6.1.176 tiobench dbench.throughput)" ] || fail "dbench result in the tiobench run"
# the raw mail is kept once and linked to every run
run=$(http GET "/api/runs?kernel=6.1.190&suite=dbench" | jq '.runs[0].id')
http GET "/api/runs/$run/raw/mixed-mail.txt" >"$TMP/raw"
cmp -s "$TMP/raw" "$MAIL" || fail "raw mail not kept for run $run"

# ---- the JSON report ----------------------------------------------------
http POST "/api/import?name=mixed-mail.txt" -H 'Content-Type: text/plain' \
	--data-binary @"$MAIL" >/dev/null
expect_status 200	# the same upload again: a repeat, nothing stored
cp "$TMP/body" "$TMP/report.json"
[ "$(results)" = 110 ] || fail "the repeat stored something"
jq -e '.format == "mail" and .results == 110 and (.runs | length) == 8 and
	([.kinds[] | .format] == ["tiobench", "dbench", "readlat"]) and
	([.kinds[] | .suite] == ["tiobench", "dbench", "readlat"]) and
	([.kinds[] | .results] == [80, 11, 19]) and
	(.kinds[2].kernels[2] == {"kernel": "6.1.0-28-cloud-amd64", "results": 5}) and
	([.kinds[] | .runs | length] == [2, 3, 3])' "$TMP/report.json" >/dev/null ||
	fail "report: $(cat "$TMP/report.json")"

# ---- one bad line in the second kind: nothing stored --------------------
sed 's/^6.1.192+elv-lowlat  Throughput 431.25/6.1.192+elv-lowlat  Throughput 43x.25/' \
	"$MAIL" >"$TMP/bad-mail.txt"
line=$(grep -n 'Throughput 43x.25' "$TMP/bad-mail.txt" | cut -d: -f1)
[ -n "$line" ] || fail "bad mail not made"
klab import "$TMP/bad-mail.txt" >"$TMP/out" 2>"$TMP/err" && fail "bad mail imported"
expect_grep "bad-mail.txt: line $line: field 'Throughput': not a number '43x.25'" "$TMP/err"
[ "$(results)" = 110 ] || fail "the bad mail stored something"
http GET "/api/runs?suite=tiobench" | jq -e '.runs | length == 2' >/dev/null ||
	fail "the bad mail's tiobench tables were stored"

# ---- the limits count the whole mail -----------------------------------
# 5 kernels over three kinds, max_import_kernels = 4 (each kind has 3)
sed 's/^> > 6.1.0-28-cloud-amd64/> > 6.1.0-29-cloud-amd64/; s/^6.1.190:/6.1.191:/' \
	"$MAIL" >"$TMP/five.txt"
sed -i 's/^6.1.176 reads/6.1.177 reads/; s/^6.1.176 read latency/6.1.177 read latency/' "$TMP/five.txt"
http POST "/api/import?name=five.txt" -H 'Content-Type: text/plain' \
	--data-binary @"$TMP/five.txt" >/dev/null
expect_status 413
expect_grep "import has 5 kernels, more than max_import_kernels (4)"
[ "$(results)" = 110 ] || fail "the mail over the limit stored something"

# ---- a file of one kind: as before -------------------------------------
klab import "$TOP/tests/data/import-dbench-old-mail.txt" --kernel 2.4.22 >"$TMP/out" ||
	fail "dbench mail: $(cat "$TMP/out")"
[ "$(cat "$TMP/out")" = "imported 12 results (format dbench, rig default, suite dbench) into 4 runs" ] ||
	fail "one-kind report changed: $(cat "$TMP/out")"
# ---- the mail re-flowed into one paragraph: the same results ----------
before=$(results)
FLOWED=$TOP/tests/data/mixed-mail-reflowed.txt
klab import "$FLOWED" >"$TMP/out" 2>&1 || fail "re-flowed import: $(cat "$TMP/out")"
expect_grep '^imported 110 results (format mail, rig default, suite tiobench,dbench,readlat) into 8 runs$' "$TMP/out"
expect_grep '^  tiobench: 80 results into suite tiobench: 6.1.176 40, 6.1.192+elv-lowlat 40$' "$TMP/out"
expect_grep '^  dbench: 11 results into suite dbench: 6.1.176 4, 6.1.192+elv-lowlat 4, 6.1.190 3$' "$TMP/out"
expect_grep '^  readlat: 19 results into suite readlat: 6.1.176 7, 6.1.192+elv-lowlat 7, 6.1.0-28-cloud-amd64 5$' "$TMP/out"
[ "$(results)" = $((before + 110)) ] || fail "stored $(results) results, expected $((before + 110))"
# each "kernel metric value" of the mail's kernels now twice: the mail's
# run and the re-flowed mail's
for s in tiobench dbench readlat; do
	http GET "/api/runs?suite=$s&limit=100" | jq -r '.runs[].id' |
	while read -r id; do
		http GET "/api/runs/$id" |
			jq -r '.kernel as $k | .results[] | "\($k) \(.metric) \(.value)"'
	done
done | grep -v '^2\.4\.' | sort | uniq -c >"$TMP/values"
[ "$(wc -l <"$TMP/values")" = 110 ] || fail "$(wc -l <"$TMP/values") values, expected 110"
! grep -v '^ *2 ' "$TMP/values" || fail "values differ between the mail and its re-flowed copy"

# ---- a dbench line cut short inside the paragraph: nothing stored ------
sed 's/431.25 MB\/sec  50 clients  50 procs  max_latency=41.5 ms/431.25/' \
	"$FLOWED" >"$TMP/cut-flowed.txt"
cmp -s "$TMP/cut-flowed.txt" "$FLOWED" && fail "cut mail not made"
before=$(results)
klab import "$TMP/cut-flowed.txt" >"$TMP/out" 2>"$TMP/err" && fail "cut mail imported"
expect_grep "cut-flowed.txt: line 8: field 'Throughput': expected 'MB/sec', found 'and'" "$TMP/err"
[ "$(results)" = "$before" ] || fail "the cut mail stored something"
ok "mixed mail imported"
