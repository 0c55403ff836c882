#!/bin/sh
# SPDX-License-Identifier: MIT
# Tracking a Debian kernel line against a local package directory
# (KLAB_DEBIAN_ARCHIVE): tiny fake linux-image .deb packages made here
# with dpkg-deb (a vmlinuz file and a modules directory; they never boot).
#  (a) `klab track debian newest-6.1` checks at once: the line's newest
#      kernel enters the catalog and is queued on the rig;
#  (b) a package added to the archive is not seen before the politeness
#      interval (track_interval = 3 s here) has passed since the last
#      check; then it is fetched and queued with the previous kernel;
#  (c) the next check finds nothing new and queues nothing;
#  (d) `klab tracks` (table and --format json), `klab untrack`; bad
#      input is refused with the reason and stores nothing; a
#      track_interval under the minimum stops klabd at start.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v dpkg-deb >/dev/null || skip "no dpkg-deb"

ARCH=$TMP/archive
mkdir -p "$ARCH"
# mkdeb ABI UPSTREAM: linux-image-6.1.0-ABI-cloud-amd64, version UPSTREAM-1
mkdeb() {
	rel=6.1.0-$1-cloud-amd64
	d=$TMP/deb-$1
	mkdir -p "$d/DEBIAN" "$d/boot" "$d/lib/modules/$rel/kernel"
	cat >"$d/DEBIAN/control" <<CTL
Package: linux-image-$rel
Version: $2-1
Architecture: amd64
Maintainer: klab tests <tests@example.invalid>
Description: a fake kernel package for t2030
CTL
	echo "not a kernel $1" >"$d/boot/vmlinuz-$rel"
	: >"$d/lib/modules/$rel/modules.order"
	: >"$d/lib/modules/$rel/modules.builtin"
	: >"$d/lib/modules/$rel/modules.builtin.modinfo"
	dpkg-deb --root-owner-group -Zgzip -b "$d" \
		"$TMP/linux-image-$rel.deb" >/dev/null || fail "dpkg-deb -b $rel"
	# appear in the archive at once, as a mirror sync would
	mv "$TMP/linux-image-$rel.deb" "$ARCH/"
}
mkdeb 90 6.1.300

KLAB_DEBIAN_ARCHIVE=$ARCH
KLAB_CACHE=$TMP/cache
export KLAB_DEBIAN_ARCHIVE KLAB_CACHE
echo "track_interval = 3" >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"

# track_json: the track, as the API gives it
track_json() { http GET /api/tracks/1; }
wait_track() { # JQ-CONDITION SECONDS
	i=0
	while ! track_json | jq -e "$1" >/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && fail "track never got to '$1': $(track_json)"
		sleep 0.1
	done
}

# (d) bad input first: nothing stored
klab track debian newest-5.10 --rig default --suite tiobench 2>"$TMP/err" &&
	fail "an unknown line was accepted"
grep -q "unknown kernel line 'newest-5.10'" "$TMP/err" || fail "line error: $(cat "$TMP/err")"
klab track debian newest-6.1 --rig nosuch --suite tiobench 2>"$TMP/err" &&
	fail "an unknown rig was accepted"
grep -q "unknown rig 'nosuch'" "$TMP/err" || fail "rig error: $(cat "$TMP/err")"
klab track debian newest-6.1 --rig default --suite nosuch 2>"$TMP/err" &&
	fail "an unknown suite was accepted"
grep -q "unknown suite 'nosuch'" "$TMP/err" || fail "suite error: $(cat "$TMP/err")"
klab track fedora newest-6.1 --rig default --suite tiobench 2>"$TMP/err" &&
	fail "an unknown distribution was accepted"
http GET /api/tracks | jq -e '.tracks | length == 0' >/dev/null || fail "a refused track was stored"
ok "bad tracks refused, nothing stored"

# (a) the first check happens at once
id=$(klab track debian newest-6.1 --rig default --suite tiobench) || fail "klab track"
[ "$id" = 1 ] || fail "track id '$id'"
klab track debian newest-6.1 --rig default --suite tiobench 2>"$TMP/err" &&
	fail "the same track twice was accepted"
