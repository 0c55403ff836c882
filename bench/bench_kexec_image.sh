#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_kexec_image.sh: a kexec into the bzImage against a kexec into the
# kexec image (the same kernel decompressed, as klabd hands it out:
# docs/RIGS.md, "The kexec image"), alternating on one scsi QEMU rig, each
# timed on the host's clock.  The cold boot's reference is bench_lab.sh's
# (this rig's first boot carries both files in its initramfs).
#
#   bench/bench_kexec_image.sh [--rounds N] [--kernel 6.1|6.12|BZIMAGE]
#
# The rig cold-boots Debian's newest 6.1, copies both files of KERNEL to
# its boot-file cache disk, then kexecs 2N times, ELF and bzImage in
# turn, each with the same rig image; every kernel's test script prints
# its stage and kexecs the next.  A switch is timed from the line the old kernel prints before
# `kexec -e` to the new kernel's first test script line (both host
# time stamps, bench/lab_stamp.py), and split at its `Linux version`
# banner and `Run /init`; `kexec -l` is timed in the guest (uptime
# before and after).  BZIMAGE (a lab build's) boots with the 6.1 rig
# image: its drivers are built in.  Prints a Markdown report; load
# average before and after (a run is under load when either is over 1).
# Run it alone.  Needs qemu-system-x86_64 and a plain build (make all).
# not set -e: rig-lib.sh's cleanup (an EXIT trap) kills QEMU, which may be
# gone already
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
ROUNDS=4 KERNEL=6.1
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--kernel) KERNEL=$2; shift 2 ;;
	*) die "unknown option '$1' (--rounds N, --kernel 6.1|6.12|BZIMAGE)" ;;
	esac
done
case $ROUNDS in ''|*[!0-9]*|0) die "--rounds takes a count" ;; esac
# rig-lib's fail() and its cleanup of $WORK and QEMU
. "$TOP/tests/rig-lib.sh"
rig_setup bench-kexec-image
echo "bench_kexec_image: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

make -s -j2 all || die "make all failed"
bench_cc "$TOP/build" bench_kexec_elf || die "cannot build bench_kexec_elf"
fetch_kernel 6.1 "$WORK/k61.txt" >/dev/null
case $KERNEL in
6.1|6.12)
	fetch_kernel "$KERNEL" "$WORK/k.txt" >/dev/null
	BZ=$(record_get "$WORK/k.txt" vmlinuz)
	image=$(rig_image "$WORK/k.txt") ;;
*)
	[ -f "$KERNEL" ] || die "no kernel image '$KERNEL'"
	BZ=$KERNEL
	image=$(rig_image "$WORK/k61.txt") ;;
esac
"$TOP/kernels/kexec-image.sh" "$BZ" "$WORK/raw" || die "no kexec image of '$BZ'"
"$B/bench_kexec_elf" "$WORK/raw" "$WORK/elf" >/dev/null || die "no compact ELF"
rm -f "$WORK/raw"

