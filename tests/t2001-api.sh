#!/bin/sh
# SPDX-License-Identifier: MIT
# klabd's JSON API against a real daemon: import, read back, compare,
# history, and bad input (wrong type, unknown names, malformed files,
# oversized uploads) answered with a 4xx naming the problem, nothing
# half-written, the daemon still serving.
. "$(dirname "$0")/lib.sh"
D=$TOP/tests/data/demo
start_klabd --max-upload 64K

http GET /api/health >/dev/null; expect_status 200; expect_grep '"ok":true'

http POST "/api/import?name=tiobench-mail.txt" -H 'Content-Type: text/plain' \
	--data-binary @"$D/tiobench-mail.txt" >/dev/null
expect_status 201; expect_grep '"format":"tiobench"'; expect_grep '"6.12.117"'
expect_grep '"suite":"tiobench"'
http GET /api/kernels >/dev/null; expect_status 200
expect_grep '"ident":"6.1.176"'; expect_grep '"ident":"6.1.192"'
http GET /api/kernels/6.1.192 >/dev/null; expect_status 200
http GET /api/kernels/9.9.9 >/dev/null; expect_status 404; expect_grep "unknown kernel '9.9.9'"

n_before=$(http GET /api/health | sed 's/.*"results":\([0-9]*\).*/\1/')
[ "$n_before" -ge 120 ] || fail "expected >= 120 results, got $n_before"

# wrong content type
http POST /api/import -H 'Content-Type: image/png' --data-binary @"$D/dbench-50.txt" >/dev/null
expect_status 415; expect_grep "unsupported content type 'image/png'"
# unknown rig / suite
http POST "/api/import?rig=nosuchrig" -H 'Content-Type: text/plain' --data-binary @"$D/dbench-50.txt" >/dev/null
expect_status 404; expect_grep "unknown rig 'nosuchrig'"
http POST "/api/import?suite=nosuite" -H 'Content-Type: text/plain' --data-binary @"$D/dbench-50.txt" >/dev/null
expect_status 404; expect_grep "unknown suite 'nosuite'"
# malformed: a tiobench row with a bad number names line and field
sed 's/^6.1.192 *512  4096    8   43.02/6.1.192  512  4096  8  4x.02/' "$D/tiobench-mail.txt" >"$TMP/bad.txt"
http POST "/api/import?name=bad.txt&kernel=x" -H 'Content-Type: text/plain' --data-binary @"$TMP/bad.txt" >/dev/null
expect_status 400; expect_grep 'bad.txt'; expect_grep 'line'
# oversized upload
head -c 70000 /dev/zero | tr '\0' 'a' >"$TMP/big.txt"
http POST /api/import -H 'Content-Type: text/plain' --data-binary @"$TMP/big.txt" >/dev/null
expect_status 413; expect_grep 'exceeds the limit'
# unknown format, empty body, garbage json
http POST "/api/import?format=nope" -H 'Content-Type: text/plain' --data-binary @"$D/dbench-50.txt" >/dev/null
expect_status 400; expect_grep "unknown format 'nope'"
http POST /api/import -H 'Content-Type: text/plain' --data-binary '' >/dev/null
expect_status 400
http POST /api/import -H 'Content-Type: application/json' --data-binary '{"schema":"klab-results/1","results":[{"metric":' >/dev/null
expect_status 400
# nothing half-written
n_after=$(http GET /api/health | sed 's/.*"results":\([0-9]*\).*/\1/')
[ "$n_after" = "$n_before" ] || fail "failed imports changed the result count: $n_before -> $n_after"

# more formats
http POST "/api/import?name=dbench" -H 'Content-Type: text/plain' --data-binary @"$D/dbench-50.txt" >/dev/null
expect_status 201; expect_grep '"format":"dbench"'
http POST "/api/import?name=readlat" -H 'Content-Type: text/plain' --data-binary @"$D/readlat-under-dbench.txt" >/dev/null
expect_status 201; expect_grep '"format":"readlat"'

