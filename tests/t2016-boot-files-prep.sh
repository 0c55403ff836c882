#!/bin/sh
# SPDX-License-Identifier: MIT
# A job's boot files are prepared off the request threads (issue 30,
# point 4; lab/catalog_prep.c), black-box on a real klabd with two
# request threads (http_threads = 2) and three remote rigs.  Its top_dir
# runs a stand-in kernels/mkinitramfs.sh whose base image build waits
# until the test lets it end, as a real one can for minutes:
#  (1) r1 and r2 each have a job of kernel kx queued; their polls
#      (wait=2) stay parked past their wait while the base is built,
#      the jobs stay queued and the rigs idle; meanwhile /api/health and
#      r3's poll are answered (before, both request threads waited for
#      the build, one in it and one on image_lock, and neither was);
#  (2) once the build ends, each parked poll is answered with its job,
#      the boot files it names are the image and the built initramfs,
#      each rig may download them and r3 may not; the base was built
#      once and kx's files prepared once, for the two rigs;
#  (3) a kernel whose files cannot be made (its modules part is gone):
#      its job is handed out and fails as an infrastructure failure
#      naming the cause, as before;
#  (4) klabd restarts under r1's job (a remote rig keeps it): r1's poll
#      waits for the files this klabd prepares, then gets the same job.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v sha256sum >/dev/null || skip "no sha256sum"

