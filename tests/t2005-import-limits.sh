#!/bin/sh
# SPDX-License-Identifier: MIT
# Imports, identifiers and agents (issue 8, findings 2, 5, 6, 8):
# - a 4.9 MB document naming 500 kernels is stored once, not once per
#   kernel, and a small write during it waits instead of failing with 500;
# - an import over max_import_kernels is refused before anything is written;
# - a retried import (same Idempotency-Key, or the same content) gets the
#   same runs with 200 and stores nothing new;
# - hostile names (HTML, quotes, ../, spaces, RLO, NUL, invalid UTF-8,
#   overlong) are refused with 400 naming the field on every path in;
# - "disks":"64" is refused, not stored as 0;
# - an agent cannot upload results for a job its rig does not hold.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed"

cat >"$TMP/klabd.conf" <<CONF
max_import_kernels = 600
max_import_results = 100000

[rig r1]
kind = remote
token = tok-r1-0123456789
boot_timeout = 3600
CONF
start_klabd --config "$TMP/klabd.conf"

# gen_doc NKERNELS NMETRICS PREFIX: a klab-results/1 document
gen_doc() {
	awk -v nk="$1" -v nm="$2" -v p="$3" 'BEGIN {
		printf "{\"schema\":\"klab-results/1\",\"results\":[\n"
		for (k = 0; k < nk; k++)
			for (m = 0; m < nm; m++)
				printf "%s{\"kernel\":\"%s.%d\",\"metric\":\"bulk.m%03d.lat_max\",\"unit\":\"ms\",\"value\":%d.%04d,\"direction\":\"lower\"}\n", (k || m) ? "," : "", p, k, m, k + m, (k * 7 + m) % 10000
		printf "]}\n"
	}'
}
dbsize() { cat "$TMP"/klab.db "$TMP"/klab.db-wal 2>/dev/null | wc -c; }
results() { http GET /api/health | jq .results; }
nruns() { http GET "/api/runs?limit=1000000" | jq '.runs | length'; }
nkernels() { http GET /api/kernels | jq '.kernels | length'; }
post_json() { http POST "$1" -H 'Content-Type: application/json' --data-binary "$2" >/dev/null; }

# ---- the 500-kernel, 4.9 MB import -------------------------------------
gen_doc 500 95 6.1.500 >"$TMP/big.json"
up=$(wc -c <"$TMP/big.json")
[ "$up" -gt 4800000 ] && [ "$up" -lt 5200000 ] || fail "generated $up bytes"
before=$(dbsize)
curl -s -o "$TMP/big.out" -w '%{http_code}' -X POST -H "Authorization: Bearer $KLAB_TOKEN" -H 'Content-Type: application/json' \
	--data-binary @"$TMP/big.json" "$URL/api/import" >"$TMP/big.status" &
bigpid=$!
# small writers while the import runs: they wait, never 500
i=0
while kill -0 $bigpid 2>/dev/null || [ $i -lt 3 ]; do
	i=$((i + 1))
	post_json /api/suites "{\"name\":\"during-$i\",\"description\":\"x\"}"
	[ "$STATUS" = 201 ] || fail "small write $i during the import: HTTP $STATUS $(cat "$TMP/body")"
	[ $i -gt 2000 ] && break
done
wait $bigpid
[ "$(cat "$TMP/big.status")" = 201 ] || fail "big import: HTTP $(cat "$TMP/big.status") $(head -c 300 "$TMP/big.out")"
[ "$(jq '.runs | length' "$TMP/big.out")" = 500 ] || fail "big import: expected 500 runs"
[ "$(jq .results "$TMP/big.out")" = 47500 ] || fail "big import: expected 47500 results"
grown=$((($(dbsize) - before)))
[ "$grown" -lt $((up * 6)) ] || fail "database grew by $grown bytes for a $up-byte upload"
ok "500 kernels, $up bytes: database grew by $grown bytes; $i small writes during it"
# every run links the raw upload, stored once
run1=$(jq '.runs[0]' "$TMP/big.out"); run500=$(jq '.runs[499]' "$TMP/big.out")
http GET "/api/runs/$run500/raw/upload" >"$TMP/raw500"; expect_status 200
cmp -s "$TMP/raw500" "$TMP/big.json" || fail "raw output of run $run500 differs from the upload"
http GET "/api/runs/$run1" >/dev/null; expect_status 200; expect_grep '"raw":\["upload"\]'