# compare and history
http GET "/api/compare?k=6.1.176&k=6.1.192&suite=tiobench" >/dev/null; expect_status 200
expect_grep 'tiobench.seq_read.rate'
expect_grep '"note":"n=1, no verdict"'; expect_grep '"class":"headline"'
expect_grep '"rig":"default"'; expect_grep '"rule":"A cell is one run'
# never pooled: the kernels have results in three suites
http GET "/api/compare?k=6.1.176&k=6.1.192" >/dev/null; expect_status 400
expect_grep 'results from 3 suites (.*): will not pool them'
http GET "/api/compare?k=6.1.176&k=6.1.192&suite=tiobench&floor=*.rate" >/dev/null
expect_status 400; expect_grep "invalid floor"
http GET "/api/compare?k=6.1.176&k=6.1.192&suite=tiobench&floor=*.rate:7" >/dev/null
expect_status 200; expect_grep '"metric":"\*.rate","pct":7'
http GET "/api/compare?k=6.1.176,nosuch" >/dev/null; expect_status 404; expect_grep "nosuch"
http GET "/api/compare" >/dev/null; expect_status 400
http GET "/api/history?metric=tiobench.seq_read.rate" >/dev/null; expect_status 200
expect_grep '"points":\[{'
http GET "/api/history" >/dev/null; expect_status 400
http GET "/api/runs?limit=5" >/dev/null; expect_status 200; expect_grep '"runs":\[{'
run=$(sed 's/.*"runs":\[{"id":\([0-9]*\).*/\1/' "$TMP/body")
http GET "/api/runs/$run" >/dev/null; expect_status 200; expect_grep '"results":\[{'
http GET "/api/runs/$run/raw/readlat" >/dev/null; expect_status 200; expect_grep 'read latency'
http GET "/api/runs/abc" >/dev/null; expect_status 400
http GET "/api/metrics" >/dev/null; expect_status 200; expect_grep 'dbench.throughput'
http DELETE "/api/kernels" >/dev/null; expect_status 405
http GET "/nope" >/dev/null; expect_status 404

# rigs and suites
http POST /api/rigs -H 'Content-Type: application/json' -d '{"name":"box1","kind":"manual","disks":64}' >/dev/null
expect_status 201
http GET /api/rigs/box1 >/dev/null; expect_status 200; expect_grep '"disks":64'
http POST /api/rigs -H 'Content-Type: application/json' -d '{"name":' >/dev/null; expect_status 400
http POST /api/rigs -H 'Content-Type: text/plain' -d '{"name":"x"}' >/dev/null; expect_status 415
# every suite of workloads/suites/ is registered at start, described by
# its own file
for f in "$TOP"/workloads/suites/*.suite; do
	n=$(sed -n 's/^name = //p' "$f"); desc=$(sed -n 's/^description = //p' "$f")
	http GET /api/suites >/dev/null
	got=$(jq -r --arg n "$n" '.suites[] | select(.name == $n) | .description' "$TMP/body")
	[ "$got" = "$desc" ] || fail "suite $n: registered as '$got', its file says '$desc'"
done

# an operator's view of klabd's memory: glibc's arenas (all 0 under
# ASan, whose allocator answers mallinfo2), the pooled handles' caches;
# the pool was filled at start (KLABD_POOL_START, 4), this request holds one
http GET /api/status >/dev/null; expect_status 200
jq -e '.malloc.heap >= 0 and .malloc.in_use >= 0 and .malloc.free >= 0 and
	.malloc.mmapped >= 0 and .db_pool.idle >= 3 and
	(.db_pool.idle == 0 or (.db_pool.cache_bytes > 0 and
	.db_pool.stmt_bytes > 0)) and .db_pool.slab_lines >= 0' "$TMP/body" >/dev/null ||
	fail "GET /api/status: $(cat "$TMP/body")"

# still serving, then a clean shutdown
http GET /api/health >/dev/null; expect_status 200
stop_klabd
ok "api"