grep -q "tracked already" "$TMP/err" || fail "duplicate error: $(cat "$TMP/err")"
wait_track '.last_kernel == "6.1.300"' 20
t1=$(track_json | jq .last_check)
http GET /api/kernels/6.1.300 | jq -e '.source == "debian"' >/dev/null ||
	fail "6.1.300 not in the catalog: $(cat "$TMP/body")"
http GET '/api/jobs?rig=default' >/dev/null
jq -e '[.jobs[] | select(.kernel == "6.1.300" and .suite == "tiobench")] | length == 1' \
	"$TMP/body" >/dev/null || fail "6.1.300 not queued: $(cat "$TMP/body")"
track_json | jq -e '.jobs == 1 and .checks == 1 and .last_error == ""' >/dev/null ||
	fail "track after the first check: $(track_json)"
ok "first check: 6.1.300 in the catalog and queued"

# (b) a new package; not looked at before the interval has passed
mkdeb 91 6.1.301
sleep 1
track_json | jq -e '.checks == 1 and .last_kernel == "6.1.300"' >/dev/null ||
	fail "the archive was checked again within the interval: $(track_json)"
http GET /api/kernels/6.1.301 >/dev/null
[ "$STATUS" = 404 ] || fail "6.1.301 fetched within the interval"
wait_track '.last_kernel == "6.1.301"' 20
t2=$(track_json | jq .last_check)
[ $((t2 - t1)) -ge 3 ] || fail "checks $t1 and $t2 closer than the interval"
http GET /api/kernels/6.1.301 | jq -e '.source == "debian"' >/dev/null ||
	fail "6.1.301 not in the catalog"
http GET '/api/jobs?rig=default' >/dev/null
jq -e '[.jobs[] | select(.kernel == "6.1.301")] | length == 1' "$TMP/body" >/dev/null ||
	fail "6.1.301 not queued: $(cat "$TMP/body")"
jq -e '[.jobs[] | select(.kernel == "6.1.300")] | length == 2' "$TMP/body" >/dev/null ||
	fail "the previous kernel not queued beside it: $(cat "$TMP/body")"
track_json | jq -e '.jobs == 3' >/dev/null || fail "track jobs: $(track_json)"
ok "new package after $((t2 - t1)) s: fetched, queued with the previous one"

# (c) the next check: nothing new
wait_track '.checks >= 3' 20
http GET '/api/jobs?rig=default' | jq -e '.jobs | length == 3' >/dev/null ||
	fail "a check with nothing new queued jobs: $(cat "$TMP/body")"
track_json | jq -e '.jobs == 3 and .last_kernel == "6.1.301"' >/dev/null ||
	fail "track after a quiet check: $(track_json)"
ok "a quiet check does nothing"

# (d) the list, as a table and as JSON; untrack
klab tracks >"$TMP/out" || fail "klab tracks"
grep -q "^ID" "$TMP/out" && grep -q "newest-6.1" "$TMP/out" &&
	grep -q "6.1.301" "$TMP/out" || fail "klab tracks: $(cat "$TMP/out")"
klab tracks --format json | jq -e '.tracks[0].line == "newest-6.1"' >/dev/null ||
	fail "klab tracks --format json"
klab untrack 1 >/dev/null || fail "klab untrack 1"
klab untrack 1 2>"$TMP/err" && fail "untrack of a gone track succeeded"
grep -q "no track 1" "$TMP/err" || fail "untrack error: $(cat "$TMP/err")"
http GET /api/tracks | jq -e '.tracks | length == 0' >/dev/null || fail "track 1 still listed"
HTTP_NOAUTH=1 http DELETE /api/tracks/2 >/dev/null
[ "$STATUS" = 401 ] || [ "$STATUS" = 403 ] || fail "anonymous DELETE answered $STATUS"
ok "klab tracks, untrack"
stop_klabd

echo "track_interval = 1" >"$TMP/klabd.conf"
"$KLAB_BIN/klabd" --listen 127.0.0.1:0 --db "$TMP/klab.db" --data-dir "$TMP/data" \
	--config "$TMP/klabd.conf" >"$TMP/bad.log" 2>&1 && fail "klabd started with track_interval = 1"
grep -q "track_interval: expected 2..604800" "$TMP/bad.log" || fail "bad interval: $(cat "$TMP/bad.log")"
ok "track_interval under the minimum refused"