# ---- idempotency --------------------------------------------------------
r0=$(results); n0=$(nruns)
http POST /api/import -H 'Content-Type: application/json' --data-binary @"$TMP/big.json" >/dev/null
expect_status 200
[ "$(jq -c .runs "$TMP/body")" = "$(jq -c .runs "$TMP/big.out")" ] || fail "repeat: other run ids"
[ "$(results)" = "$r0" ] && [ "$(nruns)" = "$n0" ] || fail "repeat of identical content stored again"
gen_doc 2 3 6.1.idem >"$TMP/small.json"
http POST /api/import -H 'Content-Type: application/json' -H 'Idempotency-Key: retry-1' \
	--data-binary @"$TMP/small.json" >"$TMP/first.json"; expect_status 201
n1=$(nruns); [ "$n1" = $((n0 + 2)) ] || fail "expected 2 new runs, got $((n1 - n0))"
http POST /api/import -H 'Content-Type: application/json' -H 'Idempotency-Key: retry-1' \
	--data-binary @"$TMP/small.json" >/dev/null; expect_status 200
[ "$(jq -c .runs "$TMP/body")" = "$(jq -c .runs "$TMP/first.json")" ] || fail "key repeat: other run ids"
[ "$(nruns)" = "$n1" ] || fail "repeat by Idempotency-Key stored again"
gen_doc 2 4 6.1.idem >"$TMP/small2.json"
http POST /api/import -H 'Content-Type: application/json' -H 'Idempotency-Key: retry-1' \
	--data-binary @"$TMP/small2.json" >/dev/null
expect_status 409; expect_grep "idempotency key 'key:retry-1'"
[ "$(nruns)" = "$n1" ] || fail "conflicting key stored"
ok "idempotent imports"

# ---- limits -------------------------------------------------------------
gen_doc 601 1 6.1.limit >"$TMP/many.json"
r0=$(results); k0=$(nkernels)
http POST /api/import -H 'Content-Type: application/json' --data-binary @"$TMP/many.json" >/dev/null
expect_status 413; expect_grep 'max_import_kernels (600)'; expect_grep '601 kernels'
[ "$(results)" = "$r0" ] && [ "$(nkernels)" = "$k0" ] || fail "refused import wrote something"
ok "import limits"

# ---- hostile names ------------------------------------------------------
r0=$(results); k0=$(nkernels); n0=$(nruns)
rigs0=$(http GET /api/rigs | jq '.rigs | length'); s0=$(http GET /api/suites | jq '.suites | length')
long=$(printf '%0200d' 0)
D=$TOP/tests/data
for q in '%3Cb%3Ex' 'a%22b' "a'b" '..%2Fetc' 'a%2F..%2Fb' 'a%20b' 'a+b' 'a%E2%80%AEb' \
	'a%00b' 'a%FFb' 'a%C0%AFb' "$long"; do
	http POST "/api/import?kernel=$q" -H 'Content-Type: text/plain' \
		--data-binary @"$D/import-dbench-4.00-2clients.txt" >/dev/null
	expect_status 400; expect_grep 'kernel'
done
ok "import kernel= refuses hostile names"
# names inside a file: kernel, metric, rig, suite
for doc in '"kernel":"<b>x</b>"' '"kernel":"a\u0000b"' '"kernel":"a\u202eb"' \
	'"kernel":"../x"' '"kernel":"a b"' '"kernel":"a\"b"' "\"kernel\":\"$long\"" \
	'"kernel":"ok1","rig":"../r"' '"kernel":"ok1","suite":"a b"'; do
	printf '{"schema":"klab-results/1",%s,"results":[{"metric":"m.x","unit":"","value":1,"direction":"none"}]}' \
		"$doc" >"$TMP/h.json"
	http POST /api/import -H 'Content-Type: application/json' --data-binary @"$TMP/h.json" >/dev/null
	expect_status 400
done
printf '{"schema":"klab-results/1","kernel":"ok1","results":[{"metric":"m<x>","unit":"","value":1,"direction":"none"}]}' >"$TMP/h.json"
http POST /api/import -H 'Content-Type: application/json' --data-binary @"$TMP/h.json" >/dev/null
expect_status 400; expect_grep 'metric'
printf '{"schema":"klab-results/1","kernel":"a\377b","results":[]}' >"$TMP/h.json"
http POST /api/import -H 'Content-Type: application/json' --data-binary @"$TMP/h.json" >/dev/null
expect_status 400
ok "names inside uploaded files"
# the JSON API: kernels, rigs, suites, jobs
for v in '"<b>x"' '"a\"b"' "\"a'b\"" '"../x"' '"a b"' '"a\u202eb"' '"a\u0000b"' "\"$long\"" '""'; do
	post_json /api/kernels "{\"ident\":$v}"; expect_status 400; expect_grep "ident"
	post_json /api/rigs "{\"name\":$v}"; expect_status 400; expect_grep "name"
	post_json /api/suites "{\"name\":$v}"; expect_status 400; expect_grep "name"
	post_json /api/jobs "{\"kernel\":$v,\"rig\":\"default\",\"suite\":\"dbench\"}"
	expect_status 400; expect_grep "kernel"
	post_json /api/jobs "{\"kernels\":[\"6.1.idem.0\",$v],\"rig\":\"default\",\"suite\":\"dbench\"}"
	expect_status 400; expect_grep "kernels\[1\]"
