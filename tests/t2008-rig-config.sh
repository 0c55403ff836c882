#!/bin/sh
# SPDX-License-Identifier: MIT
# Every run records its rig's configuration, and a comparison never pools
# two (docs/VERDICTS.md, "What enters a comparison").  No QEMU: a remote
# rig whose agent is this script, driven by curl.
#  (a) runs stored for jobs carry the rig's configuration (what the
#      config file says, and the machine the upload reports) in their JSON;
#  (b) klabd restarted with memory_mb changed: more runs, another hash;
#  (c) /api/compare without rigconf= is 400 naming both hashes and the
#      keys that differ; with rigconf=H each works and says which; the
#      page and klab compare --rigconf too; a bad rigconf is 400;
#  (d) a user import to the configured rig gets its configuration, one to
#      an unconfigured rig none.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"

conf() {
	cat >"$TMP/klabd.conf" <<CONF
[rig r1]
kind = remote
token = tok-r1-secret
autostart = no
memory_mb = $1
CONF
}
RT='Authorization: Bearer tok-r1-secret'
conf 1024
start_klabd --config "$TMP/klabd.conf"

head -c 4096 /dev/urandom >"$TMP/img"
for k in kA kB; do
	http POST /api/kernels -H 'Content-Type: application/json' \
		-d "{\"ident\":\"$k\"}" >/dev/null
	expect_status 201
done
sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-t2008', image = '$TMP/img'"

# results KERNEL: a klab-results/1 document with the machine it ran on
results() {
	case $1 in kB) r=80 ;; *) r=100 ;; esac
	printf '{"schema":"klab-results/1","machine":{"cpus":2,"memory_mb":%s,"disks":[{"name":"sda","model":"QEMU HARDDISK","size_bytes":1073741824}]},"results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s,"direction":"higher"}]}\n' "$((1000 + ${n:-0}))" "$r"
}

# serve N: the agent takes N jobs and uploads results for each
serve() {
	n=0
	while [ $n -lt "$1" ]; do
		http GET "/api/agent/next?wait=20" -H "$RT" >"$TMP/next"
		[ "$STATUS" = 200 ] || { cat "$TMP/klabd.log"; fail "no job for the agent (HTTP $STATUS: $(cat "$TMP/next"))"; }
		id=$(jq -r .job.id "$TMP/next")
		results "$(jq -r .job.kernel "$TMP/next")" >"$TMP/res.json"
		http POST "/api/agent/jobs/$id/results" -H "$RT" \
			-H 'Content-Type: application/json' --data-binary @"$TMP/res.json" >/dev/null
		[ "$STATUS" = 201 ] || fail "results of job $id: HTTP $STATUS: $(cat "$TMP/body")"
		n=$((n + 1))
	done
}

register() {
	http POST /api/agent/register -H "$RT" -H 'Content-Type: application/json' \
		-d '{"kernel_release":"6.1.0-host","job":0}' >/dev/null
	expect_status 200
}

# a cell of kA and one of kB, under the current configuration
cells() {
	klab job add kA kB --rig r1 --suite tiobench --repeat 2 >/dev/null ||
		fail "job add: $?"
	serve 4
}