# top_dir: the real scripts and suites, but for a stand-in mkinitramfs.sh
mkdir -p "$TMP/top/kernels" "$TMP/fake"
ln -s "$TOP/workloads" "$TMP/top/workloads"
for f in "$TOP"/kernels/*; do
	[ "$(basename "$f")" = mkinitramfs.sh ] || ln -s "$f" "$TMP/top/kernels/"
done
cat >"$TMP/top/kernels/mkinitramfs.sh" <<SH
#!/bin/sh
# t2016's stand-in: 'base' counts its runs and ends once $TMP/fake/go
# exists (at most 150 s), with a part of random bytes
F=$TMP/fake
case \$1 in
base)
	echo run >>"\$F/base.runs"
	i=0
	until [ -e "\$F/go" ]; do
		i=\$((i + 1))
		[ \$i -gt 1500 ] && { echo "mkinitramfs: not let go" >&2; exit 1; }
		sleep 0.1
	done
	[ -s "\$F/base.cpio.gz" ] || head -c 150000 /dev/urandom >"\$F/base.cpio.gz"
	echo "\$F/base.cpio.gz" ;;
*)
	echo "mkinitramfs: '\$1' is not faked" >&2
	exit 1 ;;
esac
SH
chmod +x "$TMP/top/kernels/mkinitramfs.sh"

cat >"$TMP/klabd.conf" <<CONF
top_dir = $TMP/top
http_threads = 2
[rig r1]
kind = remote
token = tok-r1-secret
autostart = no
[rig r2]
kind = remote
token = tok-r2-secret
autostart = no
[rig r3]
kind = remote
token = tok-r3-secret
autostart = no
CONF
start_klabd --config "$TMP/klabd.conf"
R1='Authorization: Bearer tok-r1-secret'
R2='Authorization: Bearer tok-r2-secret'
R3='Authorization: Bearer tok-r3-secret'
JSON='Content-Type: application/json'

# kernel IDENT [MODULES]: in the catalog with an image of random bytes
kernel() {
	http POST /api/kernels -H "$JSON" -d "{\"ident\":\"$1\"}" >/dev/null
	expect_status 201
	head -c 200000 /dev/urandom >"$TMP/img-$1"
	sqlite3 "$TMP/klab.db" "UPDATE kernels SET release = '6.1.0-$1', \
		image = '$TMP/img-$1', modules = '${2:-}' WHERE ident = '$1'" ||
		fail "sqlite3 $1"
}
# queue KERNEL RIG: a job of KERNEL for RIG
queue() {
	http POST /api/jobs -H "$JSON" \
		-d "{\"kernel\":\"$1\",\"rig\":\"$2\",\"suite\":\"tiobench\"}" >/dev/null
	expect_status 201
}
# poll_bg RIG-HEADER N: RIG's poll (wait=2) in the background, its
# answer in $TMP/next.N and its status in $TMP/code.N
poll_bg() {
	curl -s -o "$TMP/next.$2" -w '%{http_code}' --max-time 150 -H "$1" \
		"$URL/api/agent/next?wait=2" >"$TMP/code.$2" &
}
# get RIG-HEADER URL: STATUS, the file in $TMP/got
get() {
	STATUS=$(curl -s -o "$TMP/got" -w '%{http_code}' --max-time 30 \
		-H "$1" "$URL$2")
}
register() {
	http POST /api/agent/register -H "$1" -H "$JSON" \
		-d '{"kernel_release":"x","job":0}' >/dev/null
	expect_status 200
}

# (1) the base image is being built ---------------------------------------
for r in "$R1" "$R2" "$R3"; do
	register "$r"
done
kernel kx
queue kx r1
queue kx r2
poll_bg "$R1" 1
P1=$!
poll_bg "$R2" 2
P2=$!
i=0
until [ -s "$TMP/fake/base.runs" ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && { cat "$TMP/klabd.log"; fail "the base image build did not start"; }
	sleep 0.1
done
sleep 4	# both polls are past their wait of 2 s
kill -0 $P1 2>/dev/null || fail "r1's poll ended while its files were prepared: HTTP $(cat "$TMP/code.1") $(cat "$TMP/next.1")"
kill -0 $P2 2>/dev/null || fail "r2's poll ended while its files were prepared: HTTP $(cat "$TMP/code.2") $(cat "$TMP/next.2")"
http GET /api/health --max-time 10 >/dev/null
expect_status 200
http GET "/api/agent/next?wait=0" --max-time 10 -H "$R3" >/dev/null
expect_status 204
http GET /api/jobs/1 >/dev/null
expect_status 200
[ "$(jq -r .state "$TMP/body")" = queued ] ||
	fail "job 1 is not queued while its files are prepared: $(cat "$TMP/body")"
http GET /api/rigs/r1 >/dev/null
tr -d ' \n' <"$TMP/body" | grep -q '"state":"idle"' ||
	fail "r1 is not idle while its job's files are prepared: $(cat "$TMP/body")"
ok "during the base image build: two polls parked past their wait, /api/health and r3's poll answered, the jobs queued"

# (2) the build ends: each parked poll gets its job ------------------------
: >"$TMP/fake/go"
wait $P1
wait $P2
for n in 1 2; do
	[ "$(cat "$TMP/code.$n")" = 200 ] ||
		fail "poll $n: HTTP $(cat "$TMP/code.$n"): $(cat "$TMP/next.$n")"
	[ "$(jq -r .job.id "$TMP/next.$n")" = "$n" ] ||
		fail "poll $n did not get job $n: $(cat "$TMP/next.$n")"
	[ "$(jq -r .job.release "$TMP/next.$n")" = 6.1.0-kx ] ||
		fail "job $n's release: $(cat "$TMP/next.$n")"
done
KS=$(sha256sum "$TMP/img-kx" | cut -c1-64)
IS=$(sha256sum "$TMP/fake/base.cpio.gz" | cut -c1-64)
[ "$(jq -r .job.kernel_sha256 "$TMP/next.1")" = "$KS" ] || fail "kernel_sha256 is not the image's"
[ "$(jq -r .job.initrd_sha256 "$TMP/next.1")" = "$IS" ] || fail "initrd_sha256 is not the base's (no modules part)"
K=$(jq -r .job.kernel_url "$TMP/next.1")
I=$(jq -r .job.initrd_url "$TMP/next.1")
[ "$(jq -r .job.kernel_url "$TMP/next.2")" = "$K" ] || fail "r2 got another kernel_url"
for r in "$R1" "$R2"; do
	get "$r" "$K"; expect_status 200
	cmp -s "$TMP/got" "$TMP/img-kx" || fail "a rig's kernel differs"
	get "$r" "$I"; expect_status 200
	cmp -s "$TMP/got" "$TMP/fake/base.cpio.gz" || fail "a rig's initramfs differs"
done
get "$R3" "$K"; expect_status 403
[ "$(wc -l <"$TMP/fake/base.runs")" -eq 1 ] ||
	fail "the base image was built $(wc -l <"$TMP/fake/base.runs") times"
n=$(grep -c "catalog: preparing the boot files of 'kx'" "$TMP/klabd.log")
[ "$n" -eq 1 ] || fail "kx's boot files were prepared $n times: $(grep catalog: "$TMP/klabd.log")"
expect_grep "catalog: boot files of 'kx' ready in" "$TMP/klabd.log"
ok "the parked polls got their jobs once the files were ready; base built once, kx prepared once; r3 refused its files"

# (3) files that cannot be made: the job fails (infra) as before ----------
kernel ky "$TMP/no-such-modules.cpio.gz"
queue ky r3
http GET "/api/agent/next?wait=2" --max-time 60 -H "$R3" >/dev/null
expect_status 500
expect_grep "cannot read the rig image parts of 'ky'"
http GET /api/jobs/3 >/dev/null
expect_grep '"failure": *"infra"'
ok "a kernel whose files cannot be made: its job handed out and failed (infra) naming why"

# (4) klabd restarts under r1's job: the poll waits for this run's files --
stop_klabd
: >"$TMP/klabd.log"
start_klabd --config "$TMP/klabd.conf"
curl -s -o "$TMP/next.4" -w '%{http_code}' --max-time 60 -H "$R1" \
	"$URL/api/agent/next?wait=1" >"$TMP/code.4"
[ "$(cat "$TMP/code.4")" = 200 ] ||
	fail "r1's poll after the restart: HTTP $(cat "$TMP/code.4"): $(cat "$TMP/next.4")"
[ "$(jq -r .job.id "$TMP/next.4")" = 1 ] || fail "r1 did not get job 1 again: $(cat "$TMP/next.4")"
[ "$(jq -r .job.initrd_sha256 "$TMP/next.4")" = "$IS" ] || fail "initrd_sha256 changed over the restart"
expect_grep "catalog: preparing the boot files of 'kx'" "$TMP/klabd.log"
get "$R1" "$K"; expect_status 200
ok "after a restart, the job in hand is answered once this klabd prepared its files"
stop_klabd
