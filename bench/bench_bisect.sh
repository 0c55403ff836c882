#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/bench_bisect.sh: steps, wall time and cells per step of a
# bisection over N = 8, 16 and 64 candidates (KLAB_BENCH_SIZES), against
# the ideal ceil(log2 N).  klabd's plain build runs the real driver and
# judge; the candidates are a Debian line of fake packages in a local
# archive (KLAB_DEBIAN_ARCHIVE, as t2030: fetched, never booted, so no
# build time is measured), and the measurements are SCRIPTED: this script
# is the agent of rig r1 and answers 80 MB/s for releases at or after the
# regressing one (the middle of the range + 1), 100 otherwise.  Steps
# counted: verify + bisection steps + confirm.  Reported, never asserted.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KLAB_BIN=${KLAB_BIN:-$TOP/build/bin}
. "$TOP/tests/lib.sh"
SIZES=${KLAB_BENCH_SIZES:-8 16 64}
for t in jq dpkg-deb; do
	command -v $t >/dev/null || fail "needs $t"
done
ARCH=$TMP/archive
mkdir -p "$ARCH"
mkdeb() { # N: linux-image-6.1.0-N-cloud-amd64, version 6.1.(100+N)
	rel=6.1.0-$1-cloud-amd64
	d=$TMP/deb-$1
	mkdir -p "$d/DEBIAN" "$d/boot" "$d/lib/modules/$rel/kernel"
	printf 'Package: linux-image-%s\nVersion: 6.1.%s-1\nArchitecture: amd64\nMaintainer: b <b@example.invalid>\nDescription: bench\n' \
		"$rel" $((100 + $1)) >"$d/DEBIAN/control"
	echo "not a kernel" >"$d/boot/vmlinuz-$rel"
	: >"$d/lib/modules/$rel/modules.order"
	: >"$d/lib/modules/$rel/modules.builtin"
	: >"$d/lib/modules/$rel/modules.builtin.modinfo"
	dpkg-deb --root-owner-group -Zgzip -b "$d" "$ARCH/linux-image-$rel.deb" >/dev/null
}
i=1
while [ $i -le 65 ]; do mkdeb $i; i=$((i + 1)); done
KLAB_DEBIAN_ARCHIVE=$ARCH KLAB_CACHE=$TMP/kcache
export KLAB_DEBIAN_ARCHIVE KLAB_CACHE
printf '[rig r1]\nkind = remote\ntoken = tok-r1-secret\nautostart = no\n' >"$TMP/klabd.conf"
start_klabd --config "$TMP/klabd.conf"
RT='Authorization: Bearer tok-r1-secret'
JSON='Content-Type: application/json'
http POST /api/agent/register -H "$RT" -H "$JSON" -d '{"kernel_release":"h","job":0}' >/dev/null
id=0
printf '%-4s %-6s %-6s %-8s %-7s %-10s %s\n' N ideal steps skipped cells cells/step wall_s
for n in $SIZES; do
	bad=$((101 + n)); reg=$((101 + n / 2 + 1))
	t0=$(date +%s)
	klab bisect --debian 6.1.101 6.1.$bad --rig r1 --suite tiobench \
		--metric tiobench.seq_read.rate --max-cells 3 --wait >"$TMP/out" 2>&1 &
	W=$!
	j=0
	while kill -0 $W 2>/dev/null; do
		http GET "/api/agent/next?wait=1" -H "$RT" >"$TMP/next"
		[ "$STATUS" = 200 ] || continue
		jid=$(jq -r .job.id "$TMP/next"); k=$(jq -r .job.kernel "$TMP/next")
		v=${k#6.1.}; r=100; [ "$v" -ge $reg ] && r=80
		printf '{"schema":"klab-results/1","results":[{"metric":"tiobench.seq_read.rate","unit":"MB/s","value":%s.%s,"direction":"higher"}]}\n' \
			$r $((j % 3)) >"$TMP/res.json"
		http POST "/api/agent/jobs/$jid/results" -H "$RT" -H "$JSON" --data-binary @"$TMP/res.json" >/dev/null
		j=$((j + 1))
	done
	wait $W
	t1=$(date +%s)
	id=$((id + 1))
	http GET "/api/bisections/$id" >/dev/null
	steps=$(jq '.steps | length' "$TMP/body")
	skips=$(jq '[.steps[] | select(.mark == "skip")] | length' "$TMP/body")
	cells=$(jq '[.steps[].cells] | add' "$TMP/body")
	ideal=0; p=1; while [ $p -lt "$n" ]; do p=$((p * 2)); ideal=$((ideal + 1)); done
	printf '%-4s %-6s %-6s %-8s %-7s %-10s %s\n' "$n" "$ideal+2" "$steps" "$skips" "$cells" \
		"$(awk -v c="$cells" -v s="$steps" 'BEGIN { printf "%.1f", c / s }')" $((t1 - t0))
	jq -e ".answer == $((reg - 101))" "$TMP/body" >/dev/null ||
		echo "  (answer $(jq .answer "$TMP/body"), expected $((reg - 101)): $(jq -r .outcome "$TMP/body"))"
done
stop_klabd