# --- (a) the first configuration ---
register
cells
RUN=$(sqlite3 "$TMP/klab.db" "SELECT max(id) FROM runs")
http GET "/api/runs/$RUN" >/dev/null
expect_status 200
H1=$(jq -r .rigconf.hash "$TMP/body")
[ ${#H1} = 12 ] || fail "run $RUN has no configuration hash: $(cat "$TMP/body")"
T1=$(jq -r .rigconf.text "$TMP/body")
printf '%s\n' "$T1" >"$TMP/t1"
expect_grep '^kind=remote$' "$TMP/t1"
expect_grep '^memory_mb=1024$' "$TMP/t1"
expect_grep '^machine.cpus=2$' "$TMP/t1"
expect_grep '^machine.disk.sda=QEMU HARDDISK 1073741824$' "$TMP/t1"
expect_nogrep 'machine.memory' "$TMP/t1"
[ "$(printf '%s\n' "$T1" | sort)" = "$T1" ] || fail "the configuration is not sorted: $T1"
n=$(sqlite3 "$TMP/klab.db" "SELECT count(DISTINCT rigconf_hash) FROM runs")
[ "$n" = 1 ] || fail "runs of one configuration have $n hashes"
http GET "/api/compare?k=kA&k=kB" >/dev/null
expect_status 200
[ "$(jq -r .rigconf "$TMP/body")" = "$H1" ] || fail "compare rigconf: $(jq -c .rigconf "$TMP/body")"
ok "runs record the rig's configuration and the machine (not its MemTotal): $H1"

# --- (b) memory_mb changed ---
stop_klabd
conf 2048
start_klabd --listen "127.0.0.1:$PORT" --config "$TMP/klabd.conf"
register
cells
RUN2=$(sqlite3 "$TMP/klab.db" "SELECT max(id) FROM runs")
http GET "/api/runs/$RUN2" >/dev/null
H2=$(jq -r .rigconf.hash "$TMP/body")
[ ${#H2} = 12 ] && [ "$H2" != "$H1" ] || fail "a changed configuration kept its hash: $H1 $H2"
jq -r .rigconf.text "$TMP/body" | grep -qx 'memory_mb=2048' || fail "run $RUN2: $(cat "$TMP/body")"
http GET "/api/runs/$RUN" >/dev/null
[ "$(jq -r .rigconf.hash "$TMP/body")" = "$H1" ] || fail "an old run changed configuration"
ok "after a restart with memory_mb changed the runs carry another configuration: $H2"

# --- (c) no pooling ---
http GET "/api/compare?k=kA&k=kB" >/dev/null
expect_status 400
expect_grep "results from 2 rig configurations"
expect_grep "$H1: memory_mb=1024"
expect_grep "$H2: memory_mb=2048"
expect_grep "name one with rigconf="
expect_nogrep "kind=remote"
for h in "$H1" "$H2"; do
	http GET "/api/compare?k=kA&k=kB&rigconf=$h" >/dev/null
	expect_status 200
	[ "$(jq -r .rigconf "$TMP/body")" = "$h" ] || fail "rigconf=$h: $(jq -c .rigconf "$TMP/body")"
	http GET "/api/compare?k=kA&k=kB&rigconf=$(echo "$h" | cut -c1-6)&format=csv" >/dev/null
	expect_status 200
done
http GET "/compare?k=kA&k=kB&rigconf=$H2" >/dev/null
expect_status 200
expect_grep "rig configuration: $H2"
expect_grep "memory_mb=2048"
http GET "/compare?k=kA&k=kB" >/dev/null
expect_status 400
expect_grep "rig configurations"
for bad in xyz 12 0123456789abcdef0 "a%20b"; do
	http GET "/api/compare?k=kA&k=kB&rigconf=$bad" >/dev/null
	expect_status 400
	expect_grep "invalid rigconf"
done
http GET "/api/compare?k=kA&k=kB&rigconf=none" >/dev/null
expect_status 200
[ "$(jq '.metrics | length' "$TMP/body")" = 0 ] || fail "rigconf=none found runs: $(head -c 300 "$TMP/body")"
klab compare kA kB >"$TMP/c.out" 2>"$TMP/c.err" && fail "klab compare pooled two configurations"
expect_grep "rig configurations" "$TMP/c.err"
klab compare kA kB --rigconf "$H1" >"$TMP/c.out" 2>"$TMP/c.err" ||
	fail "klab compare --rigconf: $? $(cat "$TMP/c.err")"
expect_grep "seq_read\|Sequential Reads" "$TMP/c.out"
klab compare kA kB --rigconf "$H2" --format json >"$TMP/c.json" || fail "klab compare --rigconf $H2"
[ "$(jq -r .rigconf "$TMP/c.json")" = "$H2" ] || fail "klab compare --rigconf: $(jq -c .rigconf "$TMP/c.json")"
ok "compare refuses to pool two configurations (400 naming both and memory_mb); rigconf= and --rigconf pick one"

# --- (d) user imports ---
printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":90,"direction":"higher"}]}\n' >"$TMP/u.json"
klab import "$TMP/u.json" --kernel kU --rig r1 --suite tiobench >/dev/null || fail "import to r1"
klab import "$TMP/u.json" --kernel kV --rig default --suite tiobench >/dev/null || fail "import to default"
h=$(sqlite3 "$TMP/klab.db" "SELECT r.rigconf_hash FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.ident = 'kU'")
t=$(sqlite3 "$TMP/klab.db" "SELECT r.rigconf FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.ident = 'kU'")
[ ${#h} = 12 ] || fail "an import to a configured rig has no configuration"
printf '%s\n' "$t" | grep -qx 'memory_mb=2048' || fail "import to r1: $t"
h=$(sqlite3 "$TMP/klab.db" "SELECT r.rigconf_hash || '|' || r.rigconf FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE k.ident = 'kV'")
[ "$h" = "|" ] || fail "an import to an unconfigured rig got a configuration: $h"
ok "imports to a configured rig record its configuration, to another rig none"

# --- (e) runs stored before configurations were recorded (schema < 7) ---
# beside one recorded configuration: that one is used, the old runs are
# left out and counted, never pooled
sqlite3 "$TMP/klab.db" "UPDATE runs SET rigconf = '', rigconf_hash = '' WHERE rigconf_hash = '$H1'" ||
	fail "make the first configuration's runs look older"
http GET "/api/compare?k=kA&k=kB" >/dev/null
expect_status 200
[ "$(jq -r .rigconf "$TMP/body")" = "$H2" ] || fail "not the recorded configuration: $(jq -c .rigconf "$TMP/body")"
[ "$(jq -r .rigconf_left_out "$TMP/body")" -gt 0 ] || fail "older runs not counted as left out"
http GET "/api/compare?k=kA&k=kB&rigconf=none" >/dev/null
expect_status 200
[ "$(jq '.metrics | length' "$TMP/body")" -gt 0 ] || fail "rigconf=none shows no older runs"
http GET "/compare?k=kA&k=kB" >/dev/null
expect_status 200
expect_grep "left out: rigconf=none shows them"
stop_klabd
ok "runs without a recorded configuration are left out beside one recorded configuration, and counted"