done
post_json /api/kernels '{"ident":"a\u0000b"}'; expect_grep "NUL"
printf '{"ident":"a\377b"}' >"$TMP/h.json"
http POST /api/kernels -H 'Content-Type: application/json' --data-binary @"$TMP/h.json" >/dev/null
expect_status 400
[ "$(results)" = "$r0" ] && [ "$(nkernels)" = "$k0" ] && [ "$(nruns)" = "$n0" ] ||
	fail "a refused name changed the database"
[ "$(http GET /api/rigs | jq '.rigs | length')" = "$rigs0" ] || fail "a refused rig was stored"
[ "$(http GET /api/suites | jq '.suites | length')" = "$s0" ] || fail "a refused suite was stored"
[ "$(http GET /api/jobs | jq '.jobs | length')" = 0 ] || fail "a refused job was stored"
ok "the JSON API refuses hostile names, the database unchanged"

# ---- JSON types are not coerced -----------------------------------------
post_json /api/rigs '{"name":"typed","disks":"64"}'
expect_status 400; expect_grep "field 'disks': expected an integer, got a string"
post_json /api/rigs '{"name":"typed","cpus":1.5}'; expect_status 400; expect_grep "'cpus'"
post_json /api/rigs '{"name":["typed"]}'; expect_status 400; expect_grep "field 'name': expected a string, got an array"
post_json /api/jobs '{"kernel":"6.1.idem.0","rig":"default","suite":"dbench","repeat":"3"}'
expect_status 400; expect_grep "'repeat'"
post_json /api/jobs '{"kernel":"6.1.idem.0","rig":"default","suite":"dbench","scale":"2"}'
expect_status 400; expect_grep "'scale'"
http GET /api/rigs/typed >/dev/null; expect_status 404
post_json /api/rigs '{"name":"typed","disks":64}'; expect_status 201
http GET /api/rigs/typed >/dev/null; expect_grep '"disks":64'
ok "wrong JSON types refused"

# ---- agents: only the job the rig holds now -----------------------------
AUTH="Authorization: Bearer tok-r1-0123456789"
http POST /api/agent/register -H "$AUTH" -H 'Content-Type: application/json' \
	--data-binary '{"kernel_release":"6.1.0-test"}' >/dev/null; expect_status 200
post_json /api/jobs '{"kernel":"6.1.idem.0","rig":"r1","suite":"dbench"}'; expect_status 201
job=$(jq '.jobs[0]' "$TMP/body")
res="{\"schema\":\"klab-results/1\",\"results\":[{\"metric\":\"m.x\",\"unit\":\"\",\"value\":1,\"direction\":\"none\"}]}"
http POST "/api/agent/jobs/$job/results" -H "$AUTH" -H 'Content-Type: application/json' \
	--data-binary "$res" >/dev/null
expect_status 403; expect_grep "job $job is not held by rig 'r1'"
http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"queued"'
for a in kexec fail; do
	http POST "/api/agent/jobs/$job/$a" -H "$AUTH" -H 'Content-Type: application/json' \
		--data-binary '{"class":"infra","error":"x"}' >/dev/null
	expect_status 403
done
# hand it out: it has no boot image, so it fails (infra) and is requeued
http GET "/api/agent/next?wait=0" -H "$AUTH" >/dev/null; expect_status 500
http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"queued"'; expect_grep '"attempts":1'
http POST "/api/agent/jobs/$job/results" -H "$AUTH" -H 'Content-Type: application/json' \
	--data-binary "$res" >/dev/null
expect_status 403; expect_grep "not held"
http GET "/api/jobs/$job" >/dev/null; expect_grep '"state":"queued"'
[ "$(nruns)" = "$n0" ] || fail "results of a job not held were stored"
ok "results for a job not held: 403, job not done"

# stored data never breaks a read
http GET "/api/runs?limit=1000000" >/dev/null; expect_status 200
http GET "/api/runs/$run1" >/dev/null; expect_status 200
kill -0 "$KLABD_PID" || fail "klabd died"
ok "klabd still serving"
