#!/bin/sh
# SPDX-License-Identifier: MIT
# t3001: a scsi rig cold-boots the newest Debian 6.1 cloud kernel with the
# klab rig image.  The guest's test script prints the kernel release, its
# disks and their schedulers, runs the tools the image carries (so their
# shared libraries are all there; fio's engines of the suites run, one
# whose library the image carries as a stub says so), fetches a page from a loopback HTTP
# server on the host through the guestfwd at 10.0.2.100, checks that the
# host is otherwise unreachable (restrict=on) and powers off.  Also: a
# second fetch of the same kernel package is a no-op, and a package the
# archive does not have gives a clear error.
. "$(dirname "$0")/rig-lib.sh"
rig_setup t3001

rec=$WORK/k61.txt
fetch_kernel 6.1 "$rec"
vmlinuz=$(record_get "$rec" vmlinuz)
before=$(stat -c '%i %Y' "$vmlinuz" "$(record_get "$rec" root)/klab-kernel.txt")
"$KERNELS/debian-kernels.sh" fetch "$(record_get "$rec" package)" >"$WORK/again.txt" ||
	fail "second fetch failed"
cmp -s "$rec" "$WORK/again.txt" || fail "second fetch printed another record"
after=$(stat -c '%i %Y' "$vmlinuz" "$(record_get "$rec" root)/klab-kernel.txt")
[ "$before" = "$after" ] || fail "second fetch of the same package unpacked it again"
echo "ok: second fetch is a no-op"
if "$KERNELS/debian-kernels.sh" fetch linux-image-6.1.0-1-cloud-amd64 2>"$WORK/err"; then
	fail "fetching a package the archive does not have succeeded"
fi
grep -q "kernel package 'linux-image-6.1.0-1-cloud-amd64' is not in the archive" "$WORK/err" ||
	fail "unclear error for a missing package: $(cat "$WORK/err")"
echo "ok: missing package error"

# a one-page HTTP server on the host loopback, logging the requests
nonce=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
cat >"$WORK/http.sh" <<EOF
read -r line
echo "\$line" >>"$WORK/requests.log"
cr=\$(printf '\r')
while read -r h; do
	case \$h in ''|"\$cr") break ;; esac
done
printf 'HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nklab-t3001 $nonce\n'
EOF
port=$((20000 + $$ % 20000))
for try in 1 2 3 4 5; do
	socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "EXEC:sh $WORK/http.sh" 2>"$WORK/socat.err" &
	spid=$!
	sleep 0.3
	kill -0 "$spid" 2>/dev/null && break
	port=$((port + 1))
done
kill -0 "$spid" 2>/dev/null || fail "cannot start the loopback http server: $(cat "$WORK/socat.err")"
PIDS="$PIDS $spid"
echo "http server on 127.0.0.1:$port"

mkdir -p "$WORK/part/klab-test"
cat >"$WORK/part/klab-test/t3001.sh" <<EOF
echo "T: uname=\$(uname -r)"
for d in /sys/block/sd* /sys/block/vd*; do
	[ "\$(cat \$d/serial 2>/dev/null)" = klab-cache ] && { echo "T: cache disk \${d##*/}"; continue; }
	[ -e "\$d" ] && echo "T: disk \${d##*/} \$(cat \$d/queue/scheduler)"
done
echo "T: http=\$(timeout 20 wget -q -O - http://10.0.2.100:$port/t3001-$nonce)"
timeout 3 wget -q -O - http://10.0.2.2:$port/escape >/dev/null 2>&1 && echo "T: gateway=open" || echo "T: gateway=blocked"
echo "T: fio=\$(fio --version)"
# the engines a suite uses run; one of a stubbed library says so
# (kernels/mkinitramfs.sh, add_fio)
for e in psync libaio io_uring; do
	fio --name=t --filename=/tmp/fio.dat --size=1m --bs=4k --rw=randread \
		--ioengine=\$e --number_ios=64 --output-format=terse >/tmp/fio.out 2>&1 &&
		echo "T: fio \$e ok"
done
fio --name=t --filename=/tmp/fio.dat --size=1m --ioengine=rbd 2>&1 | grep -q 'librados.so.2 is a stub' &&
	echo "T: fio rbd stubbed"
echo "T: kexec=\$(kexec --version)"
echo "T: dbench=\$(dbench --help 2>&1 | head -n 1)"
echo "T: loadfile=\$(wc -c </usr/share/dbench/client.txt)"
for p in klab-agent tiotest rio iops klab-run; do
	[ -x /bin/\$p ] && echo "T: has \$p"
done
poweroff -f
EOF
image=$(rig_image "$rec")
pack_dir "$WORK/part" "$WORK/part.cpio.gz"
cat "$image" "$WORK/part.cpio.gz" >"$WORK/initrd"

con=$WORK/console.log
boot_rig "$con" --profile scsi --dir "$WORK/rig" --disk-size 64 --port "$port" \
	--kernel "$vmlinuz" --initrd "$WORK/initrd" \
	--append "panic=-1 klab.init=shell klab.test=/klab-test/t3001.sh"
grep '^T: ' "$con"
rel=$(record_get "$rec" version)
expect "$con" "^\[ *[0-9.]+\] Linux version $rel " "boot banner of $rel"
expect "$con" "^T: uname=$rel" "uname -r is $rel"
expect "$con" '^T: disk sda .*\[mq-deadline\]' "sda with mq-deadline"
[ "$(grep -c '^T: disk ' "$con")" -eq 1 ] || fail "scsi rig does not see exactly one disk"
expect "$con" '^T: cache disk vda' "the boot-file cache disk, apart from the test disks"
expect "$con" '^klab-init: boot-file cache /cache \(/dev/vda\)' "the boot-file cache mounted"
expect "$con" "^T: http=klab-t3001 $nonce" "guest fetched the page from the host"
grep -q "^GET /t3001-$nonce " "$WORK/requests.log" || fail "the http server saw no request"
expect "$con" '^T: gateway=blocked' "restrict=on keeps the host gateway closed"
expect "$con" '^T: fio=fio-3' "fio runs in the guest"
for e in psync libaio io_uring; do
	expect "$con" "^T: fio $e ok" "fio's $e engine runs in the guest"
done
expect "$con" '^T: fio rbd stubbed' "an engine of a stubbed library names the stub"
expect "$con" '^T: kexec=kexec-tools' "kexec runs in the guest"
expect "$con" '^T: dbench=dbench version' "dbench runs in the guest"
expect "$con" "^T: loadfile=$(wc -c </usr/share/dbench/client.txt)\$" "dbench loadfile"
echo "t3001 passed"