# the stage script: stage I of 2N; even stages load the ELF next
N=$((2 * ROUNDS))
mkdir -p "$WORK/p/klab-test" "$WORK/p/kexec" "$WORK/q/klab-test"
cat >"$WORK/p/klab-test/stage.sh" <<EOS
i=\$(sed -n 's/.*klab.i=\([0-9]*\).*/\1/p' /proc/cmdline)
i=\${i:-0}
echo "B: stage \$i"
[ \$i -ge $N ] && poweroff -f
[ -d /kexec ] && { mkdir -p /cache/bki && cp /kexec/* /cache/bki/; }
if [ \$((i % 2)) -eq 0 ]; then
	set -- elf /cache/bki/elf --args-linux
else
	set -- bzImage /cache/bki/bz
fi
kind=\$1
shift
read -r u0 x </proc/uptime
kexec -l -i "\$@" --initrd=/cache/bki/initrd --command-line="console=ttyS0,115200 panic=-1 klab.init=shell klab.test=/klab-test/stage.sh klab.disks=1 klab.i=\$((i + 1))" ||
	{ echo "B: kexec -l \$kind failed"; poweroff -f; }
read -r u1 x </proc/uptime
echo "B: kexec -l \$kind \$u0 \$u1"
echo "B: kexec -e \$kind"
kexec -e -y
echo "B: kexec -e \$kind failed"
poweroff -f
EOS
chmod +x "$WORK/p/klab-test/stage.sh"
cp "$WORK/p/klab-test/stage.sh" "$WORK/q/klab-test/"
pack_dir "$WORK/q" "$WORK/q.cpio.gz"
cp "$BZ" "$WORK/p/kexec/bz"
mv "$WORK/elf" "$WORK/p/kexec/elf"
cat "$image" "$WORK/q.cpio.gz" >"$WORK/p/kexec/initrd" || die "no initrd"
pack_dir "$WORK/p" "$WORK/p.cpio.gz"
cat "$(rig_image "$WORK/k61.txt")" "$WORK/p.cpio.gz" >"$WORK/initrd" ||
	die "no initrd"
ELF_BYTES=$(stat -c %s "$WORK/p/kexec/elf")
BZ_BYTES=$(stat -c %s "$BZ")

mkdir -p "$WORK/rig"
con=$WORK/rig/console-1.log
: >"$con"
python3 "$TOP/bench/lab_stamp.py" consoles "$WORK/rig" 1800 >"$WORK/stamps" &
PIDS="$PIDS $!"
# shellcheck disable=SC2034 # boot_rig's (rig-lib.sh)
RIG_TIMEOUT=$((120 + 30 * N))
boot_rig "$con" --profile scsi --dir "$WORK/rig" --disk-size 64 \
	--memory 1024 --kernel "$(record_get "$WORK/k61.txt" vmlinuz)" \
	--initrd "$WORK/initrd" \
	--append "panic=-1 klab.init=shell klab.test=/klab-test/stage.sh klab.i=0" >/dev/null
sleep 1
echo "bench_kexec_image: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
n=$(grep -c 'B: stage' "$WORK/stamps" || true)
[ "$n" -eq $((N + 1)) ] || { tail -n 30 "$con"; die "$n of $((N + 1)) stages reached the console"; }

python3 - "$WORK/stamps" "$KERNEL" "$ELF_BYTES" "$BZ_BYTES" <<'PY'
import re, statistics, sys
stamps, kernel, elf_b, bz_b = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows, first, sw, load = [], True, None, {"elf": [], "bzImage": []}
for line in open(stamps, errors="replace"):
    t, _, text = line.rstrip("\r\n").split(" ", 2)
    rows.append((float(t), text.strip("\r")))
res = {"elf": [], "bzImage": []}
for t, text in rows:
    m = re.match(r"B: kexec -l (\S+) ([0-9.]+) ([0-9.]+)", text)
    if m:
        load[m.group(1)].append(float(m.group(3)) - float(m.group(2)))
        continue
    m = re.match(r"B: kexec -e (\S+)$", text)
    if m:
        sw = {"kind": m.group(1), "e": t}
        continue
    if sw and "Linux version" in text:
        sw["banner"] = t
    if sw and "Run /init" in text:
        sw["init"] = t
    if text.startswith("B: stage"):
        if first:
            first = False
        elif sw:
            res[sw["kind"]].append((sw["banner"] - sw["e"], sw["init"] - sw["banner"], t - sw["init"], t - sw["e"]))
        sw = None
med = lambda v: statistics.median(v) if v else float("nan")
print("\n### kexec image against bzImage, %s kernel (%d switches each)\n" % (kernel, len(res["elf"])))
print("Files: bzImage %.1f MB, kexec image %.1f MB.\n" % (bz_b / 1e6, elf_b / 1e6))
print("| kexec into | `kexec -l` s | `kexec -e` -> banner s | banner -> `/init` s | `/init` -> script s | switch s (min-max) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for k in ("bzImage", "elf"):
    v = res[k]
    print("| %s | %.2f | %.2f | %.2f | %.2f | **%.2f** (%.2f-%.2f) |" % (
        "kexec image (ELF)" if k == "elf" else "bzImage", med(load[k]),
        med([x[0] for x in v]), med([x[1] for x in v]), med([x[2] for x in v]),
        med([x[3] for x in v]), min(x[3] for x in v), max(x[3] for x in v)))
e, b = med([x[3] for x in res["elf"]]), med([x[3] for x in res["bzImage"]])
le, lb = med(load["elf"]), med(load["bzImage"])
print("\nSwitch, kexec image / bzImage (medians): **%.2f** (%+.2f s); with `kexec -l`: %.2f (%+.2f s)." % (e / b, e - b, (e + le) / (b + lb), e + le - b - lb))
PY
